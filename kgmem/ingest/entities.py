"""Entity mention extraction without a model: proper names, quoted terms, ids/codes, handles, known aliases.

What counts as an entity mention (in the order of their first occurrence in the text):

* **known aliases** — any alias from ``known`` (alias key → canonical name), matched case-insensitively on
  word boundaries, longest first; returned as the canonical name. Other candidates overlapping a known
  alias are dropped ("Acme Corp" is not also returned when "acme" is a known alias of "Acme Corporation").
* **capitalised spans** — runs of capitalised words, optionally joined by "of", "de", "van", "&"...
  ("Bank of America", "New York", "Acme Corp"). Leading common words are trimmed ("The", "My",
  "Yesterday"); a weekday or month alone is not an entity, but is kept inside a longer name
  ("Black Friday"); a possessive "'s" is dropped ("Alice's" → "Alice"). A single word capitalised only
  because it starts a sentence is dropped when the text also writes it in lowercase or it looks like a
  verb form ("Deployed", "Meeting"), unless it is capitalised elsewhere mid-sentence. Without a
  dictionary this is a heuristic: it prefers missing a rare name to inventing common-word entities
  (names the store already knows are matched through ``known`` regardless).
* **quoted terms** — "...", '...', `...` and typographic quotes, up to six words.
* **ids and codes** — tokens mixing letters and digits (``zx9q``, ``ERR-4411``, ``INC-2031``, ``v2.3.1``,
  ``db-primary-02``), but not ordinals, times or quantities (``3rd``, ``10am``, ``5GB``, ``100ms``).
* **@handles, #tags and e-mail addresses.**

Results are deduplicated by :func:`kgmem.normalize.entity_key` and capped at :data:`MAX_ENTITIES`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property

from kgmem.calendar_names import MONTH_NUMBERS, WEEKDAYS
from kgmem.normalize import entity_key
from kgmem.validate import MAX_ENTITIES

__all__ = ["MAX_ENTITIES", "extract_entities", "resolve"]

_MAX_QUOTED_WORDS = 6

_WEEKDAYS = frozenset(WEEKDAYS)
_MONTHS = frozenset(MONTH_NUMBERS)
# Capitalised only because they start a sentence (or are "I"): trimmed from the edges of a span.
_COMMON = frozenset(
    """
    i i'm i've i'd i'll me my mine myself we we're we've our ours us you you're your yours he he's him his she
    she's her hers it it's its they they're their them this that these those there here the a an and or but so
    if then than when while where what which who whom whose why how yes no not ok okay hi hello hey dear thanks
    thank please sorry also just still already yet now today tonight tomorrow yesterday recently lately later
    soon finally actually basically honestly apparently unfortunately fortunately however meanwhile anyway
    btw fyi note update correction re fwd after before during since until because although though once every
    each all any some most many much more less few several both either neither other another such same
    last next second third old good nice well oh ah wow hmm yeah yep nope sure maybe perhaps
    let let's is are was were be been being am do does did done have has had can could would shall should
    might must got get gets getting go goes going went make made see saw look looks think thought know
    knew said say says tell told ask asked call calls added removed fixed deployed rolled restarted
    checked started stopped moved seems seemed looked like likes liked love loved hate hated need needs
    want wants wanted try tried use used using to in on at by for with from of about into over under per via
    as up down out off morning afternoon evening night week weekend month year day everyone someone
    nobody nothing something everything anything email meeting reminder ping todo ticket alert deploy release
    build incident issue
    """.split()
)
# Lowercase words allowed inside a name between capitalised words ("Bank of America", "Bank of the West").
_CONNECTORS = frozenset(
    {
        "of",
        "de",
        "da",
        "del",
        "della",
        "der",
        "den",
        "van",
        "von",
        "du",
        "la",
        "le",
        "di",
        "&",
        "y",
        "al",
        "bin",
        "el",
        "the",
    }
)
_MAX_CONNECTORS = 2
_MAX_NAME_WORDS = 8
_OPENERS = "\"'`\u201c\u2018([{<"
_CLOSERS = "\"'`\u201d\u2019)]}>,;:!?"
_ABBREVIATION = re.compile(r"(?:^|\.)[A-Z]\.$|^(?:Inc|Corp|Ltd|Co|Jr|Sr|Dr|St|Mr|Mrs|Ms|Mt|Prof)\.$")

_TOKEN = re.compile(r"\S+")
_QUOTED = re.compile(
    r"\"([^\"\n]{1,80})\"|\u201c([^\u201d\n]{1,80})\u201d|`([^`\n]{1,80})`|\u2018([^\u2019\n]{1,80})\u2019"
    r"|(?<![\w'])'([^'\n]{1,80})'(?![\w'])"
)
_ID_SHAPE = re.compile(r"^[A-Za-z0-9][\w.:/+-]*$")
_NOT_AN_ID = re.compile(
    r"^\d+(?:[.,]\d+)?(?:st|nd|rd|th|am|pm|s|m|h|d|w|y|ms|us|ns|x|k|kb|mb|gb|tb|pb|kib|mib|gib|tib|px|pt|em|hz|"
    r"khz|mhz|ghz|kg|g|mg|lb|lbs|oz|km|cm|mm|mi|ft|in|l|ml|yr|yrs|min|mins|sec|secs|hr|hrs|bn|b|c|f|v|kw|w)$"
    r"|^\d{1,2}(?::\d{2})+(?:am|pm)?$"
    r"|^\d+(?:[.,]\d+)?-[a-z]+(?:-[a-z]+)*$",  # "42-year-old", "5-star"
    re.IGNORECASE,
)
_HANDLE = re.compile(r"(?<![\w@.])@[A-Za-z0-9_](?:[\w.-]*\w)?")
_TAG = re.compile(r"(?<![\w&#])#[^\W\d][\w-]*")
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


@dataclass(frozen=True)
class _Mention:
    start: int
    end: int
    name: str
    known: bool = False


@dataclass(frozen=True)
class _Word:
    start: int
    end: int
    raw: str

    @cached_property
    def core(self) -> str:
        """The word without surrounding quotes/brackets/punctuation and without a possessive 's."""
        word = self.raw.lstrip(_OPENERS)
        end = len(word)
        while True:  # closing punctuation off, then one full stop that ends no abbreviation, until neither is left
            cut = end
            while cut > 0 and word[cut - 1] in _CLOSERS:
                cut -= 1
            # an abbreviation is read in its last 6 characters (its longest, "Prof.", has 5): the whole word, once
            # per full stop, made a run of 32k of them quadratic
            if cut > 0 and word[cut - 1] == "." and not _ABBREVIATION.search(word[max(0, cut - 6) : cut]):
                cut -= 1
            if cut == end:
                break
            end = cut
        return re.sub(r"['\u2019]s?$", "", word[:end])

    @property
    def core_start(self) -> int:
        return self.start + len(self.raw) - len(self.raw.lstrip(_OPENERS))

    @cached_property
    def capitalised(self) -> bool:
        core = self.core
        return (
            bool(core)
            and any(ch.isalpha() for ch in core)
            and (
                core[0].isupper() or re.match(r"^[a-z]+[A-Z]", core) is not None  # "iPhone", "eBay"
            )
        )

    @cached_property
    def closes_name(self) -> bool:
        """Punctuation or a possessive ends a name: "Berlin," "Paris." "Acme's" (but not "Corp." or "J.")."""
        bare = self.raw.rstrip("\"')]}\u201d\u2019")
        if bare[-1:] in tuple(",;:!?") or len(bare) < len(self.raw):
            return True
        if re.search(r"\w['\u2019]s$", bare):  # a possessive ends the name: "Acme's CEO"
            return True
        return bare.endswith(".") and not _ABBREVIATION.search(bare.lstrip(_OPENERS))


# --------------------------------------------------------------------------- extractors


class KnownNames:
    """Known entity spellings, indexed once: alias key -> canonical name, and the longest alias in words.

    Build it once per ingest and ``add`` to it as names are learned; passing a plain mapping to
    :func:`extract_entities` re-indexes it on every call.
    """

    def __init__(self, mapping: Mapping[str, str] | None = None):
        self.forms: dict[str, str] = {}
        self.longest = 1
        for alias, name in (mapping or {}).items():
            self.add(alias, name)

    def add(self, alias: str, name: str) -> None:
        key = entity_key(alias)
        if key and key not in self.forms:
            self.forms[key] = name
            self.longest = min(max(self.longest, len(key.split())), _MAX_NAME_WORDS)

    def __contains__(self, key: object) -> bool:
        return key in self.forms

    def __bool__(self) -> bool:
        return bool(self.forms)

    def __len__(self) -> int:
        return len(self.forms)


def _known_mentions(text: str, known: KnownNames) -> Iterator[_Mention]:
    """Greedy longest match of known alias keys over the text's word n-grams (linear in the text)."""
    forms = known.forms
    if not forms:
        return
    longest = known.longest
    tokens = [m for m in _TOKEN.finditer(text)]
    keys = [entity_key(re.sub(r"['\u2019]s$", "", m.group(0).rstrip(_CLOSERS + "."))) for m in tokens]
    i = 0
    while i < len(tokens):
        for n in range(min(longest, len(tokens) - i), 0, -1):
            name = forms.get(" ".join(k for k in keys[i : i + n] if k))
            if name is not None and keys[i] and keys[i + n - 1]:
                start, end = _core_bounds(tokens[i]), _core_bounds(tokens[i + n - 1])
                yield _Mention(start[0], end[1], name, known=True)
                i += n
                break
        else:
            i += 1


def known_names_in(text: str, known: KnownNames) -> list[str]:
    """The canonical names of the known aliases that occur in ``text`` (longest match), in text order."""
    return [m.name for m in _known_mentions(text, known)]


def _core_bounds(m: re.Match[str]) -> tuple[int, int]:
    raw = m.group(0)
    lead = len(raw) - len(raw.lstrip(_OPENERS))
    return m.start() + lead, m.start() + len(raw.rstrip(_CLOSERS + "."))


@dataclass(frozen=True)
class _Evidence:
    """What the rest of the text says about a word that is capitalised only at a sentence start."""

    lowercase: frozenset[str]  # words seen in lowercase ("deploy")
    capitalised: frozenset[str]  # casefolded words seen capitalised *inside* a sentence ("acme")

    def common_word(self, word: str) -> bool:
        """A sentence-initial word is common if it is also written lowercase, or looks like a verb form
        ("Talked", "Meeting") — unless it is capitalised elsewhere mid-sentence."""
        folded = word.casefold()
        if folded in self.capitalised:
            return False
        verb_like = len(word) >= 5 and word[1:].islower() and word.endswith(("ed", "ing"))
        return folded in self.lowercase or verb_like


def _evidence(text: str, words: list[_Word]) -> _Evidence:
    lowercase = {w.core for w in words if w.core and w.core.islower()}
    capitalised = {
        w.core.casefold() for w in words if w.core and w.capitalised and not _sentence_initial(text, w.core_start)
    }
    return _Evidence(frozenset(lowercase), frozenset(capitalised))


def _capitalised_mentions(text: str) -> Iterator[_Mention]:
    words = [_Word(m.start(), m.end(), m.group(0)) for m in _TOKEN.finditer(text)]
    evidence = _evidence(text, words)
    i = 0
    while i < len(words):
        run = _capitalised_run(words, i)
        if not run:
            i += 1
            continue
        i += len(run)
        mention = _trim_run(text, run, evidence)
        if mention:
            yield mention


def _capitalised_run(words: list[_Word], i: int) -> list[_Word]:
    """The run of capitalised words (with inner connectors) starting at ``words[i]``; [] if none."""
    if not words[i].capitalised:
        return []
    run = [words[i]]
    j = i + 1
    while j < len(words) and not run[-1].closes_name and len(run) < _MAX_NAME_WORDS:
        if words[j].capitalised:
            run.append(words[j])
            j += 1
            continue
        k = j
        while (
            k < len(words)
            and k - j < _MAX_CONNECTORS
            and words[k].raw.casefold() in _CONNECTORS
            and not words[k].closes_name
        ):
            k += 1
        if j < k < len(words) and words[k].capitalised and words[j].raw.casefold() != "the":
            run.extend(words[j : k + 1])
            j = k + 1
            continue
        break
    return run


def _trim_run(text: str, run: list[_Word], evidence: _Evidence) -> _Mention | None:
    """Drop common words and connectors from the edges of a run; None when nothing name-like is left."""
    words = [w for w in run if w.core]
    first, last = 0, len(words)
    while first < last and _is_filler(words[first].core):
        first += 1
    while last > first and _is_filler(words[last - 1].core):
        last -= 1
    words = words[first:last]
    if not words:
        return None
    if len(words) == 1:
        word = words[0].core
        if word.casefold() in _WEEKDAYS or word.casefold() in _MONTHS:
            return None
        # "Deploy failed." / "Talked to Bob." — sentence-initial words that look common are not names.
        if _sentence_initial(text, words[0].core_start) and evidence.common_word(word):
            return None
    start = words[0].core_start
    name = " ".join(w.core for w in words)
    return _Mention(start, start + len(name), name)


def _is_filler(word: str) -> bool:
    return word.casefold() in _COMMON or word.casefold() in _CONNECTORS


def _sentence_initial(text: str, pos: int) -> bool:
    """True if only openers/whitespace separate ``pos`` from the start of the text or a sentence end."""
    i = pos
    while i > 0 and (text[i - 1].isspace() or text[i - 1] in _OPENERS):
        if text[i - 1] == "\n":
            return True
        i -= 1
    while i > 0 and text[i - 1] in "\"')]\u201d\u2019":
        i -= 1
    return i == 0 or text[i - 1] in ".!?;:"


def _quoted_mentions(text: str) -> Iterator[_Mention]:
    for m in _QUOTED.finditer(text):
        group = next(g for g in range(1, 6) if m.group(g) is not None)
        inner = m.group(group).strip()
        if inner and len(inner.split()) <= _MAX_QUOTED_WORDS and any(ch.isalnum() for ch in inner):
            yield _Mention(m.start(group), m.end(group), inner)


def _id_mentions(text: str) -> Iterator[_Mention]:
    for m in _TOKEN.finditer(text):
        raw = m.group(0)
        token = raw.lstrip(_OPENERS).rstrip(_CLOSERS + ".")
        if "://" in token or "@" in token or not _ID_SHAPE.match(token):
            continue
        if any(ch.isalpha() for ch in token) and any(ch.isdigit() for ch in token) and not _NOT_AN_ID.match(token):
            start = m.start() + len(raw) - len(raw.lstrip(_OPENERS))
            yield _Mention(start, start + len(token), token)


def _symbol_mentions(text: str) -> Iterator[_Mention]:
    for regex in (_EMAIL, _HANDLE, _TAG):
        for m in regex.finditer(text):
            yield _Mention(m.start(), m.end(), m.group(0).rstrip("."))


# --------------------------------------------------------------------------- public API


def extract_entities(
    text: str, *, known: Mapping[str, str] | KnownNames | None = None, limit: int = MAX_ENTITIES
) -> list[str]:
    """Entity names mentioned in ``text``, first-seen order, deduplicated by entity key, at most ``limit``.

    ``known`` maps alias keys (or any alias spelling) to canonical names; a known alias in the text is
    returned as its canonical name, and so is any other candidate whose key is a known alias.
    """
    if not isinstance(known, KnownNames):
        known = KnownNames(known)
    by_key = known.forms
    known_hits = list(_known_mentions(text, known)) if known else []
    others = [*_symbol_mentions(text), *_quoted_mentions(text), *_id_mentions(text), *_capitalised_mentions(text)]
    mentions = known_hits + [m for m in others if not _overlaps_any(m, known_hits)]
    mentions.sort(key=lambda m: (m.start, -(m.end - m.start)))
    out: list[str] = []
    seen: set[str] = set()
    for mention in mentions:
        name = mention.name if mention.known else by_key.get(entity_key(mention.name), mention.name)
        key = entity_key(name)
        if key and key not in seen:
            seen.add(key)
            out.append(name)
            if len(out) >= limit:
                break
    return out


def _overlaps_any(mention: _Mention, others: Iterable[_Mention]) -> bool:
    return any(mention.start < o.end and o.start < mention.end for o in others)


def resolve(names: Iterable[str], known: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """(canonical name, entity key) for each name, known aliases resolved, deduplicated by key in order."""
    by_key = {entity_key(alias): name for alias, name in (known or {}).items() if entity_key(alias)}
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for raw in names:
        key = entity_key(raw)
        name = by_key.get(key, raw)
        key = entity_key(name) if name is not raw else key
        if key and key not in seen:
            seen.add(key)
            out.append((name, key))
    return out
