"""The embedder: offline all-MiniLM-L6-v2, 384-d unit vectors, and a one-text path equal to the batch path; the
sentence-transformers fallback gives the same vectors, and says how to install it where it is missing."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from kgmem.embed import DIMENSIONS, MODEL_ID, Embedder

TEXTS = [
    "why did checkout crash on Friday?",
    "QX-7741",
    "Ünïcödé and emoji 🙂 in a question — does it survive?",
    "a" * 5,
    " ".join(["the reconciler cached full invoices per request"] * 80),  # longer than max_seq_length
]


def test_vectors_are_384_d_unit_float32_and_name_their_model(embedder):
    vecs = embedder.encode(TEXTS)
    assert vecs.shape == (len(TEXTS), DIMENSIONS) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert MODEL_ID.startswith("sentence-transformers/all-MiniLM-L6-v2@gt-")


def test_the_one_text_path_gives_the_batch_vector(embedder):
    # the lean forward pass is in use for the shipped model, and it agrees with sentence-transformers
    assert embedder._direct is not None
    batch = embedder.encode(TEXTS)
    for text, expected in zip(TEXTS, batch):
        got = embedder.encode_query(text)
        assert got.dtype == np.float32 and got.shape == (DIMENSIONS,)
        assert np.allclose(got, expected, atol=1e-5), text[:40]


def test_encode_one_caches_what_encode_query_computes(embedder):
    text = "what did we decide about pricing? (cache probe)"
    embedder._cache.pop(text, None)
    first = embedder.encode_one(text)
    assert text in embedder._cache
    assert embedder.encode_one(text) is first
    assert np.allclose(first, embedder.encode([text])[0], atol=1e-5)


def test_the_sentence_transformers_fallback_gives_the_same_vectors(embedder):
    pytest.importorskip("sentence_transformers", reason="the kgmem[torch] extra is not installed")
    fallback = Embedder(backend="sentence-transformers")
    assert fallback.backend == "sentence-transformers" and fallback.model_id == embedder.model_id
    assert float(np.max(np.abs(fallback.encode(TEXTS) - embedder.encode(TEXTS)))) <= 1e-5
    assert np.allclose(fallback.encode_query(TEXTS[0]), embedder.encode_query(TEXTS[0]), atol=1e-5)


def test_without_sentence_transformers_the_fallback_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import fails as if not installed
    with pytest.raises(RuntimeError, match=r"pip install 'kgmem\[torch\]'"):
        Embedder(backend="sentence-transformers")


def test_encode_cached_embeds_the_missing_texts_in_one_batch_and_caches_them(embedder, monkeypatch):
    a, b = "what is Maya's favourite band? (batch probe)", "what is favourite band? (batch probe)"
    for t in (a, b):
        embedder._cache.pop(t, None)
    calls = []
    real = embedder.encode
    monkeypatch.setattr(embedder, "encode", lambda texts, **kw: calls.append(list(texts)) or real(texts, **kw))
    va, vb = embedder.encode_cached([a, b])
    assert calls == [[a, b]] and embedder._cache[a] is va and embedder._cache[b] is vb
    assert np.allclose(va, embedder.encode_query(a), atol=1e-5) and np.allclose(vb, embedder.encode_query(b), atol=1e-5)
    again = embedder.encode_cached([a, b])
    assert len(calls) == 1 and again[0] is va and again[1] is vb  # both from the cache
