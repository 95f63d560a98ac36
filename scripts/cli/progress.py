"""Progress of long work on standard error, and the C-level standard output kept off the answer."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any


class ProgressHandler(logging.Handler):
    """Shows the library's progress on stderr: INFO records as they come, and the current
    stage (``equilibria.models.progress``) once it has run for :data:`SHOW_AFTER` seconds,
    then every few seconds until it ends."""

    SHOW_AFTER = 2.0
    EVERY = 5.0

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.stages: list[tuple[str, float]] = []
        self.state_lock = threading.Lock()
        self.stop = threading.Event()
        self.ticker = threading.Thread(target=self._tick, name="progress", daemon=True)
        self.ticker.start()

    def emit(self, record: logging.LogRecord) -> None:
        event = getattr(record, "event", None)
        with self.state_lock:
            if event == "start":
                self.stages.append((record.getMessage(), time.perf_counter()))
            elif event in ("end", "failed"):
                seconds = getattr(record, "seconds", 0.0)
                name = getattr(record, "stage", "")
                self.stages = [st for st in self.stages if st[0] != name]
                if event == "end" and seconds >= self.SHOW_AFTER:
                    self._say(f"{name}: done in {seconds:.1f} s")
            elif record.levelno >= logging.INFO:
                self._say(record.getMessage())

    def _say(self, text: str) -> None:
        print(f"equilibria: {text}", file=sys.stderr, flush=True)

    def _tick(self) -> None:
        shown: dict[str, float] = {}
        while not self.stop.wait(0.5):
            with self.state_lock:
                if not self.stages:
                    continue
                name, start = self.stages[-1]
                now = time.perf_counter()
                last = shown.get(name)
                if now - start >= self.SHOW_AFTER and (last is None or now - last >= self.EVERY):
                    shown[name] = now
                    self._say(f"{name} ... {now - start:.0f} s")

    def close(self) -> None:
        self.stop.set()
        super().close()


@contextlib.contextmanager
def progress_shown(quiet: bool, verbose: bool) -> Iterator[None]:
    """Route the library's logging to stderr for the length of a command."""
    logger = logging.getLogger("equilibria")
    if quiet:
        yield
        return
    handler = ProgressHandler()
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        handler.close()


@contextlib.contextmanager
def c_stdout_to_stderr() -> Any:
    """File descriptor 1 points at standard error for the block (C libraries write there
    directly), and back afterwards."""
    try:
        saved = os.dup(1)
    except OSError:  # no standard output to redirect
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
