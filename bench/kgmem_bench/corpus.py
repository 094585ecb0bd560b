"""Synthetic memory corpora for the speed benchmarks: deterministic (seeded), varied text, with the graph
shapes kgmem builds — streams (NEXT), causal chains (CAUSED_BY), facts on slots (SUPERSEDES) and entities.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

SERVICES = [
    "checkout",
    "billing",
    "search",
    "auth",
    "inventory",
    "payments",
    "shipping",
    "catalog",
    "pricing",
    "notifications",
    "reporting",
    "gateway",
    "scheduler",
    "ledger",
    "recommendations",
    "uploads",
    "thumbnails",
    "exports",
    "sessions",
    "webhooks",
]
HOSTS = ["db-primary-0{}", "cache-{}", "worker-{}", "edge-{}", "broker-{}", "api-{}", "replica-{}"]
PEOPLE = [
    "Priya",
    "Ravi",
    "Maya",
    "Jo",
    "Ana",
    "Lena",
    "Omar",
    "Kenji",
    "Sofia",
    "Tomás",
    "Aisha",
    "Bruno",
    "Chen",
    "Dana",
    "Elif",
    "Farah",
    "Gustav",
    "Hana",
    "Ivan",
    "Jonas",
]
SYMPTOMS = [
    "latency climbed to {n} ms",
    "error rate reached {n}%",
    "{n} requests timed out",
    "the queue backlog grew to {n} messages",
    "memory use rose by {n} MB an hour",
    "CPU stayed at {n}% for an hour",
    "{n} jobs failed with exit code 137",
    "disk usage hit {n}%",
    "p95 latency doubled to {n} ms",
    "{n} users were logged out",
]
ACTIONS = [
    "rolled back the release",
    "raised the connection pool to {n}",
    "restarted the pods",
    "added an index on orders.created_at",
    "turned off the feature flag",
    "scaled the workers to {n}",
    "rotated the certificate",
    "cleared the cache",
    "pinned the dependency to v{v}",
    "moved the cron to {h}:00",
]
TOPICS = [
    "pricing page",
    "onboarding flow",
    "vendor contract",
    "quarterly roadmap",
    "hiring plan",
    "data retention",
    "incident review",
    "API versioning",
    "mobile release",
    "SLA targets",
    "cost report",
    "security audit",
]
DECISIONS = [
    "we ship it on {d}",
    "we postpone it to {d}",
    "we keep the current design",
    "we split it in two",
    "we ask legal first",
    "we drop the idea",
    "we run an experiment for {n} days",
]
FOODS = ["diet coke", "thai food", "espresso", "sushi", "oat milk", "dark chocolate", "green tea", "tacos"]
CITIES = ["Boston", "Berlin", "Lisbon", "Madrid", "Kyoto", "Toronto", "Oslo", "Porto", "Austin", "Seoul"]
CODES = ["ERR-{n}", "E{n}", "QX-{n}", "INC-{n}", "zx{n}q"]


@dataclass
class Corpus:
    records: list[dict]
    slots: list[tuple[str, str, str | None]]  # (subject, predicate, object) that have versions
    symptoms: list[tuple[str, str, str]]  # (symptom id, question, root id)
    queries: list[str]


def generate(n: int, *, seed: int = 0, start: dt.datetime | None = None) -> Corpus:
    """About ``n`` memories: ~60 % ops episodes in incident streams (with 4-hop causal chains), ~25 % meeting
    notes, ~15 % facts about people (versioned slots)."""
    rng = np.random.default_rng(seed)
    t0 = start or dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
    pick = lambda xs: xs[int(rng.integers(len(xs)))]  # noqa: E731
    num = lambda: int(rng.integers(2, 999))  # noqa: E731
    records: list[dict] = []
    slots: list[tuple[str, str, str | None]] = []
    symptoms: list[tuple[str, str, str]] = []
    minute = 0

    def at() -> str:
        nonlocal minute
        minute += int(rng.integers(1, 30))
        return (t0 + dt.timedelta(minutes=minute)).isoformat().replace("+00:00", "Z")

    i = 0
    while len(records) < n:
        i += 1
        roll = rng.random()
        if roll < 0.6:  # an incident: root -> 2 hops -> symptom, plus chatter, in one stream
            svc, host = pick(SERVICES), pick(HOSTS).format(int(rng.integers(1, 9)))
            stream = f"inc-{i}"
            code = pick(CODES).format(n=num())
            ids = [f"i{i}-root", f"i{i}-h1", f"i{i}-h2", f"i{i}-sym"]
            texts = [
                f"Merged PR {num() * 10}: {svc} now {pick(['caches', 'batches', 'retries', 'streams'])} "
                f"{pick(['invoices', 'sessions', 'events', 'images', 'orders'])} on {host}",
                f"On {host} {pick(SYMPTOMS).format(n=num())}",
                f"{svc.capitalize()} workers logged {code} while {pick(SYMPTOMS).format(n=num())}",
                f"{pick(PEOPLE)} reported that {svc} {pick(['went down', 'was slow', 'failed', 'dropped requests'])} "
                f"for {num()} minutes",
            ]
            for j, (mid, text) in enumerate(zip(ids, texts)):
                rec = {"id": mid, "text": text, "at": at(), "stream": stream}
                if j:
                    rec["caused_by"] = [ids[j - 1]]
                records.append(rec)
            records.append(
                {
                    "id": f"i{i}-chat",
                    "text": f"{pick(PEOPLE)} {pick(ACTIONS).format(n=num(), v=f'{num()}.{num()}', h=int(rng.integers(0, 23)))}",
                    "at": at(),
                    "stream": stream,
                }
            )
            symptoms.append((ids[-1], f"why did {svc} {pick(['go down', 'fail', 'break'])}?", ids[0]))
        elif roll < 0.85:  # meeting notes in a standup stream
            topic = pick(TOPICS)
            records.append(
                {
                    "id": f"m{i}",
                    "text": f"Standup: {pick(PEOPLE)} and {pick(PEOPLE)} discussed the {topic}; "
                    f"{pick(DECISIONS).format(d=f'{pick(CITIES)} day {num()}', n=num())}.",
                    "at": at(),
                    "stream": f"standup-{i % 50}",
                }
            )
        else:  # facts on slots, some of them later superseded
            person = pick(PEOPLE).lower() + str(int(rng.integers(0, max(1, n // 200))))
            if rng.random() < 0.5:
                obj = pick(CITIES)
                records.append(
                    {
                        "id": f"f{i}",
                        "text": f"{person} lives in {obj}",
                        "at": at(),
                        "subject": person,
                        "predicate": "lives_in",
                        "object": obj,
                    }
                )
                slots.append((person, "lives_in", None))
            else:
                food = pick(FOODS)
                pol = bool(rng.random() < 0.7)
                records.append(
                    {
                        "id": f"f{i}",
                        "text": f"{person} {'likes' if pol else 'no longer likes'} {food}",
                        "at": at(),
                        "subject": person,
                        "predicate": "likes",
                        "object": food,
                        "polarity": pol,
                    }
                )
                slots.append((person, "likes", food))
    records = records[:n]
    kept = {r["id"] for r in records}
    symptoms = [s for s in symptoms if s[0] in kept and s[2] in kept]
    queries = [
        f"what happened with {pick(SERVICES)} on {pick(HOSTS).format(int(rng.integers(1, 9)))}?" for _ in range(200)
    ]
    return Corpus(records, slots, symptoms, queries)
