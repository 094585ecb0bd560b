"""Features for the ``ask`` router: surface cues, word n-grams and (optionally) a sentence embedding.

The surface features follow the Knowledge Objects paper (section 4.3.3 / 5.5): interrogative words, a
question mark, definiteness ("is the"), possessives ("my", "'s"), proper-noun indicators, word count and
creative/explanatory verbs, extended with the cues that separate the five intents of ``ask``: temporal
and change words (history), causal words (why), recall verbs (recall), attribute nouns (slot) and
digits/ids. :func:`surface_features` returns them as a fixed-order vector named by :data:`FEATURE_NAMES`.

:func:`build_features` joins them with TF-IDF word uni/bigrams (and the all-MiniLM-L6-v2 embedding when
asked) in one scikit-learn :class:`~sklearn.pipeline.FeatureUnion`, so a fitted router is one object.
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Sequence

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import StandardScaler

from ..calendar_names import MONTH_NUMBERS, WEEKDAYS
from ..question_words import CAUSAL as _CAUSAL
from ..question_words import count as _count
from ..question_words import normalise as _normalise
from ..question_words import tokenize

if TYPE_CHECKING:  # scikit-learn has no type hints; to mypy its estimator bases are plain classes, not Any

    class BaseEstimator: ...

    class TransformerMixin: ...

else:
    from sklearn.base import BaseEstimator, TransformerMixin

# Bump when the features change so cached fitted routers are not reused across incompatible code.
FEATURE_VERSION = 1

_WH_WORDS = ("what", "who", "when", "where", "which", "why", "how")
_QUESTION_STARTERS = frozenset(
    _WH_WORDS
    + (
        "whose",
        "whom",
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "can",
        "could",
        "has",
        "have",
        "had",
        "will",
        "would",
        "should",
        "any",
        "anything",
    )
)
_IMPERATIVE_STARTERS = frozenset(
    (
        "tell",
        "show",
        "find",
        "list",
        "give",
        "get",
        "pull",
        "look",
        "search",
        "remind",
        "recall",
        "track",
        "write",
        "help",
        "suggest",
        "explain",
        "describe",
        "draft",
        "compose",
        "imagine",
        "summarize",
        "create",
        "generate",
        "translate",
        "rewrite",
        "recommend",
        "design",
        "outline",
        "pretend",
        "make",
        "brainstorm",
        "compare",
        "convert",
        "proofread",
        "play",
        "let's",
        "note",
        "remember",
        "could",
        "can",
    )
)
_FIRST_PERSON = frozenset(
    ("i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "i'm", "i've", "i'd", "we're", "we've")
)
_SECOND_PERSON = frozenset(("you", "your", "yours", "you're", "you've"))
_PAST_AUX = frozenset(("was", "were", "did", "had", "used", "didn't", "wasn't", "weren't"))
_MONTHS = frozenset(MONTH_NUMBERS)
_WEEKDAYS = frozenset(WEEKDAYS)

# Multi-word cues are matched on the space-padded, lowercased token string, so " led to " never matches
# inside "misled today".
_TEMPORAL_PAST = (
    "before",
    "previously",
    "previous",
    "formerly",
    "former",
    "originally",
    "original",
    "used to",
    "use to",
    "earlier",
    "old",
    "prior",
    "back in",
    "at the time",
    "first",
    "anymore",
    "no longer",
    "ago",
    "when we first",
    "at the start of",
)
_TEMPORAL_CHANGE = (
    "changed",
    "change",
    "changes",
    "history",
    "evolve",
    "evolved",
    "over time",
    "trend",
    "trended",
    "timeline",
    "different",
    "shifted",
    "gone up",
    "gone down",
    "went up",
    "still",
    "ever",
    "always",
    "since",
    "past values",
    "over the years",
    "switched",
    "became",
    "become",
    "moved",
    "start",
    "started",
)
_TEMPORAL_POINT = (
    "as of",
    "last year",
    "last month",
    "last spring",
    "last summer",
    "last winter",
    "last fall",
    "in q1",
    "in q2",
    "in q3",
    "in q4",
    "at the end of",
    "years ago",
    "year ago",
)
_TEMPORAL_RECENT = (
    "yesterday",
    "today",
    "tonight",
    "last week",
    "last night",
    "this morning",
    "this week",
    "recently",
    "lately",
    "last time",
    "this quarter",
    "last session",
)
_CREATIVE = (
    "write",
    "help",
    "suggest",
    "explain",
    "describe",
    "draft",
    "compose",
    "imagine",
    "poem",
    "story",
    "haiku",
    "joke",
    "limerick",
    "brainstorm",
    "create",
    "generate",
    "translate",
    "rewrite",
    "recommend",
    "design",
    "outline",
    "pretend",
    "proofread",
    "lyrics",
    "essay",
    "tips",
    "creative",
    "riddle",
    "quote",
    "recipe",
    "come up with",
    "make up",
    "song",
)
_RECALL = (
    "remember",
    "mention",
    "mentioned",
    "mentioning",
    "mentions",
    "note",
    "notes",
    "noted",
    "said",
    "say",
    "discussed",
    "discuss",
    "decided",
    "decide",
    "anything about",
    "anything on",
    "find",
    "show",
    "search",
    "recall",
    "talk",
    "talked",
    "told",
    "remind",
    "summarize",
    "recap",
    "memories",
    "journal",
    "conversation",
    "meeting",
    "agreed",
    "agree",
    "happened",
    "what do you know",
    "anything",
    "takeaways",
    "feedback",
    "look up",
    "pull up",
    "wrote",
    "jot",
    "latest on",
)
_ATTRIBUTE_NOUNS = (
    "phone",
    "number",
    "address",
    "email",
    "birthday",
    "name",
    "price",
    "cost",
    "manager",
    "password",
    "code",
    "id",
    "status",
    "version",
    "deadline",
    "title",
    "salary",
    "rent",
    "budget",
    "dosage",
    "size",
    "port",
    "region",
    "owner",
    "owns",
    "live",
    "lives",
    "work",
    "works",
    "age",
    "old",
    "weight",
    "weigh",
    "rate",
    "limit",
    "timeout",
    "lead",
    "contact",
    "date",
    "time",
    "link",
    "plate",
    "sku",
    "capacity",
)

_WORD_RE = re.compile(r"\S+")
_YEAR_RE = re.compile(r"\b(?:19|20)\d{2}\b")
_DIGIT_RE = re.compile(r"\d")
_ID_RE = re.compile(r"\b(?=[A-Za-z0-9_-]*[A-Za-z])(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{3,}\b|\b[A-Za-z]+-[A-Za-z0-9]+\b")
_POSSESSIVE_S_RE = re.compile(r"[\w.](?:'s|s')(?:\s|$|\W)")


def _proper_nouns(question: str) -> int:
    """Capitalised words that are not the first word and not "I" (names, places, products)."""
    words = _WORD_RE.findall(_normalise(question))
    n = 0
    for i, word in enumerate(words):
        core = word.strip("\"'()[]{}.,;:!?")
        if i == 0 or not core or core in ("I", "I'm", "I've", "I'd"):
            continue
        if core[0].isupper() and not core.isupper():
            n += 1
        elif core.isupper() and len(core) > 1 and not core.isdigit():
            n += 1  # acronyms: AWS, SLA, HR
    return n


FEATURE_NAMES: tuple[str, ...] = (
    *(f"wh_{w}" for w in _WH_WORDS),
    "starts_interrogative",
    "starts_imperative",
    "question_mark",
    "is_the",
    "possessive_my",
    "possessive_s",
    "first_person",
    "second_person",
    "past_aux",
    "temporal_past",
    "temporal_change",
    "temporal_point",
    "temporal_recent",
    "month_or_weekday",
    "year",
    "causal",
    "creative",
    "recall_verbs",
    "attribute_nouns",
    "word_count",
    "proper_nouns",
    "digits",
    "id_like",
)


def surface_features(question: str) -> np.ndarray:
    """The surface features of one question, in :data:`FEATURE_NAMES` order (float64)."""
    text = _normalise(question)
    tokens = tokenize(text)
    token_set = frozenset(tokens)
    padded = " " + " ".join(tokens) + " "
    first = tokens[0] if tokens else ""
    values: list[float] = [float(w in token_set) for w in _WH_WORDS]
    values += [
        float(first in _QUESTION_STARTERS or first.split("'")[0] in _WH_WORDS),
        float(first in _IMPERATIVE_STARTERS),
        float(text.endswith("?") or "?" in text),
        float(any(f" {p} " in padded for p in ("is the", "was the", "are the", "were the"))),
        float(bool(token_set & {"my", "mine"})),
        float(bool(_POSSESSIVE_S_RE.search(text))),
        float(len(token_set & _FIRST_PERSON)),
        float(len(token_set & _SECOND_PERSON)),
        float(len(token_set & _PAST_AUX)),
        float(_count(padded, token_set, _TEMPORAL_PAST)),
        float(_count(padded, token_set, _TEMPORAL_CHANGE)),
        float(_count(padded, token_set, _TEMPORAL_POINT)),
        float(_count(padded, token_set, _TEMPORAL_RECENT)),
        float(bool(token_set & (_MONTHS | _WEEKDAYS)) or bool(re.search(r"\b\d+(?:st|nd|rd|th)\b", text))),
        float(bool(_YEAR_RE.search(text))),
        float(_count(padded, token_set, _CAUSAL)),
        float(_count(padded, token_set, _CREATIVE)),
        float(_count(padded, token_set, _RECALL)),
        float(_count(padded, token_set, _ATTRIBUTE_NOUNS)),
        float(len(tokens)),
        float(_proper_nouns(text)),
        float(bool(_DIGIT_RE.search(text))),
        float(bool(_ID_RE.search(text))),
    ]
    return np.asarray(values, dtype=np.float64)


class SurfaceFeatures(TransformerMixin, BaseEstimator):
    """Stateless transformer: an (n, len(FEATURE_NAMES)) array of :func:`surface_features`."""

    def fit(self, X: Sequence[str], y: object = None) -> SurfaceFeatures:
        return self

    def transform(self, X: Sequence[str]) -> np.ndarray:
        return np.vstack([surface_features(q) for q in X]) if len(X) else np.zeros((0, len(FEATURE_NAMES)))

    def get_feature_names_out(self, input_features: object = None) -> np.ndarray:
        return np.asarray(FEATURE_NAMES, dtype=object)


_embed_cache: dict[str, np.ndarray] = {}
_embed_lock = threading.Lock()
_EMBED_CACHE_MAX = 20_000


def embed_questions(questions: Sequence[str]) -> np.ndarray:
    """all-MiniLM-L6-v2 embeddings, (n, 384) unit vectors; memoised per text so CV folds embed once."""
    from kgmem.embed import DIMENSIONS, get_embedder

    with _embed_lock:
        missing = list(dict.fromkeys(q for q in questions if q not in _embed_cache))
    if missing:
        vectors = get_embedder().encode(missing)
        with _embed_lock:
            if len(_embed_cache) + len(missing) > _EMBED_CACHE_MAX:
                _embed_cache.clear()
            _embed_cache.update(zip(missing, vectors))
    if not questions:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    with _embed_lock:
        return np.vstack([_embed_cache[q] for q in questions])


class EmbeddingFeatures(TransformerMixin, BaseEstimator):
    """Stateless transformer: the sentence embedding of each question (the model is not pickled).

    With ``by_anchor=True`` it returns ``[e * anchored, e * (1 - anchored)]`` (768 columns), where
    ``anchored`` says the question is about the user's own world (first person, "my", a possessive
    "'s"). A linear classifier then learns separate topic boundaries for anchored and unanchored
    questions, which is where world knowledge ("why did Enron collapse") meets memory ("why did Tom's
    startup shut down").
    """

    def __init__(self, by_anchor: bool = False):
        self.by_anchor = by_anchor

    def fit(self, X: Sequence[str], y: object = None) -> EmbeddingFeatures:
        return self

    def transform(self, X: Sequence[str]) -> np.ndarray:
        questions = list(X)
        vectors = embed_questions(questions)
        if not self.by_anchor:
            return vectors
        anchored = np.asarray([[float(is_anchored(q))] for q in questions], dtype=np.float32).reshape(-1, 1)
        return np.hstack([vectors * anchored, vectors * (1.0 - anchored)])


def is_anchored(question: str) -> bool:
    """Whether the question points at the user's own world: first person, "my" or a possessive "'s"."""
    tokens = frozenset(tokenize(question))
    return bool(tokens & _FIRST_PERSON) or bool(_POSSESSIVE_S_RE.search(_normalise(question)))


# Relative weights of the feature blocks (FeatureUnion transformer_weights), chosen by 10-fold CV on
# the training set: the standardised surface block has ~30 dense unit-variance columns and would
# otherwise swamp the unit-norm text blocks.
FEATURE_WEIGHTS: dict[str, float] = {
    "surface": 0.1,
    "words": 1.0,
    "chars": 1.0,
    "embedding": 1.0,
    "embedding_by_anchor": 1.5,
}


def build_features(use_embedding: bool = False, ngrams: bool = True, by_anchor: bool = True) -> FeatureUnion:
    """Surface features (standardised) + TF-IDF word uni/bigrams and char 2-5-grams (``ngrams``) + the
    sentence embedding (``use_embedding``), also split by :func:`is_anchored` (``by_anchor``), as one
    transformer over a list of questions."""
    parts: list[tuple[str, object]] = [
        ("surface", Pipeline([("extract", SurfaceFeatures()), ("scale", StandardScaler())])),
    ]
    if ngrams:
        parts.append(
            (
                "words",
                TfidfVectorizer(
                    ngram_range=(1, 2),
                    lowercase=True,
                    sublinear_tf=True,
                    token_pattern=r"(?u)\b\w+\b",
                    strip_accents="unicode",
                ),
            )
        )
        parts.append(
            (
                "chars",
                TfidfVectorizer(
                    analyzer="char_wb",
                    ngram_range=(2, 5),
                    lowercase=True,
                    sublinear_tf=True,
                    strip_accents="unicode",
                ),
            )
        )
    if use_embedding:
        parts.append(("embedding", EmbeddingFeatures()))
        if by_anchor:
            parts.append(("embedding_by_anchor", EmbeddingFeatures(by_anchor=True)))
    names = {name for name, _ in parts}
    return FeatureUnion(parts, transformer_weights={k: v for k, v in FEATURE_WEIGHTS.items() if k in names})
