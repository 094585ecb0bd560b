"""Build the ONNX model of all-MiniLM-L6-v2 for this install (``$KGMEM_CACHE/onnx-<key>/model.onnx``, from the
packaged weights, no torch) and check it against the reference vectors that ship with kgmem; prints the meta as
JSON. Exit 0 when it is ready and passed its check, 1 otherwise (kgmem then falls back to sentence-transformers).
``--force`` builds it again. Same as ``python -m kgmem.onnx_embed``; ./dev runs it once when it builds the
virtualenv.

``--reference`` instead writes the reference file (``kgmem/data/onnx_reference.json``): sentence-transformers'
own vectors of ``kgmem.onnx_embed.PROBES``. It needs torch and sentence-transformers (``kgmem[torch]``); run it
when the probes or the model package change, then build with ``--force``."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from kgmem import onnx_embed  # noqa: E402


def write_reference(path: Path = onnx_embed.REFERENCE) -> dict:
    """Encode PROBES with sentence-transformers (normalised, float32) and write them to ``path``."""
    import numpy as np
    import sentence_transformers
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # "Loading weights" bars
    hf_logging.set_verbosity_error()
    st = SentenceTransformer(str(onnx_embed.model_source()), device="cpu")
    vectors = st.encode(
        onnx_embed.PROBES, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    ).astype(np.float32)
    # the shortest decimal that reads back as the same float32: the file stays small and exact
    rows = ["[" + ", ".join(np.format_float_positional(x, unique=True, trim="0") for x in row) + "]" for row in vectors]
    head = {
        "about": (
            "sentence-transformers' vectors of kgmem.onnx_embed.PROBES (encode(..., normalize_embeddings=True), "
            "float32, CPU): the ONNX model built from the packaged weights must reproduce them within "
            "kgmem.onnx_embed.TOLERANCE. Written by scripts/export_onnx.py --reference."
        ),
        "model": f"{onnx_embed.MODEL_DISTRIBUTION}=={onnx_embed.package_version()}",
        "weights_bytes": (onnx_embed.model_source() / "model.safetensors").stat().st_size,
        "weights_sha256": hashlib.sha256((onnx_embed.model_source() / "model.safetensors").read_bytes()).hexdigest(),
        "made_with": {
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
        },
        "texts": onnx_embed.PROBES,
    }
    text = json.dumps(head, indent=2, ensure_ascii=False)[:-2] + ',\n  "vectors": [\n    '
    text += ",\n    ".join(rows) + "\n  ]\n}\n"
    path.write_text(text, encoding="utf-8")
    _, back, _ = onnx_embed.load_reference(path)
    assert np.array_equal(back, vectors), "the reference file does not read back exactly"
    return {"path": str(path), "texts": len(onnx_embed.PROBES), "bytes": path.stat().st_size, **head["made_with"]}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--reference" in argv:
        try:
            print(json.dumps(write_reference(), sort_keys=True))
        except ImportError as e:
            print(
                f"export_onnx --reference needs sentence-transformers (pip install 'kgmem[torch]'): {e}",
                file=sys.stderr,
            )
            return 1
        return 0
    return onnx_embed.main(argv)


if __name__ == "__main__":
    sys.exit(main())
