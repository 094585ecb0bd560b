"""Build the ONNX export of all-MiniLM-L6-v2 for this install (``$KGMEM_CACHE/onnx-<key>/model.onnx``) and
check it against sentence-transformers; prints the meta as JSON. Exit 0 when it is ready and passed its check,
1 otherwise (kgmem then falls back to sentence-transformers). ``--force`` exports again.
Same as ``python -m kgmem.onnx_embed``; ./dev runs it once when it builds the virtualenv."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from kgmem.onnx_embed import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
