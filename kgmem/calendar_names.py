"""English month and weekday names, written once (time phrases, fact objects, entity filtering, summaries).

All lowercase; ``MONTHS[i]`` is month ``i + 1`` and ``WEEKDAYS[i]`` is ``date.weekday() == i`` (Monday 0).
Title-case them where they are shown (``WEEKDAYS[d.weekday()].capitalize()``).
"""

from __future__ import annotations

MONTHS: tuple[str, ...] = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
# "may" has no abbreviation; "sep" and "sept" are both September
MONTH_ABBREVIATIONS: dict[str, int] = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
# every month spelling (full names first, then abbreviations) -> month number 1..12
MONTH_NUMBERS: dict[str, int] = {**{name: i for i, name in enumerate(MONTHS, 1)}, **MONTH_ABBREVIATIONS}

WEEKDAYS: tuple[str, ...] = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# weekday name -> date.weekday() number (Monday 0 .. Sunday 6)
WEEKDAY_NUMBERS: dict[str, int] = {name: i for i, name in enumerate(WEEKDAYS)}
