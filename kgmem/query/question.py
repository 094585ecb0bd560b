"""A question as every recall step reads it, worked out once: its vector, the keyword channels' weighted terms
and Lucene query, its entity key and the name-like n-grams, its identifier tokens, what it asks (its topic stems,
names and words: :func:`kgmem.query.meaning.asked`), whether it asks when something is or will be and whether
it asks what holds now. The time
phrase is read once, by the filters (:func:`kgmem.query.filters.build_filters`, against the time the question
is asked); what the question asks is read from the text they leave (where the phrase was found does not depend
on when it is read: only what it means does).

Pure apart from :meth:`Question.of`, which embeds (the embedder caches repeated texts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..normalize import entity_key
from . import currency, lucene, meaning, timeparse
from .abstain import identifier_tokens

if TYPE_CHECKING:
    from ..embed import Embedder

_NAME_TOKEN = re.compile(r"[\w][\w\-.'@#]*")


def padded_key(text: str) -> str:
    """A text as a padded entity key (possessives cut): the entity of key ``k`` is written in it as whole words
    when ``f" {k} "`` occurs in it."""
    return " " + entity_key(re.sub(r"['’]s\b", "", text)) + " "


def question_keys(text: str) -> tuple[str, list[str]]:
    """(the question as a padded entity key, keys of its word n-grams that are written like names).

    A token is written like a name when it is capitalised other than at the start of the question, or
    carries digits or symbols (ids, codes, hosts); an n-gram is when its first and last tokens are."""
    bare = re.sub(r"['’]s\b", "", text)
    spans = [(m.start(), m.group(0)) for m in _NAME_TOKEN.finditer(bare)]
    namey = [any(not ch.isalpha() for ch in tok) or (tok[0].isupper() and i > 0) for i, (_, tok) in enumerate(spans)]
    tokens = [tok for _, tok in spans]
    named: set[str] = set()
    for i in range(len(tokens)):
        for n in range(1, min(4, len(tokens) - i) + 1):
            if namey[i] and namey[i + n - 1]:
                key = entity_key(" ".join(tokens[i : i + n]))
                if key:
                    named.add(key)
    return padded_key(text), sorted(named)


@dataclass(frozen=True)
class Keys:
    """What the channels match a text by (pure: :func:`keys_of`)."""

    lucene: str | None  # the keyword channels' query (names weighed down), None without terms
    terms: tuple[tuple[str, float], ...]  # its terms and their weights (the query's, and a small tenant's BM25's)
    key: str  # the text as a padded entity key: an entity matches when ' <its key> ' occurs in it
    named: tuple[str, ...]  # keys of the name-like n-grams
    ngrams: tuple[str, ...]  # every run of up to MAX_NGRAM words of ``key``: the entity keys it could hold


MAX_NGRAM = 8  # words: an entity key longer than this is not looked up in a question


def key_ngrams(key: str, longest: int = MAX_NGRAM) -> tuple[str, ...]:
    """Every contiguous run of up to ``longest`` words of a padded entity key (each once, in order): an entity
    whose key occurs in the question as whole words is exactly one of them, so the entity channel looks the
    tenant's entities up by key, not through a fulltext index shared with every other tenant."""
    words = key.split()
    out = dict.fromkeys(
        " ".join(words[i : i + n]) for i in range(len(words)) for n in range(1, longest + 1) if i + n <= len(words)
    )
    return tuple(out)


def keys_of(text: str) -> Keys:
    key, named = question_keys(text)
    terms = tuple(lucene.weighted_terms(text))
    return Keys(lucene.query_of(terms), terms, key, tuple(named), key_ngrams(key))


@dataclass(frozen=True)
class Question:
    """``text``: what was asked (cleaned); ``ranking_text``: what is ranked (without a time phrase used as a
    filter); ``vector``: the embedding of ``ranking_text``; ``keys``: the channels' keys of ``ranking_text``."""

    text: str
    ranking_text: str
    vector: Any  # numpy float32 (384,)
    keys: Keys
    asked: meaning.Asked  # what it asks: its topic stems, its names and its words (:func:`meaning.asked` of ``text``)
    identifiers: frozenset[str] = field(default_factory=frozenset)
    # the embedding of what the question asks about, its names left out ("what is favourite band?"): how near a
    # memory is to the topic whoever it is about (the confidence's topic similarity); None: ``vector``
    topic_vector: Any = None

    @classmethod
    def of(
        cls,
        text: str,
        ranking_text: str,
        embedder: Embedder,
        keys: Keys | None = None,
        without_phrase: str | None = None,
    ) -> Question:
        """``keys``: :func:`keys_of` ``ranking_text`` when the caller has worked them out already;
        ``without_phrase``: ``text`` without its time phrase when the filters have read it."""
        asked = meaning.asked(text, without_phrase)
        # the names of the text ranked: those read in the question when it is the question, or the question
        # without the time phrase the filters took out of it
        same = ranking_text in (text, without_phrase)
        topic = meaning.without_names(ranking_text, asked.names if same else None)
        if topic == ranking_text:
            return cls.from_vector(text, ranking_text, embedder.encode_one(ranking_text), keys, asked)
        vector, topic_vector = embedder.encode_cached([ranking_text, topic])
        return replace(cls.from_vector(text, ranking_text, vector, keys, asked), topic_vector=topic_vector)

    @classmethod
    def from_vector(
        cls, text: str, ranking_text: str, vector: Any, keys: Keys | None = None, asked: meaning.Asked | None = None
    ) -> Question:
        """``keys`` / ``asked``: those of the texts when the caller has read them already."""
        keys = keys_of(ranking_text) if keys is None else keys
        asked = meaning.asked(text) if asked is None else asked
        return cls(text, ranking_text, vector, keys, asked, identifier_tokens(text))

    @cached_property
    def asks_when_ahead(self) -> bool:
        """Whether it asks when something is or will be (:func:`kgmem.query.timeparse.asks_when_ahead`)."""
        return timeparse.asks_when_ahead(self.text)

    @cached_property
    def about_the_present(self) -> bool:
        """Whether it asks what holds now (:func:`kgmem.query.currency.about_the_present`)."""
        return currency.about_the_present(self.text)

    @cached_property
    def vector_list(self) -> list[float]:
        """The vector as the driver takes it (converted once per question)."""
        out: list[float] = self.vector.tolist()
        return out

    @cached_property
    def topic_vector_list(self) -> list[float]:
        """The topic vector as the driver takes it (the question's own when it names no one)."""
        if self.topic_vector is None:
            return self.vector_list
        out: list[float] = self.topic_vector.tolist()
        return out

    def ranked_by(self, ranking_text: str) -> Question:
        """The same question (and vector) with the channels' keys of another text: when a time phrase's
        window held nothing, the channels rank by the whole question, phrase included."""
        return replace(self, ranking_text=ranking_text, keys=keys_of(ranking_text))
