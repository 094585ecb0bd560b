"""Inferred supersession: a plain-text memory that states a change retires the earlier memory it is about.

A derived pass after the write, like inferred causes (:mod:`kgmem.derived.causal`): for every new plain-text
record that could state a change (:attr:`~kgmem.derived.change_cues.Cues.changes`: a stop, a switch, a
correction, a new value, an implication), and for every new record that arrived after a newer one was stored,
its nearest records of the same tenant and user (by the memory's vector) are paired, each pair oriented by
valid time (newer, older), and scored by a logistic model over the pair's features (:func:`pair_features`:
how alike the two are, the newer one's change and no-change cues, negation that flips, a new value of the
same kind, who each is about, the implications table). A pair at or above the model's threshold gets

    (newer)-[:SUPERSEDES {inferred: true, confidence, by: "model", transform, cue}]->(older)

so an older memory that arrives late is slotted in as history and never retires a newer one. Explicit
SUPERSEDES (a slot's version chain) are never touched. Everything here can be dropped and recomputed from
the records (:func:`rebuild`); a memory the pass has read carries its mark (``supersession``), so an ingest
re-run after a crash between the write and this pass completes it (:func:`unchecked`).

The model (``kgmem/data/supersession.json``) is fitted by ``scripts/fit_supersession.py`` with scikit-learn
on data whose licence allows it (the CC0 updates-dev set and kgmem's own fixtures), cross-validated by case;
at run time scoring is a dot product. Recall reads the edges: :mod:`kgmem.query.recall` ranks a memory
below the newer memory that retired it when the question is about the present (or as of a time after it).
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping, Sequence

from ..config import IN_MEMORY_PAIRS_MAX
from ..results import cosine
from ..store import Store
from .change_cues import (
    IMPLICATIONS_VERSION,
    Cues,
    cues,
    implication_triggers,
    implied_retirements,
    keeps_without_change,
    nearest_sentence,
    qualifiers,
    someone_else,
)

TRANSFORM_VERSION = "supersession/v2"  # v2: vetoes (two people, a question, tentative) and rules beside the model
MODEL_FILE = "supersession.json"
NEIGHBOURS = 8  # nearest records each memory is paired with
FETCH = 200  # index rows read per memory on 5.26 (no in-index tenant filter) to keep NEIGHBOURS of the tenant
FETCH_FILTERED = 4 * NEIGHBOURS  # on 2026.x the index filters by tenant: a few spare rows for non-record memories
BATCH = 500  # memories per neighbour statement

FEATURES = (
    "cosine",
    "rank_of_older",
    "rank_of_newer",
    "mutual_nearest",
    "stop",
    "switch",
    "correction",
    "change_x_cosine",
    "still",
    "hypothetical",
    "temporary",
    "question",
    "negation_flip",
    "same_value_kind",
    "new_number",
    "shared_value_noun",
    "shared_role",
    "entity_overlap",
    "new_names",
    "other_person",
    "both_first_person",
    "implication",
    "word_overlap",
    "clause_overlap",
    "stopped_topic",
    "still_only",
    "older_changes",
    "log_gap_days",
    "same_stream",
    "same_subject",
    "other_subject",
    "negates_older",
    "replaced_value",
    "kept_in_clause",
    "someone_else",
    "qualifier_conflict",
    "older_other_person",
    "tentative",
)


@dataclass(frozen=True)
class Side:
    """One memory of a pair: what the features read."""

    id: str
    text: str
    at: dt.datetime
    mentions: frozenset[str]
    stream: str | None
    cues: Cues
    user: str | None = None


@dataclass(frozen=True)
class Pair:
    newer: Side
    older: Side
    cosine: float  # between the two memories' vectors
    rank_of_older: int = 1  # the older's place among the newer's earlier candidates, by cosine (1 = nearest)
    rank_of_newer: int = 1  # the newer's place among the older's later candidates


def pair_features(pair: Pair) -> dict[str, float]:
    """The features of one (newer, older) pair (pure)."""
    n, o = pair.newer, pair.older
    nc, oc = n.cues, o.cues
    change = nc.stop + nc.switch + nc.correction > 0
    names_n, names_o = n.mentions, o.mentions
    union = names_n | names_o
    words_n, words_o = nc.words, oc.words
    gap = max(0.0, (n.at - o.at).total_seconds() / 86400)
    return {
        "cosine": pair.cosine,
        "rank_of_older": 1.0 / max(1, pair.rank_of_older),
        "rank_of_newer": 1.0 / max(1, pair.rank_of_newer),
        "mutual_nearest": 1.0 if pair.rank_of_older == 1 and pair.rank_of_newer == 1 else 0.0,
        "stop": float(min(nc.stop, 2)),
        "switch": float(min(nc.switch, 3)),
        "correction": float(min(nc.correction, 2)),
        "change_x_cosine": pair.cosine if change else 0.0,
        "still": float(min(nc.still, 2)),
        "hypothetical": float(min(nc.hypothetical, 2)),
        "temporary": float(min(nc.temporary, 2)),
        "question": 1.0 if nc.question else 0.0,
        "negation_flip": 1.0 if (nc.negation > 0) != (oc.negation > 0) else 0.0,
        "same_value_kind": 1.0 if nc.values & oc.values else 0.0,
        "new_number": 1.0 if (nc.values & oc.values) and (nc.numbers - oc.numbers) else 0.0,
        "shared_value_noun": 1.0 if nc.value_nouns & oc.value_nouns else 0.0,
        "shared_role": 1.0 if nc.role_nouns and oc.role_nouns else 0.0,
        "entity_overlap": len(names_n & names_o) / len(union) if union else 0.0,
        "new_names": min(len(names_n - names_o), 3) / 3,
        "other_person": 1.0 if nc.other_person and not oc.other_person else 0.0,
        "both_first_person": 1.0 if nc.first_person and oc.first_person else 0.0,
        "implication": 1.0 if implied_retirements(n.text, o.text) else 0.0,
        "word_overlap": len(words_n & words_o) / len(words_n | words_o) if words_n | words_o else 0.0,
        "clause_overlap": len(nc.clause_words & words_o) / len(nc.clause_words) if nc.clause_words else 0.0,
        "stopped_topic": 1.0 if nc.stopped_topics & oc.topics else 0.0,
        "still_only": 1.0 if nc.still and not change else 0.0,
        "older_changes": 1.0 if oc.stop + oc.switch + oc.correction > 0 else 0.0,
        "log_gap_days": math.log1p(gap),
        "same_stream": 1.0 if n.stream is not None and n.stream == o.stream else 0.0,
        "same_subject": 1.0 if nc.subject is not None and nc.subject == oc.subject else 0.0,
        "other_subject": 1.0 if None not in (nc.subject, oc.subject) and nc.subject != oc.subject else 0.0,
        "negates_older": 1.0 if nc.negated & (oc.tokens - nc.affirmed) else 0.0,
        "someone_else": 1.0 if someone_else(nc.subject, oc.subject) else 0.0,
        "qualifier_conflict": 1.0 if _conflict(n.text, o.text, nc.value_nouns & oc.value_nouns) else 0.0,
        "older_other_person": 1.0 if oc.other_person else 0.0,
        "tentative": float(min(nc.tentative, 2)),
        "kept_in_clause": 1.0 if keeps_without_change(nearest_sentence(n.text, words_o)) else 0.0,
        "replaced_value": 1.0 if (nc.numbers - oc.numbers) and (oc.numbers - nc.numbers) and words_n & words_o else 0.0,
    }


def _conflict(newer: str, older: str, nouns: frozenset[str]) -> bool:
    """A value noun both use, qualified differently ("search p99" / "checkout p99"): two slots, not one."""
    qn, qo = qualifiers(newer, nouns), qualifiers(older, nouns)
    return any(qn[k] != qo[k] for k in qn.keys() & qo.keys())


RULE_CONFIDENCE = 0.9  # the confidence written on a link by rule (a correction, an implication): set, not fitted


def decide(
    model: PairModel, values: dict[str, float], threshold: float | None = None, *, probability: float | None = None
) -> tuple[float, str, str] | None:
    """Whether a pair is linked: (confidence, ``"model"`` or ``"rule"``, which rule or ``""``). Used by the pass
    and by the fit alike.

    Never when the two are about different people (:func:`~kgmem.derived.change_cues.someone_else`: "my sister
    doesn't like pistachio anymore" retires nothing of mine), when the newer is a question or tentative ("should
    I quit?", "thinking about moving": no positive of the training data is either; a decided future such as
    "Aunt Rosa will take him" may be a change), or when its sentence about the older's topic keeps it as it was
    and corrects nothing ("… still a cortado girl"). Else by the model at or above its threshold; else by rule:
    a correction that negates a word of the older ("correction: the 21st, not the 14th"), or the implications
    table (a diet, sobriety, a sale: :data:`~kgmem.derived.change_cues.IMPLICATIONS`) when the newer is no
    temporary arrangement and the older is not about someone else."""
    if values.get("someone_else") or values.get("question") or values.get("tentative"):
        return None
    if values.get("kept_in_clause") and not values.get("correction"):
        return None
    p = model.probability(values) if probability is None else probability
    if p >= (model.threshold if threshold is None else threshold):
        return p, "model", ""
    if values.get("correction") and values.get("negates_older"):  # "correction: the 21st, not the 14th"
        return max(p, RULE_CONFIDENCE), "rule", "correction"
    if values.get("implication") and not values.get("older_other_person") and not values.get("temporary"):
        return max(p, RULE_CONFIDENCE), "rule", "implication"
    return None


# ---------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class PairModel:
    """Logistic regression over :data:`FEATURES` (standardised), with its threshold and provenance."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    data_version: str
    trained_on: str
    held_out: dict[str, Any]
    chain_weight: float = 1.0  # recall's currency step (kgmem.query.currency.retire), chosen with the model

    def probability(self, values: dict[str, float]) -> float:
        return self.probabilities([values])[0]

    def probabilities(self, rows: Sequence[dict[str, float]]) -> list[float]:
        """:meth:`probability` of many feature rows at once (one matrix product)."""
        import numpy as np

        if not rows:
            return []
        x = np.array([[r.get(name, 0.0) for name in self.features] for r in rows], dtype=np.float64)
        scale = np.array([sd or 1.0 for sd in self.scale])
        z = self.intercept + ((x - np.array(self.mean)) / scale) @ np.array(self.coef)
        return [float(v) for v in 1.0 / (1.0 + np.exp(-np.clip(z, -60.0, 60.0)))]

    def contributions(self, values: dict[str, float]) -> dict[str, float]:
        """Each feature's share of the log-odds (for ``--explain``)."""
        return {
            name: w * (values.get(name, 0.0) - mu) / (sd or 1.0)
            for name, mu, sd, w in zip(self.features, self.mean, self.scale, self.coef)
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "transform": TRANSFORM_VERSION,
            "implications": IMPLICATIONS_VERSION,
            "features": list(self.features),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "intercept": self.intercept,
            "threshold": self.threshold,
            "data_version": self.data_version,
            "trained_on": self.trained_on,
            "held_out": self.held_out,
            "chain_weight": self.chain_weight,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PairModel:
        if tuple(d["features"]) != FEATURES:
            raise ValueError(f"supersession model features {d['features']} are not kgmem's {list(FEATURES)}")
        return cls(
            tuple(d["features"]),
            tuple(d["mean"]),
            tuple(d["scale"]),
            tuple(d["coef"]),
            float(d["intercept"]),
            float(d["threshold"]),
            str(d["data_version"]),
            str(d["trained_on"]),
            dict(d.get("held_out") or {}),
            float(d.get("chain_weight", 1.0)),
        )


@lru_cache(maxsize=1)
def shipped() -> PairModel | None:
    """The model shipped in ``kgmem/data/supersession.json`` (None when absent: no links are inferred)."""
    try:
        text = resources.files("kgmem").joinpath("data", MODEL_FILE).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return None
    return PairModel.from_dict(json.loads(text))


# ---------------------------------------------------------------------------- candidates from the graph


def _read_sides(store: Store, tenant: str, ids: Sequence[str]) -> dict[str, Side]:
    """The records ``ids`` as pair sides."""
    out: dict[str, Side] = {}
    for i in range(0, len(ids), 5000):
        for row in store.read("derived/supersession_sources", tenant=tenant, ids=list(ids[i : i + 5000])):
            out[row["id"]] = _side(row)
    return out


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def _side(row: dict[str, Any]) -> Side:
    return Side(
        row["id"],
        row["text"],
        _EPOCH + dt.timedelta(milliseconds=row["at_ms"]),
        frozenset(row.get("mentions") or ()),
        row.get("stream"),
        cues(row["text"]),
        row.get("user"),
    )


def newest_outside(store: Store, tenant: str, ids: Sequence[str]) -> dt.datetime | None:
    """The valid time of the tenant's newest record outside ``ids`` (None when it holds none)."""
    unique = sorted(set(ids))
    rows = store.read("derived/newest_records", tenant=tenant, ids=unique, limit=len(unique) + 1)
    latest: dt.datetime | None = rows[0]["latest"] if rows else None
    return latest


def _near_by_index(store: Store, tenant: str, search: Sequence[str], k: int) -> dict[str, list[tuple[str, float]]]:
    """Each memory's ``k`` nearest records of the tenant by the vector index (normalised scores)."""
    near_of: dict[str, list[tuple[str, float]]] = {}
    fetch = max(FETCH_FILTERED, 4 * k) if store.server_info().filtered_vector_search else FETCH
    for i in range(0, len(search), BATCH):
        for row in store.read(
            "derived/supersession_neighbors", tenant=tenant, ids=list(search[i : i + BATCH]), k=k, fetch=fetch
        ):
            near_of[row["id"]] = [(n["id"], n["score"]) for n in row["near"]]
    return near_of


def top_k(scores: Any, k: int, block: int = 64) -> Any:
    """The column indices of each row's ``k`` highest scores (in no order), for 0 < ``k`` < the columns: the
    ``k`` blocks of ``block`` columns with the highest maxima hold them, so only those are partitioned."""
    import numpy as np

    rows, cols = scores.shape
    if cols <= block * k:
        return np.argpartition(scores, -k, axis=1)[:, -k:]
    pad = (-cols) % block
    blocks = np.pad(scores, ((0, 0), (0, pad)), constant_values=-np.inf).reshape(rows, -1, block)
    best = np.argpartition(blocks.max(axis=2), -k, axis=1)[:, -k:]
    held = np.take_along_axis(blocks, best[:, :, None], axis=1).reshape(rows, -1)
    where = (best[:, :, None] * block + np.arange(block)).reshape(rows, -1)
    return np.take_along_axis(where, np.argpartition(held, -k, axis=1)[:, -k:], axis=1)


def _near_in_memory(
    store: Store,
    tenant: str,
    sides: dict[str, Side],
    search: Sequence[str],
    k: int,
    vectors: Mapping[str, Any] | None,
) -> dict[str, list[tuple[str, float]]]:
    """Each memory's ``k`` nearest of ``sides`` (the same user), exactly, by a matrix product: what the vector
    index would answer when the tenant holds no other record, without a query per memory. The vectors come from
    the write that stored them (``vectors``), else from the graph."""
    import numpy as np

    have = {i: vectors[i] for i in sides if vectors is not None and i in vectors}
    missing = [i for i in sides if i not in have]
    for i in range(0, len(missing), 5000):
        for row in store.read("derived/supersession_vectors", tenant=tenant, ids=missing[i : i + 5000]):
            have[row["id"]] = row["embedding"]
    wanted = set(search)
    by_user: dict[str | None, list[str]] = {}
    for mid in sorted(have):
        by_user.setdefault(sides[mid].user, []).append(mid)
    near_of: dict[str, list[tuple[str, float]]] = {}
    for members in by_user.values():
        matrix = np.asarray([have[m] for m in members], dtype=np.float32)
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
        rows = [r for r, m in enumerate(members) if m in wanted]
        take = min(k, len(members) - 1)
        if take <= 0:
            continue  # a user with one record: nothing to pair it with
        step = max(1, min(1024, (1 << 25) // max(1, len(members))))  # about 128 MB of scores at a time
        for start in range(0, len(rows), step):
            chunk = rows[start : start + step]
            sims = matrix[chunk] @ matrix.T
            sims[np.arange(len(chunk)), chunk] = -np.inf  # not itself
            top = top_k(sims, take)
            for j, r in enumerate(chunk):
                # the index's order: score descending, then id (members are sorted by id)
                ranked = sorted(((float(sims[j, c]), int(c)) for c in top[j] if c != r), key=lambda t: (-t[0], t[1]))
                near_of[members[r]] = [(members[c], (1.0 + cos) / 2.0) for cos, c in ranked]
    return near_of


def candidate_pairs(
    store: Store,
    tenant: str,
    ids: Sequence[str],
    *,
    k: int = NEIGHBOURS,
    vectors: Mapping[str, Any] | None = None,
) -> list[Pair]:
    """The (newer, older) pairs the pass scores for the records ``ids``: each memory that could state a change
    (or that is older than a record already stored) with its ``k`` nearest records; the newer side of a pair
    must be able to state a change. Each pair once, at the better of its ranks.

    When the tenant holds no record outside ``ids`` (a first load, a rebuild), the neighbours are found among
    ``ids`` by a matrix product over their vectors (``vectors``, {id: vector}, from the write; else read), which
    is exact and costs no query per memory; otherwise the vector index is asked. The neighbour statement
    returns ids and scores only; a neighbour outside ``ids`` is read once, whatever the number of memories it
    is near."""
    sides = _read_sides(store, tenant, ids)
    latest = newest_outside(store, tenant, ids)
    search = [i for i, side in sides.items() if side.cues.changes or (latest is not None and side.at < latest)]
    if latest is None and len(sides) <= IN_MEMORY_PAIRS_MAX:
        near_of = _near_in_memory(store, tenant, sides, search, k, vectors)
    else:
        near_of = _near_by_index(store, tenant, search, k)
    missing = sorted({n for near in near_of.values() for n, _ in near} - set(sides))
    sides |= _read_sides(store, tenant, missing)
    found: dict[tuple[str, str], tuple[Side, Side, float]] = {}
    for sid, near in near_of.items():
        src = sides[sid]
        for nid, score_ in near:
            other = sides.get(nid)
            if other is None or other.at == src.at:
                continue  # gone meanwhile, or no order to read a change from
            newer, older = (src, other) if src.at > other.at else (other, src)
            if newer.cues.changes:
                sim = cosine(score_)
                found[(newer.id, older.id)] = (newer, older, sim if sim is not None else 0.0)
    return ranked_pairs(found)


def ranked_pairs(found: dict[tuple[str, str], tuple[Side, Side, float]]) -> list[Pair]:
    """Pairs with each side's place among the other's candidates of its direction in time (pure)."""
    earlier: dict[str, list[tuple[float, str]]] = {}
    later: dict[str, list[tuple[float, str]]] = {}
    for (n, o), (_, _, sim) in found.items():
        earlier.setdefault(n, []).append((-sim, o))
        later.setdefault(o, []).append((-sim, n))
    rank_e = {n: {m: i + 1 for i, (_, m) in enumerate(sorted(v))} for n, v in earlier.items()}
    rank_l = {o: {m: i + 1 for i, (_, m) in enumerate(sorted(v))} for o, v in later.items()}
    out = [Pair(newer, older, sim, rank_e[n][o], rank_l[o][n]) for (n, o), (newer, older, sim) in sorted(found.items())]
    return out


def score(pairs: Sequence[Pair], model: PairModel) -> list[dict[str, Any]]:
    """Links for the pairs whose probability reaches the model's threshold, strongest first."""
    links: list[dict[str, Any]] = []
    rows = [pair_features(pair) for pair in pairs]
    for pair, values, p in zip(pairs, rows, model.probabilities(rows)):
        linked = decide(model, values, probability=p)
        if linked is not None:
            p, by, rule = linked
            c = pair.newer.cues
            said = {
                "implication": implication_triggers(c),
                "correction": tuple(m for m in c.matched if m.startswith("correction:")),
            }.get(rule, c.matched)
            cue = ", ".join(said[:4]) or "-"
            links.append(
                {"newer": pair.newer.id, "older": pair.older.id, "confidence": round(p, 4), "by": by, "cue": cue}
            )
    links.sort(key=lambda link: (-link["confidence"], link["newer"], link["older"]))
    return links


def infer(
    store: Store,
    tenant: str,
    ids: Sequence[str],
    model: PairModel | None = None,
    vectors: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The inferred SUPERSEDES links for the records ``ids`` (not written); ``vectors`` as for
    :func:`candidate_pairs`."""
    model = model or shipped()
    if model is None or not ids:
        return []
    return score(candidate_pairs(store, tenant, ids, vectors=vectors), model)


def write(store: Store, tenant: str, links: list[dict[str, Any]], checked: Sequence[str]) -> int:
    """Write the links and mark ``checked`` as read by this version of the pass (one transaction)."""
    if not links and not checked:
        return 0
    created: int = store.write_tx(
        lambda tx: tx.run(
            "derived/link_supersedes", tenant=tenant, links=links, transform=TRANSFORM_VERSION, checked=list(checked)
        )[0]["created"]
    )
    return created


def run(
    store: Store,
    tenant: str,
    ids: Sequence[str],
    model: PairModel | None = None,
    vectors: Mapping[str, Any] | None = None,
) -> int:
    """Infer (with ``model``, else the shipped one) and write the links of the records ``ids``; returns how many
    edges were created. ``vectors`` ({id: vector}, from the write) spares reading them back."""
    links = infer(store, tenant, ids, model, vectors)
    return write(store, tenant, links, ids)


def unchecked(store: Store, tenant: str, ids: Sequence[str]) -> list[str]:
    """Of ``ids``, the records this version of the pass has not read (a run killed after its write)."""
    out: list[str] = []
    for i in range(0, len(ids), 5000):
        out += [
            r["id"]
            for r in store.read(
                "derived/unchecked_ids", tenant=tenant, ids=list(ids[i : i + 5000]), transform=TRANSFORM_VERSION
            )
        ]
    return out


def rebuild(store: Store, tenant: str) -> dict[str, Any]:
    """Drop every inferred SUPERSEDES link of the tenant and infer them again from the records."""
    removed = store.write("derived/drop_inferred_supersedes", tenant=tenant, ids=None)[0]["removed"]
    ids = [r["id"] for r in store.read("derived/memory_ids", tenant=tenant)]
    links = infer(store, tenant, ids)
    return {"removed": removed, "inferred": write(store, tenant, links, ids), "links": links}
