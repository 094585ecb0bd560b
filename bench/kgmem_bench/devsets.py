"""Where the development sets by other hands are found: beside a kgmem checkout (``../shared/datasets``), or
where an environment variable points — never copied into the repository. One rule for every suite that reads
one (conversations, updates, causes, notes): the variable names a folder holding the set's file, or the file."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATASETS_DIR = ROOT.parent / "shared" / "datasets"


@dataclass(frozen=True)
class DevSet:
    """A development set: its name in reports, the variable that may point at it, its folder under
    :data:`DATASETS_DIR`, its file there, what it is (for the skip table) and what its licence forbids."""

    name: str
    env: str
    folder: str
    file: str
    what: str
    keep_out: str = "Never copy it into the repository"

    @property
    def default(self) -> Path:
        return DATASETS_DIR / self.folder

    def path(self) -> Path:
        """``$env`` (a folder, or the file itself), else the set's folder beside the checkout."""
        return Path(os.environ.get(self.env) or self.default)

    def data_file(self, path: str | os.PathLike[str] | None = None) -> Path:
        """The set's file in ``path`` (a folder, or the file itself; default :meth:`path`)."""
        p = Path(path if path is not None else self.path())
        return p / self.file if p.is_dir() or not p.suffix else p

    def missing(self, path: str | os.PathLike[str] | None = None) -> dict | None:
        """None when the set's file is there; else a one-row table saying the suite skipped it and how to fix it."""
        where = self.data_file(path)
        if where.is_file():
            return None
        return {
            "title": f"{self.name}: skipped",
            "columns": ["reason", "looked at", "how to get it"],
            "rows": [
                [
                    f"{self.file} ({self.what}) not found",
                    str(where),
                    f"set {self.env}=<folder holding {self.file}> (or the file); it is in "
                    f"../shared/datasets/{self.folder} beside a kgmem checkout. {self.keep_out}",
                ]
            ],
        }


def load_cases(path: str | os.PathLike[str]) -> list[dict]:
    """A JSON list of cases (the format of the development set's README), in file order; raises on a case
    without its fields."""
    cases = json.loads(Path(path).read_text())
    if not isinstance(cases, list):
        raise ValueError(f"{path}: expected a JSON list of cases")
    for c in cases:
        missing = {"key", "kind", "memories", "questions"} - set(c)
        if missing:
            raise ValueError(f"{path}: case {c.get('key', '?')} lacks {sorted(missing)}")
    return cases
