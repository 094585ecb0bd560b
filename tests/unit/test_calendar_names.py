"""The shared month and weekday names agree with the calendar (Monday 0, January 1)."""

from __future__ import annotations

import datetime as dt

from kgmem.calendar_names import MONTH_ABBREVIATIONS, MONTH_NUMBERS, MONTHS, WEEKDAY_NUMBERS, WEEKDAYS


def test_months_and_their_numbers():
    assert len(MONTHS) == 12
    for number, name in enumerate(MONTHS, 1):
        assert dt.date(2026, number, 1).strftime("%B").lower() == name
        assert MONTH_NUMBERS[name] == number
    for abbr, number in MONTH_ABBREVIATIONS.items():
        assert MONTHS[number - 1].startswith(abbr)
    assert "may" not in MONTH_ABBREVIATIONS and MONTH_NUMBERS["sept"] == MONTH_NUMBERS["sep"] == 9


def test_weekdays_follow_date_weekday():
    monday = dt.date(2026, 3, 2)
    for i, name in enumerate(WEEKDAYS):
        day = monday + dt.timedelta(days=i)
        assert day.weekday() == WEEKDAY_NUMBERS[name] == i
        assert day.strftime("%A").lower() == name
