"""What the question asks against what the hits say: cheap lexical features for recall's confidence (pure).

The ranking signals (:mod:`kgmem.query.confidence`) say how well a memory *matches*; these say whether it can
*answer*:

* **coverage** — the share of the question's salient terms (stemmed with the Snowball English stemmer, question
  words and stopwords dropped, weighted by inverse document frequency) that the best hit contains, and that the
  best hits together contain;
* **topic** — whether any memory recall read contains the question's rarest salient term ("what is Maya's
  favourite band?" over a store without "band": nothing about the topic), and how near the nearest of them is
  to the question with its names left out ("what is favourite band?": words may differ, the meaning not);
* **attribution** — the person or thing the question names against who said or did it in the hit: the hit's
  speaker (``"Maya: …"``), the entities it mentions, the names it writes. LoCoMo built its false-premise
  questions by swapping the person; "the memories say this of Jon, not of Maya" is this feature;
* **who is behind** — whether a memory by someone else covers the topic better than any by the person named
  (the sign of the attribution margin over every memory read, ``pool_behind``): "the memories say this of Jon"
  is a yes-or-no premise check more than a matter of degree;
* **the best hit** — whether it is itself a question (a chat turn that asks is rarely the evidence), how much it
  says, whether a newer memory **retired** it.

Features tried and left out, and those computed but not read by the shipped model, are listed with their
figures in CHANGELOG's benchmark log.

The inverse document frequencies ship in ``kgmem/data/idf.json`` (built by ``scripts/build_idf.py`` from
licence-clean text: WikiWhy's causes and effects (MIT), kgmem's fixtures, updates-dev (CC0) and the template
chats; a word it has never seen weighs as the rarest).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import AbstractSet, Any, Iterable, Sequence

import snowballstemmer

from . import lucene, timeparse

IDF_FILE = "idf.json"

_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*|\d+(?:[.,]\d+)?")
_SPEAKER = re.compile(r"^\s*([A-Z][\w'’\-]*(?: [A-Z][\w'’\-]*)?):\s")
_CAP = re.compile(r"\b([A-Z][a-z][\w'’\-]*)")
# question words, auxiliaries, pronouns, the words of a question's frame ("what kind of", "the name of", "anything
# involving", "regarding") and common English stopwords: none of them names what a question is about (the
# question words and pronouns are the keyword channels' own, :mod:`kgmem.query.lucene`, so both drop the same ones)
STOPWORDS = (
    frozenset(
        """
        a about above after again against all also an and any aren't as at be because been before being below
        between both but by can't cannot couldn't doing down during each either else ever every few for from further
        get gets got hadn't hasn't haven't having he'd he'll he's here here's however i'd i'll i'm i've if in into
        isn't it's just let's like many may might more most much must mustn't no nor not now of off often on once
        one only or other others ought out over own per perhaps please quite rather really same shan't she'd she'll
        she's shouldn't since so some something such than that that's the then there there's these they'd they'll
        they're they've this those though through thus to too under until up upon very wasn't we'd we'll we're we've
        weren't whatever whether while why's will with within without won't wouldn't yet you'd you'll you're you've
        kind type sort name names named called thing things stuff way ways time times according mention mentioned
        say said says tell told think thought know knew known recently usually still going go goes went gone get
        getting make makes made take took taken lot lots well yes yeah oh ok okay anything everything something
        nothing happened happen happens up involving involve involves involved regarding concerning related
        relating
        """.split()
    )
    | lucene.QUESTION_WORDS
    | lucene.PRONOUNS
)
# a time phrase filters or ranks by time (kgmem.query.timeparse); it is not what a question is about
TIME_WORDS = frozenset(
    """
    yesterday today tomorrow tonight week weeks weekend month months year years day days ago last next this
    morning afternoon evening night recently lately earlier later january february march april may june july
    august september october november december monday tuesday wednesday thursday friday saturday sunday
    jan feb mar apr jun jul aug sep sept oct nov dec
    """.split()
)
# a name is Title-case throughout ("Caroline", "Jean-Luc", "Maya's"); a word with a capital inside it ("GraphQL",
# "YouTube") names a thing the question asks about, so it is a topic term
_TITLE = re.compile(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)*(?:['’]s)?")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    # a stemmer per word not seen before: a Snowball stemmer keeps its word in itself, so one shared by the
    # query threads would mix words (its construction costs nothing beside the stemming)
    return str(snowballstemmer.stemmer("english").stemWord(word))


# a word, a number or an identifier ("zx9q", "err-5020" are one token each: a code the question names must be
# found whole)
_LOWER_WORD = re.compile(r"[a-z0-9]+(?:['\-][a-z0-9]+)*")
_POSSESSIVE = re.compile(r"'s\b")


def words(text: str) -> list[str]:
    """Lower-cased word tokens, possessives cut (``Maya's`` → ``maya``)."""
    low = _POSSESSIVE.sub("", text.lower().replace("’", "'"))
    return [w for w in (t.strip("'-") for t in _LOWER_WORD.findall(low)) if w]


@lru_cache(maxsize=16384)
def stems(text: str) -> frozenset[str]:
    """The stems of a text's non-stopwords."""
    return frozenset(stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 1)


@lru_cache(maxsize=1)
def _idf_table() -> tuple[dict[str, float], float]:
    try:
        raw = json.loads(resources.files("kgmem").joinpath("data", IDF_FILE).read_text(encoding="utf-8"))
    except (FileNotFoundError, OSError):
        return {}, 1.0
    n = float(raw["documents"])
    table = {s: math.log((n + 1.0) / (df + 1.0)) + 1.0 for s, df in raw["df"].items()}
    return table, math.log(n + 1.0) + 1.0


def idf(stem: str) -> float:
    table, unseen = _idf_table()
    return table.get(stem, unseen)


@dataclass(frozen=True)
class Asked:
    """What a question asks, worked out once: its salient stems (names apart) and its names."""

    salient: tuple[str, ...]  # stems of the topic words, rarest first
    names: tuple[str, ...]  # lower-cased name-like words of the question (who or what it names)
    written: tuple[str, ...] = ()  # the question's words (:func:`words`: lower-cased, its time phrase kept)

    @property
    def weight(self) -> float:
        return sum(idf(s) for s in self.salient)


# a time phrase is found against a fixed day, so that what a question asks never depends on when it is read
_TIME_REFERENCE = dt.datetime(2100, 1, 1, tzinfo=dt.timezone.utc)


def without_time(question: str) -> str:
    """The question without its time phrase ("What did Jon do in May 2023?" → "What did Jon do?"): the time
    filters or ranks (:mod:`kgmem.query.timeparse`); it is not what the question is about."""
    found = timeparse.parse_time_filter(question, _TIME_REFERENCE)
    return found.rest if found is not None else question


def asked(question: str, without_phrase: str | None = None) -> Asked:
    """The question's salient stems (rarest first) and its names, its time phrase left out, and its words: what
    the other readers take (:class:`kgmem.query.question.Question` reads it once, as ``asked``).
    ``without_phrase``: the question without its time phrase when the caller has read it (the filters do:
    :attr:`kgmem.query.filters.Filters.time_rest`); else it is found here."""
    written = tuple(words(question))
    question = without_time(question) if without_phrase is None else without_phrase
    tokens = list(_WORD.finditer(question))
    names = []
    for i, m in enumerate(tokens):
        w = m.group(0)
        # a name is written Title-case ("Caroline", not "CDN" or "SKU-77": those are the topic)
        if i > 0 and _TITLE.fullmatch(w) and w.lower().rstrip("'’s") not in STOPWORDS | TIME_WORDS:
            names.append(words(w)[0] if words(w) else w.lower())
    name_set = set(names)
    sal = {
        stem(w)
        for w in words(question)
        if w not in STOPWORDS
        and w not in TIME_WORDS
        and len(w) > 1
        and w not in name_set
        and not timeparse.is_time_token(w)  # outside a phrase the parser reads: "the 2023 budget", "the 8th"
    }
    return Asked(tuple(sorted(sal, key=lambda s: (-idf(s), s))), tuple(dict.fromkeys(names)), written)


def read(question: Asked | str) -> Asked:
    """``question`` as :func:`asked` reads it (an :class:`Asked` already read is taken as it is)."""
    return question if isinstance(question, Asked) else asked(question)


def without_names(question: str, names: Sequence[str] | None = None) -> str:
    """The question with the names it asks about left out ("what is Maya's favourite band?" → "what is
    favourite band?"): what it asks, whoever it is about. ``names``: those :func:`asked` read in it, when the
    caller has read it."""
    names = asked(question).names if names is None else names
    if not names:
        return question
    out = question
    for n in names:
        out = re.sub(rf"\b{re.escape(n)}(?:['’]s)?\b", "", out, flags=re.IGNORECASE)
    return re.sub(r"\s+", " ", out).strip() or question


def coverage(a: Asked, texts: Iterable[str]) -> float:
    """The IDF-weighted share of the question's salient stems found in the texts (1.0 when it has none)."""
    total = a.weight
    if total <= 0:
        return 1.0
    have: set[str] = set()
    for t in texts:
        have |= stems(t)
    return sum(idf(s) for s in a.salient if s in have) / total


def speaker(text: str) -> str | None:
    """The speaker of a chat turn written ``"Name: …"`` (lower-cased), else None."""
    m = _SPEAKER.match(text)
    return m.group(1).lower() if m else None


def persons(text: str) -> set[str]:
    """Lower-cased capitalised words of a text that are names, roughly: not stopwords, and not opening a
    sentence (where any word is capitalised) unless followed by ``'s`` ("Maya's phone"). The entities a memory
    mentions (:func:`about`'s ``mentions``) say it better where the graph knows them."""
    out = set()
    for m in _CAP.finditer(text):
        w = words(m.group(1))
        if not w or w[0] in STOPWORDS:
            continue
        before = text[: m.start()].rstrip()
        if (not before or before[-1] in '.!?:"“(') and not m.group(1).endswith(("'s", "’s")):
            continue
        out.add(w[0])
    return out


FEATURES = (
    "coverage",
    "coverage_top3",
    "topic_any",
    "topic_seen",
    "topic_similarity",
    "topic_named",
    "topic_other",
    "attribution_margin",
    "pool_margin",
    "pool_behind",
    "best_asks",
    "best_words",
    "retired",
)


def chat_speaker(text: str, mentions: Iterable[str] = ()) -> str | None:
    """The speaker of a chat turn (first name, lower-cased): the ``"Name: "`` it opens with, unless the names
    the graph knows it to mention leave that out — then the prefix is a label ("Standup: Diego is back")."""
    sp = speaker(text)
    if sp is None:
        return None
    known = {w for k in mentions for w in k.split()}
    first = sp.split()[0]
    return first if not known or first in known else None


def about(text: str, mentions: Iterable[str] = ()) -> set[str]:
    """Who a memory is by or about: a chat turn's speaker; else the names it writes and the entities it mentions
    (their words)."""
    sp = chat_speaker(text, mentions)
    if sp is not None:
        return {sp}
    return persons(text) | {w for k in mentions for w in k.split()}


_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|you're|youre|you've|you'll|you'd|ya)\b", re.I)
SOMEONE_ELSE = "someone else"  # the addressee of a chat turn that names no one


@lru_cache(maxsize=16384)
def _turn_parts(text: str) -> tuple[tuple[frozenset[str], str], ...]:
    """:func:`parts` of a chat turn (cached: the same candidates come back question after question)."""
    return tuple((frozenset(who), part) for who, part in parts(text))


def parts(text: str, mentions: Iterable[str] = ()) -> list[tuple[set[str], str]]:
    """A memory split by whom each part is about: a chat turn's sentences that ask something or speak to the
    other ("What got you into running?", "your new hair colour looks amazing") are about the addressee (the
    names the turn writes, else :data:`SOMEONE_ELSE`); the rest is about the speaker. A memory that is no chat
    turn is one part, about whom :func:`about` says."""
    me = chat_speaker(text, mentions)
    if me is None:
        return [(about(text, mentions), text)]
    body = _SPEAKER.sub("", text, count=1)
    own: list[str] = []
    theirs: list[str] = []
    for m in _SENTENCE.finditer(body):
        sentence = m.group(0).strip()
        if sentence:
            (theirs if sentence.endswith("?") or _SECOND_PERSON.search(sentence) else own).append(sentence)
    addressee = (persons(body) - {me}) or {SOMEONE_ELSE}  # SOMEONE_ELSE: attributed to no one
    out = []
    if own:
        out.append(({me}, " ".join(own)))
    if theirs:
        out.append((addressee, " ".join(theirs)))
    return out


def same_person(who: AbstractSet[str], names: AbstractSet[str]) -> bool:
    """Whether any of ``who`` is one of the ``names``, a short form counting ("Mel" for "Melanie")."""
    return any(
        w == n or (min(len(w), len(n)) >= 3 and (w.startswith(n) or n.startswith(w))) for w in who for n in names
    )


@dataclass(frozen=True)
class Attribution:
    """The memory that best covers the question's topic among those read, and whether it is by or about the
    person the question names (``margin``: the best coverage by the named minus the best by anyone else)."""

    named_cov: float
    other_cov: float
    other: str | None  # who the best-covering memory by someone else is by or about

    @property
    def margin(self) -> float:
        return self.named_cov - self.other_cov


def attribution(a: Asked, texts: Sequence[str], mentions: Sequence[Sequence[str]] = ()) -> Attribution:
    names = set(a.names)
    if not a.salient:  # no topic to attribute ("anything about Marta?")
        return Attribution(0.0, 0.0, None)
    named_cov = other_cov = 0.0
    other = None
    for i, t in enumerate(texts):
        ment = mentions[i] if i < len(mentions) else ()
        for who, part in parts(t, ment) if ment else _turn_parts(t):
            if not who or who == {SOMEONE_ELSE}:
                continue
            c = coverage(a, [part])
            if same_person(who, names):
                named_cov = max(named_cov, c)
            elif c > other_cov:
                other_cov, other = c, sorted(who)[0]
    return Attribution(named_cov, other_cov, other)


def features(
    question: Asked | str,
    hit_texts: Sequence[str],
    hit_mentions: Sequence[Sequence[str]],
    read_texts: Sequence[str],
    retired: bool,
    read_mentions: Sequence[Sequence[str]] = (),
    read_topic: Sequence[float | None] = (),
) -> dict[str, float]:
    """The meaning features of a ranked answer (``hit_texts`` best first; ``read_texts``: every candidate recall
    read, the hits among them; ``hit_mentions`` / ``read_mentions``: the entities (keys) each mentions, which
    say who a memory that is no chat turn is about; ``read_topic``: each one's cosine to the question with its
    names left out, for ``topic_similarity``)."""
    a = read(question)
    if not hit_texts:
        return dict.fromkeys(FEATURES, 0.0)
    best = hit_texts[0]
    names = set(a.names)
    covs = [coverage(a, [t]) for t in hit_texts]
    ti = max(range(len(covs)), key=lambda i: (covs[i], -i))  # the hit that best covers the topic
    # who the hit that best covers the topic is by or about (no one when no hit says a word of it)
    t_who = about(hit_texts[ti], hit_mentions[ti] if ti < len(hit_mentions) else ()) if covs[ti] > 0 else set()
    seen = set().union(*(stems(t) for t in read_texts)) if read_texts else set()
    pool = attribution(a, read_texts, read_mentions)
    body = _SPEAKER.sub("", best, count=1).strip()
    rare = a.salient[0] if a.salient else None
    return {
        "coverage": covs[0],
        "coverage_top3": coverage(a, hit_texts[:3]),
        "topic_any": max((coverage(a, [t]) for t in read_texts), default=0.0),
        "topic_seen": 1.0 if rare is None or rare in seen else 0.0,
        "topic_similarity": max((c for c in read_topic if c is not None), default=0.0),
        "topic_named": 1.0 if names and same_person(t_who, names) else 0.0,
        "topic_other": 1.0 if names and t_who and not same_person(t_who, names) else 0.0,
        "attribution_margin": attribution(a, hit_texts, hit_mentions).margin if names else 0.0,
        "pool_margin": pool.margin if names else 0.0,
        "pool_behind": 1.0 if names and pool.margin < 0 else 0.0,
        "best_asks": 1.0 if body.endswith("?") else 0.0,
        "best_words": math.log1p(len(stems(body))),
        "retired": 1.0 if retired else 0.0,
    }


def topic_words(question: Asked | str, limit: int = 3) -> list[str]:
    """The question's rarest topic words as written (for a reason: "nothing about band")."""
    a = read(question)
    keep = set(a.salient[:limit])
    seen: dict[str, None] = {}
    for w in a.written:
        if w not in STOPWORDS and stem(w) in keep and w not in a.names:
            seen.setdefault(w)
    return list(seen)


def absent_words(question: Asked | str, texts: Sequence[str]) -> list[str]:
    """The question's topic words (as written, rarest first) that none of the texts contains."""
    a = read(question)
    pool = set().union(*(stems(t) for t in texts)) if texts else set()
    missing = [s for s in a.salient if s not in pool]
    out: dict[str, None] = {}
    for s in missing:
        for w in a.written:
            if w not in STOPWORDS and w not in a.names and stem(w) == s:
                out.setdefault(w)
                break
    return list(out)


TOPIC_FLOOR = 0.5  # below this coverage by every memory read, the topic is not there
ATTRIBUTION_FLOOR = 0.5  # the coverage a memory about someone else needs before "they said it, not <named>"


def decline(
    question: Asked | str, read_texts: Sequence[str], read_mentions: Sequence[Sequence[str]] = ()
) -> dict[str, Any] | None:
    """Which kind of "no" an abstention is, when the words tell (None when they do not):

    * ``topic_absent`` — no memory read contains the question's rarest topic word, and none covers half of its
      topic: ``{"kind", "topic": [words], "message": "nothing about band in the memories"}``;
    * ``other_subject`` — the memory that best covers the topic is by or about someone other than the person the
      question names: ``{"kind", "named", "other", "message": "the memories say this of Jon, not of Maya"}``."""
    a = read(question)
    if not a.salient:
        return None
    best = max((coverage(a, [t]) for t in read_texts), default=0.0)
    missing = absent_words(a, read_texts)
    if best < TOPIC_FLOOR and a.salient[0] in {stem(w) for w in missing}:
        topic = missing[:3] or topic_words(a)
        return {"kind": "topic_absent", "topic": topic, "message": f"nothing about {' '.join(topic)} in the memories"}
    if a.names:
        att = attribution(a, read_texts, read_mentions)
        if (
            att.other not in (None, SOMEONE_ELSE)
            and att.other_cov >= ATTRIBUTION_FLOOR
            and att.other_cov > att.named_cov
        ):
            named, other = a.names[0].title(), att.other.title()
            return {
                "kind": "other_subject",
                "named": named,
                "other": other,
                "message": f"the memories say this of {other}, not of {named}",
            }
    return None
