"""Text handling on the write path is linear in the text's length (issue 46): one unbroken 32k-character token, or a
32k run of spaces, newlines or dots, used to take 30 s to minutes (regexes that tried every character of a long
run as a start and rescanned the rest of it). The rewritten regexes and helpers find what the old ones found
(compared on random texts), and the per-text work grows in proportion to the length (a ratio of times, never an
absolute time)."""

from __future__ import annotations

import base64
import datetime as dt
import random
import re
import time

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kgmem.derived import cause_cues, change_cues
from kgmem.ingest import compiler
from kgmem.normalize import _SENTENCE_START, _at_sentence_start, looks_like_a_name
from kgmem.query import timeparse

# the run-start guards the linear patterns added; without them each pattern is the old one
_GUARDS = (
    r"(?<!\s)",
    r"(?<!\S)",
    r"(?<![.!?\u2026])",
    r"(?<![\s,])",
    r"(?<![\s.,;:!?\u2026])",
    r"(?<![\w.+-])",
)


def _old(pattern: re.Pattern[str]) -> re.Pattern[str]:
    text = pattern.pattern
    for guard in _GUARDS:
        text = text.replace(guard, "")
    assert text != pattern.pattern, pattern.pattern
    return re.compile(text, pattern.flags)


_WORDS = [
    " ", "  ", "\t", "\n", ",", ".", "...", ";", ":", "!", "?", "\u2026", "-", "\u2014", "(", ")", '"', "'",
    "x", "Paris", "1", "2024", "5th", "a", "I", "i", "my", "we", "and", "or", "but", "so", "because", "since", "as",
    "of", "now", "too", "in", "on", "September", "Monday", "couple", "days", "ago", "last", "week", "is", "was",
    "wrong", "not", "no", "longer", "dollars", "k", "$", "@", "b.c", "+", "phone",
]  # fmt: skip
texts = st.lists(st.sampled_from(_WORDS), max_size=24).map("".join)
_COMPILER = ["_SENTENCE_END", "_CLAUSE_BREAK", "_CLAUSE_TAIL", "_TRAILING_NOISE", "_LIST_SPLIT", "_COMMA_LIST_SPLIT"]


@settings(max_examples=400, deadline=None)
@given(texts)
@example(", ,")  # a comma after a space: the list splitters' guard once kept it from splitting
def test_the_guarded_compiler_patterns_match_as_before(text):
    for name in _COMPILER:
        new = getattr(compiler, name)
        old = _old(new)
        assert [m.span() for m in new.finditer(text)] == [m.span() for m in old.finditer(text)], name
        for end in range(len(text) + 1):  # _TRAILING_NOISE is searched up to each end
            a, b = new.search(text, 0, end), old.search(text, 0, end)
            assert (a and a.span()) == (b and b.span()), (name, end)


def _old_trim(raw: str) -> tuple[int, int]:
    end = len(raw)
    tail = _old(compiler._CLAUSE_TAIL).search(raw)
    if tail and tail.start() > 0:
        end = tail.start()
    noise, previous = _old(compiler._TRAILING_NOISE), -1
    while end != previous:
        previous = end
        m = noise.search(raw, 0, end)
        if m and m.start() > 0:
            end = m.start()
    return len(raw[:end]) - len(raw[:end].lstrip()), end


@settings(max_examples=600, deadline=None)
@given(texts)
def test_trimming_an_object_from_its_last_words_trims_as_before(raw):
    assert compiler._trim_object(raw) == _old_trim(raw)


_OLD_NEGATING = re.compile(
    r"(?:\bnot|\bno longer|\binstead of|\brather than|\bno more|\bnever)\s+((?:\S+\s+){0,2}\S+)"
    r"|(\S+(?:\s+\S+)?)\s+(?:is|was|are|were)\s+(?:wrong|incorrect|a typo|a mistake)",
    re.IGNORECASE,
)
_OLD_MONEY = re.compile(
    r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?(?:dollars|euros|pounds|usd|eur|gbp|k)\b", re.I
)
_OLD_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")


@settings(max_examples=600, deadline=None)
@given(texts, st.lists(st.sampled_from(_WORDS), max_size=24).map(" ".join))
def test_the_change_cues_read_what_they_read_before(text, words):
    # "X is wrong" now starts at a token's start; the old regex also started inside a token right after a match
    # that ended inside one ("it is wrongful b is wrong" gave "ful b"): compared on words apart
    assert change_cues.negated_tokens(words) == frozenset(
        t for m in _OLD_NEGATING.finditer(words) for t in change_cues.tokens(m.group(1) or m.group(2) or "")
    )
    assert change_cues.tokens_outside_negation(words) == change_cues.tokens(_OLD_NEGATING.sub(" ", words))
    shapes = dict(change_cues._VALUE_SHAPES)
    assert bool(shapes["money"].search(text)) == bool(_OLD_MONEY.search(text))
    assert bool(shapes["email"].search(text)) == bool(_OLD_EMAIL.search(text))


@settings(max_examples=600, deadline=None)
@given(st.text(st.sampled_from("aZz1_-: \t\n.é\u00a0"), max_size=30), st.integers(0, 30))
def test_the_qualifier_read_from_the_end_is_the_regexs(text, end):
    end = min(end, len(text))
    m = change_cues._QUALIFIER_BEFORE.search(text[:end])
    assert change_cues._qualifier_before(text, end) == (m.group(1) if m else None)


@settings(max_examples=600, deadline=None)
@given(st.text(st.sampled_from(".!?\n:;\"'([ \ta\u00a0B"), max_size=20), st.integers(0, 20))
def test_a_sentence_start_read_from_the_end_is_the_regexs(text, pos):
    pos = min(pos, len(text))
    assert _at_sentence_start(text, pos) == bool(_SENTENCE_START.search(text[:pos]))


def _old_core(raw: str) -> str:
    from kgmem.ingest.entities import _ABBREVIATION, _CLOSERS, _OPENERS

    word = raw.lstrip(_OPENERS)
    while True:
        stripped = word.rstrip(_CLOSERS)
        if stripped.endswith(".") and not _ABBREVIATION.search(stripped):
            stripped = stripped[:-1]
        if stripped == word:
            break
        word = stripped
    return re.sub(r"['\u2019]s?$", "", word)


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(["A", "J", "x", ".", "Inc", "Prof", "Mrs", "'s", "'", ")", ",", "(", '"']), max_size=12)
)
def test_a_words_core_is_cut_as_before(parts):
    from kgmem.ingest.entities import _Word

    raw = "".join(parts)
    assert _Word(0, len(raw), raw).core == _old_core(raw)


# ---------------------------------------------------------------------------- linear in the length

_RNG = random.Random(46)
SHAPES = {
    "base64 key": lambda n: base64.b64encode(_RNG.randbytes(n)).decode()[:n],
    "one letter": lambda n: "a" * n,
    "capitals": lambda n: "A" * n,
    "digits": lambda n: "1" * n,
    "dashes": lambda n: "-" * n,
    "underscores": lambda n: "_" * n,
    "1,1,1": lambda n: "1," * (n // 2),
    "a.a.a": lambda n: "a." * (n // 2),
    "spaces": lambda n: "x" + " " * (n - 2) + "y",
    "newlines": lambda n: "x" + "\n" * (n - 2) + "y",
    "tabs": lambda n: "x" + "\t" * (n - 2) + "y",
    "dots": lambda n: "x" + "." * (n - 2) + "y",
    "trailing dots": lambda n: "x" + "." * (n - 1),
    "leading spaces": lambda n: " " * (n - 1) + "x",
    "A; A; A;": lambda n: "A; " * (n // 3),
    "a fact, then spaces": lambda n: "I live in Paris" + " " * (n - 17) + "ok",
    "a fact, then nows": lambda n: "I live in Paris" + " now" * ((n - 15) // 4),
}
_NOW = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def _per_text_work(text: str) -> None:
    """What the write path does with a text before it is embedded and stored (the supersession pass's cues, the
    fact compiler and entity extraction, the cause clauses, the time phrases, a name check, a qualifier)."""
    from kgmem.ingest.prepare import Preparer
    from kgmem.ingest.records import parse_record

    change_cues.cues.cache_clear()
    change_cues.cues(text)
    change_cues.qualifiers(text + " phone", frozenset({"phone"}))
    cause_cues.text_cues.cache_clear()
    cause_cues.text_cues(text)
    cause_cues.fragments(text)
    timeparse.parse_time_filter(text, _NOW)
    looks_like_a_name("Bob", text + " Bob")
    preparer = Preparer(_VOCABULARY, embed=None, compile_text=True)
    preparer.prepare([parse_record({"text": text}, tenant="t")])


def _seconds(text: str) -> float:
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        _per_text_work(text)
        best = min(best, time.perf_counter() - t0)
    return best


_VOCABULARY = None


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_per_text_work_grows_linearly_with_a_long_token_or_run(shape):
    global _VOCABULARY
    if _VOCABULARY is None:
        from kgmem.vocab import Vocabulary

        _VOCABULARY = Vocabulary.load()
    _per_text_work("warm up: I live in Paris now")
    small, big = SHAPES[shape](4096), SHAPES[shape](32768)
    ratio = _seconds(big) / max(_seconds(small), 1e-3)
    # 8x the text: about 8x the time when linear, 64x when quadratic (the old regexes gave 40 to 90)
    assert ratio < 20, f"{shape}: 32k took {ratio:.1f}x the time of 4k"
