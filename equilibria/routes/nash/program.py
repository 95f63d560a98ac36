"""One MIP Nash program of the ``nash`` route, built from the route's options and solved
once: what a single answer (:mod:`equilibria.routes.nash.route`) and the enumeration of
every support (:mod:`equilibria.routes.nash.enumeration`) share.

For the enumeration the program gets two things more: a no-good row per support already
found (:func:`~equilibria.formulations.mip_nash.mip_nash`'s ``excluded``) and a floor on
every sequence it may play (:func:`support_floor`), which makes each binary say exactly
whether its sequence is played, so that a cut removes one support and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from ...formulations.linear_program import Block
from ...formulations.mip_nash import MipNashProgram, mip_nash, nash_model
from ...formulations.products import model_size
from ...models.sequence import SequenceForm
from ...solvers import Solution, solve, solve_model
from ..options import NashOptions

#: The least realization weight of a sequence the enumeration's program lets be played
#: (:func:`support_floor`): an equilibrium that plays a sequence with less is not listed.
#: Well above the feasibility tolerances of MIP solvers (HiGHS: 1e-6), so that a program's
#: binaries are its solution's support.
SUPPORT_FLOOR = 1e-4


@dataclass(frozen=True)
class SolvedProgram:
    """A MIP Nash program, its Pyomo model (None without products), the backend's
    solution, and the column values read from it (None: it gave none)."""

    lp: MipNashProgram
    model: Any
    solution: Solution
    values: np.ndarray | None


def program_size(lp: MipNashProgram, model: Any = None) -> dict[str, int]:
    """Rows, columns, nonzeros (sparse program only), binaries and SOS2 sets of the program
    solved: ``lp`` itself, or the Pyomo ``model`` with its products when there is one."""
    if model is None:
        return {
            "rows": lp.num_rows,
            "columns": lp.num_cols,
            "nonzeros": lp.nnz,
            "binaries": int(np.count_nonzero(lp.integrality)) if lp.integrality is not None else 0,
            "sos2": 0,
        }
    return model_size(model)


def num_products(lp: MipNashProgram) -> int:
    """How many products of the others' weights the program writes (those not vanishing)."""
    return int(np.count_nonzero(~lp.layout.vanishing))


def build_program(
    sf: SequenceForm,
    options: NashOptions,
    representation: str,
    forbidden: list[np.ndarray] | None,
    *,
    excluded: Sequence[list[np.ndarray]] = (),
    floor: float = 0.0,
) -> tuple[MipNashProgram, Any]:
    """The program of the options' formulation and objective (``excluded``: binaries of
    supports cut off; ``floor``: :func:`support_floor`), and its Pyomo model with the
    products in ``representation`` when it has any (else None)."""
    lp = mip_nash(
        sf,
        options.formulation,
        options.objective,
        breakpoints=options.breakpoints,
        epsilon=options.epsilon,
        exact=representation == "exact",
        forbidden=forbidden,
        linearize=options.linearize,
        excluded=excluded,
    )
    if floor:
        lp = support_floor(lp, floor)
    model = nash_model(lp, representation=representation) if num_products(lp) else None
    return lp, model


def solve_program(lp: MipNashProgram, model: Any, options: NashOptions, time_limit: float | None) -> SolvedProgram:
    """The program (or its Pyomo model) solved by the options' backend within
    ``time_limit`` seconds."""
    backend, method, verbose = options.backend, options.method, options.verbose
    if model is None:
        sol = solve(lp, backend, method=method, time_limit=time_limit, verbose=verbose)
        return SolvedProgram(lp, None, sol, sol.x)
    sol = solve_model(model, backend, method=method, time_limit=time_limit, verbose=verbose)
    return SolvedProgram(lp, model, sol, lp.pyomo_values(model))


def support_floor(lp: MipNashProgram, floor: float) -> MipNashProgram:
    """``lp`` with a row per sequence ``x_s + floor * b_s >= floor``: a sequence allowed to
    be played (``b_s = 0``) is played with weight at least ``floor``, so the binaries are the
    support exactly (formulation 1's ``x_s <= 1 - b_s`` gives the converse)."""
    offset, sizes = lp.layout.offset, lp.layout.sizes
    rows = []
    for p, n in enumerate(sizes):
        index = np.arange(n)
        cols = np.concatenate([offset[f"x{p}"] + index, offset[f"b{p}"] + index])
        values = np.concatenate([np.ones(n), np.full(n, floor)])
        rows.append(sp.csr_matrix((values, (np.concatenate([index, index]), cols)), shape=(n, lp.num_cols)))
    extra = sp.vstack(rows, format="csr")
    start = lp.num_rows
    block = Block(
        "support_floor", start, start + extra.shape[0], f"a sequence that may be played has weight >= {floor:g}"
    )
    return replace(
        lp,
        A=sp.vstack([lp.A, extra], format="csc"),
        row_lower=np.concatenate([lp.row_lower, np.full(extra.shape[0], floor)]),
        row_upper=np.concatenate([lp.row_upper, np.full(extra.shape[0], np.inf)]),
        row_blocks=[*lp.row_blocks, block],
    )


def centred(lp: MipNashProgram, binaries: list[np.ndarray]) -> MipNashProgram:
    """``lp`` with its binaries fixed at ``binaries`` and one column more, ``t``: maximise
    ``t`` subject to ``x_s >= t`` for every sequence played but the empty one. Its solution
    is the profile on this support whose least played weight is largest, away from the
    floor a support's first solution may sit on (a support can hold a continuum of
    equilibria: Kuhn poker's first player's)."""
    offset, sizes = lp.layout.offset, lp.layout.sizes
    t = lp.num_cols
    lower, upper = np.append(lp.col_lower, 0.0), np.append(lp.col_upper, 1.0)
    rows = []
    for p, n in enumerate(sizes):
        b = slice(offset[f"b{p}"], offset[f"b{p}"] + n)
        lower[b] = upper[b] = binaries[p]
        played = np.flatnonzero(binaries[p][1:] < 0.5) + 1 + offset[f"x{p}"]
        index = np.arange(len(played))
        rows.append(
            sp.csr_matrix(
                (
                    np.concatenate([np.ones(len(played)), -np.ones(len(played))]),
                    (np.concatenate([index, index]), np.concatenate([played, np.full(len(played), t)])),
                ),
                shape=(len(played), t + 1),
            )
        )
    extra = sp.vstack(rows, format="csr")
    matrix = sp.vstack([sp.hstack([lp.A, sp.csc_matrix((lp.num_rows, 1))]), extra], format="csc")
    c = np.zeros(t + 1)
    c[t] = 1.0
    integrality = None if lp.integrality is None else np.append(lp.integrality, False)
    return replace(
        lp,
        c=c,
        A=matrix,
        row_lower=np.concatenate([lp.row_lower, np.zeros(extra.shape[0])]),
        row_upper=np.concatenate([lp.row_upper, np.full(extra.shape[0], np.inf)]),
        col_lower=lower,
        col_upper=upper,
        maximize=True,
        integrality=integrality,
        col_blocks=[*lp.col_blocks, Block("t", t, t + 1, "the least weight of a played sequence")],
        row_blocks=[*lp.row_blocks, Block("centre", lp.num_rows, lp.num_rows + extra.shape[0], "x_s >= t, s played")],
        objective_offset=0.0,
        objective_doc="the least weight of a played sequence, maximised",
    )


def read_binaries(lp: MipNashProgram, x: np.ndarray) -> list[np.ndarray]:
    """Per player, the solution's binaries rounded to 0 or 1 (1: the sequence is not played)."""
    offset, sizes = lp.layout.offset, lp.layout.sizes
    return [np.round(x[offset[f"b{p}"] : offset[f"b{p}"] + n]).astype(float) for p, n in enumerate(sizes)]


__all__ = [
    "SUPPORT_FLOOR",
    "SolvedProgram",
    "build_program",
    "centred",
    "num_products",
    "program_size",
    "read_binaries",
    "solve_program",
    "support_floor",
]
