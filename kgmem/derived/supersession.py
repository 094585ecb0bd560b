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
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping, Sequence

from ..config import IN_MEMORY_PAIRS_MAX
from ..logit import Logit, logit, shipped_json
from ..query import timeparse
from ..query.meaning import speaker
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
    sentences,
    someone_else,
)

TRANSFORM_VERSION = "supersession/v4"  # v4: a point inside a number or a version ends no sentence (v3: a one-sentence report of a bounded past episode retires nothing)
MODEL_FILE = "supersession.json"
PAIR_FLOOR = 0.3  # the least cosine of two records the pass pairs: every more alike pair of one user is scored
NEIGHBOURS = 24  # at most this many of a memory's neighbours (the floor, not this cap, should decide)
FETCH = 200  # index rows read per memory on 5.26 (no in-index tenant filter) to keep NEIGHBOURS of the tenant
FETCH_FILTERED = 2 * NEIGHBOURS  # on 2026.x the index filters by tenant: spare rows for non-record memories
BATCH = 500  # memories per neighbour statement

FEATURES = (
    "cosine",
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
    "older_dated_event",
    "other_entity",
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


def other_speakers(newer: str, older: str, newer_subject: str | None, older_subject: str | None) -> bool:
    """Whether two chat turns are by different speakers, neither about a third person ("Nate: I made it with
    coconut milk" / "Joanna: I'm lactose intolerant"; "Nate: Sending you the recipe now!"): a turn speaks for its
    speaker, so neither retires the other. A turn about someone named or a relation ("Aunt Carmen: Mama quit
    bingo") is left to :func:`someone_else`."""
    if newer_subject not in (None, "self") or older_subject not in (None, "self"):
        return False
    a, b = speaker(newer), speaker(older)
    return a is not None and b is not None and a != b


# a time phrase that places what a memory says before the memory itself: "last week", "yesterday", "last
# Friday", "three years ago" (not "this week" or "today", which reach up to it)
_PAST_PHRASE = re.compile(r"(?:last|yesterday)\b", re.IGNORECASE)
_PAST_HINT = re.compile(r"\b(?:last|yesterday|ago)\b", re.IGNORECASE)


@lru_cache(maxsize=65536)
def dated_past(text: str, at: dt.datetime) -> bool:
    """Whether a memory reports something at a time before it was written ("I won my first tournament last week",
    "we adopted a pup three weeks ago"), by the time phrase recall's filters read
    (:func:`kgmem.query.timeparse.parse_time_filter`, relative to the memory's own time)."""
    if not _PAST_HINT.search(text):  # most texts: no parse
        return False
    found = timeparse.parse_time_filter(text, at)
    if found is None:
        return False
    return found.kind == "ago" or (found.kind in ("period", "weekday") and bool(_PAST_PHRASE.match(found.phrase)))


# a duration: "for 20 minutes", "for two days", "for a few hours" (time units, not a data set's phrasings)
_DURATION = re.compile(
    r"\bfor\s+(?:(?:about|over|nearly|almost|around)\s+)?(?:\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|a few|a couple of|several)\s*-?\s*"
    r"(?:sec(?:ond)?s?|min(?:ute)?s?|h(?:ou)?rs?|hours?|days?|nights?|weeks?)\b",
    re.IGNORECASE,
)
# what keeps a sentence with a duration open: a state that goes on ("has been down for 2 days"), a plan or a
# habit ("will be closed for a week", "every day for 10 minutes"), a present change ("now off for 3 days")
_ONGOING = re.compile(r"\b(?:been|will|now|currently|every|each|per|next|until|till|still)\b|['’]ll\b", re.IGNORECASE)


@lru_cache(maxsize=65536)
def bounded_episode(text: str) -> bool:
    """Whether a memory is one sentence reporting an episode that lasted a stated time and is over ("Priya
    reported that the gateway dropped requests for 532 minutes", "the API was down for 20 minutes"): what
    happened then stays true, so it neither retires a statement nor is retired by one (a correction aside).
    A note of several sentences is not read so: its other sentences may state what changes."""
    return len(sentences(text)) == 1 and bool(_DURATION.search(text)) and not _ONGOING.search(text)


def pair_features(pair: Pair) -> dict[str, float]:
    """The features of one (newer, older) pair (pure): the cheap ones (:func:`cheap_features`), the rest
    (:func:`costly_features`) and the vetoes the model does not weigh (:func:`veto_values`)."""
    values = cheap_features(pair)
    values.update(costly_features(pair, values))
    values.update(veto_values(pair))
    return values


VETOES = ("episode",)  # what veto_values gives: read by decide, weighed by no model


def veto_values(pair: Pair) -> dict[str, float]:
    """The values :func:`decide` reads besides the model's features (pure): ``episode``, either memory is a
    bounded past episode (:func:`bounded_episode`)."""
    return {"episode": 1.0 if bounded_episode(pair.newer.text) or bounded_episode(pair.older.text) else 0.0}


def cheap_features(pair: Pair) -> dict[str, float]:
    """Every feature but :data:`COSTLY` (pure): enough, with :meth:`PairModel.ceilings`, to know that most
    pairs cannot be linked whatever the rest say."""
    return dict(zip(CHEAP, _cheap_values(pair)))


def _cheap_values(pair: Pair) -> list[float]:
    """The values of :data:`CHEAP` for ``pair``, in that order (pure)."""
    n, o = pair.newer, pair.older
    nc, oc = n.cues, o.cues
    change = nc.stop + nc.switch + nc.correction > 0
    names_n, names_o = n.mentions, o.mentions
    union = names_n | names_o
    words_n, words_o = nc.words, oc.words
    words_union = words_n | words_o
    gap = max(0.0, (n.at - o.at).total_seconds() / 86400)
    shared_values = nc.values & oc.values
    return [  # in the order of CHEAP (that of FEATURES)
        pair.cosine,  # cosine
        float(min(nc.stop, 2)),  # stop
        float(min(nc.switch, 3)),  # switch
        float(min(nc.correction, 2)),  # correction
        pair.cosine if change else 0.0,  # change_x_cosine
        float(min(nc.still, 2)),  # still
        float(min(nc.hypothetical, 2)),  # hypothetical
        float(min(nc.temporary, 2)),  # temporary
        1.0 if nc.question else 0.0,  # question
        1.0 if (nc.negation > 0) != (oc.negation > 0) else 0.0,  # negation_flip
        1.0 if shared_values else 0.0,  # same_value_kind
        1.0 if shared_values and (nc.numbers - oc.numbers) else 0.0,  # new_number
        1.0 if nc.value_nouns & oc.value_nouns else 0.0,  # shared_value_noun
        1.0 if nc.role_nouns and oc.role_nouns else 0.0,  # shared_role
        len(names_n & names_o) / len(union) if union else 0.0,  # entity_overlap
        min(len(names_n - names_o), 3) / 3,  # new_names
        1.0 if nc.other_person and not oc.other_person else 0.0,  # other_person
        1.0 if nc.first_person and oc.first_person else 0.0,  # both_first_person
        len(words_n & words_o) / len(words_union) if words_union else 0.0,  # word_overlap
        1.0 if nc.still and not change else 0.0,  # still_only
        1.0 if oc.stop + oc.switch + oc.correction > 0 else 0.0,  # older_changes
        math.log1p(gap),  # log_gap_days
        1.0 if n.stream is not None and n.stream == o.stream else 0.0,  # same_stream
        1.0 if nc.subject is not None and nc.subject == oc.subject else 0.0,  # same_subject
        1.0 if None not in (nc.subject, oc.subject) and nc.subject != oc.subject else 0.0,  # other_subject
        1.0 if (nc.numbers - oc.numbers) and (oc.numbers - nc.numbers) and words_n & words_o else 0.0,  # replaced_value
        1.0 if someone_else(nc.subject, oc.subject) or other_speakers(n.text, o.text, nc.subject, oc.subject) else 0.0,
        1.0 if oc.other_person else 0.0,  # older_other_person
        float(min(nc.tentative, 2)),  # tentative
        # older_dated_event: a dated report of something that happened, stating no change of its own
        1.0 if oc.stop + oc.switch + oc.correction == 0 and dated_past(o.text, o.at) else 0.0,
        1.0 if other_entity(n.text, o.text) else 0.0,  # other_entity
    ]


_PROPER = re.compile(r"(?<![\w'])[A-Z][a-z]+(?:[A-Z][a-z]+)*(?=['’]s\b|(?![\w'’]))")
_FRAME_WORD = re.compile(r"[a-z][a-z']+")
FRAME_OVERLAP = 0.3  # the share of the older's other words the newer repeats for the two to say the same thing


@lru_cache(maxsize=65536)
def _names_and_frame(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The capitalised names a text uses outside the start of a sentence or line, and its other words."""
    names = set()
    for m in _PROPER.finditer(text):
        before = text[: m.start()].rstrip()
        if before and before[-1] not in ".!?:\n" and m.group(0).lower() not in _NOT_NAMES:
            names.add(m.group(0).casefold())
    frame = frozenset(w for w in _FRAME_WORD.findall(text.lower()) if w not in names and len(w) > 2)
    return frozenset(names), frame


_NOT_NAMES = frozenset(
    "i the a an my our we you he she they it this that these those monday tuesday wednesday thursday friday "
    "saturday sunday january february march april may june july august september october november december".split()
)


def other_entity(newer: str, older: str) -> bool:
    """Whether the two say the same kind of thing about different named entities: each names someone or
    something the other does not, they share no name, and the newer repeats much of the older's other words
    ("Customer Acme's contract renews on March 31, discount 12 %" / "Customer Globex's contract now renews on
    June 30, discount 5 %"). A statement about one customer never retires another's."""
    nn, nf = _names_and_frame(newer)
    on, of = _names_and_frame(older)
    if not nn or not on or nn & _tokens(older) or on & _tokens(newer):
        return False  # a name of either is in the other's words (at the start of a sentence, say): the same one
    if _identifiers(newer) & _identifiers(older):
        return False  # both name the same product, model or record ("HEK293T", "INV-2024-006"): the same thing
    return len(nf & of) / max(1, len(of)) >= FRAME_OVERLAP


@lru_cache(maxsize=65536)
def _tokens(text: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in re.findall(r"[^\W\d_]+", text))


# a word of three or more characters with a capital letter and a digit: "HEK293T", "L3000", "INV-2024-006" name a
# product, model or record; "3pm", "6-well", "Q3" or a date do not
_IDENTIFIER = re.compile(r"(?<![\w-])(?=[\w-]*[A-Z])(?=[\w-]*\d)\w+(?:-\w+)*(?![\w-])")


@lru_cache(maxsize=65536)
def _identifiers(text: str) -> frozenset[str]:
    """The identifiers ``text`` writes (:data:`_IDENTIFIER`), case-folded."""
    return frozenset(m.group(0).casefold() for m in _IDENTIFIER.finditer(text) if len(m.group(0)) >= 3)


# the features :func:`cheap_features` leaves out, each with the most it can be for a pair (given its cheap
# features and cues): what :meth:`PairModel.reachable` bounds the log-odds with
COSTLY = ("clause_overlap", "stopped_topic", "negates_older", "implication", "kept_in_clause", "qualifier_conflict")
CHEAP = tuple(name for name in FEATURES if name not in COSTLY)  # the order _cheap_values gives them
assert sorted(CHEAP + COSTLY) == sorted(FEATURES), "every feature is cheap or costly, once"


def costly_ceiling(pair: Pair) -> list[float]:
    """For each of :data:`COSTLY`, in that order, the largest value it can take for ``pair`` (0 where a cue it
    needs is absent: no sentence stating a change, nothing stopped, nothing negated, no implication, no value
    noun the two share)."""
    nc, oc = pair.newer.cues, pair.older.cues
    return [
        1.0 if nc.clause_words else 0.0,  # clause_overlap
        1.0 if nc.stopped_topics else 0.0,  # stopped_topic
        1.0 if nc.negated else 0.0,  # negates_older
        1.0 if implication_triggers(nc) else 0.0,  # implication
        1.0,  # kept_in_clause
        1.0 if nc.value_nouns & oc.value_nouns else 0.0,  # qualifier_conflict
    ]


def costly_features(pair: Pair, cheap: Mapping[str, float]) -> dict[str, float]:
    """The features of :data:`COSTLY` (pure)."""
    n, o = pair.newer, pair.older
    nc, oc = n.cues, o.cues
    words_o = oc.words
    return {
        "implication": 1.0 if implied_retirements(n.text, o.text) else 0.0,
        "clause_overlap": len(nc.clause_words & words_o) / len(nc.clause_words) if nc.clause_words else 0.0,
        "stopped_topic": 1.0 if nc.stopped_topics & oc.topics else 0.0,
        "negates_older": 1.0 if nc.negated & (oc.tokens - nc.affirmed) else 0.0,
        "qualifier_conflict": 1.0
        if cheap["shared_value_noun"] and _conflict(n.text, o.text, nc.value_nouns & oc.value_nouns)
        else 0.0,
        "kept_in_clause": 1.0 if keeps_without_change(nearest_sentence(n.text, words_o)) else 0.0,
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
    "Aunt Rosa will take him" may be a change), when its sentence about the older's topic keeps it as it was
    and corrects nothing ("… still a cortado girl"), or when the older is a dated report of something that
    happened ("I won my first tournament last week", stating no change of its own) and the newer corrects
    nothing: what happened then stays true whatever happens next (no positive of the training data retires
    one); likewise when either is a one-sentence report of an episode that lasted a stated time
    (:func:`bounded_episode`: "the gateway dropped requests for 532 minutes"). Else by the model at or above its
    threshold; else by rule: a correction that negates a word of the older ("correction: the 21st, not the
    14th"), or the implications table (a diet, sobriety, a sale: :data:`~kgmem.derived.change_cues.IMPLICATIONS`)
    when the newer is no temporary arrangement and the older is not about someone else."""
    if values.get("someone_else") or values.get("question") or values.get("tentative") or values.get("other_entity"):
        return None
    if (values.get("older_dated_event") or values.get("episode")) and not values.get("correction"):
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
class PairModel(Logit):
    """The pair model (:class:`kgmem.logit.Logit` over :data:`FEATURES`), with its held-out figures and the
    weight of a version chain in recall's currency step."""

    held_out: dict[str, Any] = field(default_factory=dict)
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

    def reachable(self, cheap: Sequence[Sequence[float]], ceilings: Sequence[Sequence[float]]) -> list[bool]:
        """For each pair, whether the model could reach its threshold: ``cheap`` holds its values of
        :data:`CHEAP` and ``ceilings`` the largest values of :data:`COSTLY` (:func:`costly_ceiling`); the
        log-odds are bounded by taking each costly feature at 0 or at its ceiling, whichever adds more. False:
        the model links the pair for no value of the costly features."""
        import numpy as np

        if not cheap:
            return []
        at = {name: i for i, name in enumerate(self.features)}
        c, k = [at[n] for n in CHEAP], [at[n] for n in COSTLY]
        w = np.array(self.coef) / np.array([sd or 1.0 for sd in self.scale])
        mu = np.array(self.mean)
        top = np.asarray(ceilings, dtype=np.float64)
        z = self.intercept + (np.asarray(cheap, dtype=np.float64) - mu[c]) @ w[c]
        z += np.maximum(-w[k] * mu[k], w[k] * (top - mu[k])).sum(axis=1)
        return [bool(v) for v in z >= logit(self.threshold) - 1e-9]

    def to_dict(self) -> dict[str, Any]:
        return {
            "transform": TRANSFORM_VERSION,
            "implications": IMPLICATIONS_VERSION,
            **self.fields(),
            "held_out": self.held_out,
            "chain_weight": self.chain_weight,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PairModel:
        if tuple(d["features"]) != FEATURES:
            raise ValueError(f"supersession model features {d['features']} are not kgmem's {list(FEATURES)}")
        return cls(
            **Logit.read_fields(d),
            held_out=dict(d.get("held_out") or {}),
            chain_weight=float(d.get("chain_weight", 1.0)),
        )


@lru_cache(maxsize=1)
def shipped() -> PairModel | None:
    """The model shipped in ``kgmem/data/supersession.json`` (None when absent: no links are inferred)."""
    text = shipped_json(MODEL_FILE)
    return None if text is None else PairModel.from_dict(json.loads(text))


# ---------------------------------------------------------------------------- candidates from the graph


def _read_sides(
    store: Store, tenant: str, ids: Sequence[str], cues_of: Mapping[str, Cues] | None = None
) -> dict[str, Side]:
    """The records ``ids`` as pair sides (each text's cues from ``cues_of`` when it has them)."""
    out: dict[str, Side] = {}
    for i in range(0, len(ids), 5000):
        for row in store.read("derived/supersession_sources", tenant=tenant, ids=list(ids[i : i + 5000])):
            out[row["id"]] = _side(row, cues_of)
    return out


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


@lru_cache(maxsize=65536)
def own_names(text: str) -> frozenset[str]:
    """The entity keys of the names a text writes itself (what other memories taught the tenant is not read:
    the features of a pair stay the same whatever arrived before it)."""
    from ..ingest.entities import extract_entities
    from ..normalize import entity_key

    return frozenset(k for k in (entity_key(n) for n in extract_entities(text)) if k)


def _side(row: dict[str, Any], cues_of: Mapping[str, Cues] | None = None) -> Side:
    text = row["text"]
    known = cues_of.get(text) if cues_of is not None else None
    return Side(
        row["id"],
        text,
        _EPOCH + dt.timedelta(milliseconds=row["at_ms"]),
        own_names(text),
        row.get("stream"),
        known if known is not None else cues(text),
        row.get("user"),
    )


class CueWarmer:
    """Works out the cues of texts on a thread of its own while the write embeds and stores them, so the pass
    after the write finds them done (:func:`run`'s ``cues_of``). Fed by the write path's ``texts_out`` hook;
    holds at most ``limit`` texts (past that the pass works them out itself)."""

    def __init__(self, limit: int = IN_MEMORY_PAIRS_MAX):
        from concurrent.futures import ThreadPoolExecutor

        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgmem-cues")
        self._futures: list[Any] = []
        self._left = limit

    def submit(self, texts: Sequence[str]) -> None:
        take = list(texts[: max(0, self._left)])
        self._left -= len(take)
        if take:
            self._futures.append(self._pool.submit(lambda: {t: cues(t) for t in take}))

    def result(self) -> dict[str, Cues]:
        """Every submitted text's cues (waits for the thread)."""
        out: dict[str, Cues] = {}
        for fut in self._futures:
            out.update(fut.result())
        return out

    def __enter__(self) -> CueWarmer:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def newest_outside(store: Store, tenant: str, ids: Sequence[str]) -> dt.datetime | None:
    """The valid time of the tenant's newest record outside ``ids`` (None when it holds none)."""
    unique = sorted(set(ids))
    rows = store.read("derived/newest_records", tenant=tenant, ids=unique, limit=len(unique) + 1)
    latest: dt.datetime | None = rows[0]["latest"] if rows else None
    return latest


def _near_by_index(
    store: Store, tenant: str, search: Sequence[str], k: int, sides: Mapping[str, Side] | None = None
) -> dict[str, list[tuple[str, float]]]:
    """Each memory's records of the tenant (and user) at least :data:`PAIR_FLOOR` alike, at most ``k``, by the
    vector index (normalised scores); a memory that states an implication ("went vegan") any of its ``k``
    nearest, however alike (what it retires may share no word with it)."""
    near_of: dict[str, list[tuple[str, float]]] = {}
    fetch = max(FETCH_FILTERED, 2 * k) if store.server_info().filtered_vector_search else FETCH
    wide = {i for i in search if sides is not None and i in sides and implies(sides[i])}
    for group, floor in ((sorted(set(search) - wide), (1.0 + PAIR_FLOOR) / 2.0), (sorted(wide), 0.0)):
        for i in range(0, len(group), BATCH):
            for row in store.read(
                "derived/supersession_neighbors",
                tenant=tenant,
                ids=list(group[i : i + BATCH]),
                k=k,
                fetch=fetch,
                floor=floor,
            ):
                near_of[row["id"]] = [(n["id"], n["score"]) for n in row["near"]]
    return near_of


def implies(side: Side) -> bool:
    """Whether a memory states something the implications table reads (a diet, a move, a sale…)."""
    return bool(implication_triggers(side.cues))


def top_k(scores: Any, k: int, block: int = 64) -> Any:
    """The column indices of each row's ``k`` highest scores (in no order), for 0 < ``k`` < the columns: the
    ``k`` blocks of ``block`` columns with the highest maxima hold them, so only those are partitioned (the
    maxima come from ``reduceat``, which copies nothing; the last block may be short)."""
    import numpy as np

    rows, cols = scores.shape
    if cols <= block * k:
        return np.argpartition(scores, -k, axis=1)[:, -k:]
    maxima = np.maximum.reduceat(scores, np.arange(0, cols, block), axis=1)
    best = np.argpartition(maxima, -k, axis=1)[:, -k:]
    where = (best[:, :, None] * block + np.arange(block)).reshape(rows, -1)
    held = np.take_along_axis(scores, np.minimum(where, cols - 1), axis=1)
    held[where >= cols] = -np.inf  # past the end of a short last block
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
            cos = np.take_along_axis(sims, top, axis=1)
            order = np.lexsort((top, -cos), axis=1)  # the index's order: score descending, then id (members sorted)
            top = np.take_along_axis(top, order, axis=1)
            score = (1.0 + np.take_along_axis(cos, order, axis=1).astype(np.float64)) / 2.0
            floor = (1.0 + PAIR_FLOOR) / 2.0
            for r, cols, scores in zip(chunk, top.tolist(), score.tolist()):
                least = 0.0 if implies(sides[members[r]]) else floor
                near_of[members[r]] = [(members[c], sc) for c, sc in zip(cols, scores) if c != r and sc >= least]
    return near_of


def candidate_pairs(
    store: Store,
    tenant: str,
    ids: Sequence[str],
    *,
    k: int = NEIGHBOURS,
    vectors: Mapping[str, Any] | None = None,
    cues_of: Mapping[str, Cues] | None = None,
) -> list[Pair]:
    """The (newer, older) pairs the pass scores for the records ``ids``: each with the records of the same user
    at least :data:`PAIR_FLOOR` alike (at most ``k``), the newer side of a pair able to state a change. Each pair
    once. What a pair is scored with depends on its two memories only, and every pair at least that alike is
    scored when its later-arriving member arrives: any arrival order, batch split or re-run gives the same links
    (as long as no memory has more than ``k`` such neighbours).

    When the tenant holds no record outside ``ids`` (a first load, a rebuild), the neighbours are found among
    ``ids`` by a matrix product over their vectors (``vectors``, {id: vector}, from the write; else read), which
    is exact and costs no query per memory; otherwise the vector index is asked. The neighbour statement
    returns ids and scores only; a neighbour outside ``ids`` is read once, whatever the number of memories it
    is near. ``cues_of`` ({text: cues}) spares working out the cues of the texts it holds."""
    sides = _read_sides(store, tenant, ids, cues_of)
    latest = newest_outside(store, tenant, ids)
    search = sorted(sides)  # a new record may retire an older one or be retired by a newer one already stored
    if latest is None and len(sides) <= IN_MEMORY_PAIRS_MAX:
        near_of = _near_in_memory(store, tenant, sides, search, k, vectors)
    else:
        near_of = _near_by_index(store, tenant, search, k, sides)
    missing = sorted({n for near in near_of.values() for n, _ in near} - set(sides))
    sides |= _read_sides(store, tenant, missing, cues_of)
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
    """The pairs in a stable order (pure)."""
    return [Pair(newer, older, sim) for (_n, _o), (newer, older, sim) in sorted(found.items())]


def score(pairs: Sequence[Pair], model: PairModel) -> list[dict[str, Any]]:
    """Links for the pairs whose probability reaches the model's threshold (or that a rule links), strongest
    first. A pair whose cheap features already rule out both the model (:meth:`PairModel.reachable`) and the
    rules (a correction, an implication) is not worked out further: the links are those of scoring every pair
    in full (:func:`pair_features`)."""
    links: list[dict[str, Any]] = []
    cheap = [_cheap_values(pair) for pair in pairs]
    ceilings = [costly_ceiling(pair) for pair in pairs]
    correction, implication = CHEAP.index("correction"), COSTLY.index("implication")
    kept: list[Pair] = []
    rows: list[dict[str, float]] = []
    for pair, first, top, reach in zip(pairs, cheap, ceilings, model.reachable(cheap, ceilings)):
        if reach or first[correction] or top[implication]:
            row = dict(zip(CHEAP, first))
            row.update(costly_features(pair, row))
            row.update(veto_values(pair))
            kept.append(pair)
            rows.append(row)
    for pair, values, p in zip(kept, rows, model.probabilities(rows)):
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
    cues_of: Mapping[str, Cues] | None = None,
) -> list[dict[str, Any]]:
    """The inferred SUPERSEDES links for the records ``ids`` (not written); ``vectors`` and ``cues_of`` as for
    :func:`candidate_pairs`."""
    model = model or shipped()
    if model is None or not ids:
        return []
    return score(candidate_pairs(store, tenant, ids, vectors=vectors, cues_of=cues_of), model)


WRITE_BATCH = 5000  # links, or memories marked, per transaction: a large ingest's all in one can exhaust Neo4j's heap


def write(store: Store, tenant: str, links: list[dict[str, Any]], checked: Sequence[str]) -> int:
    """Write the links and mark ``checked`` as read by this version of the pass, :data:`WRITE_BATCH` of each per
    transaction (one transaction for a small write). The marks go with the last links, or after them: a crash
    in between leaves memories unmarked, which a re-run reads again (a link is merged, never doubled)."""
    if not links and not checked:
        return 0
    link_parts = [links[i : i + WRITE_BATCH] for i in range(0, len(links), WRITE_BATCH)] or [[]]
    mark_parts = [list(checked[i : i + WRITE_BATCH]) for i in range(0, len(checked), WRITE_BATCH)] or [[]]
    parts: list[tuple[list[dict[str, Any]], list[str]]] = [(part, []) for part in link_parts[:-1]]
    parts.append((link_parts[-1], mark_parts[0]))
    parts += [([], marks) for marks in mark_parts[1:]]

    def one(part: list[dict[str, Any]], marks: list[str]) -> int:
        return int(
            store.write_tx(
                lambda tx: tx.run(
                    "derived/link_supersedes", tenant=tenant, links=part, transform=TRANSFORM_VERSION, checked=marks
                )[0]["created"]
            )
        )

    return sum(one(part, marks) for part, marks in parts)


def run(
    store: Store,
    tenant: str,
    ids: Sequence[str],
    model: PairModel | None = None,
    vectors: Mapping[str, Any] | None = None,
    cues_of: Mapping[str, Cues] | None = None,
) -> int:
    """Infer (with ``model``, else the shipped one) and write the links of the records ``ids``; returns how many
    edges were created. ``vectors`` ({id: vector}) and ``cues_of`` ({text: cues}), from the write
    (:class:`CueWarmer`), spare reading the vectors back and working the cues out again."""
    links = infer(store, tenant, ids, model, vectors, cues_of)
    return write(store, tenant, links, ids)


def unchecked(store: Store, tenant: str, ids: Sequence[str]) -> list[str]:
    """Of ``ids``, the records this version of the pass has not read (a run killed after its write)."""
    return unread(store, "derived/unchecked_ids", tenant, ids, TRANSFORM_VERSION)


def unread(store: Store, statement: str, tenant: str, ids: Sequence[str], transform: str) -> list[str]:
    """Of ``ids``, those ``statement`` says a derived pass of version ``transform`` has not read (its mark on the
    memory differs): what a re-run of an interrupted ingest completes. Shared by the passes that mark."""
    out: list[str] = []
    for i in range(0, len(ids), 5000):
        out += [r["id"] for r in store.read(statement, tenant=tenant, ids=list(ids[i : i + 5000]), transform=transform)]
    return out


def rebuild(store: Store, tenant: str) -> dict[str, Any]:
    """Drop every inferred SUPERSEDES link of the tenant and infer them again from the records."""
    removed = store.write("derived/drop_inferred_supersedes", tenant=tenant, ids=None)[0]["removed"]
    ids = [r["id"] for r in store.read("derived/memory_ids", tenant=tenant)]
    links = infer(store, tenant, ids)
    return {"removed": removed, "inferred": write(store, tenant, links, ids), "links": links}
