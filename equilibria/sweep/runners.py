"""Running a grid's cells: in this process, in local worker processes or on a Dask
cluster, with progress, resuming from what the store holds."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.processes import quiet_resource_tracker, worker_signals
from ..models import checks
from ..models.errors import EquilibriaError
from ..models.wording import plural
from .grid import RESULT_COLUMNS, Cell, Grid, SweepError
from .store import CONSOLIDATE_EVERY, Store

if TYPE_CHECKING:
    import pandas as pd


log = logging.getLogger("equilibria.sweep")


#: Seconds between progress lines when tqdm is not installed.
PROGRESS_EVERY = 5.0


def run_cell(cell: Cell) -> dict[str, Any]:
    """Solve one cell afresh and return its row (a dict of plain values). A failure is a
    row with status ``error`` and the message, never an exception (but an interrupt)."""
    from ..core.registry import get_route
    from ..core.skeleton import solve

    row: dict[str, Any] = {"key": cell.key, "route": cell.route, "game": cell.game, "spec": cell.spec}
    row.update(_columns(cell))
    t0 = time.perf_counter()
    try:
        get_route(cell.route, dict(cell.registration) or None)  # a worker learns a route registered at run time
        answer = solve(cell.spec, cell.route, **dict(cell.options))
        d = answer.to_dict()
    except Exception as exc:  # a failed cell is a row, not the end of the sweep
        message = " ".join(str(exc).split()) or type(exc).__name__
        if not isinstance(exc, EquilibriaError):
            message = f"{type(exc).__name__}: {message}"
        row.update(status="error", error=message[:2000], seconds=time.perf_counter() - t0)
        return row
    row.update(
        status=str(d.get("status")),
        value=d.get("value"),
        exploitability=d.get("exploitability"),
        nash_conv=d.get("nash_conv"),
        equilibrium=d.get("is_equilibrium"),
        certified_in=d.get("certified_in"),
        rows=d.get("rows"),
        columns=d.get("columns"),
        nonzeros=d.get("nonzeros"),
        backend_used=d.get("backend"),
        method_used=d.get("method"),
        seconds=time.perf_counter() - t0,
        error=None,
    )
    for p, payoff in enumerate(d.get("payoffs") or []):
        row[f"payoff_{p + 1}"] = payoff  # every player's, where value is player 1's alone
    if d.get("binaries") is not None:
        row["binaries"] = d["binaries"]
    # the route's own columns (approximate products: the guarantee beside the measured epsilon)
    for name in get_route(cell.route).columns:
        if d.get(name) is not None:
            # the grid the program ended on; a cell's own breakpoints option keeps its name
            row["breakpoints_used" if name == "breakpoints" else name] = d[name]
    for stage, seconds in d.get("seconds", {}).items():
        row[f"seconds_{stage}"] = seconds
    return row


def _columns(cell: Cell) -> dict[str, Any]:
    """The cell's parameters and options as row columns (prefixed ``param_`` / ``option_``
    only when a name collides with a result column)."""
    out: dict[str, Any] = {}
    for prefix, items in (("param_", cell.params), ("option_", cell.options)):
        for name, value in items:
            column = prefix + name if name in RESULT_COLUMNS or name.startswith("seconds_") or name in out else name
            out[column] = value
    return out


@dataclass
class SweepResult:
    """What :func:`run_sweep` did: the table of every recorded cell, and counts of the
    cells of the grid, those solved in this run, those skipped as already recorded and
    those that failed (status ``error``) in this run."""

    table: pd.DataFrame
    cells: int
    solved: int
    skipped: int
    errors: int
    parquet: Path
    csv: Path
    seconds: float


class _Progress:
    """A progress bar (tqdm when installed) or a line on the log every few seconds."""

    def __init__(self, total: int, show: bool) -> None:
        self.total, self.done, self.errors, self.show = total, 0, 0, show
        self.start = self.last = time.perf_counter()
        self.bar: Any = None
        if show:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, unit="cell", desc="sweep", leave=False)
            except ImportError:
                pass

    def update(self, row: dict[str, Any]) -> None:
        self.done += 1
        self.errors += row.get("status") == "error"
        if not self.show:
            return
        if self.bar is not None:
            self.bar.update(1)
            return
        now = time.perf_counter()
        if now - self.last >= PROGRESS_EVERY or self.done == self.total:
            self._say(now, [])

    def tick(self, running: list[tuple[Cell, float]]) -> None:
        """Between cells: say every few seconds which cells are running, and for how long,
        so that a long cell does not look like a stalled sweep."""
        now = time.perf_counter()
        if self.show and self.bar is None and running and now - self.last >= PROGRESS_EVERY:
            self._say(now, running)

    def _say(self, now: float, running: list[tuple[Cell, float]]) -> None:
        self.last = now
        busy = "; running " + ", ".join(f"{cell.describe()} ({now - since:.0f} s)" for cell, since in running)
        log.info(
            "sweep: %d of %d cells done (%s), %.0f s%s",
            self.done,
            self.total,
            plural(self.errors, "error"),
            now - self.start,
            busy if running else "",
        )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _run_local(
    cells: list[Cell],
    workers: int,
    finished: Callable[[dict[str, Any]], None],
    tick: Callable[[list[tuple[Cell, float]]], None] = lambda running: None,
) -> None:
    """Run ``cells`` in ``workers`` processes (0: in this process), at most ``workers`` in
    flight, calling ``finished`` with each row in this process and ``tick`` between waits
    with the cells in flight and when each started."""
    if workers <= 0:
        for cell in cells:
            finished(run_cell(cell))
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    todo = list(reversed(cells))
    context = multiprocessing.get_context("spawn")
    quiet_resource_tracker()

    def new_pool() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_orphan_exits, initargs=(os.getpid(),)
        )

    pool = new_pool()
    running: dict[Future, Cell] = {}
    started: dict[Future, float] = {}
    try:
        while todo or running:
            while todo and len(running) < workers:
                cell = todo.pop()
                future = pool.submit(run_cell, cell)
                running[future], started[future] = cell, time.perf_counter()
            # wake up often: an interrupt is seen between waits, not after the next cell
            done, _ = wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
            tick([(running[f], started[f]) for f in running if f not in done])
            broken = False
            for future in done:
                cell = running.pop(future)
                try:
                    row = future.result()
                except BrokenProcessPool:
                    broken = True
                    row = _error_row(cell, "a worker process died while this cell ran (a crash or out of memory)")
                finished(row)
            if broken:
                for cell in list(running.values()):
                    finished(_error_row(cell, "a worker process died while this cell ran (a crash or out of memory)"))
                running.clear()
                pool.shutdown(wait=False, cancel_futures=True)
                pool = new_pool()
    except BaseException:
        _kill(pool)
        raise
    pool.shutdown(wait=True)


def _orphan_exits(parent: int) -> None:
    """In a worker process: leave as soon as the sweep's process is gone (killed, say), so
    that no worker outlives it solving a cell nobody will record. Its signals are set
    first (:func:`worker_signals`), so that ``terminate()`` ends it."""
    import threading

    worker_signals()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="orphan-exits", daemon=True).start()


def _kill(pool: Any) -> None:
    """Stop a process pool at once: its workers are terminated, pending cells dropped."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()


#: Seconds to wait for a Dask scheduler before saying it cannot be reached.
SCHEDULER_SECONDS = 20


def _run_dask(cells: list[Cell], scheduler: Any, finished: Callable[[dict[str, Any]], None]) -> None:
    """Run ``cells`` on a Dask cluster (a scheduler address or a distributed.Client)."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise SweepError("a Dask scheduler needs dask.distributed: pip install 'equilibria[sweep]'") from None
    own = not isinstance(scheduler, Client)
    try:
        client = Client(scheduler, timeout=SCHEDULER_SECONDS) if own else scheduler
    except (OSError, TimeoutError, ValueError) as exc:
        raise SweepError(f"cannot reach the Dask scheduler {scheduler}: {' '.join(str(exc).split())}") from None
    futures = []
    try:
        futures = [client.submit(run_cell, cell, key=f"equilibria-sweep-{cell.key}", pure=False) for cell in cells]
        by_key: dict[Any, Cell] = {f.key: c for f, c in zip(futures, cells)}
        pending = as_completed(futures)
        while not pending.is_empty():
            batch = pending.next_batch(block=False)
            if not batch:
                time.sleep(0.1)  # polled, so that an interrupt is seen at once
            for future in batch:
                finished(_dask_row(future, by_key))
    finally:
        if futures:
            client.cancel(futures)
        if own:
            client.close()


def _dask_row(future: Any, by_key: dict[Any, Cell]) -> dict[str, Any]:
    """A finished Dask future's row (an error row when the task itself failed)."""
    try:
        return future.result()
    except Exception as exc:  # the worker died, or the task could not be run
        return _error_row(by_key[future.key], f"{type(exc).__name__}: {' '.join(str(exc).split())}")


def _error_row(cell: Cell, message: str) -> dict[str, Any]:
    row: dict[str, Any] = {"key": cell.key, "route": cell.route, "game": cell.game, "spec": cell.spec}
    row.update(_columns(cell))
    row.update(status="error", error=message)
    return row


def run_sweep(
    grid: Grid | Mapping[str, Any],
    output: str | os.PathLike,
    *,
    workers: int = 2,
    scheduler: Any = None,
    retry_errors: bool = False,
    progress: bool = False,
) -> SweepResult:
    """Run every cell of ``grid`` not yet recorded in ``output`` and return the table.

    ``output`` names the tables: ``results`` (or ``results.parquet`` / ``results.csv``)
    writes ``results.parquet`` and ``results.csv`` and keeps one file per finished cell in
    ``results.cells/``. Cells run in ``workers`` local processes (0: in this process) or,
    when ``scheduler`` is given (``"tcp://host:port"`` or a ``distributed.Client``), on that
    Dask cluster. ``retry_errors`` solves again the cells recorded with status ``error``.
    ``progress`` shows a bar (tqdm) or logs a line every few seconds. The grid and the
    output are checked before anything runs (SweepError, OutputError).
    """
    t0 = time.perf_counter()
    if not isinstance(grid, Grid):
        grid = Grid.from_dict(grid)
    try:
        checks.count("workers", workers, minimum=0, maximum=checks.MAX_WORKERS)
    except checks.OptionError as exc:
        raise SweepError(str(exc)) from None
    cells = grid.cells()
    store = Store(output)
    recorded = store.recorded()
    if retry_errors:
        for cell in cells:
            if recorded.get(cell.key, {}).get("status") == "error":
                store.forget(cell.key)
                del recorded[cell.key]
    todo = [c for c in cells if c.key not in recorded]
    order = [c.key for c in cells]
    log.info("sweep: %d cells, %d already recorded, %d to solve", len(cells), len(cells) - len(todo), len(todo))
    bar = _Progress(len(todo), progress)
    last = time.perf_counter()

    def finished(row: dict[str, Any]) -> None:
        nonlocal last
        store.record(row)
        bar.update(row)
        if time.perf_counter() - last >= CONSOLIDATE_EVERY:
            store.consolidate(order)
            last = time.perf_counter()

    try:
        if scheduler is not None:
            _run_dask(todo, scheduler, finished)
        else:
            _run_local(todo, workers, finished, bar.tick)
        bar.close()
        table = store.consolidate(order)
    except BaseException as exc:
        bar.close()
        try:
            _after_failure(store, order, exc)
        except KeyboardInterrupt as again:
            # a second Ctrl-C while the tables were rebuilt: the records stay all the same
            count = plural(len(store.recorded()), "cell")
            again.args = (f"{count} recorded in {store.folder}: run the sweep again to go on",)
            raise again from None
        raise
    return SweepResult(
        table, len(cells), bar.done, len(cells) - len(todo), bar.errors, store.parquet, store.csv,
        time.perf_counter() - t0,
    )  # fmt: skip


def _after_failure(store: Store, order: list[str], exc: BaseException) -> None:
    """What a sweep that stops on an error or an interrupt leaves: nothing when no cell was
    ever recorded; else its records (from which a new run resumes) and tables rebuilt from
    them, the error saying so."""
    recorded = store.recorded()
    if not recorded:
        store.discard()
        return
    try:
        store.consolidate(order)
        tables = f" and in {store.parquet.name}"
    except (OSError, EquilibriaError):
        tables = ""
    kept = f"{plural(len(recorded), 'cell')} recorded in {store.folder}{tables}: run the sweep again to go on"
    if isinstance(exc, EquilibriaError) and exc.args:
        exc.args = (f"{exc.args[0]}; {kept}",) + exc.args[1:]
    elif isinstance(exc, KeyboardInterrupt):
        exc.args = (kept,)  # said beside "interrupted"
