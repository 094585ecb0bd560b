"""Text normalisation: display forms keep the user's text tidy, keys make equal things compare equal."""

from __future__ import annotations

import unicodedata

import pytest

from kgmem.normalize import (
    clean_text,
    entity_key,
    nfc,
    normalize_object,
    normalize_subject,
    object_key,
    snake_case,
    strip_articles,
)


def test_nfc_composes():
    decomposed = "Zu\u0308rich"
    assert nfc(decomposed) == "Zürich"
    assert unicodedata.is_normalized("NFC", nfc(decomposed))


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("  hello   world  ", "hello world"),
        ("line\none\ttwo", "line one two"),
        ("zero\u200bwidth", "zerowidth"),
        ("soft\u00adhyphen", "softhyphen"),
        ("\u00a0non-breaking\u00a0space ", "non-breaking space"),
        ("Zu\u0308rich", "Zürich"),
        ("", ""),
    ],
)
def test_clean_text(raw, expected):
    assert clean_text(raw) == expected


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("Place of Birth", "place_of_birth"),
        ("place of birth", "place_of_birth"),
        ("placeOfBirth", "place_of_birth"),
        ("PlaceOfBirth", "place_of_birth"),
        ("place-of-birth", "place_of_birth"),
        ("place__of__birth", "place_of_birth"),
        ("  phone number  ", "phone_number"),
        ("Phone #", "phone"),
        ("HTTPStatusCode", "http_status_code"),
        ("e-mail", "e_mail"),
        ("user's phone", "users_phone"),
        ("user\u2019s phone", "users_phone"),
        ("__x__", "x"),
        ("tumor size (cm)", "tumor_size_cm"),
        ("!!!", ""),
        ("hindi_\u0939\u093f\u0928\u094d\u0926\u0940", "hindi_\u0939\u093f\u0928\u094d\u0926\u0940"),
        ("Größe", "größe"),
    ],
)
def test_snake_case(raw, expected):
    assert snake_case(raw) == expected


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("The Acme Corp.", "acme corp"),
        ("acme corp", "acme corp"),
        ("ACME  Corp", "acme corp"),
        ("a cat", "cat"),
        ("An Apple", "apple"),
        ("The", "the"),  # an article alone is kept rather than emptied
        ("Zürich", "zurich"),
        ("Zu\u0308rich", "zurich"),
        ("São Paulo", "sao paulo"),
        ("Москва", "москва"),  # non-Latin letters are not stripped
        ("\u0939\u093f\u0928\u094d\u0926\u0940", "\u0939\u093f\u0928\u094d\u0926\u0940"),  # Devanagari marks kept
        ("db-primary-02", "db-primary-02"),
        ("ERR-4411", "err-4411"),
        ("v2.3.1.", "v2.3.1"),
        ("O\u2019Brien", "o'brien"),
        ("AT&T", "at&t"),
        ("C++", "c++"),
        ("C#", "c#"),
        ("@alice", "@alice"),
        ("#ops-team", "#ops-team"),
        ("Hello, World!", "hello world"),
        ("(Acme)", "acme"),
        ("U.S.A.", "u.s.a"),
        ("Straße", "strasse"),  # casefold
        ("long\u2014dash", "long-dash"),
        ("", ""),
    ],
)
def test_entity_key(raw, expected):
    assert entity_key(raw) == expected


@pytest.mark.parametrize("raw", ["The Acme Corp.", "Zürich", "O'Brien", "v2.3.1", "@alice", "user's car", "C++"])
def test_entity_key_is_idempotent(raw):
    assert entity_key(entity_key(raw)) == entity_key(raw)


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("I", "user"),
        ("i", "user"),
        ("me", "user"),
        ("Me.", "user"),
        ("my", "user"),
        ("myself", "user"),
        ("mine", "user"),
        ("user", "user"),
        ("The Acme Corp.", "acme corp"),
        ("Alice", "alice"),
        ("Dr. Sarah Chen", "dr sarah chen"),
        ("Iris", "iris"),  # starts with "I" but is not first person
        ("Mine Safety Co", "mine safety co"),
    ],
)
def test_normalize_subject(raw, expected):
    assert normalize_subject(raw) == expected


def test_normalize_subject_custom_default_user_is_keyed():
    assert normalize_subject("I", default_user="Alice Smith") == "alice smith"
    assert normalize_subject("Bob", default_user="Alice Smith") == "bob"


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("  Diet Coke.  ", "Diet Coke"),
        ("Berlin!", "Berlin"),
        ("555-2222.", "555-2222"),
        ('"Diet Coke"', "Diet Coke"),
        ("\u201cDiet Coke\u201d", "Diet Coke"),
        ("'quoted'.", "quoted"),
        ("(none)", "none"),
        ("'a' and 'b'", "'a' and 'b'"),  # inner quotes: not a wrapping pair
        ("(555) 123-4567", "(555) 123-4567"),
        ("$40", "$40"),
        ("A+", "A+"),
        ("Acme   Inc.", "Acme Inc"),
        ("wait...", "wait"),
        ("Zu\u0308rich", "Zürich"),
    ],
)
def test_normalize_object_keeps_casing(raw, expected):
    assert normalize_object(raw) == expected


@pytest.mark.parametrize(
    "a, b",
    [
        ("Diet Coke", "diet coke"),
        ("Diet Coke.", "diet  coke"),
        ("the Beatles", "Beatles"),
        ("555\u20132222", "555-2222"),
        ("O\u2019Brien", "O'Brien"),
        ('"steak"', "Steak"),
    ],
)
def test_object_key_equal(a, b):
    assert object_key(a) == object_key(b)


@pytest.mark.parametrize(
    "a, b",
    [
        ("$40", "€40"),  # symbols are kept: different values
        ("A+", "A-"),
        ("diet coke", "coke"),
        ("A", "B"),
    ],
)
def test_object_key_different(a, b):
    assert object_key(a) != object_key(b)


def test_object_key_keeps_single_article_value():
    assert object_key("A") == "a"  # blood type "A" is not an article to drop
    assert object_key("a cat") == "cat"


@pytest.mark.parametrize(
    "raw, expected",
    [("the cat", "cat"), ("The Hague", "Hague"), ("a", "a"), ("another day", "another day"), ("an", "an")],
)
def test_strip_articles(raw, expected):
    assert strip_articles(raw) == expected


def test_strip_articles_can_empty_when_asked():
    assert strip_articles("the", keep_single=False) == ""
