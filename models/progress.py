"""Progress of long work, reported through :mod:`logging`.

The library never prints: stages (building a game, the sequence form, an LP, a solve,
GameShrink's passes, certification) are announced on the logger ``equilibria.progress``
with :func:`stage`, and work that reports as it goes (a solver's iterations) logs at INFO
on its own module's logger. A front end decides what to show; the command line shows a
stage once it has run for more than two seconds, on stderr, unless ``--quiet``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

_log = logging.getLogger("equilibria.progress")


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Announce the stage ``name`` for as long as the block runs (DEBUG records carrying
    ``stage``, ``event`` = ``start``, then ``end`` or, when the block raised, ``failed``,
    with ``seconds``)."""
    t0 = time.perf_counter()
    _log.debug("%s", name, extra={"stage": name, "event": "start"})
    ended = "failed"  # an error or interrupt ends the stage without it being done
    try:
        yield
        ended = "end"
    finally:
        seconds = time.perf_counter() - t0
        _log.debug("%s: %.1f s", name, seconds, extra={"stage": name, "event": ended, "seconds": seconds})


__all__ = ["stage"]
