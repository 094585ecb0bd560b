"""The controlled vocabulary: packaged data, alias resolution, nearest match, user extension."""

from __future__ import annotations

import json
import zlib

import numpy as np
import pytest

from kgmem.errors import InputError
from kgmem.normalize import snake_case
from kgmem.vocab import DEFAULT_PATH, DEFAULT_THRESHOLD, ENV_VAR, PredicateMatch, Vocabulary


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.default()


@pytest.fixture
def private() -> Vocabulary:
    return Vocabulary.default().copy()


# --------------------------------------------------------------------------- the packaged data


def test_data_file_shape():
    data = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    assert data["version"] == 1
    preds = data["predicates"]
    assert len(preds) >= 60
    for name, entry in preds.items():
        assert name == snake_case(name), name
        assert entry["cardinality"] in ("one", "many"), name
        assert entry["description"], name
        for alias in entry["aliases"] + entry.get("negative_aliases", []):
            assert alias == snake_case(alias), alias


def test_aliases_are_unique_and_never_canonical():
    data = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))["predicates"]
    seen: dict[str, str] = {}
    for name, entry in data.items():
        for alias in entry["aliases"] + entry.get("negative_aliases", []):
            assert alias not in data, f"{alias} is both an alias of {name} and canonical"
            assert alias not in seen, f"{alias} is an alias of {name} and {seen[alias]}"
            seen[alias] = name


def test_default_is_cached(vocab):
    assert Vocabulary.default() is vocab


def test_loaded_vocabulary_matches_file(vocab):
    data = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    assert vocab.to_dict()["predicates"].keys() == data["predicates"].keys()
    assert len(vocab) == len(data["predicates"])
    assert vocab.names() == sorted(data["predicates"])


# --------------------------------------------------------------------------- normalize: exact paths


@pytest.mark.parametrize(
    "raw, name, status",
    [
        ("birth_place", "birth_place", "canonical"),
        ("place_of_birth", "birth_place", "alias"),
        ("was_born_in", "birth_place", "alias"),
        ("born_in", "birth_place", "alias"),
        ("birthplace", "birth_place", "alias"),
        ("Place of Birth", "birth_place", "alias"),
        ("placeOfBirth", "birth_place", "alias"),
        ("was-born-in", "birth_place", "alias"),
        ("phone", "phone_number", "alias"),
        ("telephone", "phone_number", "alias"),
        ("Phone Number", "phone_number", "canonical"),
        ("mobile", "phone_number", "alias"),
        ("favourite_food", "favorite_food", "alias"),
        ("favourite colour", "favorite_color", "alias"),
        ("costs", "price", "alias"),
        ("cost", "price", "alias"),
        ("works_for", "employer", "alias"),
        ("boss", "manager", "alias"),
        ("reports_to", "manager", "alias"),
        ("husband", "spouse", "alias"),
        ("enjoys", "likes", "alias"),
        ("loves", "likes", "alias"),
        ("prefers", "likes", "alias"),
        ("coworker", "works_with", "alias"),
        ("tumour_size", "tumor_size", "alias"),
        ("blood_group", "blood_type", "alias"),
        ("founded_in", "founded_year", "alias"),
        ("is_on_floor", "floor", "alias"),
        ("on_call", "oncall", "alias"),
        ("residence", "lives_in", "alias"),
        ("home_town", "hometown", "alias"),
        ("main_export", "main_export", "canonical"),
        ("shoe_size", "shoe_size", "new"),
        ("Shoe Size", "shoe_size", "new"),
        ("favorite_tv_show", "favorite_tv_show", "new"),
    ],
)
def test_normalize_exact(vocab, raw, name, status):
    match = vocab.normalize(raw)
    assert (match.name, match.status) == (name, status)
    assert match.original == raw
    assert match.similarity is None
    assert match.known == (status != "new")


@pytest.mark.parametrize("raw", ["dislikes", "hates", "does_not_like", "doesn't like", "not fan of", "Dislikes"])
def test_negative_aliases_map_to_likes_negated(vocab, raw):
    match = vocab.normalize(raw)
    assert (match.name, match.status, match.negated) == ("likes", "alias", True)


@pytest.mark.parametrize("raw", ["likes", "enjoys", "phone"])
def test_positive_aliases_are_not_negated(vocab, raw):
    assert vocab.normalize(raw).negated is False


def test_normalize_empty_is_new_and_empty(vocab):
    assert vocab.normalize("!!!") == PredicateMatch("", "new", "!!!")


# --------------------------------------------------------------------------- cardinality


@pytest.mark.parametrize(
    "name, cardinality",
    [
        ("lives_in", "one"),
        ("phone_number", "one"),
        ("manager", "one"),
        ("price", "one"),
        ("tumor_size", "one"),
        ("favorite_food", "one"),
        ("birth_place", "one"),
        ("employer", "one"),
        ("likes", "many"),
        ("works_with", "many"),
        ("allergy", "many"),
        ("knows", "many"),
        ("friend_of", "many"),
        ("member_of", "many"),
        ("medication", "many"),
        ("language", "many"),
        ("phone", "one"),  # aliases resolve
        ("enjoys", "many"),
        ("dislikes", "many"),
        ("Works With", "many"),  # raw spelling is snake_cased
        ("shoe_size", "one"),  # unknown predicates are single-valued
        ("", "one"),
    ],
)
def test_cardinality(vocab, name, cardinality):
    assert vocab.cardinality(name) == cardinality
    assert vocab.is_multi(name) == (cardinality == "many")


def test_contains(vocab):
    assert "birth_place" in vocab
    assert "Birth Place" in vocab
    assert "place_of_birth" not in vocab  # an alias, not a canonical name
    assert 42 not in vocab


# --------------------------------------------------------------------------- extension


def _write(tmp_path, name, predicates, version=2):
    path = tmp_path / name
    path.write_text(json.dumps({"version": version, "predicates": predicates}), encoding="utf-8")
    return path


def test_load_merges_user_file(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    path = _write(
        tmp_path,
        "extra.json",
        {
            "shoe_size": {"aliases": ["shoe", "foot_size"], "cardinality": "one", "description": "EU shoe size"},
            "phone_number": {"aliases": ["digits"]},  # add an alias, keep the rest
            "likes": {"cardinality": "many", "negative_aliases": ["is_sick_of"]},
            "pet": {"cardinality": "one"},  # override cardinality
        },
    )
    vocab = Vocabulary.load(path)
    assert vocab.normalize("foot size") == PredicateMatch("shoe_size", "alias", "foot size")
    assert vocab.normalize("digits").name == "phone_number"
    assert vocab.normalize("telephone").name == "phone_number"  # default aliases survive
    assert vocab.normalize("is_sick_of").negated
    assert vocab.cardinality("pet") == "one"
    assert vocab.spec("shoe_size").description == "EU shoe size"
    assert vocab.version == 2
    # the shared default is untouched
    assert Vocabulary.default().normalize("foot_size").status == "new"
    assert Vocabulary.default().cardinality("pet") == "many"


def test_load_reads_env_var_then_path(tmp_path, monkeypatch):
    env_file = _write(tmp_path, "env.json", {"shoe_size": {"cardinality": "one", "aliases": ["shoe"]}})
    arg_file = _write(tmp_path, "arg.json", {"shoe_size": {"cardinality": "many"}})
    monkeypatch.setenv(ENV_VAR, str(env_file))
    assert Vocabulary.load().normalize("shoe").name == "shoe_size"
    assert Vocabulary.load().cardinality("shoe_size") == "one"
    assert Vocabulary.load(arg_file).cardinality("shoe_size") == "many"  # explicit file wins


def test_load_without_extension_equals_default(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    loaded = Vocabulary.load()
    assert loaded is not Vocabulary.default()
    assert loaded.to_dict() == Vocabulary.default().to_dict()


def test_alias_reassigned_by_later_entry(private):
    private.add("mobile_number", aliases=["mobile", "cell"], cardinality="one")
    assert private.normalize("mobile").name == "mobile_number"
    assert private.normalize("telephone").name == "phone_number"
    assert "mobile" not in private.spec("phone_number").aliases


def test_alias_promoted_to_canonical(private):
    private.add("boss", cardinality="one")
    assert private.normalize("boss").status == "canonical"
    assert "boss" not in private.spec("manager").aliases


def test_alias_equal_to_a_canonical_name_is_ignored(private):
    private.add("my_thing", aliases=["price", "gizmo"])
    assert private.normalize("price").status == "canonical"
    assert private.normalize("gizmo").name == "my_thing"


def test_add_returns_spec_and_extends(private):
    spec = private.add("Favorite Season", aliases=["fav season"], cardinality="one", description="season")
    assert spec.name == "favorite_season"
    assert private.normalize("fav_season").name == "favorite_season"
    spec = private.add("favorite_season", aliases=["season_i_like"])
    assert set(spec.aliases) == {"fav_season", "season_i_like"}
    assert spec.description == "season"


def test_copy_is_independent(private):
    other = private.copy()
    other.add("zz_new", cardinality="many")
    assert "zz_new" in other and "zz_new" not in private


def test_to_dict_round_trip(tmp_path, vocab):
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(vocab.to_dict()), encoding="utf-8")
    assert Vocabulary.from_file(path).to_dict() == vocab.to_dict()


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"predicates": {"x": {"cardinality": "some"}}}', "cardinality"),
        ('{"predicates": {"x": {"aliases": "y"}}}', "aliases"),
        ('{"predicates": {"x": 3}}', "entry"),
        ('{"predicates": []}', "predicates"),
        ('{"nope": 1}', "predicates"),
        ("[1, 2]", "predicates"),
        ("{not json", "not valid JSON"),
        ('{"predicates": {"!!": {}}}', "empty"),
    ],
)
def test_bad_extension_files(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        Vocabulary.load(path)


def test_missing_extension_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        Vocabulary.load(tmp_path / "missing.json")


# --------------------------------------------------------------------------- nearest match (stub embedder)


class BagOfWords:
    """Deterministic stand-in embedder: hashed bag of words, unit vectors; counts calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.texts: list[str] = []

    def __call__(self, texts):
        self.calls += 1
        self.texts.extend(texts)
        out = np.zeros((len(texts), 256), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.split():
                out[i, zlib.crc32(word.encode()) % 256] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


@pytest.fixture
def tiny() -> Vocabulary:
    vocab = Vocabulary(threshold=0.8)
    vocab.add("phone_number", aliases=["telephone"], cardinality="one")
    vocab.add("favorite_food", cardinality="one")
    vocab.add("likes", cardinality="many", negative_aliases=["dislikes"])
    return vocab


def test_nearest_with_stub(tiny):
    embed = BagOfWords()
    match = tiny.normalize("number phone", embed)  # same words, other order: cosine 1
    assert (match.name, match.status) == ("phone_number", "nearest")
    assert match.similarity == pytest.approx(1.0)
    assert match.original == "number phone"


def test_nearest_below_threshold_is_new_with_score(tiny):
    match = tiny.normalize("shoe_size", BagOfWords())
    assert (match.name, match.status) == ("shoe_size", "new")
    assert match.similarity is not None and match.similarity < tiny.threshold


def test_nearest_threshold_is_configurable(tiny):
    # "phone number extension" shares 2 of 3 words with "phone number": cosine 2/sqrt(6) ≈ 0.816
    assert tiny.normalize("phone_number_extension", BagOfWords()).status == "nearest"
    tiny.threshold = 0.9
    tiny.add("zz", cardinality="one")  # clears memoised matches
    assert tiny.normalize("phone_number_extension", BagOfWords()).status == "new"


def test_nearest_negative_alias_keeps_negation(tiny):
    match = tiny.normalize("Dislikes!", BagOfWords())
    assert match.status == "alias" and match.negated
    match = tiny.normalize("dislikes dislikes", BagOfWords())  # nearest to the negative alias row
    assert (match.name, match.status, match.negated) == ("likes", "nearest", True)


@pytest.mark.parametrize("raw", ["least_favorite_food", "former_phone_number", "not_favorite_food"])
def test_qualifier_blocks_nearest(tiny, raw):
    assert tiny.normalize(raw, BagOfWords()).status == "new"


def test_exact_matches_never_call_the_embedder(tiny):
    embed = BagOfWords()
    tiny.normalize("telephone", embed)
    tiny.normalize("likes", embed)
    assert embed.calls == 0


def test_normalize_many_batches_queries(tiny):
    embed = BagOfWords()
    matches = tiny.normalize_many(["number phone", "food favorite", "telephone", "shoe size", "number phone"], embed)
    assert [m.status for m in matches] == ["nearest", "nearest", "alias", "new", "nearest"]
    assert embed.calls == 2  # phrase index + one batch of the three distinct unknown predicates


def test_phrase_embeddings_are_cached(tiny):
    embed = BagOfWords()
    tiny.normalize("number phone", embed)
    first = embed.calls  # one batch for the phrase index, one for the query
    tiny.normalize("food favorite", embed)
    tiny.normalize("number phone", embed)  # memoised
    assert first == 2
    assert embed.calls == 3
    assert "phone number" in embed.texts and "telephone" in embed.texts


def test_add_invalidates_phrase_cache(tiny):
    embed = BagOfWords()
    assert tiny.normalize("shoe_size", embed).status == "new"
    tiny.add("shoe_size_eu", cardinality="one")
    assert tiny.normalize("eu shoe size", embed).name == "shoe_size_eu"


# --------------------------------------------------------------------------- calibration (real model)

# Labelled predicates that are NOT in the vocabulary (neither names nor aliases). With all-MiniLM-L6-v2
# the true paraphrases score 0.80–0.96 and the closest wrong candidates 0.67–0.79, so the default
# threshold sits at 0.80. Scores at the time of calibration are given for reference.
SHOULD_MAP = [
    ("mobile_phone_number", "phone_number"),  # 0.955
    ("cell_phone_number", "phone_number"),  # 0.824
    ("contact_phone", "phone_number"),  # 0.851
    ("place_of_residence_city", "lives_in"),  # 0.950
    ("current_residence", "lives_in"),  # 0.845
    ("living_place", "lives_in"),  # 0.837
    ("hometown_city", "hometown"),  # 0.896
    ("birth_town", "birth_place"),  # 0.863
    ("born_at", "birth_place"),  # 0.809
    ("date_born", "birthday"),  # 0.841
    ("favorite_foods", "favorite_food"),  # 0.957
    ("favourite_dish_to_eat", "favorite_food"),  # 0.925
    ("favourite_beverages", "favorite_drink"),  # 0.956
    ("employer_company", "employer"),  # 0.900
    ("works_at_company", "employer"),  # 0.921
    ("company_name", "employer"),  # 0.808
    ("boss_name", "manager"),  # 0.804
    ("direct_supervisor", "manager"),  # 0.837
    ("married_with", "spouse"),  # 0.924
    ("food_allergy", "allergy"),  # 0.804
    ("allergic", "allergy"),  # 0.966
    ("medications_taken", "medication"),  # 0.887
    ("tumour_diameter", "tumor_size"),  # 0.949
    ("tumor_dimension", "tumor_size"),  # 0.808
    ("year_of_founding", "founded_year"),  # 0.963
    ("deployed_release", "deployed_version"),  # 0.842
    ("who_is_oncall", "oncall"),  # 0.851
    ("coworkers_with", "works_with"),  # 0.913
    ("is_a_fan_of", "likes"),  # 0.963
    ("main_exports", "main_export"),  # 0.886
]
SHOULD_NOT_MAP = [
    "postal_code",  # address 0.793 — the closest miss
    "least_favorite_food",  # favorite_food 0.784 (also stopped by the qualifier guard)
    "favorite_restaurant",  # favorite_food 0.762
    "eye_color",  # color 0.759
    "favorite_city",  # lives_in 0.751
    "shirt_size",  # size 0.748
    "shoe_size",  # size 0.718
    "hair_color",  # color 0.700
    "favorite_game",  # favorite_sport 0.686
    "favorite_tv_show",  # favorite_movie 0.668
    "employee_id",  # employer 0.672
    "graduation_year",  # education 0.669
    "death_place",  # location 0.643
    "favorite_animal",  # favorite_food 0.629
    "death_date",  # birthday 0.597
    "passport_number",  # phone_number 0.516
    "fax_number",  # phone_number 0.466
    "wedding_anniversary",  # spouse 0.441
    "heart_rate",  # blood_pressure 0.420
    "credit_score",
]


@pytest.fixture(scope="module")
def embed():
    from kgmem.embed import get_embedder

    return get_embedder().encode


def test_calibration_threshold(vocab, embed):
    assert vocab.threshold == DEFAULT_THRESHOLD == 0.80
    labelled = [*SHOULD_MAP, *((raw, None) for raw in SHOULD_NOT_MAP)]
    for raw, _ in labelled:
        assert vocab.normalize(raw).status == "new", f"{raw} must be held out of the vocabulary"
    matches = vocab.normalize_many([raw for raw, _ in labelled], embed)
    wrong = [
        (raw, expected, match)
        for (raw, expected), match in zip(labelled, matches)
        if (match.name, match.status) != ((expected, "nearest") if expected else (raw, "new"))
    ]
    assert not wrong, wrong
    # the margin: every mapped paraphrase scores above every rejected one
    assert min(m.similarity for m in matches[: len(SHOULD_MAP)]) > max(m.similarity for m in matches[len(SHOULD_MAP) :])


def test_single_normalize_agrees_with_batch(vocab, embed):
    assert vocab.normalize("boss_name", embed) == vocab.normalize_many(["boss_name"], embed)[0]
    assert vocab.normalize("Mobile Phone Number", embed).name == "phone_number"
    assert vocab.normalize("Mobile Phone Number", embed).original == "Mobile Phone Number"
    assert vocab.normalize("telephone", embed).status == "alias"  # exact matches still win


def test_favorite_movie_never_becomes_favorite_food(vocab, embed):
    assert vocab.normalize("favorite_movie", embed).name == "favorite_movie"
    without_movies = Vocabulary([vocab.spec(n) for n in vocab.names() if n != "favorite_movie"])
    for raw in ("favorite_movie", "favourite_film", "favorite_films"):
        match = without_movies.normalize(raw, embed)
        assert match.status == "new" and match.name == snake_case(raw), match
