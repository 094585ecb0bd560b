"""Fit the shipped ``ask`` router and store it in the package: ``python scripts/build_router.py``.

Trains the default configuration (``kgmem.router.DEFAULT_KIND`` / ``DEFAULT_USE_EMBEDDING``, seed 0) on
``fixtures/router/train.jsonl`` and writes

- ``kgmem/data/router.joblib``: the fitted scikit-learn pipeline with its data version (the sha256 of
  train.jsonl), the feature version and the scikit-learn version;
- ``kgmem/data/router.json``: the same metadata plus the training and adversarial accuracy, readable
  without unpickling anything.

``--check`` only verifies that the shipped model was built from the current train.jsonl (exit 1 if not).
Run it after editing ``fixtures/router``; ``tests/unit/test_router.py`` fails while the two disagree.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from kgmem.router import model  # noqa: E402
from kgmem.router.features import FEATURE_VERSION  # noqa: E402

TRAIN = ROOT / "fixtures" / "router" / "train.jsonl"
ADVERSARIAL = ROOT / "fixtures" / "router" / "adversarial.jsonl"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the shipped model's data version")
    args = parser.parse_args(argv)
    version = model.data_version(TRAIN)
    meta_path = model.SHIPPED_PATH.with_suffix(".json")
    if args.check:
        shipped = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.is_file() else {}
        if shipped.get("data_version") != version or not model.SHIPPED_PATH.is_file():
            print(
                f"stale: {model.SHIPPED_PATH} was built from data version {shipped.get('data_version')}, "
                f"train.jsonl is {version}; run python scripts/build_router.py",
                file=sys.stderr,
            )
            return 1
        print(f"up to date: data version {version}")
        return 0

    import sklearn
    from sklearn.metrics import accuracy_score

    questions, intents = model.load_examples(TRAIN)
    adv_q, adv_i = model.load_examples(ADVERSARIAL)
    router = model.Router(model.DEFAULT_KIND, model.DEFAULT_USE_EMBEDDING).train(questions, intents, seed=0)
    meta = {
        "kind": router.kind,
        "use_embedding": router.use_embedding,
        "seed": 0,
        "sklearn": sklearn.__version__,
        "feature_version": FEATURE_VERSION,
        "data_version": version,
        "train_file": "fixtures/router/train.jsonl",
        "train_n": len(questions),
        "train_accuracy": float(accuracy_score(intents, [d.intent for d in router.predict_many(questions)])),
        "adversarial_n": len(adv_q),
        "adversarial_accuracy": float(accuracy_score(adv_i, [d.intent for d in router.predict_many(adv_q)])),
    }
    router.save(model.SHIPPED_PATH, compress=3, data_version=version, train_n=len(questions))
    meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    size = model.SHIPPED_PATH.stat().st_size
    print(f"wrote {model.SHIPPED_PATH} ({size / 1024:.0f} KiB) and {meta_path}: {json.dumps(meta)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
