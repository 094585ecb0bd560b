"""Pure parts of issue 16 (no database): the linear tokenisers agree with the old regexes and stay fast, records
refuse NUL, lone surrogates and keys that normalise to nothing, JSONL lines are decoded one by one."""

from __future__ import annotations

import datetime as dt
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgmem.errors import InputError
from kgmem.ingest.records import parse_record, read_jsonl
from kgmem.normalize import snake_case
from kgmem.query.abstain import _IDENT, identifier_tokens
from kgmem.query.timeparse import is_time_token
from kgmem.store import cypher
from kgmem.validate import check_slot_query, check_string, optional_time

_OLD_CAMEL = re.compile(r"([A-Z]+)([A-Z][a-z])")


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from("aZ19_-. xAé٣Bcthpm"), max_size=30))
def test_identifier_tokens_equal_the_regex(text):
    # the regex's tokens, less those that name a time on their own ("8th", "3pm": not codes)
    expected = {m.group(0).lower() for m in _IDENT.finditer(text) if not is_time_token(m.group(0))}
    assert identifier_tokens(text) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from("ABab1 _"), max_size=20))
def test_camel_boundary_equals_the_old_regex(text):
    assert _OLD_CAMEL.sub(r"\1_\2", text) == re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "_", text)


@pytest.mark.parametrize("text", ["A" * 100_000, "a" * 100_000, "Ab" * 50_000, "x1-" * 30_000])
def test_tokenisers_are_linear(text):
    t0 = time.perf_counter()
    identifier_tokens(text)
    snake_case(text)
    assert time.perf_counter() - t0 < 2


@pytest.mark.parametrize(
    "field",
    [
        "text",
        "id",
        "subject",
        "predicate",
        "object",
        "stream",
        "source",
        "user",
        "entities",
        "caused_by",
        "at",
        "retention",
        "tenant",
    ],
)
@pytest.mark.parametrize("bad", ["a\x00b", "x\ud800y", "\udfff"])
def test_nul_and_lone_surrogates_are_refused_naming_the_field(field, bad):
    rec = {"text": "t", "subject": "kim", "predicate": "likes", "object": "tea"}
    rec[field] = [bad] if field in ("entities", "caused_by") else bad
    with pytest.raises(InputError) as e:
        parse_record(rec, tenant="t")
    assert e.value.field == field


@pytest.mark.parametrize(
    "field,value",
    [("subject", "🎉🎉"), ("subject", "!!!"), ("predicate", "???"), ("predicate", "🙂"), ("object", "\u200b")],
)
def test_keys_that_normalise_to_nothing_are_refused(field, value):
    rec = {"text": "t", "subject": "kim", "predicate": "likes", "object": "tea", field: value}
    with pytest.raises(InputError) as e:
        parse_record(rec, tenant="t")
    assert e.value.field == field
    with pytest.raises(InputError) as e:
        check_slot_query(rec["subject"], rec["predicate"], rec["object"])
    assert e.value.field == field


def test_query_strings_are_capped_and_checked():
    check_string("x" * 4096, field="query", max_len=4096)
    for bad in ("x" * 4097, "a\x00", "\ud800", "", 5):
        with pytest.raises(InputError) as e:
            check_string(bad, field="query", max_len=4096)
        assert e.value.field == "query"


def test_jsonl_bytes_are_decoded_per_line():
    lines = [
        b"\xef\xbb\xbf" + b'{"text": "bom"}\r\n',
        b'{"text": "caf\xe9"}\n',
        b"\n",
        b'{"text": "ok"}\n',
        b'{"text": "a", "text": "b"}\n',
        b"[" * 50_000 + b"\n",
    ]
    out = dict(read_jsonl(lines))
    assert out[1] == {"text": "bom"} and out[4] == {"text": "ok"} and 3 not in out
    assert isinstance(out[2], InputError) and "UTF-8" in str(out[2])
    assert isinstance(out[5], InputError) and out[5].field == "text"
    assert isinstance(out[6], InputError)


def test_a_time_without_offset_is_utc():
    rec = parse_record({"text": "t", "at": "2026-03-02T10:00:00"}, tenant="t")
    assert rec.at.utcoffset().total_seconds() == 0 and rec.at.hour == 10


@pytest.mark.parametrize("name", ["../README", "/etc/passwd", "why/../../README", "..", "a\\b", "why/roots\x00"])
def test_cypher_names_cannot_leave_cypher(name):
    with pytest.raises(KeyError):
        cypher.load(name)


# times whose UTC instant leaves years 1..9999: datetime's astimezone overflowed on them (issue 46)
_OUT_OF_RANGE = ["9999-12-31T23:00:00-05:00", "0001-01-01T00:30:00+01:00", "0001-01-01T00:00:00+00:01"]


@pytest.mark.parametrize("at", _OUT_OF_RANGE)
def test_a_time_outside_years_1_to_9999_is_a_field_error(at):
    with pytest.raises(InputError) as e:
        parse_record({"text": "t", "at": at}, tenant="t", line=7)
    assert e.value.field == "at" and e.value.line == 7 and e.value.fix and "9999" in e.value.fix
    with pytest.raises(InputError) as e:
        optional_time(at, "since")
    assert e.value.field == "since" and e.value.fix
    aware = dt.datetime.fromisoformat(at)  # the same instant handed to the API as a datetime
    with pytest.raises(InputError):
        optional_time(aware, "at")


@pytest.mark.parametrize("at", ["9999-12-31T23:59:59.999999Z", "0001-01-01T00:00:00Z", "9999-12-31T18:00:00-05:00"])
def test_the_edges_of_years_1_to_9999_are_kept(at):
    assert parse_record({"text": "t", "at": at}, tenant="t").at == dt.datetime.fromisoformat(at.replace("Z", "+00:00"))


def test_a_ttl_longer_than_a_timedelta_is_a_field_error_and_a_long_one_expires_nothing():
    from kgmem.derived.retention import _before, parse_duration

    for bad in ("99999999999d", 10**12, "9" * 400 + "d"):
        with pytest.raises(InputError) as e:
            parse_duration(bad)
        assert e.value.field == "ttl" and e.value.fix
    year_one = dt.datetime(1, 1, 2, tzinfo=dt.timezone.utc)
    assert _before(year_one, dt.timedelta(days=30)) == dt.datetime.min.replace(tzinfo=dt.timezone.utc)
