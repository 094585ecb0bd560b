"""Turn a user's text into a safe Lucene query for the fulltext index (a pure function).

Every Lucene special character is escaped, boolean operator words are lower-cased so they stay words,
and the terms are OR-ed (Lucene's default), so "zx9q error" finds memories containing either token with
BM25 ranking. User text never becomes query syntax.

Question words and auxiliaries ("why", "did", "what", "does", ...) are dropped: the index's English analyser
keeps them, and in a store of notes they match every other question-shaped memory ("why did the team ...")
while saying nothing about the subject. So are pronouns ("what discount did *we* get from the CDN?": a note
that says "We chose Fastly" is not about a discount). A question made only of such words keeps them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..calendar_names import MONTH_NUMBERS, WEEKDAYS
from ..store.rules import FULLTEXT_TENANT_PROPERTY

_SPECIAL = frozenset('+-&|!(){}[]^"~*?:\\/')
_TOKEN = re.compile(r"[\w][\w\-.:/@#']*", re.UNICODE)
_OPERATORS = frozenset({"AND", "OR", "NOT", "TO"})
QUESTION_WORDS = frozenset(
    (
        "why",
        "what",
        "what's",
        "whats",
        "who",
        "who's",
        "whom",
        "whose",
        "when",
        "when's",
        "where",
        "where's",
        "which",
        "how",
        "how's",
        "did",
        "does",
        "do",
        "didn't",
        "doesn't",
        "don't",
        "was",
        "were",
        "has",
        "have",
        "had",
        "can",
        "could",
        "would",
        "should",
        "is",
        "are",
        "am",
    )
)
# the persons a question speaks of by pronoun ("what did *we* decide?", "what is *my* password?"): the index's
# English analyser keeps them, and a note that happens to say "We chose Fastly" then outranks the one with the
# subject ("a 15% discount with the CDN provider") for "what discount did we get from the CDN?"
PRONOUNS = frozenset(
    "i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself she her "
    "hers herself it its itself they them their theirs themselves".split()
)


def escape(term: str) -> str:
    return "".join("\\" + ch if ch in _SPECIAL else ch for ch in term)


def tenant_scope(tenant: str) -> str:
    """The Lucene clause that keeps a tenant's memories (the fulltext indexes hold each memory's tenant): required,
    weighing nothing (``^0``: the scores stay the text's BM25), the tenant written as an escaped phrase. The
    index analyses the tenant like text, so the clause may also keep a tenant whose name holds the same words
    ("acme" within "acme-corp"), or every tenant when the name is only stop words: the eligibility rule that
    follows keeps exactly the tenant's; the clause only spares Lucene the others."""
    return f'+{FULLTEXT_TENANT_PROPERTY}:"{escape(tenant)}"^0'


def terms(text: str, max_terms: int = 32) -> list[str]:
    """Tokens of the text (ids like ERR-4411 and v2.3.1 stay whole), without trailing punctuation and
    without question words (unless nothing else is left)."""
    out = _terms(text, max_terms, skip=QUESTION_WORDS | PRONOUNS)
    return out or _terms(text, max_terms, skip=frozenset())


def _terms(text: str, max_terms: int, skip: frozenset[str]) -> list[str]:
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        for tok in _alternatives(m.group(0).rstrip(".:/'-")):
            if not tok or tok.casefold() in skip:
                continue
            if tok.upper() in _OPERATORS and tok.isupper():
                tok = tok.lower()
            if tok not in out:
                out.append(tok)
            if len(out) >= max_terms:
                return out
    return out


_WORD_ALTERNATIVES = re.compile(r"[^\W\d_]+(?:/[^\W\d_]+)+")


def _alternatives(token: str) -> list[str]:
    """A token of words written as alternatives ("heating/HVAC", "Mon/Tue") as its words, each a term of its
    own (as a phrase it would need them side by side, in that order); any other token (ERR-4411, 10/14,
    v2.3.1) whole."""
    return token.split("/") if _WORD_ALTERNATIVES.fullmatch(token) else [token]


# A word written like a name (capitalised, not the question's first word: "What did Caroline say?") counts
# this much in BM25: the entity channel and the entity boost carry who is asked about, and in a conversation
# the speakers' names are on half the memories, so at full weight they outvote the words of the subject.
NAME_WEIGHT = 0.3
_CALENDAR = frozenset(MONTH_NUMBERS) | frozenset(WEEKDAYS)  # capitalised, but not names


def _name_like(text: str) -> set[str]:
    words = [m.group(0) for m in _TOKEN.finditer(text)]
    return {
        w for w in words[1:] if w[:1].isupper() and w.isalpha() and not w.isupper() and w.casefold() not in _CALENDAR
    }


def weighted_terms(text: str, max_terms: int = 32, *, weigh_names: bool = True) -> list[tuple[str, float]]:
    """What the keyword channels search for: the question's terms, each with its weight (name-like words at
    :data:`NAME_WEIGHT` unless ``weigh_names`` is false). The one source for the Lucene query and for a small
    tenant's own BM25 (:mod:`kgmem.query.own_keywords`)."""
    ts = terms(text, max_terms)
    names = _name_like(text) if weigh_names and len(ts) > 1 else set()
    return [(t, NAME_WEIGHT if t in names else 1.0) for t in ts]


def to_query(text: str, max_terms: int = 32, *, weigh_names: bool = True) -> str | None:
    """A Lucene query OR-ing the escaped terms (name-like words at :data:`NAME_WEIGHT` unless ``weigh_names``
    is false, as for looking the names themselves up in the entity index), or None when the text has no
    terms."""
    return query_of(weighted_terms(text, max_terms, weigh_names=weigh_names))


def query_of(weighted: Sequence[tuple[str, float]]) -> str | None:
    """The Lucene query of terms :func:`weighted_terms` gave (None without terms)."""
    if not weighted:
        return None
    parts = []
    for t, w in weighted:
        esc = escape(t)
        # a token with inner punctuation (ERR-4411) is also searched as a phrase of its analysed parts
        part = f'"{esc}"' if any(c in t for c in "-.:/@#'") else esc
        parts.append(f"{part}^{w}" if w != 1.0 else part)
    return " ".join(parts)
