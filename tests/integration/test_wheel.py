"""The distributions are fit for a package index, and the wheel works from anywhere: build the sdist and the
wheel from it, check their metadata as `twine check` does, install the wheel into a fresh virtualenv outside
the checkout, and run the CLI from a temporary directory against the test database.

The fresh virtualenv has no pip and downloads nothing: a .pth (``site.addsitedir``, like ./dev does) chains
its site-packages to the dependencies of the virtualenv running the tests, and only the kgmem wheel itself
is installed into it (``--no-deps --no-index``). Every command must import kgmem from that virtualenv,
never from the checkout, and find its Cypher, router and demo data inside the installed package.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from ..conftest import ROOT

pytestmark = pytest.mark.slow

SMALL = [
    {"id": "w-root", "text": "Merged PR 4412: the reconciler caches full invoices per request", "at": "2026-03-10"},
    {"id": "w-mid", "text": "Worker memory grew 2 GB an hour", "at": "2026-03-12", "caused_by": ["w-root"]},
    {"id": "w-crash", "text": "Checkout crashed on Friday with OOM kills", "at": "2026-03-13", "caused_by": ["w-mid"]},
    {
        "id": "w-f1",
        "text": "Maya lives in Boston",
        "kind": "fact",
        "subject": "maya",
        "predicate": "lives_in",
        "object": "Boston",
        "at": "2026-01-02",
    },
    {
        "id": "w-f2",
        "text": "Maya moved to Lisbon",
        "kind": "fact",
        "subject": "maya",
        "predicate": "lives_in",
        "object": "Lisbon",
        "at": "2026-04-03",
    },
]


def _deps_site() -> str:
    """The site-packages that holds kgmem's dependencies in the running environment (the cached venv)."""
    import sklearn

    return str(Path(sklearn.__file__).resolve().parents[1])


def _build(args: list[str], cwd: Path) -> None:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> tuple[Path, Path]:
    """(sdist, wheel) as `python -m build` makes them: the sdist from a clean copy of the checkout (an in-tree
    build/ could hold stale copies), then the wheel from the unpacked sdist, so a file missing from the sdist
    is missing from the wheel too. No isolation and no download: setuptools comes from the running venv."""
    src = tmp_path_factory.mktemp("src") / "kgmem"
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            ".mypy_cache",
            ".ruff_cache",
            "build",
            "dist",
            "*.egg-info",
            "__pycache__",
            ".pytest_cache",
            "results",
        ),
    )
    out = tmp_path_factory.mktemp("dist")
    _build([sys.executable, "-c", f"from setuptools import build_meta as b; b.build_sdist({str(out)!r})"], src)
    (sdist,) = out.glob("kgmem-*.tar.gz")
    unpacked = tmp_path_factory.mktemp("sdist")
    with tarfile.open(sdist) as tar:
        tar.extractall(unpacked, filter="data")
    (tree,) = unpacked.iterdir()
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--disable-pip-version-check"]
    _build([*pip, "-q", "-w", str(out), "."], tree)
    (whl,) = out.glob("kgmem-*.whl")
    return sdist, whl


@pytest.fixture(scope="module")
def wheel(dists: tuple[Path, Path]) -> Path:
    return dists[1]


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory) -> Path:
    """A fresh virtualenv outside the checkout with the wheel installed (deps chained, nothing downloaded)."""
    home = tmp_path_factory.mktemp("venv")
    assert ROOT.resolve() not in home.resolve().parents
    env_dir = home / "env"
    base = getattr(sys, "_base_executable", None) or sys.executable
    subprocess.run([base, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=300)
    py = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    Path(purelib, "kgmem-deps.pth").write_text(f"import site; site.addsitedir({_deps_site()!r})\n")
    proc = subprocess.run(
        [str(py), "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--disable-pip-version-check", str(wheel)],
        cwd=home,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return env_dir


@pytest.fixture
def run(venv: Path, cli_env: dict, tmp_path: Path):
    """Run the installed ``kgmem`` console script from a temporary directory (not the checkout)."""
    env = {k: v for k, v in cli_env.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()

    def _run(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(venv / "bin" / "kgmem"), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
        )

    _run.cwd = cwd  # type: ignore[attr-defined]
    _run.env = env  # type: ignore[attr-defined]
    return _run


def _ok(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 0, (proc.args, proc.returncode, proc.stdout[-2000:], proc.stderr[-3000:])
    return proc.stdout


def test_wheel_holds_every_runtime_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    cypher = sorted(p.relative_to(ROOT / "cypher").as_posix() for p in (ROOT / "cypher").rglob("*.cypher"))
    assert cypher, "no Cypher files in the checkout?"
    missing = [c for c in cypher if f"kgmem/_cypher/{c}" not in names]
    assert not missing, missing
    assert len([n for n in names if n.endswith(".cypher")]) == len(cypher)  # nothing stale either
    for data in (
        "kgmem/data/demo.jsonl",
        "kgmem/data/router.joblib",
        "kgmem/data/router.json",
        "kgmem/data/vocabulary.json",
    ):
        assert data in names, data
    with zipfile.ZipFile(wheel) as z:
        assert z.read("kgmem/data/demo.jsonl") == (ROOT / "fixtures" / "demo" / "demo.jsonl").read_bytes()
    assert not any(n.startswith(("bench/", "kgmem_bench/", "tests/", "fixtures/")) for n in names)


def test_installed_kgmem_imports_from_the_venv(venv: Path, run) -> None:
    out = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import kgmem, kgmem.store.cypher as c, kgmem.demo as d, kgmem.router.model as m; "
            "print(kgmem.__file__); print(c.cypher_root()); print(d.DEMO_FILE); print(m.SHIPPED_PATH)",
        ],
        env=run.env,
        cwd=run.cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = _ok(out).splitlines()
    for line in lines:
        path = Path(line).resolve()
        assert venv.resolve() in path.parents, (line, lines)
        assert ROOT.resolve() not in path.parents, (line, lines)
        assert path.exists(), line


def test_cli_from_the_installed_wheel(run, tenant: str) -> None:
    listing = _ok(run("cypher", "--list"))
    assert "why/roots" in listing and len(listing.splitlines()) >= 50
    assert "MATCH" in _ok(run("cypher", "why/roots"))

    init = json.loads(_ok(run("init", "--json")))
    assert init["indexes"] and all(i["state"] == "ONLINE" for i in init["indexes"])

    data = run.cwd / "small.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in SMALL), encoding="utf-8")
    report = json.loads(_ok(run("ingest", str(data), "--json")))
    assert report["read"] == len(SMALL) and report["created"] == len(SMALL) and not report["errors"], report

    recall = json.loads(_ok(run("recall", "reconciler invoices", "--k", "3", "--json")))
    assert recall["hits"] and recall["hits"][0]["id"] == "w-root", recall

    why = json.loads(_ok(run("why", "why did checkout crash on Friday?", "--json")))
    assert not why["abstained"] and why["roots"][0]["id"] == "w-root", why

    ask = json.loads(_ok(run("ask", "where does Maya live?", "--json")))
    assert ask["intent"] == "slot" and ask["operation"] == "now", ask
    assert ask["result"]["value"]["object"].lower() == "lisbon", ask

    demo = _ok(run("demo"))  # KGMEM_TENANT is the test's tenant, so the demo story lands there
    assert "kgmem demo" in demo and "errors 0" in demo, demo
    assert "img-root" in demo or "node 22" in demo, demo


def test_bench_from_an_installed_copy_says_to_use_a_checkout(run) -> None:
    proc = run("bench", "--list", timeout=120)
    assert proc.returncode != 0, proc.stdout
    assert "not part of an installed kgmem" in proc.stderr, proc.stderr[-2000:]
    assert "inside a clone of the kgmem repository" in proc.stderr


def _metadata(dist: Path) -> str:
    """The core metadata a package index reads: the wheel's METADATA, the sdist's PKG-INFO."""
    if dist.suffix == ".whl":
        with zipfile.ZipFile(dist) as z:
            (name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
            return z.read(name).decode("utf-8")
    with tarfile.open(dist) as tar:
        (member,) = [m for m in tar.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")]
        f = tar.extractfile(member)
        assert f is not None
        return f.read().decode("utf-8")


@pytest.mark.parametrize("kind", ["sdist", "wheel"])
def test_metadata_passes_what_twine_check_checks(dists: tuple[Path, Path], kind: str) -> None:
    """twine check (7.x) parses the metadata with packaging and refuses unknown or malformed fields and invalid
    values (Metadata.from_raw), warns when the long description or its content type is missing, and renders it
    (Markdown cannot fail). The same here, plus what an index page needs from us."""
    from packaging.metadata import Metadata, parse_email

    dist = dists[0] if kind == "sdist" else dists[1]
    raw, unparsed = parse_email(_metadata(dist))
    assert unparsed == {}, unparsed
    meta = Metadata.from_raw(raw)  # raises on an invalid field
    assert str(meta.version) == _project_version()
    assert meta.description_content_type == "text/markdown"
    assert meta.description and meta.description.strip() == (ROOT / "README.md").read_text(encoding="utf-8").strip()
    assert meta.license_expression == "Apache-2.0" and meta.license_files == ["LICENSE"]
    assert meta.author, "no author"
    assert meta.keywords and meta.classifiers and meta.requires_python
    assert not any(c.startswith("License ::") for c in meta.classifiers)  # PEP 639: the expression says it
    assert not any(str(r).startswith(("torch", "sentence-transformers")) and not r.marker for r in meta.requires_dist)


def test_sdist_holds_license_changelog_docs_and_runtime_sources(dists: tuple[Path, Path]) -> None:
    with tarfile.open(dists[0]) as tar:
        names = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
    for needed in ("LICENSE", "README.md", "CHANGELOG.md", "docs/interface.md", "setup.py", "fixtures/demo/demo.jsonl"):
        assert needed in names, needed
    assert "cypher/why/roots.cypher" in names
    with zipfile.ZipFile(dists[1]) as z:
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in z.namelist())


def _project_version() -> str:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
