"""Pure text normalisation shared by ingest, the vocabulary and queries (no I/O, no models).

Two kinds of output:

* **display forms** keep what the user wrote, only tidied: :func:`clean_text`, :func:`normalize_object`.
* **keys** are what things are compared and hashed by: :func:`snake_case` (predicates),
  :func:`entity_key` (entity names and subjects), :func:`object_key` (fact objects).

Decisions (keep them in one place so every module agrees):

* Subjects are identified by key, so :func:`normalize_subject` returns the key form ("The Acme Corp." →
  ``"acme corp"``); first-person words ("I", "me", "my", ...) become the default user.
* :func:`entity_key` folds case, strips accents from Latin letters only (``"Zürich"`` and ``"Zurich"`` are
  one entity; combining marks of other scripts such as Devanagari vowel signs are kept), drops a leading
  article and strips punctuation except the connectors inside a token (``db-primary-02``, ``o'brien``,
  ``v2.3.1``, ``at&t``), a leading ``@``/``#`` and a trailing ``+``/``#`` (``c++``, ``c#``).
* :func:`object_key` is lighter: objects carry values ("$40", "555-2222", "A+"), so it folds case and
  unifies dashes, quotes and whitespace but keeps symbols; a leading article is dropped only when more
  words follow (the blood type "A" stays "a").
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = [
    "looks_like_a_name",
    "FIRST_PERSON",
    "nfc",
    "clean_text",
    "snake_case",
    "entity_key",
    "normalize_subject",
    "normalize_object",
    "object_key",
    "strip_articles",
]

FIRST_PERSON = frozenset({"i", "me", "my", "myself", "mine", "user", "the user", "i'm", "im"})
ARTICLES = ("the", "a", "an")

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"), "-")
_QUOTES = {
    **dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b\u2032\uff07"), "'"),
    **dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f\u2033\uff02"), '"'),
}
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_WS = re.compile(r"\s+")
_SIMPLE_NAME = re.compile(r"[A-Za-z0-9]+(?: [A-Za-z0-9]+)*")
# "HTTPServer" -> "HTTP_Server": a boundary before the last capital of a run when a lowercase letter follows.
# Written as a zero-width match so it is linear: the former ``([A-Z]+)([A-Z][a-z])`` backtracked over every
# run of capitals (quadratic: a 100k-character run of capitals took minutes).
_CAMEL_1 = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])")
_CAMEL_2 = re.compile(r"([a-z0-9])([A-Z])")
_UNDERSCORES = re.compile(r"_+")
_TRAILING_PUNCT = ".,;:!?\u2026"
_WRAPPING_QUOTES = (
    ('"', '"'),
    ("'", "'"),
    ("`", "`"),
    ("\u201c", "\u201d"),
    ("\u2018", "\u2019"),
    ("(", ")"),
    ("[", "]"),
)
# Characters kept *inside* a key token when they join two alphanumerics.
_CONNECTORS = "-'._/&+:"
_TOKEN_EDGE_LEAD = "@#"
_TOKEN_EDGE_TRAIL = "+#"


def nfc(text: str) -> str:
    """Unicode NFC form (composed characters), the form every stored string is in."""
    return unicodedata.normalize("NFC", text)


def clean_text(text: str) -> str:
    """NFC, drop invisible characters (zero-width, soft hyphen), collapse whitespace, strip."""
    return _WS.sub(" ", nfc(text).translate(_INVISIBLE)).strip()


def _unify_punctuation(text: str) -> str:
    return text.translate(_DASHES).translate(_QUOTES)


def snake_case(s: str) -> str:
    """Predicate-style name: ``"Place of Birth"``, ``"placeOfBirth"``, ``"place-of-birth"`` → ``place_of_birth``.

    camelCase boundaries become underscores, apostrophes vanish (``"user's"`` → ``users``), every other
    run of non-word characters becomes one underscore; the result is lowercase with no leading, trailing
    or doubled underscores. Non-ASCII letters are kept.
    """
    text = clean_text(_unify_punctuation(s)).replace("'", "")
    text = _CAMEL_2.sub(r"\1_\2", _CAMEL_1.sub("_", text))
    text = "".join(ch if _is_word(ch) else "_" for ch in text.lower())
    return _UNDERSCORES.sub("_", text).strip("_")


def _is_word(ch: str) -> bool:
    """Letter, digit, underscore or combining mark (so Devanagari vowel signs stay inside words)."""
    return ch.isalnum() or ch == "_" or unicodedata.category(ch).startswith("M")


def _is_latin(ch: str) -> bool:
    code = ord(ch)
    return code < 0x250 or 0x1E00 <= code <= 0x1EFF


def _strip_latin_accents(text: str) -> str:
    out: list[str] = []
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.category(ch) == "Mn" and out and _is_latin(out[-1]):
            continue
        out.append(ch)
    return nfc("".join(out))


def strip_articles(text: str, *, keep_single: bool = True) -> str:
    """Drop one leading English article ("the", "a", "an"); with ``keep_single`` never empty the text."""
    parts = text.split(" ", 1)
    if len(parts) == 2 and parts[0].casefold() in ARTICLES:
        return parts[1]
    if not keep_single and len(parts) == 1 and parts[0].casefold() in ARTICLES:
        return ""
    return text


def _clean_token(token: str) -> str:
    lead = token[0] if token and token[0] in _TOKEN_EDGE_LEAD else ""
    core = token[1:] if lead else token
    trail_match = re.search(r"(?<=\w)[" + re.escape(_TOKEN_EDGE_TRAIL) + r"]+$", core)
    trail = trail_match.group(0) if trail_match else ""
    core = core[: len(core) - len(trail)] if trail else core
    # Punctuation that is not a connector between two word characters becomes a space.
    core = "".join(
        ch if _is_word(ch) or ch.isspace() or _is_inner_connector(core, i) else " " for i, ch in enumerate(core)
    )
    core = core.strip()
    return lead + core + trail if core else ""


def _is_inner_connector(token: str, i: int) -> bool:
    return token[i] in _CONNECTORS and 0 < i < len(token) - 1 and _is_word(token[i - 1]) and _is_word(token[i + 1])


@lru_cache(maxsize=65536)
def entity_key(name: str) -> str:
    """Comparison key of an entity name: ``"The Acme Corp."`` → ``"acme corp"``, ``"Zürich"`` → ``"zurich"``."""
    if _SIMPLE_NAME.fullmatch(name):  # fast path: plain ASCII words, the common case
        return strip_articles(name.lower())
    text = _strip_latin_accents(_unify_punctuation(clean_text(name))).casefold()
    tokens = [t for t in (_clean_token(tok) for tok in text.split(" ")) if t]
    key = _WS.sub(" ", " ".join(tokens)).strip()
    return strip_articles(key)


NO_USER = "user"  # the subject of first-person facts in memories without a user (so no user may be called this)


def user_key(name: str) -> str:
    """The key a user is known by: ``"Bob"``, ``" bob "`` and ``"BOB"`` are one user, ``"José"`` and ``"Jose"`` too
    (Unicode-normalised, punctuation unified, accents of Latin letters dropped, case folded, spaces collapsed).
    It is what a record's ``user`` is stored as and what every filter, pairing and first-person fact compares."""
    text = _strip_latin_accents(_unify_punctuation(clean_text(name))).casefold()
    return _WS.sub(" ", text).strip()


def normalize_subject(s: str, default_user: str = NO_USER) -> str:
    """Key form of a fact subject; first-person references ("I", "me", "my", "user") → ``default_user``'s key."""
    raw = clean_text(_unify_punctuation(s)).casefold()
    if raw.strip(_TRAILING_PUNCT) in FIRST_PERSON:
        return entity_key(default_user) or default_user
    return entity_key(s)


def _strip_wrapping(text: str) -> str:
    """Remove one pair of wrapping quotes/brackets when nothing inside uses them (``"'a' and 'b'"`` stays)."""
    for opener, closer in _WRAPPING_QUOTES:
        inner = text[1:-1]
        if len(text) >= 2 and text[0] == opener and text[-1] == closer and opener not in inner and closer not in inner:
            return inner.strip()
    return text


def normalize_object(o: str) -> str:
    """Display form of a fact object: cleaned, trailing sentence punctuation and wrapping quotes removed.

    The user's casing is kept ("Diet Coke" stays "Diet Coke"); use :func:`object_key` to compare.
    """
    text = clean_text(o)
    previous = None
    while text != previous:
        previous = text
        text = text.rstrip(_TRAILING_PUNCT).rstrip()
        text = _strip_wrapping(text)
    return text


def object_key(o: str) -> str:
    """Comparison / slot key of a fact object: ``"Diet Coke."`` and ``"diet  coke"`` → ``"diet coke"``."""
    text = _unify_punctuation(normalize_object(o)).casefold()
    text = _WS.sub(" ", text).strip()
    return strip_articles(text)


_SENTENCE_START = re.compile(r"(?:^|[.!?\n]\s*|[:;]\s+|[\"'(\[]\s*)$")  # what _at_sentence_start decides


def _at_sentence_start(text: str, pos: int) -> bool:
    """Whether ``text[pos:]`` starts a sentence: ``_SENTENCE_START.search(text[:pos])``, read back from ``pos``
    (the regex, anchored at the end, tried every start of a long run of newlines and rescanned it: quadratic).
    True at the very start, after a newline followed by nothing but whitespace, and after . ! ? : ; or an opening
    quote or bracket followed by whitespace (at least one after : and ;)."""
    if pos == 0:
        return True
    j = pos
    while j > 0 and text[j - 1].isspace():
        if text[j - 1] == "\n":
            return True
        j -= 1
    if j == 0:
        return False
    before = text[j - 1]
    return before in ".!?\"'([" or (before in ":;" and j < pos)


def looks_like_a_name(name: str, text: str) -> bool:
    """Evidence that an extracted mention is a name, not a capitalised common word.

    True for multi-word names, tokens with digits or symbols (ids, codes, hostnames) and any single word
    that occurs capitalised somewhere other than the start of a sentence in ``text``. A single word seen
    only sentence-initially ("Checkout slowed down.") is not evidence of a name.
    """
    stripped = name.strip()
    if not stripped:
        return False
    if " " in stripped or any(not ch.isalpha() for ch in stripped):
        return True
    if not stripped[0].isupper():
        return False  # a lowercase word is written as a common word
    for m in re.finditer(r"(?<![\w@#])" + re.escape(stripped) + r"(?![\w])", text):
        if not _at_sentence_start(text, m.start()):
            return True
    return False
