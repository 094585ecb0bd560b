"""``python -m kgmem.router``: evaluate the router configurations and print the table.

Options: ``--no-embedding`` (skip the embedding rows), ``--kinds logreg,forest,svm``, ``--folds N``,
``--json`` (the full report, with per-fold scores, confusion matrices and misroutes).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Sequence

from .model import KINDS, evaluate

_NAMES = {"logreg": "Logistic regression", "forest": "Random forest (300 trees)", "svm": "Linear SVM (calibrated)"}


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _matrix(rows: list[list[int]], labels: Sequence[str]) -> list[str]:
    width = max(len(label) for label in labels) + 1
    lines = [" " * width + "".join(f"{label[:7]:>8}" for label in labels) + "   <- predicted"]
    for label, row in zip(labels, rows):
        lines.append(f"{label:<{width}}" + "".join(f"{n:>8}" for n in row))
    return lines


def format_report(report: dict[str, Any]) -> str:
    train, adv = report["train"], report["adversarial"]

    def per(counts: dict[str, int]) -> str:
        return ", ".join(f"{k} {v}" for k, v in counts.items())

    lines = [
        f"train: {train['n']} questions ({per(train['per_intent'])})",
        f"adversarial: {adv['n']} questions ({per(adv['per_intent'])})",
        f"{report['folds']}-fold stratified CV (seed {report['seed']}), scikit-learn {report['sklearn']}",
        "",
        f"{'classifier':<27}{'embedding':<11}{'CV mean ± sd':<17}{'95% CI':<18}{'adversarial':>11}",
    ]
    for r in report["results"]:
        cv = r["cv"]
        lines.append(
            f"{_NAMES.get(r['kind'], r['kind']):<27}{'yes' if r['use_embedding'] else 'no':<11}"
            f"{_pct(cv['mean'])} ± {100 * cv['sd']:4.1f}   [{_pct(cv['ci95'][0])}, {_pct(cv['ci95'][1])}]"
            f"{_pct(r['adversarial']['accuracy']):>11}"
        )
    chosen, default = report["chosen"], report["default"]
    lines += [
        "",
        f"best (max CV with adversarial >= 85%): {chosen['kind']}, embedding={chosen['use_embedding']}"
        + ("" if chosen["adversarial_gate_met"] else "  (no configuration reached 85% adversarial; best CV shown)"),
        f"shipped default: {default['kind']}, embedding={default['use_embedding']}",
    ]

    def matches(r: dict[str, Any], config: dict[str, Any]) -> bool:
        return bool(r["kind"] == config["kind"] and r["use_embedding"] == config["use_embedding"])

    # Detail the shipped default when it was evaluated, else the best configuration.
    best = next((r for r in report["results"] if matches(r, default)), None) or next(
        r for r in report["results"] if matches(r, chosen)
    )
    lines += ["", f"confusion, pooled CV predictions ({best['kind']}, embedding={best['use_embedding']}):"]
    lines += _matrix(best["cv"]["confusion"], report["labels"])
    lines += ["", "confusion, adversarial set:"]
    lines += _matrix(best["adversarial"]["confusion"], report["labels"])
    if best["adversarial"]["errors"]:
        lines += ["", "adversarial misroutes (question: expected -> predicted):"]
        lines += [f"  {q}: {t} -> {p}" for q, t, p in best["adversarial"]["errors"]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgmem.router", description="Evaluate the ask router.")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated: logreg,forest,svm")
    parser.add_argument("--no-embedding", action="store_true", help="only the configurations without embeddings")
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--train", default=None, help="train.jsonl (default: fixtures/router/train.jsonl)")
    parser.add_argument("--adversarial", default=None, help="adversarial.jsonl (default: beside train)")
    parser.add_argument("--json", action="store_true", help="print the full report as JSON")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        parser.error(f"unknown kinds {unknown}; use {', '.join(KINDS)}")
    report = evaluate(
        kinds=kinds,
        embeddings=(False,) if args.no_embedding else (False, True),
        train_path=args.train,
        adversarial_path=args.adversarial,
        folds=args.folds,
        seed=args.seed,
    )
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
