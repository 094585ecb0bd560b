"""Table-driven tests for kgmem.query.timeparse: time phrases in a query → a UTC time filter."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from kgmem.query import timeparse
from kgmem.query.timeparse import TimeFilter, parse_time_filter

UTC = dt.timezone.utc


def U(y: int, m: int, d: int, h: int = 0, mi: int = 0) -> dt.datetime:
    return dt.datetime(y, m, d, h, mi, tzinfo=UTC)


NOV = U(2026, 11, 29, 15)  # a Sunday
MAR = U(2026, 3, 4, 10)  # a Wednesday
JAN = U(2026, 1, 15, 9)
MAR15 = U(2026, 3, 15, 12)
MAR31 = U(2026, 3, 31, 10)

# (now, query, start, end, phrase, rest)
POSITIVE = [
    # today / yesterday: whole UTC calendar days
    (NOV, "what happened today?", U(2026, 11, 29), U(2026, 11, 30), "today", "what happened?"),
    (NOV, "Yesterday, what broke?", U(2026, 11, 28), U(2026, 11, 29), "Yesterday", "what broke?"),
    (NOV, "summarise yesterday's standup", U(2026, 11, 28), U(2026, 11, 29), "yesterday's", "summarise standup"),
    (MAR, "TODAY", U(2026, 3, 4), U(2026, 3, 5), "TODAY", ""),
    # this week / month / year: start of the period to now (ISO weeks start on Monday)
    (NOV, "tickets closed this week", U(2026, 11, 23), NOV, "this week", "tickets closed"),
    (MAR, "this week", U(2026, 3, 2), MAR, "this week", ""),
    (NOV, "spend this month", U(2026, 11, 1), NOV, "this month", "spend"),
    (MAR, "hires this year", U(2026, 1, 1), MAR, "this year", "hires"),
    # last week / month / year: the previous calendar period, whole
    (NOV, "what did we deploy last week?", U(2026, 11, 16), U(2026, 11, 23), "last week", "what did we deploy?"),
    (MAR, "Last Week", U(2026, 2, 23), U(2026, 3, 2), "Last Week", ""),
    (NOV, "incidents last month", U(2026, 10, 1), U(2026, 11, 1), "last month", "incidents"),
    (MAR15, "last month", U(2026, 2, 1), U(2026, 3, 1), "last month", ""),  # February: 28 days
    (JAN, "last month", U(2025, 12, 1), U(2026, 1, 1), "last month", ""),  # across the year boundary
    (U(2026, 1, 1, 8), "last week", U(2025, 12, 22), U(2025, 12, 29), "last week", ""),
    (NOV, "revenue last year", U(2025, 1, 1), U(2026, 1, 1), "last year", "revenue"),
    (NOV, "what broke in last year's launch", U(2025, 1, 1), U(2026, 1, 1), "last year's", "what broke in launch"),
    # rolling windows [now - N units, now]
    (NOV, "errors in the last 3 days", U(2026, 11, 26, 15), NOV, "in the last 3 days", "errors"),
    (NOV, "past 24 hours", U(2026, 11, 28, 15), NOV, "past 24 hours", ""),
    (NOV, "alerts in the last day", U(2026, 11, 28, 15), NOV, "in the last day", "alerts"),
    (MAR, "last day", U(2026, 3, 3, 10), MAR, "last day", ""),
    (NOV, "past 2 weeks", U(2026, 11, 15, 15), NOV, "past 2 weeks", ""),
    (NOV, "over the past two weeks", U(2026, 11, 15, 15), NOV, "over the past two weeks", ""),
    (MAR, "the last 6 months", U(2025, 9, 4, 10), MAR, "the last 6 months", ""),
    (MAR31, "past 1 month", U(2026, 2, 28, 10), MAR31, "past 1 month", ""),  # clamped to Feb 28
    (
        U(2028, 2, 29, 12),
        "incidents in the last 2 years",
        U(2026, 2, 28, 12),
        U(2028, 2, 29, 12),
        "in the last 2 years",
        "incidents",
    ),
    (NOV, "in the past month", U(2026, 10, 29, 15), NOV, "in the past month", ""),
    (NOV, "in the last week", U(2026, 11, 22, 15), NOV, "in the last week", ""),  # "the": rolling
    (NOV, "last 12 hours", U(2026, 11, 29, 3), NOV, "last 12 hours", ""),
    # N units ago: a window of the unit's size (that day, that Monday-Sunday week, that month, that year)
    (NOV, "what did Bob say 3 days ago", U(2026, 11, 26), U(2026, 11, 27), "3 days ago", "what did Bob say"),
    (MAR, "two weeks ago", U(2026, 2, 16), U(2026, 2, 23), "two weeks ago", ""),
    (MAR31, "a month ago", U(2026, 2, 1), U(2026, 3, 1), "a month ago", ""),
    (
        MAR,
        "where did Caroline move from 4 years ago?",
        U(2022, 1, 1),
        U(2023, 1, 1),
        "4 years ago",
        "where did Caroline move from?",
    ),
    # since / before / until / after <date>
    (NOV, "changes since March 1", U(2026, 3, 1), NOV, "since March 1", "changes"),
    (MAR, "since March 10", U(2025, 3, 10), MAR, "since March 10", ""),  # year-less: most recent past
    (MAR, "since March 4", U(2026, 3, 4), MAR, "since March 4", ""),  # ...which may be today
    (NOV, "since 2020", U(2020, 1, 1), NOV, "since 2020", ""),
    (NOV, "since last week", U(2026, 11, 16), NOV, "since last week", ""),
    (NOV, "since February 29", U(2024, 2, 29), NOV, "since February 29", ""),
    (NOV, "facts before 2026-03-01", None, U(2026, 3, 1), "before 2026-03-01", "facts"),
    (NOV, "until March 1st, 2026", None, U(2026, 3, 1), "until March 1st, 2026", ""),
    (NOV, "before today", None, U(2026, 11, 29), "before today", ""),
    (NOV, "what changed after 2025?", U(2026, 1, 1), NOV, "after 2025", "what changed?"),
    (NOV, "after March 1", U(2026, 3, 2), NOV, "after March 1", ""),
    (MAR, "after May", U(2025, 6, 1), MAR, "after May", ""),
    (NOV, "what may happen after May?", U(2026, 6, 1), NOV, "after May", "what may happen?"),
    # between / from..to
    (NOV, "between March 1 and March 10", U(2026, 3, 1), U(2026, 3, 11), "between March 1 and March 10", ""),
    (MAR, "between March 1 and March 10", U(2025, 3, 1), U(2025, 3, 11), "between March 1 and March 10", ""),
    (NOV, "between 2024 and 2025", U(2024, 1, 1), U(2026, 1, 1), "between 2024 and 2025", ""),
    (NOV, "between March and May 2026", U(2026, 3, 1), U(2026, 6, 1), "between March and May 2026", ""),
    (MAR, "from Dec 20, 2025 to Jan 5", U(2025, 12, 20), U(2026, 1, 6), "from Dec 20, 2025 to Jan 5", ""),
    (NOV, "between 2026-03-10 and 2026-03-01", U(2026, 3, 1), U(2026, 3, 11), "between 2026-03-10 and 2026-03-01", ""),
    # in / during <Month> [year], in <year>
    (MAR, "what did we ship in May", U(2025, 5, 1), U(2025, 6, 1), "in May", "what did we ship"),
    (NOV, "in November", U(2026, 11, 1), U(2026, 12, 1), "in November", ""),
    (MAR, "during March", U(2026, 3, 1), U(2026, 4, 1), "during March", ""),  # March has started
    (MAR, "in November", U(2025, 11, 1), U(2025, 12, 1), "in November", ""),
    (NOV, "in May 2025", U(2025, 5, 1), U(2025, 6, 1), "in May 2025", ""),
    (NOV, "deploys in Sept. 2025", U(2025, 9, 1), U(2025, 10, 1), "in Sept. 2025", "deploys"),
    (NOV, "in may for acme", U(2026, 5, 1), U(2026, 6, 1), "in may", "for acme"),
    (NOV, "in 2026 we shipped", U(2026, 1, 1), U(2027, 1, 1), "in 2026", "we shipped"),
    (NOV, "in 1999", U(1999, 1, 1), U(2000, 1, 1), "in 1999", ""),
    # on <date> / on <weekday> / last <weekday>: weekdays are strictly before today
    (NOV, "what happened on March 1st, 2026?", U(2026, 3, 1), U(2026, 3, 2), "on March 1st, 2026", "what happened?"),
    (NOV, "on 3/1/2026", U(2026, 3, 1), U(2026, 3, 2), "on 3/1/2026", ""),
    (MAR, "on 1 May", U(2025, 5, 1), U(2025, 5, 2), "on 1 May", ""),
    (NOV, "meetings on Friday", U(2026, 11, 27), U(2026, 11, 28), "on Friday", "meetings"),
    (NOV, "on Sunday", U(2026, 11, 22), U(2026, 11, 23), "on Sunday", ""),  # said on a Sunday
    (NOV, "on monday morning", U(2026, 11, 23), U(2026, 11, 24), "on monday", "morning"),
    (NOV, "last Friday", U(2026, 11, 27), U(2026, 11, 28), "last Friday", ""),
    (NOV, "last Sunday", U(2026, 11, 22), U(2026, 11, 23), "last Sunday", ""),
    (MAR, "last Wednesday", U(2026, 2, 25), U(2026, 2, 26), "last Wednesday", ""),
    (NOV, "between Monday and Wednesday", U(2026, 11, 23), U(2026, 11, 26), "between Monday and Wednesday", ""),
    # bare full dates
    (NOV, "2026-03-01 outage", U(2026, 3, 1), U(2026, 3, 2), "2026-03-01", "outage"),
    (NOV, "the March 1 outage", U(2026, 3, 1), U(2026, 3, 2), "March 1", "the outage"),
    (MAR, "1 March outage", U(2026, 3, 1), U(2026, 3, 2), "1 March", "outage"),
    (NOV, "postmortem for 3/1/2026", U(2026, 3, 1), U(2026, 3, 2), "3/1/2026", "postmortem for"),
    (MAR, "May 5 release", U(2025, 5, 5), U(2025, 5, 6), "May 5", "release"),
    (NOV, "plans for March 2026", U(2026, 3, 1), U(2026, 4, 1), "March 2026", "plans for"),
    # a part of a month (thirds: days 1-10, 11-20, 21 to the end), and days a calendar fixes
    (
        NOV,
        "At the start of March, what was the code?",
        U(2026, 3, 1),
        U(2026, 3, 11),
        "At the start of March",
        "what was the code?",
    ),
    (NOV, "In mid-April, how much was it?", U(2026, 4, 11), U(2026, 4, 21), "In mid-April", "how much was it?"),
    (NOV, "orders in late November", U(2026, 11, 21), U(2026, 12, 1), "in late November", "orders"),
    (NOV, "early October 2023 outage", U(2023, 10, 1), U(2023, 10, 11), "early October 2023", "outage"),
    (NOV, "at the end of May, who", U(2026, 5, 21), U(2026, 6, 1), "at the end of May", "who"),
    (NOV, "we start March 3rd", U(2026, 3, 3), U(2026, 3, 4), "March 3rd", "we start"),
    # a range from or to a part of a month: "since" the part's start, "after" its end, "before" its start
    (
        NOV,
        "What has happened with the grant since the beginning of March?",
        U(2026, 3, 1),
        NOV,
        "since the beginning of March",
        "What has happened with the grant?",
    ),
    (NOV, "changes since mid-April", U(2026, 4, 11), NOV, "since mid-April", "changes"),
    (NOV, "what shipped after late October 2025", U(2025, 11, 1), NOV, "after late October 2025", "what shipped"),
    (NOV, "deploys before the end of May", None, U(2026, 5, 21), "before the end of May", "deploys"),
    (
        NOV,
        "Around Christmas, what was the plan?",
        U(2025, 12, 25),
        U(2025, 12, 26),
        "Around Christmas",
        "what was the plan?",
    ),
    (NOV, "what happened on New Year's Eve?", U(2025, 12, 31), U(2026, 1, 1), "on New Year's Eve", "what happened?"),
    # one phrase: leftmost wins, then the longest
    (
        NOV,
        "tell me about 3 days ago and yesterday",
        U(2026, 11, 26),
        U(2026, 11, 27),
        "3 days ago",
        "tell me about and yesterday",
    ),
]

NEGATIVE = [
    "I may be late",
    "May I ask about Acme?",
    "we may 2x it",
    "1 may be enough",
    "in may be late",
    "the end of may be near",
    "since may be",
    "March",
    "what is the March plan",
    "march 5 miles",
    "I'll march on",
    "what was the last deploy?",
    "the last 3 deploys",
    "last",
    "the second attempt failed",
    "what did I say on the call",
    "since we deployed",
    "before the release",
    "the last day of the sprint",
    "the last week of March",
    "this weekend",
    "Friday",
    "in 2000 ms",
    "after 2048 tokens",
    "before 1/2 of the jobs",
    "on February 30",
    "on 2026-02-30",
    "in 2101",
    "in the past 0 days",
    "",
]


def _ids(rows):
    return [f"{r[0].date()}:{r[1]}" for r in rows]


@pytest.mark.parametrize("now,query,start,end,phrase,rest", POSITIVE, ids=_ids(POSITIVE))
def test_parse(now, query, start, end, phrase, rest):
    tf = parse_time_filter(query, now)
    assert tf is not None, query
    assert (tf.start, tf.end, tf.phrase, tf.rest) == (start, end, phrase, rest)
    for bound in (tf.start, tf.end):
        if bound is not None:
            assert bound.tzinfo is not None and bound.utcoffset() == dt.timedelta(0)
    assert tf.phrase in query


@pytest.mark.parametrize("query", NEGATIVE)
@pytest.mark.parametrize("now", [NOV, MAR], ids=["nov", "mar"])
def test_no_time_phrase(query, now):
    assert parse_time_filter(query, now) is None


def test_every_bound_is_utc_tzinfo():
    for now, query, *_ in POSITIVE:
        tf = parse_time_filter(query, now)
        for bound in (tf.start, tf.end):
            assert bound is None or bound.tzinfo is UTC or bound.tzinfo == UTC


def test_naive_now_is_taken_as_utc():
    tf = parse_time_filter("past 24 hours", dt.datetime(2026, 11, 29, 15))
    assert (tf.start, tf.end) == (U(2026, 11, 28, 15), NOV)


def test_non_utc_now_is_converted():
    # 23:30 at UTC-5 on Nov 29 is 04:30 UTC on Nov 30: "yesterday" is the UTC day Nov 29
    now = dt.datetime(2026, 11, 29, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    tf = parse_time_filter("yesterday", now)
    assert (tf.start, tf.end) == (U(2026, 11, 29), U(2026, 11, 30))
    assert tf.start.utcoffset() == dt.timedelta(0)


def test_result_is_frozen():
    tf = parse_time_filter("today", NOV)
    assert isinstance(tf, TimeFilter)
    with pytest.raises(dataclasses.FrozenInstanceError):
        tf.start = None  # type: ignore[misc]


@pytest.mark.parametrize(
    "text",
    [
        "The lease ends in June 2027.",
        "audit scheduled for next Tuesday",
        "standup moved to 9:30am",
        "the audit is on the 14th",
        "renewal every March",
        "due tomorrow",
        "in two weeks",
        "Q3 planning",
        "by the end of the month",
        "I'm organizing a gaming party two weekends later",
        "on 2026-03-14",
        "Export service logs ERR-4412 when the report template is missing.",  # a condition answers when
    ],
)
def test_a_text_that_states_a_time_says_when(text):
    assert timeparse.says_when(text)


@pytest.mark.parametrize(
    "text",
    [
        "The Lisbon office is at Rua Augusta 100, third floor.",
        "Application logs are retained for 30 days, audit logs for one year.",  # a duration, not a when
        "Decided to buy 20 electric vans for city deliveries.",
        "We went to the beach",
    ],
)
def test_a_text_that_states_no_time_does_not(text):
    assert not timeparse.says_when(text)


def test_a_question_asking_when_something_is_or_will_be():
    ahead = ["when is the SOC 2 audit?", "When does the lease end?", "When's the party?", "when will it ship?"]
    assert all(timeparse.asks_when_ahead(q) for q in ahead)
    assert not any(timeparse.asks_when_ahead(q) for q in ["When did Jon go to Paris?", "what is it?", "since when?"])
