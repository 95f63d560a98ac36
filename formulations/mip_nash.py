"""Mixed-integer programs whose feasible points are Nash equilibria of two-player
general-sum games (Sandholm, Gilpin and Conitzer, "Mixed-integer programming methods for
finding Nash equilibria", 2005), written on the sequence form so that one builder serves
normal-form games (a player with one information set: sequences are pure strategies) and
extensive-form games alike.

For each player ``i`` with sequences ``S_i``, constraint matrix ``E_i`` (``E_i x_i = e_i``:
the empty sequence has weight 1, an information set's actions add up to the sequence
leading to it) and chance-weighted payoff matrix ``A_i`` against the opponent's
realization plan ``y``:

``x_i``    realization plan (for a normal-form game: the mixed strategy), in [0, 1];
``v_i``    the values of player i's best response to ``y`` (``v_i[0]`` at the root: the
           payoff; one per information set), the dual of the best-response LP
           ``max x'A_i y s.t. E_i x = e_i, x >= 0``;
``s_i``    the slack ``E_i' v_i - A_i y >= 0`` of each sequence: its regret, how much less
           it earns than the best the player can do from its information set (for a
           pure strategy: ``u_i - u_s``, the paper's ``r_s``);
``b_i``    binary per sequence, 1 when the sequence is not played.

A profile with ``x_s * s_s = 0`` for every sequence is an equilibrium (each player's
regret is ``sum_s x_s s_s``). The formulations tie ``x`` and ``s`` through ``b``:

====  =============================================  ========================================
 F    rows                                           objective and what it proves
====  =============================================  ========================================
 1    ``x_s <= 1 - b_s``, ``s_s <= M_i b_s``         any objective; every feasible point is
                                                     an equilibrium
 2    ``x_s <= 1 - b_s``, ``f_s >= s_s - M_i b_s``   min sum f: regrets sum to at most the
                                                     objective
 3    ``s_s <= M_i b_s``, ``g_s >= x_s + b_s - 1``   min sum g: at most M times the objective
 4    ``f_s >= s_s - M_i b_s``,                      min sum f/M_i + g: at most M times the
      ``g_s >= x_s + b_s - 1``                       objective
====  =============================================  ========================================

``M_i`` is player i's payoff range ``max(0, max u_i) - min(0, min u_i)``, a bound on every
slack and on every value (the chance and opponent weights below any sequence add up to at
most one), and ``M`` the larger of the two. Formulations 2-4 always have feasible points,
so a search stopped by a time limit returns a profile and the objective bounds its regret.
The bounds are the paper's in substance; formulation 4 is normalised per player here, so
its bound is ``M`` times the objective.

Objectives of formulation 1 (``objective``): ``any`` (feasibility), ``welfare`` (max
``v_1 + v_2``), ``maxmin`` (max the smaller payoff), ``envy`` (min ``|v_1 - v_2|``),
``min-support`` / ``max-support`` (fewest / most sequences allowed, ``sum (1 - b)``),
``best:P`` / ``worst:P`` (player P's best or worst equilibrium, P from 1).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..models.checks import OptionError
from ..models.errors import GameError
from ..models.sequence import SequenceForm
from .linear_program import Block, LinearProgram

#: Objectives of formulation 1, besides ``best:P`` and ``worst:P``.
OBJECTIVES = ("any", "welfare", "maxmin", "envy", "min-support", "max-support")

FORMULATIONS = (1, 2, 3, 4)


def check_objective(objective: str, formulation: int, players: int = 2) -> None:
    """OptionError naming the option when ``objective`` or ``formulation`` is not one
    the programs take."""
    if formulation not in FORMULATIONS:
        raise OptionError(f"formulation must be 1, 2, 3 or 4, not {formulation!r}")
    kind, _, who = str(objective).partition(":")
    if kind in ("best", "worst"):
        if not who.isdigit() or not 1 <= int(who) <= players:
            raise OptionError(f"objective {objective!r}: say which player, best:1 .. best:{players}")
    elif objective not in OBJECTIVES:
        raise OptionError(f"objective must be one of {', '.join(OBJECTIVES)}, best:P or worst:P, not {objective!r}")
    if formulation != 1 and objective != "any":
        raise OptionError(
            f"formulation {formulation} minimises the regret penalty; objective {objective!r} needs formulation 1"
        )


def payoff_range(sf: SequenceForm, p: int) -> tuple[float, float]:
    """(low, high): bounds on player p's best-response values, ``min(0, min u)`` and
    ``max(0, max u)`` over the terminals."""
    pay = sf.terminal_payoffs[:, p]
    return min(0.0, float(pay.min(initial=0.0))), max(0.0, float(pay.max(initial=0.0)))


def mip_nash(sf: SequenceForm, formulation: int = 1, objective: str = "any") -> LinearProgram:
    """The MIP of ``formulation`` (1-4) for the two-player game ``sf`` in sparse form.

    Columns per player ``i`` (blocks named ``x{i}``, ``v{i}``, ``s{i}``, ``b{i}``, and
    ``f{i}`` / ``g{i}`` where the formulation has them), then ``z`` for the ``maxmin`` and
    ``envy`` objectives. ``meta`` holds the column offsets, ``M`` per player and the
    factor that turns the objective of formulations 2-4 into a bound on the sum of the
    players' regrets (``meta["bound_factor"]``).
    """
    if sf.num_players != 2:
        raise GameError(f"this MIP is written for two players; the game has {sf.num_players}")
    check_objective(objective, formulation)
    E = [sf.players[p].constraint_matrix.tocsr() for p in range(2)]
    A = sf.payoff_matrix(0).tocsr(), sf.payoff_matrix(1).tocsr()  # both indexed [s_1, s_2]
    # player i's payoff against the opponent's plan: rows of i's sequences
    against = [A[0], A[1].T.tocsr()]
    n = [E[p].shape[1] for p in range(2)]
    k = [E[p].shape[0] for p in range(2)]
    ranges = [payoff_range(sf, p) for p in range(2)]
    big = [max(hi - lo, 1e-9) for lo, hi in ranges]
    uses_f = formulation in (2, 4)
    uses_g = formulation in (3, 4)
    uses_z = objective in ("maxmin", "envy")

    # ------------------------------------------------------------ columns
    col_blocks: list[Block] = []
    lower: list[np.ndarray] = []
    upper: list[np.ndarray] = []
    integer: list[np.ndarray] = []
    offset = {}

    def add(name: str, size: int, lo: float, hi: float, doc: str, binary: bool = False) -> None:
        start = sum(b.size for b in col_blocks)
        col_blocks.append(Block(name, start, start + size, doc))
        lower.append(np.full(size, lo))
        upper.append(np.full(size, hi))
        integer.append(np.full(size, binary))
        offset[name] = start

    for p in range(2):
        lo, hi = ranges[p]
        add(f"x{p}", n[p], 0.0, 1.0, f"player {p + 1}'s realization plan (mixed strategy)")
        add(f"v{p}", k[p], lo, hi, f"player {p + 1}'s best-response values (v[0]: the payoff)")
        add(f"s{p}", n[p], 0.0, big[p], f"regret (slack) of each of player {p + 1}'s sequences")
        add(f"b{p}", n[p], 0.0, 1.0, f"1 when player {p + 1}'s sequence is not played", binary=True)
        if uses_f:
            add(f"f{p}", n[p], 0.0, np.inf, "regret on a sequence that may be played")
        if uses_g:
            add(f"g{p}", n[p], 0.0, 1.0, "weight on a sequence that has regret")
    if uses_z:
        add("z", 1, -np.inf, np.inf, "the smaller payoff (maxmin) or the payoff gap (envy)")
    num_cols = sum(b.size for b in col_blocks)

    # ------------------------------------------------------------ rows
    pieces: list[sp.spmatrix] = []
    row_lo: list[np.ndarray] = []
    row_hi: list[np.ndarray] = []
    row_blocks: list[Block] = []

    def rows(name: str, parts: dict[str, sp.spmatrix], lo: np.ndarray, hi: np.ndarray, doc: str) -> None:
        size = lo.shape[0]
        blocks = []
        for block in col_blocks:
            m = parts.get(block.name)
            blocks.append(sp.csr_matrix((size, block.size)) if m is None else sp.csr_matrix(m))
        pieces.append(sp.hstack(blocks, format="csr"))
        start = sum(b.size for b in row_blocks)
        row_blocks.append(Block(name, start, start + size, doc))
        row_lo.append(lo)
        row_hi.append(hi)

    for p in range(2):
        o = 1 - p
        eye = sp.identity(n[p], format="csr")
        rows(f"realization{p}", {f"x{p}": E[p]}, e_vector(k[p]), e_vector(k[p]), f"E x = e for player {p + 1}")
        # E' v - A y - s = 0
        rows(
            f"slack{p}",
            {f"v{p}": E[p].T, f"x{o}": -against[p], f"s{p}": -eye},
            np.zeros(n[p]),
            np.zeros(n[p]),
            f"each of player {p + 1}'s sequences: its regret against the other's plan",
        )
        if formulation in (1, 2):
            rows(f"played{p}", {f"x{p}": eye, f"b{p}": eye}, np.full(n[p], -np.inf), np.ones(n[p]), "x <= 1 - b")
        if formulation in (1, 3):
            rows(
                f"no_regret{p}",
                {f"s{p}": eye, f"b{p}": -big[p] * eye},
                np.full(n[p], -np.inf),
                np.zeros(n[p]),
                "s <= M b: a sequence that may be played has no regret",
            )
        if uses_f:
            rows(
                f"regret_penalty{p}",
                {f"f{p}": eye, f"s{p}": -eye, f"b{p}": big[p] * eye},
                np.zeros(n[p]),
                np.full(n[p], np.inf),
                "f >= s - M b",
            )
        if uses_g:
            rows(
                f"weight_penalty{p}",
                {f"g{p}": eye, f"x{p}": -eye, f"b{p}": -eye},
                np.full(n[p], -1.0),
                np.full(n[p], np.inf),
                "g >= x + b - 1",
            )
    if uses_z:
        root = [sp.csr_matrix(([1.0], ([0], [0])), shape=(1, k[p])) for p in range(2)]
        one = sp.csr_matrix(np.ones((1, 1)))
        if objective == "maxmin":  # z <= v_p[0]
            for p in range(2):
                rows(f"maxmin{p}", {"z": one, f"v{p}": -root[p]}, np.array([-np.inf]), np.zeros(1), "z <= payoff")
        else:  # z >= |v_0[0] - v_1[0]|
            for sign in (1.0, -1.0):
                rows(
                    "envy" + ("+" if sign > 0 else "-"),
                    {"z": one, "v0": -sign * root[0], "v1": sign * root[1]},
                    np.zeros(1),
                    np.array([np.inf]),
                    "z >= payoff gap",
                )

    # ------------------------------------------------------------ objective
    c = np.zeros(num_cols)
    maximize = False
    kind, _, who = objective.partition(":")
    if formulation == 1:
        if objective == "welfare":
            c[offset["v0"]] = c[offset["v1"]] = 1.0
            maximize = True
        elif objective == "maxmin":
            c[offset["z"]] = 1.0
            maximize = True
        elif objective == "envy":
            c[offset["z"]] = 1.0
        elif objective in ("min-support", "max-support"):
            # sum (1 - b) allowed sequences: min-support maximises sum b
            for p in range(2):
                c[offset[f"b{p}"] : offset[f"b{p}"] + n[p]] = 1.0
            maximize = objective == "min-support"
        elif kind in ("best", "worst"):
            c[offset[f"v{int(who) - 1}"]] = 1.0
            maximize = kind == "best"
    else:
        for p in range(2):
            if uses_f:
                c[offset[f"f{p}"] : offset[f"f{p}"] + n[p]] = 1.0 / big[p] if formulation == 4 else 1.0
            if uses_g:
                c[offset[f"g{p}"] : offset[f"g{p}"] + n[p]] = 1.0
    bound_factor = {1: 0.0, 2: 1.0, 3: max(big), 4: max(big)}[formulation]
    return LinearProgram(
        name=f"mip_nash_F{formulation}",
        c=c,
        A=sp.vstack(pieces, format="csc"),
        row_lower=np.concatenate(row_lo),
        row_upper=np.concatenate(row_hi),
        col_lower=np.concatenate(lower),
        col_upper=np.concatenate(upper),
        maximize=maximize,
        col_blocks=col_blocks,
        row_blocks=row_blocks,
        integrality=np.concatenate(integer),
        objective_doc=f"formulation {formulation}, objective {objective}",
        meta={
            "formulation": formulation,
            "objective": objective,
            "offset": offset,
            "sizes": n,
            "M": big,
            "bound_factor": bound_factor,
        },
    )


def e_vector(rows: int) -> np.ndarray:
    """The right-hand side ``e``: 1 for the empty sequence's row, 0 for the others."""
    e = np.zeros(rows)
    e[0] = 1.0
    return e


def read_profile(lp: LinearProgram, x: np.ndarray) -> tuple[list[np.ndarray], list[float]]:
    """The realization plans and the payoffs (``v_i[0]``) in a solution ``x`` of
    :func:`mip_nash`; plans clipped to [0, 1]."""
    off, n = lp.meta["offset"], lp.meta["sizes"]
    plans = [np.clip(x[off[f"x{p}"] : off[f"x{p}"] + n[p]], 0.0, 1.0) for p in range(2)]
    return plans, [float(x[off[f"v{p}"]]) for p in range(2)]


__all__ = ["FORMULATIONS", "OBJECTIVES", "check_objective", "mip_nash", "payoff_range", "read_profile"]
