"""What a slow step is doing, one line on stderr: ``kgmem: loading the embedding model…``.

A first command on a new install or a fresh server waits for several slow things in turn (the first statement
on a cold server, the schema's indexes coming ONLINE, the embedding model, Neo4j planning a statement it has
not run yet). :func:`step` marks such a step: if it is still running after ``after`` seconds (default 1), its
line is printed once, on stderr (never stdout, so ``--json`` output stays clean); a step that ends sooner says
nothing. The lines are for a person at a terminal: they are printed when stderr is a terminal, or always with
``KGMEM_PROGRESS=1`` (``0`` turns them off). ``KGMEM_PROGRESS_AFTER`` sets the delay in seconds (0: every step
says its line when it starts).

:func:`note` prints a line at once, whatever stderr is (for what happens once and takes seconds, like building
the embedding model: a script's or an MCP client's log should show it too); it also stands for the steps that
are waiting (their line would repeat it).

A single watcher thread (started by a step that may print, ended after a few idle seconds) prints the lines
that are due, so a step costs a dictionary insert; when the lines are off it costs nothing.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator

DEFAULT_AFTER = 1.0
TICK = 0.1  # how often the watcher looks for steps that are due
IDLE_EXIT = 5.0  # the watcher ends after this many seconds without a step

_lock = threading.Lock()
_pending: dict[int, tuple[float, str, int]] = {}  # step id -> (when its line is due, message, thread)
_said: set[str] = set()  # each line once per process (concurrent steps of one kind say it once)
_ids = iter(range(1, 1 << 62))
_watcher: threading.Thread | None = None
_local = threading.local()  # this thread's depth of steps: a step within a step says nothing (the outer one tells)


def enabled() -> bool:
    """Whether step lines are printed: ``KGMEM_PROGRESS`` 1/0, else whether stderr is a terminal."""
    setting = os.environ.get("KGMEM_PROGRESS", "auto").strip().lower()
    if setting in ("1", "true", "yes", "on", "always"):
        return True
    if setting in ("0", "false", "no", "off", "never"):
        return False
    try:
        return bool(sys.stderr is not None and sys.stderr.isatty())
    except (AttributeError, ValueError, OSError):  # no stderr (pythonw), or a closed one
        return False


def _after(default: float) -> float:
    try:
        return max(0.0, float(os.environ["KGMEM_PROGRESS_AFTER"]))
    except (KeyError, ValueError):
        return default


def _print(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (AttributeError, ValueError, OSError):  # no stderr (pythonw), or a closed one
        pass


def note(message: str) -> None:
    """Print ``message`` on stderr now, whatever stderr is (a missing or closed stderr is skipped). The steps
    this thread is in stay quiet: this line tells what is going on."""
    me = threading.get_ident()
    with _lock:
        for key in [key for key, (_, _, thread) in _pending.items() if thread == me]:
            del _pending[key]
    _print(message)


def _say(message: str) -> None:
    with _lock:
        if message in _said:
            return
        _said.add(message)
    _print(f"kgmem: {message}…")


@contextmanager
def step(message: str, *, after: float = DEFAULT_AFTER) -> Iterator[None]:
    """Mark a step that may take long: its line ``kgmem: <message>…`` is printed on stderr if the step is
    still running after ``after`` seconds (``KGMEM_PROGRESS_AFTER`` overrides it) and the lines are on
    (:func:`enabled`). A step within another step of the same thread says nothing."""
    depth = getattr(_local, "depth", 0)
    if depth or not enabled():
        yield
        return
    _local.depth = 1
    try:
        with _step(message, after):
            yield
    finally:
        _local.depth = 0


@contextmanager
def _step(message: str, after: float) -> Iterator[None]:
    delay = _after(after)
    if delay <= 0:
        _say(message)
        yield
        return
    key = next(_ids)
    with _lock:
        _pending[key] = (time.monotonic() + delay, message, threading.get_ident())
        _start_watcher()
    try:
        yield
    finally:
        with _lock:
            _pending.pop(key, None)


def _start_watcher() -> None:  # (with _lock held)
    global _watcher
    if _watcher is None or not _watcher.is_alive():
        _watcher = threading.Thread(target=_watch, name="kgmem-progress", daemon=True)
        _watcher.start()


def _watch() -> None:
    global _watcher
    idle_since = time.monotonic()
    while True:
        time.sleep(TICK)
        now = time.monotonic()
        with _lock:
            due = [key for key, (when, _, _) in _pending.items() if when <= now]
            messages = [_pending.pop(key)[1] for key in due]
            if _pending or messages:
                idle_since = now
            elif now - idle_since > IDLE_EXIT:  # nothing to watch for a while: end (a next step starts another)
                _watcher = None
                return
        for message in messages:
            _say(message)
