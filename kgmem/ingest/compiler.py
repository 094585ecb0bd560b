"""Rule-based fact compiler: plain text → (subject, predicate, object, polarity) triples, no LLM.

The Knowledge Objects paper (appendix A.2) compiles text with an LLM prompt; this module is the cheap,
deterministic first stage: a small set of anchored patterns for the statements agents hear most
("my phone changed to 555-2222", "I moved to Berlin", "I don't like diet coke anymore", "the widget
costs $40"). Anything the rules do not recognise is simply not compiled — the text is still stored as an
episode, so nothing is lost, and a later LLM stage can add facts.

Pipeline, per text:

1. split into sentences, then into clauses ("..., and my phone changed to ...", "... but ...");
2. drop whole sentences that are questions, hypotheticals/desires/futures ("if I moved to Paris",
   "I'd like ...", "I will ..."), hedged ("I'm not sure ...") or reported speech of someone else
   ("she said my phone is ...");
3. strip a leading discourse marker ("Actually,", "Update:", "btw", "Yesterday") from each clause and try
   the rules in order; the first rule that matches a clause wins;
4. clean the object (clause tails like "because ...", fillers "now/anymore/again", time phrases
   "last week", trailing punctuation), validate it (pronouns, questions, value shapes such as a phone
   number needing digits), map the predicate through the :class:`~kgmem.vocab.Vocabulary` (a negative
   alias such as "dislikes" flips polarity) and split lists for list-like multi-valued predicates.

Confidence: 0.9 for explicit first-person statements, 0.8 for explicit third-person ones ("Alice's phone
is ...", "the widget costs ..."), 0.7 for looser patterns and for predicates the vocabulary does not know.
Subjects are returned in key form (:func:`kgmem.normalize.normalize_subject`); objects keep the user's
casing (:func:`kgmem.normalize.normalize_object`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from kgmem.calendar_names import MONTH_NUMBERS, WEEKDAYS
from kgmem.normalize import entity_key, normalize_object, normalize_subject, object_key
from kgmem.vocab import EmbedFn, Vocabulary

__all__ = ["CompiledFact", "compile_facts", "split_clauses", "split_sentences"]

CONF_FIRST_PERSON = 0.9
CONF_THIRD_PERSON = 0.8
CONF_LOOSE = 0.7


@dataclass(frozen=True)
class CompiledFact:
    """One compiled triple. ``span`` is the [start, end) character range of the statement in the text."""

    subject: str
    predicate: str
    object: str
    polarity: bool
    confidence: float
    pattern: str
    span: tuple[int, int]
    predicate_status: str = "canonical"  # canonical | alias | nearest | new (see PredicateMatch)

    def to_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "polarity": self.polarity,
            "confidence": self.confidence,
            "pattern": self.pattern,
            "span": list(self.span),
            "predicate_status": self.predicate_status,
        }


# --------------------------------------------------------------------------- segmentation

_TITLES = frozenset("dr mr mrs ms prof st mt sr jr rev gen capt lt sgt".split())  # always followed by a name
_ABBREVIATIONS = frozenset(
    "inc ltd corp co vs etc eg ie approx no ave dept est fig jan feb mar apr jun jul aug sep sept oct nov dec "
    "u.s e.g i.e a.m p.m".split()
)  # end a sentence only when a capitalised word follows
# every regex here that starts with a run (of spaces, dots) starts only where the run does: tried from each of its
# characters, it rescanned the rest of the run each time, quadratic on a long one (a 32k-character run of spaces
# took minutes); the matches are the same
_SENTENCE_END = re.compile(r"(?<![.!?\u2026])[.!?\u2026]+[\"')\]\u201d\u2019]*(?=\s)|\n+|;\s")
_CLAUSE_BREAK = re.compile(
    r",?(?<!\s)\s+(?:but|whereas|although|though)\s+"
    r"|,?(?<!\s)\s+(?:and|so|then|also|plus|while|because|since|and\s+now|and\s+also)\s+(?=(?:i|i'm|i've|my|we)\b)"
    r"|,\s+(?=(?:i|i'm|i've|my)\s)"
    r"|(?<!\s)\s+[-\u2013\u2014]+\s+",
    re.IGNORECASE,
)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """[start, end) spans of the sentences of ``text`` (abbreviations like "Dr." do not end one)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.group(0).startswith(".") and _is_abbreviation(text, start, m):
            continue
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(text)))
    return [s for s in (_strip_span(text, a, b) for a, b in spans) if s[1] > s[0]]


def _is_abbreviation(text: str, start: int, m: re.Match[str]) -> bool:
    """True if the period ending at ``m`` belongs to an abbreviation and does not end the sentence."""
    before = text[start : m.start()].rsplit(None, 1)
    word = before[-1].casefold().rstrip(".") if before else ""
    if word in _TITLES:
        return True
    following = text[m.end() :].lstrip()[:1]
    return word in _ABBREVIATIONS and not following.isupper()


def split_clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Clause spans inside the sentence ``text[start:end]`` (absolute offsets)."""
    spans: list[tuple[int, int]] = []
    pos = start
    for m in _CLAUSE_BREAK.finditer(text, start, end):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, end))
    return [s for s in (_strip_span(text, a, b) for a, b in spans) if s[1] > s[0]]


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and (text[start].isspace() or text[start] in ",;"):
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


# --------------------------------------------------------------------------- sentence guards

_QUESTION_START = re.compile(
    r"^(?:what|where|who|whom|whose|when|which|why|how|do|does|did|is|are|was|were|can|could|would|should|"
    r"shall|have|has|had|am|isn't|aren't|don't|doesn't|didn't|won't|wouldn't|any\s+idea)\b",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|suppose|supposing|imagine|imagining|assuming|hypothetically|would|wouldn't|could|"
    r"couldn't|might|maybe|perhaps|wish|whether|hope|hoping|plan|plans|planning|going\s+to|gonna|want|wants|"
    r"wanted|wanna|thinking\s+(?:about|of)|considering|should|shouldn't|someday|one\s+day|in\s+case|pretend|"
    r"let's\s+say|will|won't|used\s+to|wonder|wondering|not\s+sure|unsure|don't\s+know|do\s+not\s+know|"
    r"don't\s+remember|can't\s+remember|forgot|forget)\b|\b\w+'(?:d|ll)\b",
    re.IGNORECASE,
)
_REPORTING = re.compile(
    r"\b(?:said|says|say|told|tells|claims?|claimed|thinks?|thought|believes?|believed|mentioned|heard|"
    r"reckons?|asked|according\s+to|supposedly|apparently|allegedly|rumou?red)\b",
    re.IGNORECASE,
)
_SELF_REPORT = re.compile(r"\b(?:i|i've|i\s+have|i\s+had|i\s+already|i\s+just)\s*$", re.IGNORECASE)


_NAME_LIKE_MARKERS = frozenset({"Will", "Hope", "Wish"})


def _is_hypothetical_marker(m: re.Match[str]) -> bool:
    """A capitalised "Will"/"Hope" is far more often a name than a modal in a statement."""
    return m.group(0) not in _NAME_LIKE_MARKERS


def _skip_sentence(sentence: str) -> bool:
    """True for questions, hypotheticals/desires/futures/hedges and other people's reported speech."""
    body = _strip_discourse(sentence)[1]
    if sentence.rstrip().endswith("?") or _QUESTION_START.match(body):
        return True
    if any(_is_hypothetical_marker(m) for m in _HYPOTHETICAL.finditer(sentence)):
        return True
    for m in _REPORTING.finditer(sentence):
        if not _SELF_REPORT.search(sentence[: m.start()]):
            return True
    return False


_DISCOURSE = re.compile(
    r"^(?:(?:well|oh|ok|okay|so|also|and|but|actually|btw|by\s+the\s+way|anyway|anyhow|fyi|note|update|"
    r"correction|quick\s+update|just\s+so\s+you\s+know|for\s+the\s+record|honestly|yes|yeah|yep|no|nope|hey|"
    r"hi|hello|now|today|yesterday|recently|lately|these\s+days|nowadays|as\s+of\s+(?:today|now)|"
    r"(?:last|this)\s+(?:week|month|year|weekend)|good\s+news|news|heads\s+up|then|finally|alright|sure|"
    r"great|thanks|thank\s+you|as\s+i\s+(?:said|mentioned)|like\s+i\s+said|i\s+(?:already\s+)?told\s+you(?:\s+that)?|"
    r"just\s+(?:fyi|so\s+you\s+know))\b[\s,:;!.\-]*)+",
    re.IGNORECASE,
)


def _strip_discourse(clause: str) -> tuple[int, str]:
    """(offset, rest) after removing leading discourse markers ("Actually,", "Update:", "btw")."""
    m = _DISCOURSE.match(clause)
    if not m or m.end() == len(clause):
        return 0, clause
    return m.end(), clause[m.end() :]


# --------------------------------------------------------------------------- object cleanup

_CLAUSE_TAIL = re.compile(
    r"(?:,?(?<!\s)\s+(?:because|since|as\s+of|so\s+that|which|who|whom|whose|while|whereas|but|although|though|"
    r"unless|until|according\s+to|and\s+(?:i|i'm|my|we|it|she|he|they)|so\s+(?:i|we))\b"
    r"|,\s+(?:as|so|when|where|after|before|if)\b|(?<!\s)\s+\([^)]*[^\W\d_][^)]*(?:\)|$)).*$",
    re.IGNORECASE | re.DOTALL,
)
_MONTHS = "|".join(MONTH_NUMBERS)  # regex alternation of every month spelling
_WEEKDAYS = "|".join(WEEKDAYS)
_TRAILING_NOISE = re.compile(
    r"(?:(?<![\s,])[\s,]+(?:now|anymore|any\s+more|again|too|also|as\s+well|either|these\s+days|nowadays|lately|"
    r"currently|still|though|anyway|at\s+all|a\s+lot|a\s+bit|very\s+much|so\s+much|really|honestly|actually|"
    r"instead|then|for\s+now|from\s+now\s+on|right\s+now|at\s+the\s+moment|for\s+sure|i\s+think|i\s+guess|"
    r"btw|by\s+the\s+way|yesterday|today|tonight|recently|finally|already|officially|"
    r"(?:last|this|next)\s+(?:week|month|year|night|morning|summer|winter|spring|fall|autumn|weekend)|"
    r"(?:a|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|few|several|a\s+couple\s+of|couple\s+of|"
    r"\d+)\s+(?:days?|weeks?|months?|years?)\s+ago|"
    rf"(?:in|since|back\s+in|on|as\s+of)\s+"
    rf"(?:\d{{4}}|(?:{_MONTHS})\b(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?(?:,?\s+\d{{4}})?|"
    rf"(?:{_WEEKDAYS})))|(?<![\s.,;:!?\u2026])[\s.,;:!?\u2026]+)$",
    re.IGNORECASE,
)
_PRONOUNS = frozenset(
    "it that this them him her you those these one some any what which everything nothing something "
    "anything me us there here myself yourself itself".split()
)
_BAD_OBJECT_START = re.compile(
    r"^(?:(?:to|how|when|what|where|why|who|if|whether|because|not)\b|that\s|it\s|it's\s|so\s)", re.IGNORECASE
)
_MAX_OBJECT_WORDS = 12
_MAX_OBJECT_CHARS = 160


_NOISE_WORDS = 8  # more than a _TRAILING_NOISE match can hold ("as of September 5th, 2024": 5 words)


_NOISE_GAP = frozenset(".,;:!?\u2026")  # with whitespace: what _TRAILING_NOISE strips between and after its words


def _last_words_start(text: str, end: int, words: int) -> int:
    """Where the last ``words`` words of ``text[:end]`` start (words: runs of characters other than whitespace and
    _NOISE_GAP); 0 when it has fewer."""
    i = end
    for _ in range(words):
        while i > 0 and (text[i - 1].isspace() or text[i - 1] in _NOISE_GAP):
            i -= 1
        if i == 0:
            return 0
        while i > 0 and not (text[i - 1].isspace() or text[i - 1] in _NOISE_GAP):
            i -= 1
    return i


def _trim_object(raw: str) -> tuple[int, int]:
    """[start, end) of the meaningful part of a raw object (clause tails, fillers, punctuation removed)."""
    end = len(raw)
    tail = _CLAUSE_TAIL.search(raw)
    if tail and tail.start() > 0:
        end = tail.start()
    previous = -1
    while end != previous:
        previous = end
        # a match holds at most _NOISE_WORDS words: searched in the last ones only, each removal costs the length
        # of the tail, not of the whole object ("Paris now now now …" stripped one "now" at a time: quadratic)
        m = _TRAILING_NOISE.search(raw, _last_words_start(raw, end, _NOISE_WORDS), end)
        if m and m.start() > 0:
            end = m.start()
    start = len(raw[:end]) - len(raw[:end].lstrip())
    return start, end


def _only_noise(rest: str) -> bool:
    """True if ``rest`` (what follows a complete statement) is only fillers, time phrases or a clause tail."""
    return _trim_object("x" + rest)[1] == 1


def _acceptable_object(obj: str) -> bool:
    words = obj.split()
    if not words or len(words) > _MAX_OBJECT_WORDS or len(obj) > _MAX_OBJECT_CHARS:
        return False
    if obj.casefold() in _PRONOUNS or _BAD_OBJECT_START.match(obj):
        return False
    return any(ch.isalnum() for ch in obj)


_DIGITS = re.compile(r"\d")
_VALIDATORS: dict[str, Callable[[str], bool]] = {
    "phone_number": lambda o: len(_DIGITS.findall(o)) >= 5,
    "email": lambda o: re.search(r"[^\s@]+@[^\s@]+\.\w+", o) is not None,
    "age": lambda o: re.match(r"^\d{1,3}\b", o) is not None,
    "price": lambda o: re.search(r"\d|[$€£¥₹]|\bfree\b", o, re.IGNORECASE) is not None,
    "birthday": lambda o: re.search(rf"\d|\b(?:{_MONTHS})\b", o, re.IGNORECASE) is not None,
    "founded_year": lambda o: _DIGITS.search(o) is not None,
    "population": lambda o: _DIGITS.search(o) is not None,
    "salary": lambda o: _DIGITS.search(o) is not None,
    "tumor_size": lambda o: _DIGITS.search(o) is not None,
    "weight": lambda o: _DIGITS.search(o) is not None,
    "height": lambda o: _DIGITS.search(o) is not None,
    "blood_type": lambda o: (
        re.match(r"^(?:ab|a|b|o)\s*(?:[+-]|\s+(?:positive|negative|pos|neg))?$", o, re.IGNORECASE) is not None
    ),
}
# Multi-valued predicates whose objects are lists of short nouns: "peanuts and shellfish" is two values.
_LIST_PREDICATES = frozenset({"allergy", "language", "pet", "hobby", "skill", "medication", "symptom", "child"})
_LIST_SPLIT = re.compile(r"(?:(?<!\s)\s*)?,\s*(?:and\s+|or\s+)?|(?<!\s)\s+(?:and|&|as\s+well\s+as)\s+", re.IGNORECASE)
_COMMA_LIST_SPLIT = re.compile(r"(?:(?<!\s)\s*)?,\s*(?:and\s+|or\s+)?|(?<!\s)\s+(?:and|&)\s+(?=[^,]*$)", re.IGNORECASE)
_EMPLOYER_NON_ORGS = frozenset(
    "home myself night nights weekends the moment a living free fun money it remote remotely".split()
)


# --------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class _Candidate:
    """A rule hit before cleanup: absolute offsets of the object, the raw predicate."""

    subject: str
    predicate: str
    obj: tuple[int, int]
    polarity: bool
    confidence: float
    pattern: str
    start: int
    end: int
    split: bool = False


@dataclass(frozen=True)
class _Ctx:
    text: str  # the whole (apostrophe-unified) text
    base: int  # absolute offset of the clause body the rule matched
    user: str  # key of the first-person subject
    vocabulary: Vocabulary
    embed: EmbedFn | None

    def abs(self, m: re.Match[str], group: str | int) -> tuple[int, int]:
        return self.base + m.start(group), self.base + m.end(group)

    def candidate(
        self,
        m: re.Match[str],
        subject: str,
        predicate: str,
        *,
        group: str = "obj",
        polarity: bool = True,
        confidence: float = CONF_FIRST_PERSON,
        pattern: str,
        split: bool = False,
    ) -> _Candidate:
        return _Candidate(
            subject,
            predicate,
            self.abs(m, group),
            polarity,
            confidence,
            pattern,
            self.base + m.start(),
            self.base + m.end(),
            split,
        )


Builder = Callable[[re.Match[str], _Ctx], list[_Candidate]]


@dataclass(frozen=True)
class _Rule:
    name: str
    regex: re.Pattern[str]
    build: Builder


_RULES: list[_Rule] = []


def _rule(name: str, pattern: str) -> Callable[[Builder], Builder]:
    def register(build: Builder) -> Builder:
        _RULES.append(_Rule(name, re.compile(pattern, re.IGNORECASE | re.VERBOSE), build))
        return build

    return register


def _neg(m: re.Match[str]) -> bool:
    """Polarity from an optional ``neg`` group: present → False."""
    return not (m.groupdict().get("neg") or "").strip()


_ADV = (
    r"(?:(?:really|also|still|do|totally|absolutely|actually|now|just|genuinely|truly|definitely|kinda|"
    r"quite|especially|particularly|honestly|do\s+really|really\s+do)\s+)*"
)
_IM = r"i(?:'m|\s+am)"


# -- likes / dislikes (dislikes are likes with polarity false) -------------------------------------


@_rule("likes_stopped", r"^i(?:'ve|\s+have)?\s+(?:stopped|quit|gave\s+up)\s+(?:liking|loving|enjoying)\s+(?P<obj>.+)$")
def _likes_stopped(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "likes", polarity=False, pattern="likes_stopped", split=True)]


@_rule(
    "likes_negated",
    rf"""^i\s+{_ADV}(?:don't|do\s+not|dont|no\s+longer|never)\s+
        (?:really\s+|much\s+|particularly\s+|even\s+|actually\s+)?
        (?:like|love|enjoy|care\s+for|fancy)\s+(?P<obj>.+)$""",
)
def _likes_negated(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "likes", polarity=False, pattern="likes_negated", split=True)]


@_rule(
    "dislikes",
    rf"""^i\s+{_ADV}(?:hate|dislike|detest|loathe|despise|can't\s+stand|cannot\s+stand|
        can\s+not\s+stand)\s+(?P<obj>.+)$""",
)
def _dislikes(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "likes", polarity=False, pattern="dislikes", split=True)]


@_rule(
    "not_a_fan",
    rf"""^{_IM}\s+(?:really\s+|just\s+|honestly\s+)?(?:not|no\s+longer)\s+
        (?:a\s+|really\s+a\s+|much\s+of\s+a\s+|the\s+biggest\s+|a\s+big\s+|a\s+huge\s+)?
        (?:fan\s+of|into|keen\s+on|fond\s+of)\s+(?P<obj>.+)$""",
)
def _not_a_fan(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "likes", polarity=False, pattern="not_a_fan", split=True)]


@_rule("likes", rf"^i\s+{_ADV}(?:like|love|enjoy|adore|prefer)\s+(?P<obj>.+)$")
def _likes(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "likes", pattern="likes", split=True)]


@_rule(
    "fan_of",
    rf"""^{_IM}\s+(?:also\s+|still\s+|now\s+|really\s+|totally\s+)?
        (?:a\s+(?:big\s+|huge\s+|massive\s+)?fan\s+of|into|fond\s+of|keen\s+on|obsessed\s+with|crazy\s+about|
        passionate\s+about)\s+(?P<obj>.+)$""",
)
def _fan_of(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "likes", pattern="fan_of", split=True)]


# -- where the user lives ---------------------------------------------------------------------------


@_rule(
    "lives_in_negated",
    rf"""^(?:i\s+(?:don't|do\s+not|no\s+longer)\s+live|
        {_IM}\s+no\s+longer\s+(?:living|based))\s+(?:in|at)\s+(?P<obj>.+)$""",
)
def _lives_in_negated(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "lives_in", polarity=False, pattern="lives_in_negated")]


@_rule(
    "lives_in",
    r"""^(?P<who>i|we)(?:'ve\s+|\s+have\s+|\s+)(?:(?:now|currently|still|actually|also|always)\s+)*
        (?:live|reside|lived|resided|been\s+living)
        \s+(?:now\s+)?(?:in|at)\s+(?P<obj>.+)$""",
)
def _lives_in(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    conf = CONF_FIRST_PERSON if m.group("who").lower() == "i" else CONF_LOOSE
    return [c.candidate(m, c.user, "lives_in", confidence=conf, pattern="lives_in")]


@_rule(
    "living_in",
    rf"""^{_IM}\s+(?:now\s+|currently\s+|still\s+)?(?:living|based|residing|located)
        \s+(?:now\s+)?(?:in|at)\s+(?P<obj>.+)$""",
)
def _living_in(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "lives_in", pattern="living_in")]


@_rule(
    "moved_to",
    r"""^(?P<who>i|we)(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+|now\s+|since\s+|
        also\s+|officially\s+)?(?:moved|relocated)\s+(?:back\s+|over\s+|house\s+|away\s+)?(?:to|into)\s+(?P<obj>.+)$""",
)
def _moved_to(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    conf = CONF_FIRST_PERSON if m.group("who").lower() == "i" else CONF_LOOSE
    return [c.candidate(m, c.user, "lives_in", confidence=conf, pattern="moved_to")]


@_rule("from_place", rf"^{_IM}\s+(?:originally\s+)?from\s+(?P<obj>.+)$")
def _from_place(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "hometown", confidence=CONF_LOOSE, pattern="from_place")]


# -- work -------------------------------------------------------------------------------------------


@_rule(
    "work_as",
    rf"""^(?:i\s+(?:now\s+|currently\s+|still\s+|also\s+)?work|{_IM}\s+(?:now\s+|currently\s+)?
        working)\s+as\s+(?:an?\s+)?(?P<obj>.+?)(?:\s+(?:at|for)\s+(?P<org>.+))?$""",
)
def _work_as(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    out = [c.candidate(m, c.user, "job_title", pattern="work_as")]
    if m.group("org"):
        out.append(c.candidate(m, c.user, "employer", group="org", pattern="work_as"))
    return out


@_rule(
    "works_with",
    rf"""^(?:i\s+(?:now\s+|currently\s+|still\s+|also\s+)?work|{_IM}\s+(?:now\s+|currently\s+)?
        working)\s+(?:closely\s+)?(?:with|alongside)\s+(?P<obj>.+)$""",
)
def _works_with(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "works_with", pattern="works_with", split=True)]


@_rule(
    "works_at_negated",
    rf"""^(?:i\s+(?:no\s+longer|don't|do\s+not)\s+work|{_IM}\s+no\s+longer\s+
        (?:working|employed))\s+(?:at|for|by)\s+(?P<obj>.+)$""",
)
def _works_at_negated(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "employer", polarity=False, pattern="works_at_negated")]


@_rule(
    "left_job",
    r"""^i(?:'ve|\s+have)?\s+(?:just\s+)?(?:left|quit)\s+my\s+(?:job|position|role)
        \s+(?:at|with)\s+(?P<obj>.+)$""",
)
def _left_job(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "employer", polarity=False, confidence=CONF_LOOSE, pattern="left_job")]


@_rule(
    "works_at",
    rf"""^(?:i\s+(?:now\s+|currently\s+|still\s+|also\s+)?work|{_IM}\s+(?:now\s+|currently\s+|still\s+)?
        (?:working|employed))\s+(?:at|for|by)\s+(?P<obj>.+)$""",
)
def _works_at(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "employer", pattern="works_at")]


@_rule(
    "started_at",
    r"""^i(?:'ve|\s+have)?\s+(?:just\s+|recently\s+)?(?:started\s+(?:working\s+)?at|
        started\s+(?:a\s+(?:new\s+)?job|working)\s+(?:at|for)|got\s+a\s+(?:new\s+)?job\s+(?:at|with)|
        was\s+hired\s+by|got\s+hired\s+(?:at|by))\s+(?P<obj>.+)$""",
)
def _started_at(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "employer", confidence=CONF_LOOSE, pattern="started_at")]


# -- personal facts -----------------------------------------------------------------------------------


@_rule("born_in", r"^i\s+was\s+born\s+(?:and\s+raised\s+)?(?P<prep>in|at|on)\s+(?P<obj>.+)$")
def _born_in(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    raw = m.group("obj")
    date_like = re.fullmatch(
        rf"(?:\d{{4}}|(?:{_MONTHS})\b.*|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b.*|"
        r"[\d/.-]{6,10})[.!]?",
        raw,
        re.IGNORECASE,
    )
    if m.group("prep").lower() == "on" or date_like:
        return [c.candidate(m, c.user, "birthday", pattern="born_in")]
    out = [c.candidate(m, c.user, "birth_place", pattern="born_in")]
    year = re.search(r"\s+in\s+(?P<year>\d{4})\b", raw)
    if year:
        out.append(
            _Candidate(
                c.user,
                "birthday",
                (c.abs(m, "obj")[0] + year.start("year"), c.abs(m, "obj")[0] + year.end("year")),
                True,
                CONF_FIRST_PERSON,
                "born_in",
                c.base + m.start(),
                c.base + m.end(),
            )
        )
    return out


@_rule("call_me", r"^(?:please\s+)?(?:just\s+)?call\s+me\s+(?P<obj>(?-i:[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,2}))\W*$")
def _call_me(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    """ "(Actually,) call me Alicia" — the name the user wants to go by."""
    return [c.candidate(m, c.user, "name", pattern="call_me")]


@_rule(
    "age",
    rf"""^(?:{_IM}\s+(?:now\s+)?|i\s+(?:just\s+)?turned\s+)(?P<obj>\d{{1,3}})
        (?:\s+(?:years?|yrs?)(?:\s+old)?|\s*y/?o)?\W*$""",
)
def _age(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "age", pattern="age")]


@_rule(
    "allergic_to",
    rf"""^{_IM}\s+(?:also\s+|severely\s+|very\s+|mildly\s+|really\s+|now\s+|slightly\s+)*
        (?P<neg>not\s+|no\s+longer\s+)?allergic\s+to\s+(?P<obj>.+)$""",
)
def _allergic_to(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "allergy", polarity=_neg(m), pattern="allergic_to", split=True)]


@_rule(
    "has_allergy",
    r"""^i\s+(?:also\s+)?have\s+(?:an?\s+)?(?:(?:severe|mild|slight|serious|bad|strong|food)\s+)*
        (?:(?P<pre>.+?)\s+allergy|allergy\s+to\s+(?P<post>.+))$""",
)
def _has_allergy(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    group = "pre" if m.group("pre") else "post"
    return [c.candidate(m, c.user, "allergy", group=group, pattern="has_allergy", split=True)]


_DIETS = (
    r"vegan|vegetarian|pescatarian|pescetarian|flexitarian|keto|paleo|gluten[- ]free|dairy[- ]free|"
    r"lactose[- ]intolerant|kosher|halal|carnivore|omnivore|raw\s+vegan|plant[- ]based"
)


@_rule(
    "diet",
    rf"""^{_IM}\s+(?:now\s+|also\s+|strictly\s+|fully\s+|still\s+|totally\s+)?(?P<neg>not\s+|no\s+longer\s+)?
        (?:an?\s+)?(?:strict\s+)?(?P<obj>{_DIETS})\b(?P<rest>.*)$""",
)
def _diet(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    if not _only_noise(m.group("rest")):
        return []
    return [c.candidate(m, c.user, "diet", polarity=_neg(m), pattern="diet")]


@_rule("diet_went", rf"^i(?:'ve|\s+have)?\s+(?:just\s+|recently\s+)?(?:went|gone|became|turned)\s+(?P<obj>{_DIETS})\b")
def _diet_went(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "diet", pattern="diet_went")]


@_rule("on_a_diet", rf"^(?:{_IM}\s+(?:now\s+)?on|i\s+(?:follow|eat))\s+an?\s+(?:strict\s+)?(?P<obj>[\w -]+?)\s+diet\b")
def _on_a_diet(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "diet", pattern="on_a_diet")]


@_rule("speaks", r"^i\s+(?:also\s+|can\s+|now\s+)?speak\s+(?:fluent\s+|some\s+|a\s+little\s+|basic\s+)?(?P<obj>.+)$")
def _speaks(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "language", pattern="speaks", split=True)]


@_rule("pet_named", r"^i\s+(?:also\s+)?have\s+an?\s+(?P<kind>[\w -]{2,30}?)\s+(?:named|called)\s+(?P<obj>.+)$")
def _pet_named(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return [c.candidate(m, c.user, "pet", confidence=CONF_LOOSE, pattern="pet_named")]


@_rule("called", rf"^(?:{_IM}\s+called|(?P<goes>i\s+go\s+by))\s+(?P<obj>.+)$")
def _called(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    predicate = "nickname" if m.group("goes") else "name"
    return [c.candidate(m, c.user, predicate, confidence=CONF_LOOSE, pattern="called")]


# -- possessive statements: "my X is Y", "Alice's X changed to Y", "the Y of X is Z" -----------------

_QUALIFIER = r"(?P<qual>(?:new|current|updated|latest|present|actual|real|main|primary)\s+)?"
_PAST_QUALIFIER = re.compile(r"^(?:old|former|previous|ex|last|prior|original)\b", re.IGNORECASE)
_PRED = r"(?P<pred>[a-z][\w-]*(?:\s+[\w-]+){0,4}?)"
# How a possessive attribute is tied to its value; ``neg`` marks "is no longer" / "is not".
_VERB = r"""(?:\s*(?P<contr>'s)|\s+(?:has\s+|have\s+)?changed(?:\s+again)?\s*[:;,](?:\s*(?:it(?:'s|\s+is)|they(?:'re|\s+are)))?(?:\s+now)?|
        (?P<colon>\s*[:=])|\s+(?P<neg>is\s+no\s+longer|are\s+no\s+longer|is\s+not|isn't|are\s+not|aren't)|
        \s+(?:(?:(?:has|have)\s+(?:been\s+)?|(?:was|were|got)\s+)?(?:changed|(?P<moved>moved)|switched)\s+from\s+.+?\s+to|is\s+now|are\s+now|is\s+currently|are\s+currently|is\s+still|
        (?:has|have)\s+(?:been\s+)?(?:changed|updated|switched|moved)\s+to|
        (?:was|were|got)\s+(?:changed|updated|switched)\s+to|
        changed\s+to|updated\s+to|switched\s+to|is\s+updated\s+to|(?:has\s+)?become|became|is|are))"""
# A capitalised word that is not all capitals: a name ("Kavya", "Lucky's"), never part of an attribute.
_NAME_WORD = re.compile(r"(?-i:\b[A-Z][a-z])")
# "<thing> : <words>" that reads as a heading and what was done: the thing ends in a preposition, or the first
# clause of the words has a verb (a past participle or a form of be / have).
_HEADING = re.compile(
    r"\b(?:in|on|at|for|to|of|with|from)\s+:|:\s+[^,.;]*?\b(?:is|are|was|were|has|have|had|\w{3,}ed)\b", re.IGNORECASE
)
# Predicates whose value is a person: "my wife's Outback" is never "my wife is Outback".
_PERSON_VALUED = frozenset(
    "spouse partner child parent sibling friend_of knows works_with manager doctor owner assignee oncall "
    "incident_commander ceo founder author".split()
)
_STATEMENT_OBJECT = re.compile(r"^[\w-]+(?:\s+[\w-]+){0,3}\s+(?:is|are|was|changed|has|have)\b", re.IGNORECASE)
_SUBJECT_STOP = frozenset(
    "it that what there here he she who where let this everyone everybody nobody today tomorrow yesterday one "
    "his her their its your our my i we they you tonight".split()
)


def _with_qualifier(m: re.Match[str], c: _Ctx) -> str:
    """The predicate, keeping a leading qualifier when it is part of a known name ("main export")."""
    qualifier = m.groupdict().get("qual")
    if qualifier and c.vocabulary.normalize(qualifier + m.group("pred")).known:
        return qualifier + m.group("pred")
    return m.group("pred")


def _possessive(
    m: re.Match[str], c: _Ctx, subject: str, predicate: str, confidence: float, pattern: str
) -> list[_Candidate]:
    """Candidate for "<owner>'s <predicate> <verb> <object>" unless it talks about a past value, or the words
    are not an attribute and its value:

    * a name inside the attribute is someone else ("Priya's sister Kavya is in Bristol" is about Kavya);
    * "<someone>'s <thing>: <words>" is a note's heading, not a value, when the vocabulary does not know the
      thing and the words say what was done ("Walt's ceiling: Pete patched + painted", "Gus's garage brewery:
      batch 14 is a hazy IPA") or the thing ends in a preposition ("Walt's grab bars in: 2 bars");
    * "my wife's …" is the wife's, not "my wife is …", when the attribute names a person.
    """
    if _PAST_QUALIFIER.match(predicate) or _NAME_WORD.search(predicate):
        return []
    if m.group("contr") and _STATEMENT_OBJECT.match(m.group("obj")):
        return []  # "my wife's name is Anna" is not (wife, "name is Anna")
    if m.group("colon") and pattern != "my_x_is" and _HEADING.search(f"{predicate} : {m.group('obj')}"):
        if not c.vocabulary.normalize(predicate, c.embed).known:
            return []
    if (m.group("contr") or m.group("moved")) and c.vocabulary.normalize(predicate, c.embed).name in _PERSON_VALUED:
        return []  # and "my sister moved from Paris to Berlin" is where she lives
    return [c.candidate(m, subject, predicate, polarity=_neg(m), confidence=confidence, pattern=pattern, split=True)]


def _owned_subject(owner_phrase: str, c: _Ctx) -> str:
    """Key of "my <owner>" as a subject: ``user's car``."""
    return entity_key(f"{c.user}'s {owner_phrase}")


@_rule("my_x_of_y", rf"^my\s+(?P<owner>[a-z][\w-]*(?:\s+[\w-]+){{0,2}}?)'s\s+{_QUALIFIER}{_PRED}{_VERB}\s+(?P<obj>.+)$")
def _my_x_of_y(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    owner, attribute = m.group("owner"), _with_qualifier(m, c)
    if attribute.lower() == "name" and c.vocabulary.normalize(owner).known:
        # "my wife's name is Anna" → (user, spouse, Anna); "my dog's name is Rex" → (user, pet, Rex)
        return _possessive(m, c, c.user, owner, CONF_FIRST_PERSON, "my_x_of_y")
    return _possessive(m, c, _owned_subject(owner, c), attribute, CONF_LOOSE, "my_x_of_y")


@_rule("my_x_is", rf"^my\s+{_QUALIFIER}{_PRED}{_VERB}\s+(?P<obj>.+)$")
def _my_x_is(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    return _possessive(m, c, c.user, _with_qualifier(m, c), CONF_FIRST_PERSON, "my_x_is")


@_rule(
    "their_x_is",
    rf"""^(?P<subj>(?:the\s+)?[\w][\w.&-]*(?:\s+[\w][\w.&-]*){{0,3}}?)'s
        \s+{_QUALIFIER}{_PRED}{_VERB}\s+(?P<obj>.+)$""",
)
def _their_x_is(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    words = m.group("subj").split()
    if any(w.lower() in _SUBJECT_STOP for w in words):
        return []
    has_article = words[0].lower() == "the"
    proper = all(w[0].isupper() or w[0].isdigit() for w in words[has_article:])
    if not (proper or has_article or len(words) == 1):
        return []  # "the widget's", "Alice's", "alice's" — not "i think alice's"
    confidence = CONF_THIRD_PERSON if proper or has_article else CONF_LOOSE
    return _possessive(m, c, entity_key(m.group("subj")), _with_qualifier(m, c), confidence, "their_x_is")


@_rule("y_of_x_is", rf"^the\s+{_QUALIFIER}{_PRED}\s+of\s+(?P<subj>.+?){_VERB}\s+(?P<obj>.+)$")
def _y_of_x_is(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    subject_raw = m.group("subj")
    first = subject_raw.split()[0].lower()
    if first == "my":
        subject = _owned_subject(subject_raw[3:], c)
    elif first in _SUBJECT_STOP or first in _PRONOUNS:
        return []
    else:
        subject = normalize_subject(subject_raw, c.user)
    return _possessive(m, c, subject, _with_qualifier(m, c), CONF_THIRD_PERSON, "y_of_x_is")


@_rule(
    "the_x_moved",
    rf"""^(?:the|our)\s+{_QUALIFIER}{_PRED}\s+(?:(?:has|have)\s+(?:been\s+)?|(?:was|were|got)\s+)?
        (?:changed|moved|switched|went)\s+from\s+.+?\s+to\s+(?P<obj>.+)$""",
)
def _the_x_moved(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    """ "the primary region moved from us-east-1 to eu-west-1": a value of the writer's own (or their team's),
    for an attribute the vocabulary knows that is not a person's."""
    match = c.vocabulary.normalize(_with_qualifier(m, c), c.embed)
    if not match.known or match.name in _PERSON_VALUED:
        return []
    return [c.candidate(m, c.user, _with_qualifier(m, c), confidence=CONF_LOOSE, pattern="the_x_moved")]


@_rule(
    "x_runs_y",
    r"""^(?P<obj>(?-i:[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2}))\s+(?:now\s+|is\s+now\s+)?
        (?P<verb>runs|leads|heads|manages|owns|is\s+running|is\s+leading|is\s+heading|is\s+managing|
        (?:has\s+)?taken\s+over|took\s+over)\s+(?:the\s+)?(?P<subj>[\w][\w.&'-]*(?:\s+[\w][\w.&'-]*){0,4}?)
        (?:\s+now|\s+(?:from|starting|since|until|as\s+of|this|next|for|on|in|while)\b.*)?[\s.!,;]*$""",
)
def _x_runs_y(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    """ "Dev Patel now runs the growth analytics team" → (growth analytics team, manager, Dev Patel); "Nadia now
    owns the Brightline account" → (brightline account, owner, Nadia). The thing must be named by more than one
    word or by a name ("the team" alone says not which)."""
    first = m.group("obj").split()[0].lower()
    subject_raw = m.group("subj")
    if first in _SUBJECT_STOP | _PRONOUNS or subject_raw.split()[0].lower() in _SUBJECT_STOP | _PRONOUNS:
        return []
    if len(subject_raw.split()) < 2 and subject_raw.islower():
        return []
    predicate = "owner" if m.group("verb").lower().startswith(("owns", "taken", "took", "has")) else "manager"
    return [c.candidate(m, entity_key(subject_raw), predicate, confidence=CONF_LOOSE, pattern="x_runs_y")]


@_rule(
    "x_is_my_y",
    rf"""^(?P<obj>[\w][\w.'&-]*(?:\s+[\w][\w.'&-]*){{0,4}}?)\s+is\s+(?:now\s+|still\s+)?
        my\s+{_QUALIFIER}(?P<pred>[a-z][\w'-]*(?:\s+[\w'-]+){{0,3}})[\s.!,;]*$""",
)
def _x_is_my_y(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    if m.group("obj").split()[0].lower() in _SUBJECT_STOP | _PRONOUNS:
        return []
    pred_start, pred_end = _trim_object(m.group("pred"))
    pred = m.group("pred")[pred_start:pred_end]
    if not pred or _PAST_QUALIFIER.match(pred):
        return []
    return [c.candidate(m, c.user, pred, pattern="x_is_my_y")]


@_rule(
    "x_is_the_y_of_z",
    rf"""^(?P<obj>[A-Z][\w.'&-]*(?:\s+[A-Z][\w.'&-]*){{0,3}})\s+is\s+(?:now\s+|still\s+)?
        the\s+{_QUALIFIER}{_PRED}\s+of\s+(?P<subj>.+)$""",
)
def _x_is_the_y_of_z(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    if not m.group("obj")[0].isupper() or m.group("obj").split()[0].lower() in _SUBJECT_STOP | _PRONOUNS:
        return []
    subj_start, subj_end = _trim_object(m.group("subj"))
    subject = entity_key(m.group("subj")[subj_start:subj_end])
    if not subject or subject.split()[0] in _SUBJECT_STOP:
        return []
    return [c.candidate(m, subject, _with_qualifier(m, c), confidence=CONF_LOOSE, pattern="x_is_the_y_of_z")]


@_rule(
    "x_costs",
    r"""^(?P<subj>(?:the\s+|a\s+|an\s+|my\s+)?[\w][\w.'&-]*(?:\s+[\w][\w.'&-]*){0,4}?)\s+
        (?:now\s+|currently\s+|only\s+|still\s+)?(?:costs|cost|is\s+priced\s+at|sells\s+for|retails\s+for|
        is\s+on\s+sale\s+for|goes\s+for|is\s+now\s+priced\s+at)\s+(?:now\s+|only\s+|just\s+|about\s+|around\s+)?
        (?P<obj>.+)$""",
)
def _x_costs(m: re.Match[str], c: _Ctx) -> list[_Candidate]:
    subject_raw = m.group("subj")
    first = subject_raw.split()[0].lower()
    if first in (_SUBJECT_STOP | _PRONOUNS) - {"my"}:
        return []
    subject = _owned_subject(subject_raw[3:], c) if first == "my" else entity_key(subject_raw)
    return [c.candidate(m, subject, "price", confidence=CONF_THIRD_PERSON, pattern="x_costs")]


# --------------------------------------------------------------------------- assembly


def _split_values(raw: str, predicate: str, vocabulary: Vocabulary) -> list[tuple[int, int]]:
    """Offsets of the list items in a multi-valued object ("peanuts and shellfish" → two items)."""
    if not vocabulary.is_multi(predicate):
        return [(0, len(raw))]
    if predicate in _LIST_PREDICATES:
        splitter = _LIST_SPLIT
    elif "," in raw:
        splitter = _COMMA_LIST_SPLIT  # "tea, coffee and juice"; a bare "mac and cheese" stays whole
    else:
        return [(0, len(raw))]
    items, pos = [], 0
    for m in splitter.finditer(raw):
        items.append((pos, m.start()))
        pos = m.end()
    items.append((pos, len(raw)))
    return [(a, b) for a, b in items if raw[a:b].strip()]


def _finish(cand: _Candidate, ctx: _Ctx) -> Iterator[CompiledFact]:
    """Clean, validate and normalise one candidate into zero or more facts."""
    match = ctx.vocabulary.normalize(cand.predicate, ctx.embed)
    if not match.name:
        return
    polarity = cand.polarity != match.negated
    confidence = cand.confidence if match.known else min(cand.confidence, CONF_LOOSE)
    raw = ctx.text[cand.obj[0] : cand.obj[1]]
    t_start, t_end = _trim_object(raw)
    trimmed = raw[t_start:t_end]
    pieces = _split_values(trimmed, match.name, ctx.vocabulary) if cand.split else [(0, len(trimmed))]
    for a, b in pieces:
        p_start, p_end = _trim_object(trimmed[a:b])
        obj = normalize_object(trimmed[a + p_start : a + p_end])
        if not _acceptable_object(obj) or not _VALIDATORS.get(match.name, _always)(obj):
            continue
        if match.name == "employer" and obj.casefold() in _EMPLOYER_NON_ORGS:
            continue
        yield CompiledFact(
            cand.subject,
            match.name,
            obj,
            polarity,
            confidence,
            cand.pattern,
            _statement_span(ctx.text, cand),
            match.status,
        )


def _statement_span(text: str, cand: _Candidate) -> tuple[int, int]:
    """The statement the fact came from, without trailing punctuation."""
    end = cand.end
    while end > cand.start and (text[end - 1].isspace() or text[end - 1] in ".,;:!?\u2026"):
        end -= 1
    return cand.start, end


def _always(_: str) -> bool:
    return True


def _clause_candidates(ctx_base: _Ctx, clause: str, start: int) -> list[_Candidate]:
    skip, body = _strip_discourse(clause)
    ctx = _Ctx(ctx_base.text, start + skip, ctx_base.user, ctx_base.vocabulary, ctx_base.embed)
    for rule in _RULES:
        m = rule.regex.match(body)
        if m:
            found = rule.build(m, ctx)
            if found:
                return found
    return []


def compile_facts(
    text: str, *, subject_default: str = "user", vocabulary: Vocabulary | None = None, embed: EmbedFn | None = None
) -> list[CompiledFact]:
    """Compile the facts stated in ``text`` (see the module docstring).

    ``subject_default`` is who "I"/"my" refers to; ``vocabulary`` defaults to :meth:`Vocabulary.default`;
    ``embed`` (optional) lets the vocabulary map unknown predicates to their nearest canonical name.
    Facts come in text order; a fact repeated in the same text is returned once.
    """
    unified = text.replace("\u2019", "'").replace("\u2018", "'")
    ctx = _Ctx(
        unified, 0, normalize_subject(subject_default, subject_default), vocabulary or Vocabulary.default(), embed
    )
    facts: list[CompiledFact] = []
    seen: set[tuple[str, str, str, bool]] = set()
    for s_start, s_end in split_sentences(unified):
        if _skip_sentence(unified[s_start:s_end]):
            continue
        for c_start, c_end in split_clauses(unified, s_start, s_end):
            for cand in _clause_candidates(ctx, unified[c_start:c_end], c_start):
                for fact in _finish(cand, ctx):
                    key = (fact.subject, fact.predicate, object_key(fact.object), fact.polarity)
                    if key not in seen:
                        seen.add(key)
                        facts.append(fact)
    return facts
