"""Build step: copy the run-time files that live outside the package into the wheel.

kgmem reads three kinds of files at run time. Two have their single source outside ``kgmem/`` by project
rule, and the build copies them into the package (``build_py``), so a wheel (or a non-editable install)
holds everything:

- ``cypher/**/*.cypher`` -> ``kgmem/_cypher/**`` (``kgmem.store.cypher.cypher_root``);
- ``fixtures/demo/demo.jsonl`` -> ``kgmem/data/demo.jsonl`` (``kgmem demo``).

The third, the fitted ``ask`` router (``kgmem/data/router.joblib``, made by ``scripts/build_router.py``
from ``fixtures/router``), is ordinary package data. An editable install copies nothing: it reads the
checkout's files directly.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py as _build_py

ROOT = Path(__file__).resolve().parent

# (source in the repository, destination inside the built package)
COPIES: tuple[tuple[str, str], ...] = (
    ("cypher", "kgmem/_cypher"),
    ("fixtures/demo/demo.jsonl", "kgmem/data/demo.jsonl"),
)


def _copy(src: Path, dst: Path) -> list[str]:
    if src.is_dir():
        shutil.rmtree(dst, ignore_errors=True)  # a statement deleted from cypher/ must not linger in build/
        out = []
        for path in sorted(src.rglob("*.cypher")):
            out += _copy(path, dst / path.relative_to(src))
        return out
    if not src.is_file():
        raise FileNotFoundError(f"kgmem build: {src} is missing (build from a full checkout or sdist)")
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    return [str(dst)]


class build_py(_build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        self._copied = []
        for src, dst in COPIES:
            self._copied += _copy(ROOT / src, Path(self.build_lib) / dst)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), *getattr(self, "_copied", [])]


setup(cmdclass={"build_py": build_py})
