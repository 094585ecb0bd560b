"""Time phrases in a natural-language query → a time filter, relative to a reference time. A pure function.

``parse_time_filter("what did we deploy last week?", now)`` finds at most one time phrase and returns a
:class:`TimeFilter` — a half-open UTC interval ``[start, end)`` (either side may be ``None``), the phrase as
written, and the query with the phrase removed (for ranking) — or ``None`` when the query has no time phrase.

Phrases are found with this module's own regexes, never with ``dateparser.search`` (which reads "may" and
"second" in ordinary sentences as dates); ``dateparser`` only turns an already-found calendar date such as
"March 1st, 2026", "1 March" or "3/1/2026" into a date. Everything is case-insensitive.

Supported phrases (``now`` is the reference time; days are UTC calendar days; weeks start on Monday):

=====================================================  ==============================================
today / yesterday                                      that whole day
this week / this month / this year                     [start of the current period, now]
last (or previous) week / month / year                 the previous calendar period, whole
(in|over|within|during)? (the)? (last|past) N units    [now − N units, now]; units hours…years,
                                                       months and years by calendar arithmetic
                                                       (March 31 − 1 month = Feb 28), N a number or
                                                       one…twelve
past day/week/month/year/hour, last day/hour,          rolling, as above with N = 1 ("the last week"
the last/past week…, last/past 24 hours                and "past week" are rolling; bare
                                                       "last week" is the calendar week)
N days/weeks/months/years ago ("a week ago")           a window of the unit's size: that day, that
                                                       Monday–Sunday week, that calendar month, that
                                                       calendar year
last <weekday> / this past <weekday> / on <weekday>    that day (see the weekday rule below)
on <date>                                              that day (<date> must name a day)
in / during <Month> [<year>], in / during <year>       the whole month / year
since <date>                                           [start of <date>, now]
before / until / till / prior to <date>                [None, start of <date>)  ("until" is exclusive
                                                       too, as for "before")
after <date>                                           [end of <date>, now] — the day after a day,
                                                       the month after a month, the year after a year
between <d1> and <d2>, from <d1> to/until/through <d2>  [start of d1, end of d2)
a bare full date: 2026-03-01, March 1, 1 March,        that day (a bare "March 2026" is that month)
March 1st, 2026, 3/1/2026 (US month/day/year)
early / mid / late <Month>, the start / beginning /    that third of the month: days 1–10, 11–20, 21
middle / end of <Month>                                to its end
since / after / before / until such a part             a range from or to it, as for a <date>
                                                       ("since the beginning of March": March 1 to now)
=====================================================  ==============================================

A <date> is any of: a day (the bare forms above, or a 2026-03 month), a month name with or without a year,
a year 1900–2100, a weekday, today / yesterday, last/this week|month|year, last <weekday>, N units ago.

Rules chosen for the ambiguous cases:

* **Year-less dates** ("since March 10", "on 1 May") mean the most recent occurrence on or before today
  (so "on March 4" said on March 4 is today). **Year-less months** ("in May") mean the most recent such month
  that has started: "in May" on 2026-03-04 is May 2025, "in November" on 2026-11-29 is November 2026.
* **Weekdays** ("on Friday", "last Friday", "since Monday") mean the most recent such day *strictly before*
  today, 1–7 days back: "on Sunday" said on a Sunday is the previous Sunday (today is "today"), and "last
  Friday" said on Sunday 2026-11-29 is Friday 2026-11-27, not the Friday of the previous ISO week.
* **between**: a year-less end resolves as the most recent past occurrence and a year-less start is placed
  on or before it ("between March 1 and March 10" on 2026-03-04 → 2025-03-01..2025-03-11); when only the
  start has a year the end follows it ("between Dec 20, 2025 and Jan 5" → 2026-01-05). Reversed ends are
  swapped.
* **since/after** end at ``now`` even for a future date (the filter is then empty, not open-ended).
* **One phrase**: among all matches the leftmost wins, and among those starting at the same place the
  longest ("in May 2025" over "in May", "since last week" over "last week"). A match whose date is invalid
  (February 30) is skipped for the next one.
* **False positives avoided**: a month or year only counts after in/during/since/before/until/after/on/
  between; a bare date needs a day (or, for a month, a 4-digit year). "may"/"march" written in lower case
  with no year are not bare dates ("we may 2x it"), and a lower-case "may" after a preposition counts only
  when followed by the end, punctuation or a word such as "and/for/when/we" ("in may be" is no date).
  "last" needs week/month/year/a weekday/N units; "the last day of …" (``of`` after the unit) is not a
  rolling window. Numeric dates need a year ("before 1/2 of the jobs" is no date). A year followed by a unit
  ("in 2000 ms", "after 2048 tokens") is not a year. Bare weekdays, years and month names are ignored.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping

from ..calendar_names import MONTH_NUMBERS, WEEKDAY_NUMBERS

UTC = dt.timezone.utc

__all__ = tuple(["TimeFilter", "parse_time_filter"])


@dataclass(frozen=True)
class TimeFilter:
    start: dt.datetime | None  # inclusive, tz-aware UTC
    end: dt.datetime | None  # exclusive, tz-aware UTC
    phrase: str  # the matched text, as in the query
    rest: str  # the query with the phrase removed (whitespace tidied), for ranking
    kind: str = "calendar"  # range (since/before/after/between) | rolling (last N days, past week) |
    # period (this/last week, today, yesterday) | ago (N units ago) |
    # weekday (last Friday, on Friday) | calendar (in May, on March 1, 2026)
    month: int | None = None  # a year-less month ("in August"): its number, for matching any year's August

    @property
    def relative(self) -> bool:
        """A window measured back from the reference time (a period, a rolling window, N units ago, a range):
        the kind that names when something was recorded ("what did we discuss last week")."""
        return self.kind in ("range", "rolling", "period")


# --------------------------------------------------------------------------------------------- vocabulary

_MONTHS = MONTH_NUMBERS
_WEEKDAYS = WEEKDAY_NUMBERS
_NUMBER_WORDS = MappingProxyType(
    {
        "one": 1,
        "two": 2,
        "three": 3,
        "four": 4,
        "five": 5,
        "six": 6,
        "seven": 7,
        "eight": 8,
        "nine": 9,
        "ten": 10,
        "eleven": 11,
        "twelve": 12,
        "a": 1,
        "an": 1,
    }
)
# month names that are also ordinary English words
_AMBIGUOUS_MONTHS = frozenset({"may", "march", "mar"})
# words that may follow a lower-case month "may" after a preposition ("in may for acme", "since may?")
_AFTER_MONTH_OK = frozenset(
    {
        "and",
        "or",
        "but",
        "of",
        "to",
        "for",
        "from",
        "with",
        "at",
        "on",
        "in",
        "by",
        "about",
        "regarding",
        "when",
        "while",
        "where",
        "that",
        "which",
        "who",
        "whom",
        "what",
        "why",
        "how",
        "so",
        "then",
        "vs",
        "versus",
        "through",
        "until",
        "till",
        "before",
        "after",
        "since",
        "during",
        "we",
        "i",
        "you",
        "they",
        "he",
        "she",
        "it",
        "our",
        "my",
        "your",
        "their",
        "his",
        "her",
        "its",
        "the",
        "this",
        "was",
        "were",
        "did",
        "do",
        "does",
        "is",
        "are",
        "had",
        "has",
        "have",
        "last",
        "only",
        "please",
    }
)

_MON = "(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b\.?"
_WD = "(?:" + "|".join(_WEEKDAYS) + r")\b"
_DAY = r"(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?\b(?!:)"
_UNIT_AFTER_YEAR = (
    r"(?!\s*(?:%|,\d|\.\d|(?:ms|millis(?:econds?)?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|"
    r"weeks?|months?|years?|times|x|rows?|records?|items?|users?|people|persons|lines?|[kmgt]i?b|bytes?|"
    r"tokens?|dollars?|usd|eur|units?|requests?|calls?|errors?|words?|chars?|characters?|steps?|points?|"
    r"px|ports?)\b))"
)
_YEAR = r"(?:19\d\d|20\d\d|2100)(?![\w/]|-\d)" + _UNIT_AFTER_YEAR
_NUM = r"(?:\d{1,5}|" + "|".join(w for w in _NUMBER_WORDS if w not in ("a", "an")) + r")"
_L = r"(?<![\w/\-])"  # left edge of a phrase
_R = r"(?![\w/]|-\d)"  # right edge of a date

# Sub-forms of a <date>, longest first (the regex alternation takes the first form that matches).
_F_MD = rf"{_MON}\s+{_DAY}(?:,?\s+{_YEAR})?"  # March 1st, 2026 / March 1
_F_DM = rf"{_DAY}\s+(?:of\s+)?{_MON}(?:,?\s+{_YEAR})?"  # 1 March 2026 / 1st of March
_F_ISO_DAY = r"\d{4}-\d{1,2}-\d{1,2}" + _R  # 2026-03-01
_F_US = r"\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})" + _R  # 3/1/2026, 3/1/26
_F_ISO_MONTH = r"\d{4}-\d{1,2}" + _R  # 2026-03
_F_MONTH_YEAR = rf"{_MON},?\s+{_YEAR}"  # March 2026
_F_MONTH = _MON  # March
_F_YEAR = _YEAR  # 2026
_F_WEEKDAY = _WD  # Friday
_F_TODAY = r"(?:today|yesterday)\b"
_F_REL_PERIOD = r"(?:last|previous|this|current)\s+(?:week|month|year)\b"
_F_LAST_WD = rf"(?:last|this\s+past|past)\s+{_WD}"
_F_AGO = rf"(?:{_NUM}|an?)\s+(?:days?|weeks?|months?|years?)\s+ago\b"

_DATE_FORMS = tuple(
    [
        _F_MD,
        _F_DM,
        _F_ISO_DAY,
        _F_US,
        _F_ISO_MONTH,
        _F_MONTH_YEAR,
        _F_MONTH,
        _F_YEAR,
        _F_WEEKDAY,
        _F_TODAY,
        _F_REL_PERIOD,
        _F_LAST_WD,
        _F_AGO,
    ]
)
_DATE = "(?:" + "|".join(_DATE_FORMS) + ")"
_POSS = r"(?:'s|’s)?"  # "last week's", "yesterday's"
_NOT_OF = r"(?!\s+of\b)"  # "the last day of the sprint" is not a window

_FLAGS = re.IGNORECASE


class _LazyRx:
    """A pattern compiled on first use: compiling the module's thirty phrase patterns takes time that a
    command that never parses a time phrase (``kgmem now``) should not pay at import."""

    def __init__(self, pattern: str):
        self._pattern = pattern
        self._rx: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self._rx is None:
            self._rx = re.compile(self._pattern, _FLAGS)
        return getattr(self._rx, name)


def _rx(pattern: str) -> Any:
    return _LazyRx(pattern)


# --------------------------------------------------------------------------------------------- date specs


@dataclass(frozen=True)
class _Spec:
    """A parsed <date>: a calendar day, a month or a year (year possibly missing), a weekday, or a fixed span."""

    kind: str  # day | month | year | weekday | fixed
    year: int | None = None
    month: int | None = None
    day: int | None = None
    weekday: int | None = None
    span: tuple[dt.datetime, dt.datetime] | None = None  # for kind == fixed
    day_granular: bool = False  # fixed spans that name one day (today, 3 days ago, last Friday)

    @property
    def floating(self) -> bool:
        """True when the year (or week) is not given and must be chosen relative to some day."""
        return self.kind == "weekday" or (self.kind in ("day", "month") and self.year is None)


def _at(d: dt.date) -> dt.datetime:
    return dt.datetime(d.year, d.month, d.day, tzinfo=UTC)


def _add_weeks(d: dt.date, n: int) -> dt.date:
    return d + dt.timedelta(weeks=n)


def _add_years(d: dt.date, n: int) -> dt.date:
    return d.replace(year=d.year + n)


def _add_months(d: dt.date, months: int) -> dt.date:
    """Calendar month arithmetic, clamping the day to the target month's length."""
    idx = d.year * 12 + (d.month - 1) + months
    y, m = divmod(idx, 12)
    m += 1
    if not 1 <= y <= 9999:
        raise OverflowError("year out of range")
    return dt.date(y, m, min(d.day, calendar.monthrange(y, m)[1]))


def _add_months_dt(t: dt.datetime, months: int) -> dt.datetime:
    d = _add_months(t.date(), months)
    return t.replace(year=d.year, month=d.month, day=d.day)


def _month_span(y: int, m: int) -> tuple[dt.datetime, dt.datetime]:
    start = dt.date(y, m, 1)
    return _at(start), _at(_add_months(start, 1))


def _year_span(y: int) -> tuple[dt.datetime, dt.datetime]:
    return _at(dt.date(y, 1, 1)), _at(dt.date(y + 1, 1, 1))


def _day_span(d: dt.date) -> tuple[dt.datetime, dt.datetime]:
    return _at(d), _at(d + dt.timedelta(days=1))


def _latest_md(m: int, d: int, ref: dt.date) -> dt.date:
    """The latest valid month/day on or before ``ref`` (Feb 29 goes back to a leap year)."""
    for y in range(ref.year, ref.year - 9, -1):
        try:
            cand = dt.date(y, m, d)
        except ValueError:
            continue
        if cand <= ref:
            return cand
    raise ValueError("no such day")


def _earliest_md(m: int, d: int, ref: dt.date) -> dt.date:
    for y in range(ref.year, ref.year + 9):
        try:
            cand = dt.date(y, m, d)
        except ValueError:
            continue
        if cand >= ref:
            return cand
    raise ValueError("no such day")


def _resolve(
    spec: _Spec, today: dt.date, *, on_or_before: dt.date | None = None, on_or_after: dt.date | None = None
) -> tuple[dt.datetime, dt.datetime]:
    """The UTC span ``spec`` names. A floating spec is placed by default at its most recent past occurrence
    (on or before today; weekdays strictly before today), or on/before resp. on/after a given anchor day."""
    if spec.kind == "fixed":
        assert spec.span is not None
        return spec.span
    if spec.kind == "year":
        assert spec.year is not None
        return _year_span(spec.year)
    if spec.kind == "day":
        assert spec.month is not None and spec.day is not None
        if spec.year is not None:
            return _day_span(dt.date(spec.year, spec.month, spec.day))
        if on_or_after is not None:
            return _day_span(_earliest_md(spec.month, spec.day, on_or_after))
        return _day_span(_latest_md(spec.month, spec.day, on_or_before or today))
    if spec.kind == "month":
        assert spec.month is not None
        if spec.year is not None:
            return _month_span(spec.year, spec.month)
        if on_or_after is not None:
            a = on_or_after
            y = a.year if (spec.month, 1) >= (a.month, a.day) else a.year + 1
            return _month_span(y, spec.month)
        ref = on_or_before or today
        return _month_span(ref.year if spec.month <= ref.month else ref.year - 1, spec.month)
    if spec.kind == "weekday":
        assert spec.weekday is not None
        if on_or_after is not None:
            return _day_span(on_or_after + dt.timedelta(days=(spec.weekday - on_or_after.weekday()) % 7))
        if on_or_before is not None:
            return _day_span(on_or_before - dt.timedelta(days=(on_or_before.weekday() - spec.weekday) % 7))
        back = (today.weekday() - spec.weekday) % 7 or 7
        return _day_span(today - dt.timedelta(days=back))
    raise ValueError(spec.kind)


# --------------------------------------------------------------------------------------------- <date> text


@functools.cache
def _dateparser_parse() -> Callable[..., Any]:
    """dateparser's parse, imported on first use (it is slow to import)."""
    import dateparser

    parse: Callable[..., Any] = dateparser.parse
    return parse


def _dateparser(text: str, now: dt.datetime) -> dt.date | None:
    """Parse one calendar date with dateparser."""
    settings = {
        "RELATIVE_BASE": now.replace(tzinfo=None),
        "PREFER_DATES_FROM": "past",
        "DATE_ORDER": "MDY",
        "RETURN_AS_TIMEZONE_AWARE": False,
        "PREFER_DAY_OF_MONTH": "first",
    }
    try:
        parsed = _dateparser_parse()(text, languages=["en"], settings=settings)
    except Exception:  # dateparser raises assorted errors on odd input; treat as "not a date"
        return None
    return parsed.date() if parsed is not None else None


_FULL = MappingProxyType(
    {
        name: _rx(rf"{form}\Z")
        for name, form in [
            ("md", _F_MD),
            ("dm", _F_DM),
            ("iso_day", _F_ISO_DAY),
            ("us", _F_US),
            ("iso_month", _F_ISO_MONTH),
            ("month_year", _F_MONTH_YEAR),
            ("month", _F_MONTH),
            ("year", _F_YEAR),
            ("weekday", _F_WEEKDAY),
            ("today", _F_TODAY),
            ("rel_period", _F_REL_PERIOD),
            ("last_wd", _F_LAST_WD),
            ("ago", _F_AGO),
        ]
    }
)
_MONTH_TOKEN = _rx(_MON)
_YEAR_TOKEN = _rx(r"(?<!\d)(?:19\d\d|20\d\d|2100)(?!\d)")


def _month_token(text: str) -> str | None:
    m = _MONTH_TOKEN.search(text)
    return m.group(0).rstrip(".") if m else None


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_WORDS[word.lower()]


def _period(unit: str, which: str, now: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """The current (which='this') or previous calendar week/month/year, whole."""
    today = now.date()
    unit = unit.lower()
    if unit == "week":
        start = today - dt.timedelta(days=today.weekday())
        step: Callable[[dt.date, int], dt.date] = _add_weeks
    elif unit == "month":
        start = today.replace(day=1)
        step = _add_months
    else:
        start = today.replace(month=1, day=1)
        step = _add_years
    if which == "last":
        return _at(step(start, -1)), _at(start)
    return _at(start), _at(step(start, 1))


def _ago(n: int, unit: str, today: dt.date) -> dt.date:
    unit = unit.lower().rstrip("s")
    if unit == "day":
        return today - dt.timedelta(days=n)
    if unit == "week":
        return today - dt.timedelta(weeks=n)
    if unit == "month":
        return _add_months(today, -n)
    return _add_months(today, -12 * n)


def _spec(text: str, now: dt.datetime, *, bare: bool = False) -> _Spec | None:
    """Classify and parse a matched <date> text; None if it is not a valid date (or too ambiguous)."""
    text = text.strip()
    today = now.date()
    kind = next((k for k, rx in _FULL.items() if rx.match(text)), None)
    if kind is None:
        return None
    if kind in ("md", "dm", "iso_day", "us"):
        has_year = kind in ("iso_day", "us") or _YEAR_TOKEN.search(text) is not None
        if bare and not has_year:
            token = _month_token(text)
            if token and token.lower() in _AMBIGUOUS_MONTHS and not token[0].isupper():
                return None
        parsed = _dateparser(text, now)
        if parsed is None:
            return None
        if kind == "iso_day":  # make sure dateparser did not reorder an ISO date
            y, m, d = (int(p) for p in text.split("-"))
            if (parsed.year, parsed.month, parsed.day) != (y, m, d):
                return None
        return _Spec("day", parsed.year if has_year else None, parsed.month, parsed.day)
    if kind == "iso_month":
        y, m = (int(p) for p in text.split("-"))
        return _Spec("month", y, m) if 1 <= m <= 12 and 1900 <= y <= 2100 else None
    if kind in ("month_year", "month"):
        token = _month_token(text)
        assert token is not None  # the month forms contain a month name
        year = _YEAR_TOKEN.search(text)
        return _Spec("month", int(year.group(0)) if year else None, _MONTHS[token.lower()])
    if kind == "year":
        return _Spec("year", int(text))
    if kind == "weekday":
        return _Spec("weekday", weekday=_WEEKDAYS[text.lower()])
    if kind == "today":
        day = today if text.lower() == "today" else today - dt.timedelta(days=1)
        return _Spec("fixed", span=_day_span(day), day_granular=True)
    if kind == "rel_period":
        which, unit = text.lower().split()
        return _Spec("fixed", span=_period(unit, "this" if which in ("this", "current") else "last", now))
    if kind == "last_wd":
        wd = _WEEKDAYS[text.split()[-1].lower()]
        return _Spec("fixed", span=_resolve(_Spec("weekday", weekday=wd), today), day_granular=True)
    if kind == "ago":
        n_word, unit, _ = text.split()[-3:]
        n = _number(n_word)
        return _Spec("fixed", span=_day_span(_ago(n, unit, today)), day_granular=True)
    return None


def _lowercase_may_ok(query: str, spec_text: str, end: int) -> bool:
    """A lower-case month-alone "may" after a preposition is a month only before the end, punctuation or
    a word from ``_AFTER_MONTH_OK`` — "in may for acme" yes, "in may be late" no."""
    token = spec_text.strip().rstrip(".")
    if token.lower() != "may" or token[0].isupper():
        return True
    nxt = re.match(r"\s*([A-Za-z]+)", query[end:])
    return nxt is None or nxt.group(1).lower() in _AFTER_MONTH_OK


# --------------------------------------------------------------------------------------------- phrases

Span = tuple[dt.datetime | None, dt.datetime | None]
_Handler = Callable[[re.Match[str], str, dt.datetime], "Span | None"]


def _h_today(m: re.Match[str], q: str, now: dt.datetime) -> Span:
    d = now.date() if m.group("w").lower() == "today" else now.date() - dt.timedelta(days=1)
    return _day_span(d)


def _h_this_period(m: re.Match[str], q: str, now: dt.datetime) -> Span:
    return _period(m.group("unit"), "this", now)[0], now


def _h_last_period(m: re.Match[str], q: str, now: dt.datetime) -> Span:
    return _period(m.group("unit"), "last", now)


def _rolling(n: int, unit: str, now: dt.datetime) -> Span | None:
    if n <= 0:
        return None
    unit = unit.lower().rstrip("s")
    if unit in ("hour", "minute", "day", "week"):
        start = now - dt.timedelta(**{unit + "s": n})
    elif unit == "month":
        start = _add_months_dt(now, -n)
    else:
        start = _add_months_dt(now, -12 * n)
    return start, now


def _h_rolling_n(m: re.Match[str], q: str, now: dt.datetime) -> Span | None:
    return _rolling(_number(m.group("n")), m.group("unit"), now)


def _h_rolling_1(m: re.Match[str], q: str, now: dt.datetime) -> Span | None:
    unit = (m.group("unit") or m.group("unit2")).lower()
    return _rolling(24, "hours", now) if unit.startswith("24") else _rolling(1, unit, now)


def _h_ago(m: re.Match[str], q: str, now: dt.datetime) -> Span | None:
    """N units ago is a window the size of the unit around that point: "3 days ago" that day, "two weeks ago"
    that Monday-to-Sunday week, "a month ago" that calendar month, "4 years ago" that calendar year."""
    n = _number(m.group("n"))
    if n <= 0:
        return None
    then = _ago(n, m.group("unit"), now.date())
    unit = m.group("unit").lower().rstrip("s")
    if unit == "week":
        monday = then - dt.timedelta(days=then.weekday())
        return _at(monday), _at(monday + dt.timedelta(days=7))
    if unit == "month":
        return _month_span(then.year, then.month)
    if unit == "year":
        return _year_span(then.year)
    return _day_span(then)


def _h_last_weekday(m: re.Match[str], q: str, now: dt.datetime) -> Span:
    return _resolve(_Spec("weekday", weekday=_WEEKDAYS[m.group("wd").lower()]), now.date())


def _date_of(m: re.Match[str], group: str, q: str, now: dt.datetime, **kw: Any) -> _Spec | None:
    spec = _spec(m.group(group), now, **kw)
    if spec is None or (
        spec.kind == "month" and spec.year is None and not _lowercase_may_ok(q, m.group(group), m.end(group))
    ):
        return None
    return spec


def _h_on(m: re.Match[str], q: str, now: dt.datetime) -> Span | None:
    spec = _date_of(m, "d", q, now)
    if spec is None or not (spec.kind in ("day", "weekday") or spec.day_granular):
        return None
    return _resolve(spec, now.date())


def _h_in(m: re.Match[str], q: str, now: dt.datetime) -> Span | None:
    spec = _date_of(m, "d", q, now)
    if spec is None or spec.kind not in ("month", "year", "day"):
        return None
    return _resolve(spec, now.date())


def _h_since(m: re.Match[str], q: str, now: dt.datetime) -> Span | None:
    spec = _date_of(m, "d", q, now)
    return None if spec is None else (_resolve(spec, now.date())[0], now)


def _h_before(m: re.Match[str], q: str, now: dt.datetime) -> Span | None:
    spec = _date_of(m, "d", q, now)
    return None if spec is None else (None, _resolve(spec, now.date())[0])


def _h_after(m: re.Match[str], q: str, now: dt.datetime) -> Span | None:
    spec = _date_of(m, "d", q, now)
    return None if spec is None else (_resolve(spec, now.date())[1], now)


def _h_between(m: re.Match[str], q: str, now: dt.datetime) -> Span | None:
    a, b = _date_of(m, "d1", q, now), _date_of(m, "d2", q, now)
    if a is None or b is None:
        return None
    today = now.date()
    if b.floating and not a.floating:
        a_span = _resolve(a, today)
        b_span = _resolve(b, today, on_or_after=a_span[0].date())
    else:
        b_span = _resolve(b, today)
        a_span = _resolve(a, today, on_or_before=b_span[0].date()) if a.floating else _resolve(a, today)
    return min(a_span[0], b_span[0]), max(a_span[1], b_span[1])


def _h_bare(m: re.Match[str], q: str, now: dt.datetime) -> Span | None:
    spec = _spec(m.group("d"), now, bare=True)
    return None if spec is None else _resolve(spec, now.date())


# a part of a month: "early March", "mid-April", "at the start of October", "late Nov 2024", "the end of May"
_PART_OF_MONTH = MappingProxyType({"early": 0, "start": 0, "beginning": 0, "mid": 1, "middle": 1, "late": 2, "end": 2})
_PART_DAYS = ((1, 11), (11, 21), (21, None))  # [first day, day after) of each third; None: the month's end


def _h_part_of_month(m: re.Match[str], q: str, now: dt.datetime) -> Span | None:
    spec = _date_of(m, "d", q, now)
    if spec is None or spec.kind != "month":
        return None
    start, end = _resolve(spec, now.date())
    first, after = _PART_DAYS[_PART_OF_MONTH[(m.group("part") or m.group("part2")).lower()]]
    return start.replace(day=first), (end if after is None else start.replace(day=after))


def _h_part_range(m: re.Match[str], q: str, now: dt.datetime) -> Span | None:
    """A range bounded by a part of a month: "since the beginning of March" (from March 1 to now), "after
    mid-April" (from April 21), "before the end of May" (until May 21)."""
    part = _h_part_of_month(m, q, now)
    if part is None:
        return None
    prep = m.group("prep").lower()
    if prep == "since":
        return part[0], now
    if prep == "after":
        return part[1], now
    return None, part[0]  # before / until / till / prior to: up to the part's start, as for a date


# days a calendar fixes ("around Christmas"): the day itself, its most recent past occurrence
_HOLIDAYS = MappingProxyType(
    {
        "christmas eve": (12, 24),
        "christmas day": (12, 25),
        "christmas": (12, 25),
        "new year's eve": (12, 31),
        "new years eve": (12, 31),
        "new year's day": (1, 1),
        "new years day": (1, 1),
        "halloween": (10, 31),
        "valentine's day": (2, 14),
        "valentines day": (2, 14),
    }
)
_HOLIDAY = "(?:" + "|".join(re.escape(h).replace("'", "['’]") for h in sorted(_HOLIDAYS, key=len, reverse=True)) + ")"


def _h_holiday(m: re.Match[str], q: str, now: dt.datetime) -> Span | None:
    month, day = _HOLIDAYS[m.group("h").lower().replace("’", "'")]
    year = m.group("y")
    return _resolve(_Spec("day", int(year) if year else None, month, day), now.date())


_UNITS_N = r"(?P<unit>minutes?|hours?|days?|weeks?|months?|years?)"
_BARE_DATE = "(?:" + "|".join([_F_MD, _F_DM, _F_ISO_DAY, _F_US, _F_MONTH_YEAR]) + ")"

# a part of a month, as :func:`_h_part_of_month` reads it: "the start of March", "mid-April", "late Nov 2024"
_PART_OF = (
    rf"(?:the\s+)?(?:(?P<part>early|mid|late)(?:\s*-\s*|\s+)|(?P<part2>start|beginning|middle|end)\s+of\s+)"
    rf"(?P<d>{_F_MONTH_YEAR}|{_F_MONTH}){_POSS}"
)

_PATTERNS: tuple[tuple[re.Pattern[str], _Handler], ...] = tuple(
    [
        (
            _rx(
                rf"{_L}(?:between|from)\s+(?P<d1>{_DATE})\s+(?:and|to|until|till|through|thru)\s+(?P<d2>{_DATE}){_POSS}"
            ),
            _h_between,
        ),
        (
            _rx(
                rf"{_L}(?:(?:in|over|within|during)\s+)?(?:the\s+)?(?:last|past|previous)\s+(?P<n>{_NUM})\s+"
                rf"{_UNITS_N}\b{_NOT_OF}"
            ),
            _h_rolling_n,
        ),
        (
            _rx(
                rf"{_L}(?:(?:in|over|within|during)\s+)?the\s+(?:last|past|previous)\s+"
                rf"(?P<unit>24\s+hours|hour|day|week|month|year)\b{_NOT_OF}"
            ),
            _h_rolling_1,
        ),
        (
            _rx(
                rf"{_L}(?:(?:in|over|within|during)\s+)?(?:past\s+(?P<unit>24\s+hours|hour|day|week|month|year)|"
                rf"last\s+(?P<unit2>24\s+hours|hour|day))\b{_NOT_OF}"
            ),
            _h_rolling_1,
        ),
        (_rx(rf"{_L}(?P<n>{_NUM}|an?)\s+(?P<unit>days?|weeks?|months?|years?)\s+ago\b"), _h_ago),
        (_rx(rf"{_L}(?:last|previous)\s+(?P<unit>week|month|year)\b{_NOT_OF}{_POSS}"), _h_last_period),
        (_rx(rf"{_L}(?:this|current)\s+(?P<unit>week|month|year)\b{_NOT_OF}{_POSS}"), _h_this_period),
        (_rx(rf"{_L}(?P<w>today|yesterday)\b{_POSS}"), _h_today),
        (_rx(rf"{_L}(?:last|this\s+past|past)\s+(?P<wd>{_WD}){_POSS}"), _h_last_weekday),
        (_rx(rf"{_L}since\s+(?P<d>{_DATE}){_POSS}"), _h_since),
        (_rx(rf"{_L}(?:before|until|till|prior\s+to)\s+(?P<d>{_DATE}){_POSS}"), _h_before),
        (_rx(rf"{_L}after\s+(?P<d>{_DATE}){_POSS}"), _h_after),
        (_rx(rf"{_L}on\s+(?P<d>{_DATE}){_POSS}"), _h_on),
        (
            _rx(rf"{_L}(?P<prep>since|after|before|until|till|prior\s+to)\s+{_PART_OF}"),
            _h_part_range,
        ),
        (
            _rx(rf"{_L}(?:(?:in|at|around|by|during|from)\s+)?{_PART_OF}"),
            _h_part_of_month,
        ),
        (_rx(rf"{_L}(?:(?:on|at|around|by|over|for)\s+)?(?P<h>{_HOLIDAY})(?:\s+(?P<y>{_YEAR}))?\b{_POSS}"), _h_holiday),
        (_rx(rf"{_L}(?:in|during)\s+(?P<d>{_DATE}){_POSS}"), _h_in),
        (_rx(rf"{_L}(?P<d>{_BARE_DATE}){_POSS}"), _h_bare),
    ]
)


_KINDS: Mapping[_Handler, str] = MappingProxyType(
    {
        _h_between: "range",
        _h_since: "range",
        _h_before: "range",
        _h_after: "range",
        _h_part_range: "range",
        _h_rolling_n: "rolling",
        _h_rolling_1: "rolling",
        _h_last_period: "period",
        _h_this_period: "period",
        _h_today: "period",
        _h_ago: "ago",
        _h_last_weekday: "weekday",
    }
)

# --------------------------------------------------------------------------------------------- entry point


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([?.!,;:])", r"\1", text)  # "what happened ?" -> "what happened?"
    text = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", text)  # "a, , b" -> "a, b"
    text = re.sub(r"[,;:]+(?=[?.!]|$)", "", text)  # "deploys,?" -> "deploys?"
    text = re.sub(r"^[,;:.]\s*", "", text)  # ", what broke" -> "what broke"
    return text.strip()


# a word that is a time whatever surrounds it: a year, an ordinal day, a clock time ("2023", "8th", "3pm")
_TIME_TOKEN = re.compile(r"(?:1[89]\d\d|20\d\d)|\d{1,4}(?:st|nd|rd|th)|\d{1,2}(?:am|pm)", re.IGNORECASE)


def is_time_token(word: str) -> bool:
    """Whether ``word`` names a time on its own — a year, an ordinal, a clock time: what a question asks about
    (:mod:`kgmem.query.meaning`) and the codes it names (:func:`kgmem.query.abstain.identifier_tokens`) leave
    it out (it filters or ranks)."""
    return _TIME_TOKEN.fullmatch(word) is not None


def parse_time_filter(query: str, now: dt.datetime) -> TimeFilter | None:
    """The first (leftmost, then longest) time phrase in ``query`` as a UTC filter, or None if there is none.

    ``now`` is the reference time; a naive ``now`` is taken to be UTC.
    """
    now = now.astimezone(UTC) if now.tzinfo is not None else now.replace(tzinfo=UTC)
    candidates: list[tuple[int, int, re.Match[str], _Handler]] = []
    for rx, handler in _PATTERNS:
        for m in rx.finditer(query):
            candidates.append((m.start(), -(m.end() - m.start()), m, handler))
    candidates.sort(key=lambda c: (c[0], c[1]))
    for _, _, m, handler in candidates:
        try:
            span = handler(m, query, now)
        except (ValueError, OverflowError):
            continue
        if span is None:
            continue
        start, end = span
        phrase = m.group(0)
        rest = _tidy(query[: m.start()] + " " + query[m.end() :])
        kind = _KINDS.get(handler, "calendar")
        month = None
        if kind == "calendar" and "d" in m.groupdict() and m.group("d"):
            spec = _spec(m.group("d"), now)
            if spec is not None and spec.kind == "month" and spec.year is None:
                month = spec.month
        return TimeFilter(start, end, phrase, rest, kind=kind, month=month)
    return None


# a time a text states, in any form (a date, a weekday, a month, a clock time, an ordinal, a year, a relative day
# or period, a quarter, a recurrence, a condition): what a question asking when something is or will be needs
# its evidence to say (:func:`says_when`); broad on purpose, since a false "yes" only leaves it to the model
_STATES_TIME = _LazyRx(
    _L
    + r"(?:"
    + _DATE
    + r"|(?:today|tomorrow|tonight|yesterday|noon|midnight|weekend|overnight)\b"
    + r"|(?:next|last|this|coming|following|every|each)\s+(?:\w+\s+)?(?:day|week|month|year|quarter|"
    + r"morning|afternoon|evening|night|weekend|spring|summer|autumn|fall|winter)s?\b"
    + r"|(?:in|within|after)\s+(?:a|an|"
    + _NUM
    + r")\s+(?:days?|weeks?|weekends?|months?|years?|hours?)\b"
    + r"|(?:a|an|"
    + _NUM
    + r")\s+(?:days?|weeks?|weekends?|months?|years?)\s+(?:later|from now|away)\b"
    + r"|(?:end|start|beginning|middle)\s+of\s+(?:the\s+)?(?:\w+\s+)?(?:week|month|year|quarter)\b"
    + r"|q[1-4]\b|h[12]\b|daily|weekly|monthly|quarterly|annually|yearly|biweekly"
    + r"|(?:"
    + _TIME_TOKEN.pattern  # a year, an ordinal, a clock time ("3pm"), as a question's time tokens
    + r")\b|\d{1,2}(?::\d\d)?\s*(?:am|pm)\b|\d{1,2}:\d\d\b"
    # a condition answers "when do we see ERR-4412?": "… when the report template is missing"
    + r"|(?:when|whenever|once|while|during|before|after|until)\s"
    + r")"
)


# a question asking when something is or will be ("when is the audit?", "when does the lease end?"): the time a
# memory was recorded is not its answer, as it may be for "when did …?"
_ASKS_WHEN = re.compile(r"^\W*when(?:'s|’s|\s+(?:is|are|am|does|do|will|would|should|shall|can)\b)", re.IGNORECASE)


def asks_when_ahead(question: str) -> bool:
    """Whether ``question`` asks when something is or will be (not when it was: "when did …?")."""
    return _ASKS_WHEN.search(question) is not None


def says_when(text: str) -> bool:
    """Whether ``text`` states a time (a date, a day, a clock time, a period, a recurrence) or a condition
    ("when the template is missing", "after a deploy")."""
    return _STATES_TIME.search(text) is not None
