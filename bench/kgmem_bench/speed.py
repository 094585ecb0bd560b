"""Suite ``speed``: ingest throughput against embedding-only (sentence-transformers' own ``encode`` and kgmem's
ONNX embedder over the same texts), and recall / why / as-of latency against the floor (query embedding +
numpy brute-force top-k over the same vectors), all measured in the same run and reported as ratios; beside
them what the stream-context channels cost (recall with the three base channels only, and the context
rebuild). Sizes: 10k and 100k memories (``--quick``: 2k); set ``KGMEM_BENCH_SIZES=10000,100000,1000000``
for other sizes.
"""

from __future__ import annotations

import gc
import os
import resource
import time
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from kgmem.derived import causal
from kgmem.derived import context as context_layer
from kgmem.embed import Embedder
from kgmem.query import execute
from kgmem.query.filters import build_filters
from kgmem.query.question import Question
from kgmem.query.recall import DEFAULT_CHANNELS, RecallOptions
from kgmem.store.rules import KEYWORD_INDEXES, VECTOR_INDEXES

from .corpus import generate
from .runner import BenchContext, suite

K = 10
CONTEXT_CHANNELS = ("context_vector", "wide_vector", "context_keyword", "window_keyword")  # the derived ones
LATENCY_QUERIES = 200
LATENCY_QUERIES_QUICK = 30
SMALL_TENANT = 1_000  # the small tenant measured alone and beside each big one
SMALL_QUESTIONS = 50
PROFILE_QUERIES = 30  # recalls with explain, for the per-step profile


def _small_recall(mg, queries: list[str]) -> tuple[float, float, list[list[str]]]:
    """p50 and p95 (ms) of the small tenant's recall over ``queries``, and its top 10 for each."""
    lat, tops = [], []
    for q in queries:
        t0 = time.perf_counter()
        res = mg.recall(q, k=K, time_filters=False)
        lat.append(time.perf_counter() - t0)
        tops.append([h.id for h in res.hits])
    p50, p95 = _pcts(lat)
    return p50, p95, tops


def _profile(mg, queries: list[str]) -> dict[str, float]:
    """Median of each step of recall (``explain``'s ``timings_ms``) over ``queries``."""
    steps: dict[str, list[float]] = {}
    for q in queries:
        for step, ms in mg.recall(q, k=K, time_filters=False, explain=True).explain["timings_ms"].items():
            steps.setdefault(step, []).append(ms)
    return {step: float(np.median(v)) for step, v in steps.items()}


def _pcts(samples: list[float]) -> tuple[float, float]:
    a = np.asarray(samples) * 1000.0
    return float(np.percentile(a, 50)), float(np.percentile(a, 95))


def _sizes(ctx: BenchContext) -> list[int]:
    env = os.environ.get("KGMEM_BENCH_SIZES")
    if env:
        return [int(x) for x in env.split(",") if x.strip()]
    return [2000] if ctx.quick else [10_000, 100_000]


DERIVED_PHASES = ("mentions", "context", "causes", "supersession")  # IngestReport.timings after the write
REMEMBER_CALLS = 30  # single-record ingests measured with the passes, and as many without


def _p50_p95(ms: list[float]) -> str:
    xs = sorted(ms)
    return f"{xs[len(xs) // 2]:.1f} / {xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]:.1f} ms"


def _remember_latency(mg: Any, records: list[dict]) -> dict[str, list[float]]:
    """One record a call (as remember() ingests it), alternating blocks of 5 with the derived passes and
    without causes and supersession; the milliseconds of each call."""
    out: dict[str, list[float]] = {"with": [], "without": []}
    for b in range(0, len(records), 5):
        passes = (b // 5) % 2 == 0
        for r in records[b : b + 5]:
            t0 = time.perf_counter()
            mg.ingest([r], infer_causes=passes, infer_supersession=passes)
            out["with" if passes else "without"].append(1000 * (time.perf_counter() - t0))
    return out


def _later_batch(n: int, *, seed: int, after: list[dict], prefix: str = "later") -> list[dict]:
    """``n`` more memories of the same kind, written after ``after`` (ids, streams and causes of their own, under
    ``prefix``): what an ingest into a tenant that already holds records costs, where the pass asks the vector
    index."""
    import datetime as dt

    last = max(dt.datetime.fromisoformat(r["at"].replace("Z", "+00:00")) for r in after)
    out = []
    for r in generate(n, seed=seed, start=last + dt.timedelta(days=1)).records:
        r = dict(r, id=f"{prefix}-{r['id']}")
        if r.get("stream"):
            r["stream"] = f"{prefix}-{r['stream']}"
        if r.get("caused_by"):
            r["caused_by"] = [f"{prefix}-{c}" for c in r["caused_by"]]
        out.append(r)
    return out


QUICK_SETTLE_SIZE = 20000  # --quick waits at most 10 s for a quiet Neo4j after an ingest up to this size


def _server_pid() -> int | None:
    """The local Neo4j's process (``kgmem server``), when it is the server the suite talks to (NEO4J_URI unset or
    naming it, as ``kgmem server start`` prints); None for another server."""
    from kgmem import server

    info = server.status()
    uri = os.environ.get("NEO4J_URI")
    return info.get("pid") if not uri or uri.rstrip("/") == info.get("uri") else None


def _process_cpu(pid: int) -> float:
    """CPU seconds (user + system, every thread) a process has used so far."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    """CPU seconds (user + system, every thread) this process has used so far."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class CpuMeter:
    """CPU seconds used by this process and by the local Neo4j (None for another server) while its block runs."""

    def __init__(self, pid: int | None):
        self.pid = pid
        self.client = 0.0
        self.server: float | None = None

    def __enter__(self) -> CpuMeter:
        self._client0 = _own_cpu()
        self._server0 = _process_cpu(self.pid) if self.pid else None
        return self

    def __exit__(self, *exc: object) -> None:
        self.client = _own_cpu() - self._client0
        if self.pid and self._server0 is not None:
            self.server = _process_cpu(self.pid) - self._server0


def cpu_ceiling(embed_s: float, client_cpu: float, server_cpu: float | None, cores: int) -> float | None:
    """The most ingest / embed-only could be on ``cores`` given the CPU the ingest used (client and server):
    ingest cannot take less wall time than that CPU spread over every core, ``(client + server) / cores``, so the
    ratio cannot exceed ``embed_s · cores / (client + server)``. None when the server's CPU is unknown."""
    if server_cpu is None or client_cpu + server_cpu <= 0:
        return None
    return embed_s * cores / (client_cpu + server_cpu)


def _settle(ctx: BenchContext, n: int = 0, max_wait: float | None = None) -> float:
    """Wait until the local Neo4j is quiet after a large ingest of ``n`` memories (Lucene merges, checkpoints),
    so latency is measured on an idle server rather than beside background work; returns the seconds waited.
    The local server is watched also when NEO4J_URI names it (``kgmem server start`` prints that export); with
    another server it waits a fixed 20 s. At most ``max_wait`` s (180; ``--quick``: 10 after an ingest of up to
    :data:`QUICK_SETTLE_SIZE`, written in seconds — a 100k store keeps Neo4j busy for longer than that, and
    latency measured beside it is not the server's)."""
    if max_wait is None:
        max_wait = 10.0 if ctx.quick and n <= QUICK_SETTLE_SIZE else 180.0
    t0 = time.perf_counter()
    pid = _server_pid()
    if not pid:
        time.sleep(min(20.0, max_wait))
        return time.perf_counter() - t0
    while time.perf_counter() - t0 < max_wait:
        before = _process_cpu(pid)
        time.sleep(2.0)
        if (_process_cpu(pid) - before) / 2.0 < 0.05:  # under 5 % of one core for two seconds
            break
    return time.perf_counter() - t0


def _floor(ctx: BenchContext, matrix: np.ndarray, query: str) -> float:
    """One query at the floor: embed it (no cache, kgmem's fastest one-text path) and take the exact top-k."""
    t0 = time.perf_counter()
    q = ctx.embedder.encode_query(query)
    scores = matrix @ q
    top = np.argpartition(-scores, K)[:K]
    top[np.argsort(-scores[top])]
    return time.perf_counter() - t0


@suite("speed", title="Speed: ingest throughput and query latency against floors measured in the same run")
def run(ctx: BenchContext) -> dict:
    """Ingest throughput vs embedding-only; recall/why/as-of p50/p95 vs embed + numpy brute force."""
    # numpy's BLAS on one thread for the suite (but kgmem's ingest, timed as a user runs it), kgmem and baselines
    # alike: on 2 cores its worker threads
    # fight torch's for the CPU after every brute-force product, which doubled the query-embedding time (CHANGELOG.md,
    # benchmark log) while a memory-bound matrix-vector product gains nothing from them
    with threadpool_limits(limits=1, user_api="blas"):
        return _run(ctx)


def _st_encode(st: Embedder, texts: list[str]) -> float:
    """Seconds for sentence-transformers' own ``SentenceTransformer.encode`` of ``texts`` (batch 64, normalised)."""
    gc.collect()
    t0 = time.perf_counter()
    st.encode(texts)
    return time.perf_counter() - t0


def _channel_costs(mg, queries: list[str], warmup: int) -> dict[str, list[float]]:
    """p50 / p95 (ms) of each index channel run alone (a plan of that channel only, :mod:`kgmem.query.execute`,
    at recall's depth) over the same questions: what each channel, and the derived context channels together,
    add to recall's single round trip."""
    depth = RecallOptions().depth
    out: dict[str, list[float]] = {}
    for name in (*VECTOR_INDEXES, *KEYWORD_INDEXES):
        samples = []
        for i, q in enumerate(queries[: max(warmup, 10)] + queries):
            filters, text = build_filters(q, tenant=mg.tenant, time_phrases="off")
            question = Question.of(q, text, mg.embedder)
            t0 = time.perf_counter()
            execute.channels(mg.store, question, filters, (name,), depth)
            if i >= max(warmup, 10):
                samples.append(time.perf_counter() - t0)
        out[name] = list(_pcts(samples))
    return out


def _run(ctx: BenchContext) -> dict:
    emb = ctx.embedder
    # the user's question is "is ingesting into kgmem as fast as just embedding?": the baseline is the
    # model's own library, sentence-transformers (torch), on the same texts; kgmem's embedder (onnxruntime
    # where it runs) is shown beside it
    st = emb if emb.backend == "sentence-transformers" else Embedder(backend="sentence-transformers")
    # the search indexes are derived: rebuild them so deletions left by earlier runs (the test suite creates
    # and deletes thousands of scratch tenants) do not slow the HNSW search being measured
    with ctx.memory_graph() as mg:
        t0 = time.perf_counter()
        mg.init(rebuild_indexes=True)
        figures_reindex_s = time.perf_counter() - t0
    rows_ingest, rows_latency, figures, plot_n = [], [], {}, []
    rows_remember: list[list[str]] = []
    server_pid = _server_pid()  # the local Neo4j, whose CPU the ingest rows report (None: another server)
    plot = {"recall": [], "recall_floor": [], "why": [], "why_floor": [], "as_of": [], "ping": []}
    n_queries = LATENCY_QUERIES_QUICK if ctx.quick else LATENCY_QUERIES
    warmup = 5 if ctx.quick else 40
    # a small tenant, measured now (before this run's big tenants) and again beside each of them: its latency
    # and whether its top 10 stays the same (deleted at the end, or at exit if the run stops first)
    small_tenant = ctx.new_tenant()
    ctx.tenants.append(small_tenant)
    with ctx.memory_graph() as probe:
        small = probe.for_tenant(small_tenant)
    small_corpus = generate(SMALL_TENANT, seed=ctx.seed + 11)
    small.ingest(small_corpus.records, infer_causes=False)
    small_queries = [small_corpus.queries[i % len(small_corpus.queries)] + f" #{i}" for i in range(SMALL_QUESTIONS)]
    _small_recall(small, small_queries[:10])  # warm up
    alone50, alone95, alone_tops = _small_recall(small, small_queries)
    figures["small_tenant_alone"] = {"n": SMALL_TENANT, "recall_ms": [alone50, alone95]}
    for n in _sizes(ctx):
        corpus = generate(n, seed=ctx.seed)
        texts = [r["text"] for r in corpus.records]
        uniq = list(dict.fromkeys(texts))
        ctx.log(f"N={n}: embedding-only baselines over {len(uniq)} texts")
        t_st = _st_encode(st, uniq)
        gc.collect()
        t0 = time.perf_counter()
        with CpuMeter(None) as embed_cpu:
            matrix = emb.encode(uniq)
        t_embed = time.perf_counter() - t0

        with ctx.memory_graph() as mg:
            ctx.log(f"N={n}: kgmem ingest")
            # the user's path: the supersession pass runs in ingest (its per-text work beside the embedder,
            # the vectors handed over by the write), timed apart by the report; ingest below is the rest
            # (BLAS with its default threads here, as in a user's process: the pass's neighbour search is a
            # matrix product; the suite's one-thread limit is for the latency floors below)
            t0 = time.perf_counter()
            with threadpool_limits(limits=os.cpu_count() or 1, user_api="blas"), CpuMeter(server_pid) as used:
                report = mg.ingest(corpus.records, infer_causes=False)
            t_total = time.perf_counter() - t0
            assert not report.errors, report.errors[:3]
            t_supersede = report.timings["supersession"]
            t_ingest = t_total - t_supersede
            superseding = report.edges["inferred_supersedes"]
            t0 = time.perf_counter()
            causal.run(mg.store, emb, mg.tenant, report.ids)
            t_infer = time.perf_counter() - t0
            later = _later_batch(max(100, n // 10), seed=ctx.seed + 2, after=corpus.records)
            ctx.log(f"N={n}: a later batch of {len(later):,}")
            t0 = time.perf_counter()
            with threadpool_limits(limits=os.cpu_count() or 1, user_api="blas"):
                later_report = mg.ingest(later)
            t_later = time.perf_counter() - t0
            t_later_pass = later_report.timings["supersession"]
            t_later_derived = sum(later_report.timings.get(k, 0.0) for k in DERIVED_PHASES)
            ctx.log(f"N={n}: remember, one memory a call, with and without the derived passes")
            singles = [  # a memory an agent writes on its own (its causes stated in words, if at all)
                {k: v for k, v in r.items() if k != "caused_by"}
                for r in _later_batch(2 * REMEMBER_CALLS, seed=ctx.seed + 3, after=later, prefix="one")
            ]
            with threadpool_limits(limits=os.cpu_count() or 1, user_api="blas"):
                one_ms = _remember_latency(mg, singles)
            rows_remember.append(
                [
                    f"{n:,}",
                    _p50_p95(one_ms["with"]),
                    _p50_p95(one_ms["without"]),
                    f"{len(later):,}: derived passes {100 * t_later_derived / t_later:.1f} % of the call "
                    f"(supersession {100 * t_later_pass / t_later:.1f} %, causes "
                    f"{100 * later_report.timings.get('causes', 0.0) / t_later:.1f} %)",
                    "supersession ≤ 25 %",
                ]
            )
            t0 = time.perf_counter()
            context_layer.rebuild(mg.store, mg.tenant)
            t_context = time.perf_counter() - t0
            st_rate, embed_rate, ingest_rate = n / t_st, n / t_embed, n / t_ingest
            # where the ingest's CPU went: the whole call's, the supersession pass included (the meter cannot part it)
            cores = os.cpu_count() or 1
            ceiling = cpu_ceiling(t_embed, used.client, used.server, cores)  # of the whole call, pass included
            cpu_note = (
                f"CPU per 1k: embed-only {1000 * embed_cpu.client / n:.2f} s; ingest: kgmem "
                f"{1000 * used.client / n:.2f} s"
                + ("" if used.server is None else f", Neo4j {1000 * used.server / n:.2f} s")
                + f"; the whole call {100 * t_embed / t_total:.0f} % of embed-only"
                + ("" if ceiling is None else f", at most {100 * ceiling:.0f} % on {cores} cores with that CPU")
            )
            rows_ingest.append(
                [
                    f"{n:,}",
                    f"{st_rate:,.0f}",
                    f"{embed_rate:,.0f}",
                    f"{ingest_rate:,.0f}",
                    f"{100 * ingest_rate / st_rate:.1f} %",
                    f"{100 * ingest_rate / embed_rate:.1f} % ({cpu_note})",
                    "≥ 85 %",
                    f"{t_infer:.1f} s",
                    f"{t_supersede:.1f} s ({100 * t_supersede / t_ingest:.1f} % of ingest; {superseding} links); "
                    f"a later {len(later):,}: {t_later_pass:.1f} s "
                    f"({100 * t_later_pass / (t_later - t_later_pass):.1f} % of its ingest)",
                    f"{t_context:.1f} s",
                ]
            )
            figures[f"ingest_{n}"] = {
                "st_encode_s": t_st,
                "embed_s": t_embed,
                "embed_backend": emb.backend,
                "ingest_s": t_ingest,
                "infer_s": t_infer,
                "supersession_s": t_supersede,
                "supersession_share_of_ingest": t_supersede / t_ingest,
                "supersession_links": superseding,
                "later_batch": {
                    "n": len(later),
                    "ingest_s": t_later - t_later_pass,
                    "supersession_s": t_later_pass,
                    "supersession_share_of_ingest": t_later_pass / (t_later - t_later_pass),
                    "links": later_report.edges["inferred_supersedes"],
                    "call_s": t_later,
                    "timings": dict(later_report.timings),
                    "derived_share_of_call": t_later_derived / t_later,
                    "supersession_share_of_call": t_later_pass / t_later,
                },
                "remember_ms": one_ms,
                "context_rebuild_s": t_context,
                "cpu_s": {
                    "embed_only": embed_cpu.client,
                    "ingest_client": used.client,
                    "ingest_neo4j": used.server,
                    "cores": cores,
                    "ratio_ceiling": ceiling,
                },
                "settle_s": None,
                "embed_per_s": embed_rate,
                "ingest_per_s": ingest_rate,
                "edges": report.edges,
                "facts": report.facts,
            }

            settled = _settle(ctx, n)
            figures[f"ingest_{n}"]["settle_s"] = settled
            ctx.log(f"N={n}: Neo4j quiet after {settled:.0f} s; measuring latency")
            rng = ctx.rng(n)
            queries = [corpus.queries[i % len(corpus.queries)] + f" #{i}" for i in range(n_queries)]
            # warm up every measured operation (query plans, the JVM's JIT, page cache, the model's first
            # call) on questions that are not measured: a freshly started Neo4j is slow for its first queries
            for i in range(warmup):
                q = corpus.queries[(i * 7 + 3) % len(corpus.queries)] + f" warm {i}"
                mg.recall(q, k=K, time_filters=False)
                _floor(ctx, matrix, q)
                sym_id, question, _root = corpus.symptoms[i % len(corpus.symptoms)]
                mg.why(f"{question} ({sym_id}) warm")
                subject, predicate, obj = corpus.slots[i % len(corpus.slots)]
                mg.as_of(subject, predicate, "2025-06-01", obj)
            emb._cache.clear()
            rec, flo = [], []
            rec_cpu, floor_cpu = [0.0, 0.0], 0.0  # CPU seconds: recall's client and Neo4j's, the floor's
            for q in queries:
                with CpuMeter(server_pid) as used:
                    t0 = time.perf_counter()
                    mg.recall(q, k=K, time_filters=False)
                    rec.append(time.perf_counter() - t0)
                rec_cpu[0] += used.client
                rec_cpu[1] += used.server or 0.0
                with CpuMeter(None) as used:
                    flo.append(_floor(ctx, matrix, q))
                floor_cpu += used.client
            cpu_ms = {
                "client": rec_cpu[0] * 1000 / len(queries),
                "server": rec_cpu[1] * 1000 / len(queries) if server_pid else None,
                "floor": floor_cpu * 1000 / len(queries),
            }
            per_channel = _channel_costs(mg, queries, warmup)
            emb._cache.clear()
            symptoms = [corpus.symptoms[int(i)] for i in rng.integers(0, len(corpus.symptoms), n_queries)]
            why_t, why_floor, why_answered = [], [], 0
            for sym_id, question, _root in symptoms:
                q = f"{question} ({sym_id})"
                t0 = time.perf_counter()
                w = mg.why(q)
                why_t.append(time.perf_counter() - t0)
                why_floor.append(_floor(ctx, matrix, q))
                why_answered += not w.abstained
            slots = [corpus.slots[int(i)] for i in rng.integers(0, len(corpus.slots), n_queries)]
            asof_t, ping_t = [], []
            for subject, predicate, obj in slots:
                t0 = time.perf_counter()
                mg.as_of(subject, predicate, "2025-06-01", obj)
                asof_t.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                mg.store.read("admin/ping")
                ping_t.append(time.perf_counter() - t0)
            profile = _profile(mg, queries[:PROFILE_QUERIES])
            beside50, beside95, beside_tops = _small_recall(small, small_queries)
            same = sum(a == b for a, b in zip(alone_tops, beside_tops))
            (r50, r95), (f50, f95) = _pcts(rec), _pcts(flo)
            ctx50 = sum(per_channel[c][0] for c in CONTEXT_CHANNELS if c in DEFAULT_CHANNELS)  # those recall runs
            (w50, w95), (wf50, wf95) = _pcts(why_t), _pcts(why_floor)
            (a50, a95), (p50, p95) = _pcts(asof_t), _pcts(ping_t)
            rows_latency += [
                [
                    f"{n:,}",
                    "recall",
                    f"{r50:.1f} / {r95:.1f}",
                    f"{f50:.1f} / {f95:.1f}",
                    f"{r50 / f50:.2f}× / {r95 / f95:.2f}×",
                    "≤ 1.5× / ≤ 2×",
                ],
                [
                    f"{n:,}",
                    "CPU per recall (ms, from the process clocks): client"
                    + ("" if cpu_ms["server"] is None else " + Neo4j"),
                    f"{cpu_ms['client']:.1f}"
                    + (
                        ""
                        if cpu_ms["server"] is None
                        else f" + {cpu_ms['server']:.1f} = {cpu_ms['client'] + cpu_ms['server']:.1f}"
                    ),
                    f"{cpu_ms['floor']:.1f} (the floor's CPU)",
                    "—"
                    if cpu_ms["server"] is None
                    else f"{(cpu_ms['client'] + cpu_ms['server']) / cpu_ms['floor']:.2f}×",
                    "(work left to cut)",
                ],
                [
                    f"{n:,}",
                    "one index channel alone, p50 (ms): "
                    + ", ".join(f"{c} {per_channel[c][0]:.1f}" for c in per_channel),
                    f"context channels recall runs {ctx50:.1f}",
                    "—",
                    f"{ctx50 / r50:.0%} of recall p50",
                    "(cost of the context channels)",
                ],
                [
                    f"{n:,}",
                    "recall's steps, median of "
                    + str(PROFILE_QUERIES)
                    + " (ms): "
                    + ", ".join(f"{k.removesuffix('_ms')} {v:.1f}" for k, v in profile.items() if k != "total_ms"),
                    f"total {profile.get('total_ms', float('nan')):.1f}",
                    "—",
                    "—",
                    "(where recall's time goes; a small tenant's own keyword rankings run with the word channels' call)",
                ],
                [
                    f"{SMALL_TENANT:,} beside {n:,}",
                    "recall of a small tenant beside this one",
                    f"{beside50:.1f} / {beside95:.1f}",
                    f"{alone50:.1f} / {alone95:.1f} (the same tenant before)",
                    f"{beside50 / alone50:.2f}× / {beside95 / alone95:.2f}×; top 10 identical {same}/{len(small_queries)}",
                    "≤ 1.2×; identical",
                ],
                [
                    f"{n:,}",
                    "why",
                    f"{w50:.1f} / {w95:.1f}",
                    f"{wf50:.1f} / {wf95:.1f}",
                    f"{w50 / wf50:.2f}× / {w95 / wf95:.2f}×",
                    "p50 ≤ 25 ms",
                ],
                [
                    f"{n:,}",
                    "as-of",
                    f"{a50:.2f} / {a95:.2f}",
                    f"{p50:.2f} / {p95:.2f} (Bolt ping)",
                    f"{a50 / p50:.2f}× / {a95 / p95:.2f}×",
                    "p50 ≤ 5 ms",
                ],
            ]
            figures[f"latency_{n}"] = {
                "recall_ms": [r50, r95],
                "recall_cpu_ms": cpu_ms,
                "channel_alone_ms": per_channel,
                "context_channels_p50_ms": ctx50,
                "channels": list(DEFAULT_CHANNELS),
                "floor_ms": [f50, f95],
                "why_ms": [w50, w95],
                "why_floor_ms": [wf50, wf95],
                "as_of_ms": [a50, a95],
                "ping_ms": [p50, p95],
                "why_answered": why_answered / len(symptoms),
                "queries": n_queries,
                "recall_steps_median_ms": profile,
                "small_tenant_beside": {
                    "n": SMALL_TENANT,
                    "recall_ms": [beside50, beside95],
                    "alone_ms": [alone50, alone95],
                    "top10_identical": same,
                    "questions": len(small_queries),
                },
            }
            counts = mg.store.read("admin/count_tenant", tenant=mg.tenant)[0]
            figures[f"graph_{n}"] = counts
            plot_n.append(n)
            for key, val in (
                ("recall", r50),
                ("recall_floor", f50),
                ("why", w50),
                ("why_floor", wf50),
                ("as_of", a50),
                ("ping", p50),
            ):
                plot[key].append(val)
        del matrix
    # the same ingest with the embedder pinned to one core, leaving the other to Neo4j and the writer threads:
    # on 2 cores the default run is CPU-bound (the embedder takes both), this shows the pipeline with room
    n1 = _sizes(ctx)[0]
    corpus = generate(n1, seed=ctx.seed + 1)
    threads, st_threads = emb.set_num_threads(1), st.set_num_threads(1) if st is not emb else None
    try:
        uniq = list(dict.fromkeys(r["text"] for r in corpus.records))
        t_st1 = _st_encode(st, uniq)
        t0 = time.perf_counter()
        emb.encode(uniq)
        t_embed1 = time.perf_counter() - t0
        with ctx.memory_graph() as mg:
            t0 = time.perf_counter()
            mg.ingest(corpus.records, infer_causes=False, infer_supersession=False)
            t_ingest1 = time.perf_counter() - t0
    finally:
        emb.set_num_threads(threads)
        if st_threads is not None:
            st.set_num_threads(st_threads)
    r_s, r_e, r_i = n1 / t_st1, n1 / t_embed1, n1 / t_ingest1
    rows_ingest.append(
        [
            f"{n1:,} (embedders on 1 core)",
            f"{r_s:,.0f}",
            f"{r_e:,.0f}",
            f"{r_i:,.0f}",
            f"{100 * r_i / r_s:.1f} %",
            f"{100 * r_i / r_e:.1f} %",
            "≥ 85 %",
            "—",
            "—",
            "—",
        ]
    )
    figures["ingest_one_core"] = {"n": n1, "st_encode_s": t_st1, "embed_s": t_embed1, "ingest_s": t_ingest1}
    ctx.delete_tenant(small_tenant)
    figures["reindex_s"] = figures_reindex_s
    figures["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "tables": [
            {
                "title": "Ingest throughput (memories/s) against embedding-only, same texts, same run",
                "columns": [
                    "N",
                    "sentence-transformers encode",
                    f"kgmem embedder ({emb.backend}) encode",
                    "kgmem ingest",
                    "ingest / ST encode",
                    "ingest / kgmem encode",
                    "goal (vs ST)",
                    "causal inference pass",
                    "supersession pass (goal ≤ 10 % of ingest)",
                    "context rebuild",
                ],
                "rows": rows_ingest,
                "note": "kgmem ingest = validate, normalise, compile facts, extract entities, embed, write nodes, "
                "edges, slot and stream chains (one transaction per 2,048 records), then derive the stream "
                "context of the new memories and their neighbours; normalising, embedding and writing overlap "
                "in three stages. 'sentence-transformers encode' is SentenceTransformer.encode (batch 64, "
                "normalised) of the same unique texts: the user's question, 'is ingesting into kgmem as fast "
                "as just embedding?'. Inference of causal links and of supersession from words are derived passes "
                "after the write, each timed separately (ingest is everything else ingest does; the supersession "
                "pass is timed inside ingest, as a user runs it: its per-text work overlaps the embedder, so any "
                "cost of that shows in the ingest rate). 'a later N': N/10 more memories into the same tenant "
                "(ingest and pass timed alike), where the pass asks the vector index instead of pairing in memory; 'context rebuild' recomputes every memory's stream context (what `kgmem "
                "rebuild` pays for it). On this 2-core machine the embedder alone keeps both "
                "cores busy and Neo4j (same machine) needs CPU for every commit (HNSW, fulltext and range "
                "index upkeep), so the default row is CPU-bound; the last row pins the embedder to one core "
                "(baseline and kgmem alike) to show the overlap when a core is free. The CPU figures (per 1k memories, user + "
                "system, every thread): the embedder alone on the same texts, then kgmem's process and the local Neo4j "
                "during the ingest call; with that CPU the call cannot take less wall time than its CPU spread over every "
                "core, which bounds its share of embed-only ('at most').",
            },
            {
                "title": "Incremental writes: remember() into the tenant, and a later batch",
                "columns": ["N", "remember p50 / p95, with the passes", "without them", "a later batch", "goal"],
                "rows": rows_remember,
                "note": f"{REMEMBER_CALLS} + {REMEMBER_CALLS} single-record ingests (what remember() runs) into the "
                "N tenant after the later batch, in interleaved blocks of 5: with every derived pass (stream "
                "context, mentions, causes, supersession) and with causes and supersession off (the context and "
                "mentions passes always run). The later batch is N/10 more memories with every pass; the shares "
                "are of its whole ingest call.",
            },
            {
                "title": "Latency p50 / p95 (ms) against the floor measured in the same run",
                "columns": ["N", "operation", "kgmem", "floor", "ratio", "goal"],
                "rows": rows_latency,
                "note": "floor = embedding the question (no cache) + numpy brute-force top-10 over the same "
                "vectors in memory; as-of's floor is one Bolt round trip (RETURN 1). Latency is measured "
                f"once Neo4j is idle after the ingest (its CPU under 5 % of a core for 2 s), after {warmup} "
                "unmeasured warm-up rounds; numpy's BLAS runs on one thread in this suite (its threads "
                "beside torch's on 2 cores doubled the embedding time).",
            },
        ],
        "figures": figures,
        "plots": [
            {
                "file": "speed_latency.png",
                "kind": "line",
                "title": "p50 latency against N",
                "xlabel": "memories",
                "ylabel": "ms",
                "x": plot_n,
                "logx": True,
                "series": [
                    {"label": "recall", "y": plot["recall"]},
                    {"label": "floor (embed + brute force)", "y": plot["recall_floor"], "linestyle": "--"},
                    {"label": "why", "y": plot["why"]},
                    {"label": "as-of", "y": plot["as_of"]},
                    {"label": "Bolt ping", "y": plot["ping"], "linestyle": ":"},
                ],
            }
        ],
    }
