"""The controlled vocabulary of predicates: canonical names, aliases and cardinality.

Schema drift — the same attribute stored as ``birth_place``, ``was_born_in`` and ``place_of_birth`` — makes
exact lookups miss facts that are stored (Knowledge Objects paper, §"Schema Drift"). Every predicate is
therefore mapped to one canonical name before it is stored or queried:

1. snake_case the raw text (``"Place of Birth"`` → ``place_of_birth``);
2. a canonical name matches as is (status ``canonical``);
3. an alias maps to its canonical name (status ``alias``);
4. otherwise, when an embedding function is given, the predicate phrase is compared with every canonical
   name and alias; the best match at cosine ≥ ``threshold`` wins (status ``nearest``) unless the raw
   predicate carries a qualifier that flips or shifts its meaning (``least``, ``former``, ``ex``...) which
   the matched phrase lacks;
5. anything else is kept under its snake_cased name (status ``new``; after an embedding comparison its
   ``similarity`` is the best score that was not good enough).

Phrase embeddings are computed once per embedding function and process, and shared by every vocabulary
instance (copies, user extensions); :meth:`Vocabulary.normalize_many` embeds a batch of unknown
predicates in one call. The first nearest match pays for embedding all ~600 phrases (a few seconds on CPU).

Cardinality decides the slot (interface §1): ``one`` → one current value per (subject, predicate);
``many`` → one slot per (subject, predicate, object). Unknown predicates are single-valued.

Negation: a dislike is a like with ``polarity=false`` — "I don't like X" is (user, likes, X, false). A
predicate may therefore list ``negative_aliases`` (``dislikes``, ``hates``...): they map to the canonical
name with :attr:`PredicateMatch.negated` set, and the caller flips the fact's polarity.

The default vocabulary ships as ``kgmem/data/vocabulary.json``. Users extend it with a JSON file of the
same shape, passed to :meth:`Vocabulary.load` or named by ``KGMEM_VOCABULARY``; entries there add
predicates, add aliases, or override cardinality/description of existing ones.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from kgmem.errors import InputError
from kgmem.normalize import snake_case

if TYPE_CHECKING:  # numpy is imported where vectors are compared, not by every command that loads the vocabulary
    import numpy as np

__all__ = [
    "Cardinality",
    "DEFAULT_PATH",
    "DEFAULT_THRESHOLD",
    "ENV_VAR",
    "EmbedFn",
    "MatchStatus",
    "PredicateMatch",
    "PredicateSpec",
    "Vocabulary",
]

Cardinality = Literal["one", "many"]
MatchStatus = Literal["canonical", "alias", "nearest", "new"]
EmbedFn = Callable[[Sequence[str]], "np.ndarray"]

DEFAULT_PATH = Path(__file__).resolve().parent / "data" / "vocabulary.json"
ENV_VAR = "KGMEM_VOCABULARY"
# Calibrated with all-MiniLM-L6-v2 on a labelled list (tests/unit/test_vocab.py): true paraphrases that are
# not aliases score ≥ 0.80 (boss_name→manager 0.804, food_allergy→allergy 0.804); the closest wrong
# candidates score below (postal_code→address 0.793, least_favorite_food→favorite_food 0.784 — the
# latter is also stopped by the qualifier guard, shoe_size→size 0.72, favorite_tv_show→favorite_movie 0.67).
DEFAULT_THRESHOLD = 0.80
_CARDINALITIES = ("one", "many")
# Words that change what an attribute means; a nearest match must not ignore them.
_QUALIFIERS = frozenset(
    {
        "least",
        "not",
        "non",
        "no",
        "ex",
        "former",
        "previous",
        "old",
        "past",
        "next",
        "future",
        "second",
        "other",
        "anti",
        "un",
        "dis",
        "without",
        "max",
        "min",
        "maximum",
        "minimum",
        "target",
        "expected",
    }
)


@dataclass(frozen=True)
class PredicateMatch:
    """How a raw predicate maps onto the vocabulary.

    ``name`` is what to store; ``similarity`` is the cosine of a ``nearest`` match (``None`` otherwise);
    ``negated`` means the raw predicate was a negative alias ("dislikes") and the fact's polarity flips.
    """

    name: str
    status: MatchStatus
    original: str
    similarity: float | None = None
    negated: bool = False

    @property
    def known(self) -> bool:
        return self.status != "new"


@dataclass(frozen=True)
class PredicateSpec:
    """One canonical predicate."""

    name: str
    cardinality: Cardinality
    aliases: tuple[str, ...] = ()
    negative_aliases: tuple[str, ...] = ()
    description: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "aliases": list(self.aliases),
            "cardinality": self.cardinality,
            "description": self.description,
        }
        if self.negative_aliases:
            out["negative_aliases"] = list(self.negative_aliases)
        return out


@dataclass(frozen=True)
class _PhraseIndex:
    """Embeddings of every canonical name and alias phrase, for nearest matching."""

    names: tuple[str, ...]  # canonical name of each row
    phrases: tuple[str, ...]  # the phrase that was embedded
    negated: tuple[bool, ...]  # row came from a negative alias
    matrix: np.ndarray  # (rows, dim) unit vectors


def _phrase(name: str) -> str:
    return name.replace("_", " ")


def _check_name(raw: str, what: str) -> str:
    name = snake_case(raw)
    if not name:
        raise InputError(
            f"empty {what} in vocabulary: {raw!r}", field="vocabulary", fix=f"give the {what} letters or digits"
        )
    return name


def _check_cardinality(value: Any, name: str) -> Cardinality:
    if value not in _CARDINALITIES:
        raise InputError(
            f"predicate {name!r}: cardinality must be 'one' or 'many', not {value!r}",
            field="vocabulary",
            fix='write "cardinality": "one" (a new value replaces the old) or "many"',
        )
    return cast(Cardinality, value)


class Vocabulary:
    """A mutable set of :class:`PredicateSpec` with alias resolution and embedding-based nearest match.

    Thread-safe for concurrent :meth:`normalize` calls. :meth:`default` returns one shared instance:
    calling :meth:`add` on it changes it for the whole process — use :meth:`copy` for a private one.
    """

    _default: Vocabulary | None = None
    _default_lock = threading.Lock()

    def __init__(self, specs: Iterable[PredicateSpec] = (), *, threshold: float = DEFAULT_THRESHOLD, version: int = 1):
        self.threshold = threshold
        self.version = version
        self._specs: dict[str, PredicateSpec] = {}
        self._lookup: dict[str, tuple[str, bool]] = {}  # alias -> (canonical, negated)
        self._lock = threading.RLock()
        self._index: dict[Any, _PhraseIndex] = {}
        self._memo: dict[tuple[Any, str], PredicateMatch] = {}
        for spec in specs:
            self._put(spec)

    # ---------------------------------------------------------------- construction

    @classmethod
    def default(cls) -> Vocabulary:
        """The packaged vocabulary (loaded once per process)."""
        if cls._default is None:
            with cls._default_lock:
                if cls._default is None:
                    cls._default = cls.from_file(DEFAULT_PATH)
        return cls._default

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, threshold: float = DEFAULT_THRESHOLD) -> Vocabulary:
        """A vocabulary made only from ``path`` (no default underneath)."""
        vocab = cls(threshold=threshold)
        vocab.merge(_read_json(Path(path)))
        return vocab

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None, *, threshold: float = DEFAULT_THRESHOLD) -> Vocabulary:
        """The default vocabulary extended by ``$KGMEM_VOCABULARY`` (if set), then by ``path`` (if given).

        Returns a new instance; the shared :meth:`default` is not modified.
        """
        vocab = cls.default().copy()
        vocab.threshold = threshold
        env_path = os.environ.get(ENV_VAR)
        for extra in (env_path, path):
            if extra:
                vocab.merge(_read_json(Path(extra).expanduser()))
        return vocab

    def copy(self) -> Vocabulary:
        with self._lock:  # the specs are consistent already: copy them as they are (no re-insertion, O(n))
            out = Vocabulary(threshold=self.threshold, version=self.version)
            out._specs = dict(self._specs)
            out._lookup = dict(self._lookup)
            return out

    def merge(self, data: Mapping[str, Any]) -> None:
        """Apply a vocabulary document (``{"version": 1, "predicates": {...}}``) over this one."""
        predicates = data.get("predicates") if isinstance(data, Mapping) else None
        if not isinstance(predicates, Mapping):
            raise InputError(
                "vocabulary must be an object with a 'predicates' object",
                field="vocabulary",
                fix='write {"version": 1, "predicates": {"name": {...}}} (' + "see kgmem/data/vocabulary.json)",
            )
        self.version = int(data.get("version", self.version))
        with self._lock:
            try:
                for raw_name, entry in predicates.items():
                    if not isinstance(entry, Mapping):
                        raise InputError(
                            f"predicate {raw_name!r}: entry must be an object",
                            field="vocabulary",
                            fix='write "name": {"aliases": [...], "cardinality": "one"}',
                        )
                    self._merge_entry(raw_name, entry, relookup=False)
            finally:
                self._rebuild_lookup()  # once per document, not once per entry

    def _merge_entry(self, raw_name: str, entry: Mapping[str, Any], *, relookup: bool = True) -> None:
        name = _check_name(raw_name, "predicate name")
        old = self._specs.get(name)
        cardinality = entry.get("cardinality", old.cardinality if old else "one")
        aliases = _name_list(entry.get("aliases", ()), name)
        negative = _name_list(entry.get("negative_aliases", ()), name)
        self._put(
            PredicateSpec(
                name=name,
                cardinality=_check_cardinality(cardinality, name),
                aliases=tuple(dict.fromkeys((old.aliases if old else ()) + aliases)),
                negative_aliases=tuple(dict.fromkeys((old.negative_aliases if old else ()) + negative)),
                description=str(entry.get("description", old.description if old else "")),
            ),
            relookup=relookup,
        )

    def add(
        self,
        name: str,
        aliases: Iterable[str] = (),
        cardinality: Cardinality = "one",
        *,
        negative_aliases: Iterable[str] = (),
        description: str = "",
    ) -> PredicateSpec:
        """Add a predicate (or extend an existing one) at runtime; returns the resulting spec."""
        entry: dict[str, Any] = {
            "aliases": list(aliases),
            "cardinality": cardinality,
            "negative_aliases": list(negative_aliases),
        }
        if description:
            entry["description"] = description
        self._merge_entry(name, entry)
        return self._specs[snake_case(name)]

    def _put(self, spec: PredicateSpec, *, relookup: bool = True) -> None:
        """Insert or replace ``spec``; later entries win alias conflicts and promote aliases to names."""
        with self._lock:
            for other in list(self._specs.values()):
                if other.name != spec.name and (spec.name in other.aliases or spec.name in other.negative_aliases):
                    self._specs[other.name] = _without_alias(other, spec.name)
            taken = set(spec.aliases) | set(spec.negative_aliases)
            for other in list(self._specs.values()):
                if other.name != spec.name and taken & (set(other.aliases) | set(other.negative_aliases)):
                    self._specs[other.name] = _without_alias(other, *taken)
            clean_aliases = tuple(a for a in spec.aliases if a != spec.name and a not in self._specs)
            clean_negative = tuple(a for a in spec.negative_aliases if a != spec.name and a not in self._specs)
            self._specs[spec.name] = PredicateSpec(
                spec.name, spec.cardinality, clean_aliases, clean_negative, spec.description
            )
            if relookup:
                self._rebuild_lookup()

    def _rebuild_lookup(self) -> None:
        lookup: dict[str, tuple[str, bool]] = {}
        for spec in self._specs.values():
            lookup.update({alias: (spec.name, False) for alias in spec.aliases})
            lookup.update({alias: (spec.name, True) for alias in spec.negative_aliases})
        self._lookup = lookup
        self._index.clear()
        self._memo.clear()

    # ---------------------------------------------------------------- queries

    def names(self) -> list[str]:
        """Canonical predicate names, sorted."""
        return sorted(self._specs)

    def spec(self, name: str) -> PredicateSpec | None:
        return self._specs.get(snake_case(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and snake_case(name) in self._specs

    def __len__(self) -> int:
        return len(self._specs)

    def cardinality(self, name: str) -> Cardinality:
        """``one`` or ``many`` for a canonical name or alias; unknown predicates are single-valued."""
        key = snake_case(name)
        spec = self._specs.get(key) or self._specs.get(self._lookup.get(key, ("", False))[0])
        return spec.cardinality if spec else "one"

    def is_multi(self, name: str) -> bool:
        return self.cardinality(name) == "many"

    def to_dict(self) -> dict[str, Any]:
        """The vocabulary document (same shape as ``vocabulary.json``)."""
        return {
            "version": self.version,
            "predicates": {name: self._specs[name].to_dict() for name in sorted(self._specs)},
        }

    # ---------------------------------------------------------------- normalisation

    def normalize(self, predicate: str, embed: EmbedFn | None = None) -> PredicateMatch:
        """Map a raw predicate to its canonical name (see the module docstring for the steps)."""
        key = snake_case(predicate)
        if key in self._specs:
            return PredicateMatch(key, "canonical", predicate)
        if key in self._lookup:
            name, negated = self._lookup[key]
            return PredicateMatch(name, "alias", predicate, negated=negated)
        if embed is None or not key:
            return PredicateMatch(key, "new", predicate)
        hit = self._memo.get((embed, key))
        if hit is None:
            hit = self._nearest(key, embed)
            self._memoise(embed, key, hit)
        return PredicateMatch(hit.name, hit.status, predicate, hit.similarity, hit.negated)

    def normalize_many(self, predicates: Sequence[str], embed: EmbedFn | None = None) -> list[PredicateMatch]:
        """:meth:`normalize` for many predicates, embedding all the unknown ones in one batch."""
        keys = [snake_case(p) for p in predicates]
        if embed is not None:
            pending = sorted(
                {
                    k
                    for k in keys
                    if k and k not in self._specs and k not in self._lookup and (embed, k) not in self._memo
                }
            )
            if pending:
                vectors = _embed_phrases(embed, [_phrase(k) for k in pending])
                for key, vector in zip(pending, vectors):
                    self._memoise(embed, key, self._best_match(key, vector, embed))
        return [self.normalize(p, embed) for p in predicates]

    def _nearest(self, key: str, embed: EmbedFn) -> PredicateMatch:
        return self._best_match(key, _embed_phrases(embed, [_phrase(key)])[0], embed)

    def _memoise(self, embed: EmbedFn, key: str, match: PredicateMatch) -> None:
        if len(self._memo) < _MEMO_SIZE:
            self._memo[(embed, key)] = match

    def _best_match(self, key: str, vector: np.ndarray, embed: EmbedFn) -> PredicateMatch:
        import numpy as np

        index = self._phrase_index(embed)
        scores = index.matrix @ vector
        best = int(np.argmax(scores))
        score = float(scores[best])
        if score >= self.threshold and not _qualifier_mismatch(key, index.phrases[best]):
            return PredicateMatch(index.names[best], "nearest", key, round(score, 4), index.negated[best])
        return PredicateMatch(key, "new", key, round(score, 4))

    def _phrase_index(self, embed: EmbedFn) -> _PhraseIndex:
        index = self._index.get(embed)
        if index is not None:
            return index
        with self._lock:
            index = self._index.get(embed)
            if index is None:
                rows = [(spec.name, spec.name, False) for spec in self._specs.values()]
                rows += [(canonical, alias, negated) for alias, (canonical, negated) in self._lookup.items()]
                phrases = tuple(_phrase(p) for _, p, _ in rows)
                matrix = _embed_phrases(embed, list(phrases))
                index = _PhraseIndex(tuple(n for n, _, _ in rows), phrases, tuple(g for _, _, g in rows), matrix)
                self._index[embed] = index
        return index


# Phrase vectors are shared by every Vocabulary in the process (copies and extensions re-use them).
_PHRASE_VECTORS: dict[Any, dict[str, np.ndarray]] = {}
_PHRASE_LOCK = threading.Lock()
_MEMO_SIZE = 8192
_PHRASE_CACHE_SIZE = 50_000


def _embed_phrases(embed: EmbedFn, phrases: list[str]) -> np.ndarray:
    """Unit vectors of ``phrases`` (rows in order), embedding only the ones not seen before with ``embed``."""
    import numpy as np

    with _PHRASE_LOCK:
        cache = _PHRASE_VECTORS.setdefault(embed, {})
        missing = list(dict.fromkeys(p for p in phrases if p not in cache))
    fresh: dict[str, np.ndarray] = {}
    if missing:
        fresh = dict(zip(missing, np.asarray(embed(missing), dtype=np.float32)))
        with _PHRASE_LOCK:
            if len(cache) + len(fresh) <= _PHRASE_CACHE_SIZE:
                cache.update(fresh)
    if not phrases:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([fresh[p] if p in fresh else cache[p] for p in phrases])


def _qualifier_mismatch(key: str, phrase: str) -> bool:
    """True if the raw predicate has a meaning-changing qualifier the matched phrase does not."""
    return bool((set(key.split("_")) & _QUALIFIERS) - set(phrase.split(" ")))


def _without_alias(spec: PredicateSpec, *aliases: str) -> PredicateSpec:
    drop = set(aliases)
    return PredicateSpec(
        spec.name,
        spec.cardinality,
        tuple(a for a in spec.aliases if a not in drop),
        tuple(a for a in spec.negative_aliases if a not in drop),
        spec.description,
    )


def _name_list(value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InputError(
            f"predicate {name!r}: aliases must be a list of strings",
            field="vocabulary",
            fix='write "aliases": ["lives at", "resides in"]',
        )
    return tuple(_check_name(str(v), "alias") for v in value)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        with path.open(encoding="utf-8") as fh:
            data: dict[str, Any] = json.load(fh)
            return data
    except FileNotFoundError:
        raise InputError(
            f"vocabulary file not found: {path}", field="vocabulary", fix=f"check the path (or unset {ENV_VAR})"
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"vocabulary file {path} is not valid JSON: {exc}", field="vocabulary", fix="correct the JSON at that place"
        ) from None
