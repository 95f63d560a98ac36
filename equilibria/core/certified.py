"""Strategies from files, certified: what ``equilibria certify GAME FILE...`` answers.

Each file gives one or more players' strategies (a strategy CSV, or a solver's solution of
an exported sequence-form LP: :mod:`equilibria.models.strategy_files`); together they must
give every player exactly once. The profile is certified by exact best responses
(:func:`equilibria.models.best_response.certify`) and answered as every route answers:
payoffs, exploitability and NashConv, and for two-player zero-sum games the certified
bounds on the game's value.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..models.best_response import certify
from ..models.constant_sum import constant_sum
from ..models.errors import StrategyFileError
from ..models.sequence import SequenceForm
from ..models.strategy_files import TOLERANCE, StrategyFile, read_strategy_file
from ..solvers.results import Status
from .answer import Answer


@dataclass(kw_only=True)
class CertifiedFiles(Answer):
    """The certificate of strategies read from files. No solver ran: ``status`` is
    ``unknown`` (the file's solver said why it stopped, not this command) and ``sources``
    lists each file, its format and the players it gave."""

    sources: list[StrategyFile] = field(default_factory=list)

    def certificate_lines(self) -> list[str]:
        """The payoffs, the certificate and the value bounds, then where each player's
        strategy came from (in place of a solver's status)."""
        lines = [line for line in super().certificate_lines() if not line.startswith("status ")]
        lines.extend(f"{'strategies' if i == 0 else '':16}{s.describe()}" for i, s in enumerate(self.sources))
        return lines

    def details(self) -> dict:
        """Each file read: its path, format and players (1-based)."""
        return {
            "sources": [
                {"path": s.path, "format": s.kind, "players": [p + 1 for p in sorted(s.behaviors)]}
                for s in self.sources
            ]
        }


def certify_files(
    game: Any, paths: Sequence[str | os.PathLike], tolerance: float | None = None, game_name: str | None = None
) -> CertifiedFiles:
    """Certify the profile the files at ``paths`` hold for ``game`` (anything
    :func:`equilibria.instances.load` takes), plans and probabilities checked within
    ``tolerance`` (default :data:`~equilibria.models.strategy_files.TOLERANCE`). Raises
    :class:`~equilibria.models.errors.StrategyFileError` naming the first fault: a file that
    does not fit the game, a player given twice or not at all."""
    from ..instances import load

    t0 = time.perf_counter()
    extensive = load(game)
    sf = SequenceForm(extensive)
    name = game_name or extensive.title or str(game)
    t1 = time.perf_counter()
    sources = [read_strategy_file(path, sf, name, tolerance or TOLERANCE) for path in paths]
    given: dict[int, StrategyFile] = {}
    for source in sources:
        for p in source.behaviors:
            if p in given:
                raise StrategyFileError(
                    f"player {p + 1}'s strategy is in {given[p].path} and again in {source.path}: give it once"
                )
            given[p] = source
    missing = [p for p in range(sf.num_players) if p not in given]
    if missing:
        p = missing[0]
        raise StrategyFileError(
            f"no strategy for player {p + 1}: add a file with it (the solution of the LP 'export --player {p + 1}' "
            f"writes, whose columns r{p + 1}(...) are its plan, or a strategy CSV with its rows)"
        )
    behaviors = [given[p].behaviors[p] for p in range(sf.num_players)]
    t2 = time.perf_counter()
    certificate = certify(sf, behaviors)
    t3 = time.perf_counter()
    constant = constant_sum(sf.terminal_payoffs) if sf.num_players == 2 else None
    return CertifiedFiles(
        route="certify",
        game_name=name,
        status=Status.UNKNOWN,
        backend=None,
        certificate=certificate,
        sequence_form=sf,
        behaviors=behaviors,
        zero_sum=constant is not None,
        payoff_sum=constant or 0.0,
        seconds={"game": t1 - t0, "read": t2 - t1, "certify": t3 - t2},
        sources=sources,
    )


__all__ = ["CertifiedFiles", "certify_files"]
