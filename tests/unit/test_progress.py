"""kgmem.progress: a slow step says one line on stderr (a terminal, or KGMEM_PROGRESS=1), a quick one and a step
within a step say nothing, stdout never gets a line, and a note (the model's build) says what is going on."""

from __future__ import annotations

import threading
import time

import pytest

from kgmem import progress


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.setattr(progress, "_said", set())
    monkeypatch.delenv("KGMEM_PROGRESS_AFTER", raising=False)
    monkeypatch.setenv("KGMEM_PROGRESS", "1")


def test_a_slow_step_says_one_line_on_stderr_a_quick_one_nothing(capsys):
    with progress.step("quick", after=0.3):
        pass
    with progress.step("waiting for something slow", after=0.05):
        time.sleep(0.6)
    with progress.step("waiting for something slow", after=0.05):  # the same line is said once per process
        time.sleep(0.3)
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == ["kgmem: waiting for something slow…"], err


def test_a_step_within_a_step_says_nothing_but_another_thread_does(capsys):
    def other():
        with progress.step("in a worker thread", after=0.05):
            time.sleep(0.4)

    with progress.step("outer", after=0.05):
        with progress.step("inner", after=0.05):
            worker = threading.Thread(target=other)
            worker.start()
            time.sleep(0.4)
            worker.join()
    lines = sorted(capsys.readouterr().err.splitlines())
    assert lines == ["kgmem: in a worker thread…", "kgmem: outer…"], lines


def test_the_lines_are_for_a_terminal_unless_asked_for(monkeypatch, capsys):
    monkeypatch.delenv("KGMEM_PROGRESS")
    with progress.step("not a terminal", after=0.01):  # capsys's stderr is no terminal
        time.sleep(0.3)
    monkeypatch.setenv("KGMEM_PROGRESS", "0")
    with progress.step("turned off", after=0.01):
        time.sleep(0.3)
    assert capsys.readouterr().err == ""

    class Terminal:
        def isatty(self):
            return True

    monkeypatch.delenv("KGMEM_PROGRESS")
    monkeypatch.setattr("sys.stderr", Terminal())
    assert progress.enabled()


def test_after_zero_says_the_line_when_the_step_starts(monkeypatch, capsys):
    monkeypatch.setenv("KGMEM_PROGRESS_AFTER", "0")
    with progress.step("at once"):
        assert capsys.readouterr().err == "kgmem: at once…\n"


def test_a_note_is_said_whatever_stderr_is_and_stands_for_the_waiting_step(monkeypatch, capsys):
    monkeypatch.setenv("KGMEM_PROGRESS", "0")
    progress.note("kgmem: building something once…")
    assert capsys.readouterr().err == "kgmem: building something once…\n"
    monkeypatch.setenv("KGMEM_PROGRESS", "1")
    with progress.step("loading it", after=0.2):
        progress.note("kgmem: building it once…")  # says what the step would have said
        time.sleep(0.5)
    assert capsys.readouterr().err.splitlines() == ["kgmem: building it once…"]
