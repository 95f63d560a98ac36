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

``M_i`` is a bound on the slack of each of player i's sequences: the chance probability
of reaching the sequence's information set times the payoff range ``max(0, max u_i) -
min(0, min u_i)`` (the other players' weights below any node add up to at most one), and
``M`` the largest. Formulations 2-4 always have feasible points, so a search stopped by a
time limit returns a profile and the objective bounds its regret. The bounds are the
paper's in substance; formulation 4 is normalised per sequence here, so its bound is
``M`` times the objective.

Objectives of formulation 1 (``objective``): ``any`` (feasibility), ``welfare`` (max
``v_1 + v_2``), ``maxmin`` (max the smaller payoff), ``envy`` (min ``|v_1 - v_2|``),
``min-support`` / ``max-support`` (fewest / most sequences allowed, ``sum (1 - b)``),
``best:P`` / ``worst:P`` (player P's best or worst equilibrium, P from 1).

More than two players
---------------------
With three or more players, a sequence's payoff against the others is a sum, over the
terminals it reaches, of products of the other players' realization weights: the
program gets one column ``w`` per distinct product and stays linear in it, and the
products themselves are written by the product layer shared with the multiplayer
threshold programs (:mod:`equilibria.formulations.products`: exact and bilinear for a
global solver, or piecewise-linear squares with ``k`` breakpoints, as SOS2 sets or with
logarithmically many binaries). With ``k`` breakpoints a product of ``f`` factors is off
by at most ``chain_error(k, f)``, so the payoff term of each sequence is off by at most
``d_s`` (its terminals' ``|chance * u|`` times those errors), and the regret rows allow
that much slack: ``s_s >= -d_s`` and ``s_s <= d_s + M b_s``. Every equilibrium of the game
stays feasible, and any feasible profile is an ``epsilon``-equilibrium with

    NashConv <= 4 * sum_i max_r r' d_i

(the maximum over player i's pure plans ``r``: a best response gains at most ``2 d``
against the program's values, and the profile's own payoff loses at most ``2 d``). That
bound is ``promised`` in the program's ``layout``; ``epsilon`` asks for the fewest
breakpoints that keep it below ``epsilon``. The certificate then measures the profile's
real NashConv by exact best responses, which is usually far smaller.

Tightening the products
-----------------------
A product of realization weights obeys the sequence-form equations of each of its
factors: summing ``x_a * y_b`` over the actions ``a`` at one information set gives the
product with the parent sequence of that set, ``x_p * y_b`` (the reformulation-
linearization technique of Sherali and Adams). The program writes these equations for
every product, adding columns ``u`` for the products they mention that no payoff needs
(linear columns only: their values need not equal any product, so the nonconvexity is
unchanged). With nonnegativity they bound every product by each of its factors, and they
make the relaxation of the products that of the joint sequence form, which is what lets
a global solver close three-player poker. With approximate products each equation
allows the sum of its payoff products' errors, so every equilibrium stays feasible.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..models.best_response import plan_maximum
from ..models.checks import OptionError
from ..models.efg import group_ranks
from ..models.sequence import SequenceForm
from .linear_program import Block, LinearProgram
from .products import add_product_chain, chain_allowance, chain_error, chain_error_bound

#: Products' representation when none is given (binaries grow like log k).
DEFAULT_PRODUCTS = "log"

#: The NashConv bound aimed at when a game needs products and neither ``epsilon`` nor
#: ``breakpoints`` is given.
DEFAULT_EPSILON = 0.05

#: Objectives of formulation 1, besides ``best:P`` and ``worst:P``.
OBJECTIVES = ("any", "welfare", "maxmin", "envy", "min-support", "max-support")

FORMULATIONS = (1, 2, 3, 4)


@dataclass(frozen=True)
class MipNashLayout:
    """Where a :func:`mip_nash` program keeps its columns and what it proves (the
    :attr:`MipNashProgram.layout`), read by :func:`nash_model`, :func:`read_profile` and
    the ``nash`` route."""

    #: the formulation, 1-4 (module docstring's table)
    formulation: int
    #: the objective of formulation 1 (``any``, ``welfare``, ..., ``best:P``)
    objective: str
    #: first column of each column block, by the block's name (``x0``, ``v0``, ..., ``w``, ``u``)
    offset: Mapping[str, int]
    #: number of sequences of each player (the size of the blocks ``x{i}``, ``s{i}``, ``b{i}``)
    sizes: list[int]
    #: per player, per sequence, the bound ``M_i`` on the sequence's slack
    M: list[np.ndarray]
    #: the factor that turns the objective of formulations 2-4 into a bound on the sum of
    #: the regrets (0 for formulation 1, 1 for formulation 2, the largest ``M`` for 3 and 4)
    bound_factor: float
    #: per product column ``w[j]``, its factors' column indices
    products: list[np.ndarray]
    #: per column ``u[j]`` (the products only the products' own equations mention), its
    #: factors' column indices
    equation_products: list[np.ndarray]
    #: per product column, True when a factor is forbidden: the product is fixed at 0
    vanishing: np.ndarray
    #: breakpoints per square of the approximate products; None without products or
    #: with exact ones
    breakpoints: int | None
    #: the products are exact (bilinear, for a global solver); False without products
    exact: bool
    #: the bound on NashConv that the products' approximation costs (0 without products
    #: or with exact ones)
    promised: float
    #: for a ``measured`` program, per player, the sparse ``|chance * u|`` of each
    #: sequence's payoff products (sequences x products); None otherwise
    allowance_weights: list[sp.csr_matrix] | None


@dataclass
class MipNashProgram(LinearProgram):
    """A program made by :func:`mip_nash`: a :class:`LinearProgram` and its ``layout``.

    A subclass rather than an optional field of every LinearProgram, so that the
    functions that read the layout take only these programs and mypy checks the callers.
    """

    #: the columns' offsets, the products and the bounds the program proves
    layout: MipNashLayout = field(kw_only=True)


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


def sequence_chance_reach(sf: SequenceForm) -> list[np.ndarray]:
    """Per player and sequence, the chance probability of reaching the information set the
    sequence is played at (1 for the empty sequence).

    Whatever the other players do, their realization weights below a node add up to at
    most one, so a sequence's payoff term and each value below its information set lie
    within this mass times the payoff range: it scales every big-M of the program."""
    game = sf.game
    reach = np.ones(game.num_nodes)
    for start, stop in game.levels():
        if start:
            reach[start:stop] = reach[game.parent[start:stop]] * game.chance_prob[start:stop]
    decision = np.flatnonzero(game.player >= 0)
    per_infoset = np.bincount(game.infoset[decision], weights=reach[decision], minlength=game.num_infosets)
    out = []
    for ps in sf.players:
        mass = np.ones(ps.num_sequences)
        if ps.num_infosets:
            owner = ps.sequence_infoset[1:]
            mass[1:] = per_infoset[ps.infoset_global[owner]]
        out.append(np.minimum(mass, 1.0))
    return out


def _products_of_others(sf: SequenceForm) -> tuple[list[dict], np.ndarray]:
    """Each player's payoff against the others, as terms over the program's factors.

    For player ``p`` every terminal contributes ``chance * u_p`` times the product of the
    other players' realization weights of their sequences to it. Empty sequences weigh 1
    and drop out; what is left is nothing (a constant), one weight (linear) or a product
    of two or more, which becomes a product column shared by every player whose terminals
    need the same factors. Returns per player ``kind`` (0, 1 or 2+ factors per terminal),
    the single factor's ``(player, sequence)`` and the product index; and the products'
    keys (one row per product: a sequence per player, 0 where that player is not a factor).
    """
    seqs = sf.terminal_sequences
    n = sf.num_players
    per_player = []
    product_rows = []
    for p in range(n):
        keys = seqs.copy()
        keys[:, p] = 0
        factors = np.count_nonzero(keys, axis=1)
        per_player.append({"keys": keys, "factors": factors})
        product_rows.append(keys[factors >= 2])
    stacked = np.concatenate(product_rows) if product_rows else np.zeros((0, n), dtype=np.int64)
    products, inverse = np.unique(stacked, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    start = 0
    for entry, rows in zip(per_player, product_rows):
        index = np.full(seqs.shape[0], -1, dtype=np.int64)
        index[entry["factors"] >= 2] = inverse[start : start + rows.shape[0]]
        start += rows.shape[0]
        entry["product"] = index
    return per_player, products


def _closed_products(sf: SequenceForm, keys: np.ndarray) -> np.ndarray:
    """The smallest set of factor keys holding ``keys`` that is closed under replacing one
    factor's sequence by a sibling (another action at its information set) or by its
    parent sequence: every key that a product-form sequence-form equation mentions.
    Rows of sequences per player, sorted, keys with fewer than two factors included."""
    current = np.unique(keys, axis=0) if keys.shape[0] else keys
    while current.shape[0]:
        grown = [current]
        for j, ps in enumerate(sf.players):
            rows = current[current[:, j] != 0]
            infoset = ps.sequence_infoset[rows[:, j]]
            parent = rows.copy()
            parent[:, j] = ps.infoset_parent_sequence[infoset]
            count = ps.infoset_num_actions[infoset]
            which = np.repeat(np.arange(rows.shape[0]), count)
            siblings = rows[which]
            siblings[:, j] = ps.infoset_first_sequence[infoset][which] + group_ranks(which)
            grown += [parent, siblings]
        closed = np.unique(np.concatenate(grown), axis=0)
        if closed.shape[0] == current.shape[0]:
            break
        current = closed
    return current


def _product_equations(
    sf: SequenceForm,
    closure: np.ndarray,
    product_keys: np.ndarray,
    closure_keys: np.ndarray,
    offset: dict[str, int],
    num_cols: int,
    slack: np.ndarray,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Rows ``sum_{a in I} w[key with a] - w[key with parent(I)] = 0``, one per key of the
    closure with two or more factors and per factor ``j`` whose sequence is the first at
    its information set ``I``; ``w`` of a one-factor key is that player's ``x``. The
    tolerance of a row is the sum of the approximation errors (``slack``) of the payoff
    products in it, so every equilibrium stays feasible with approximate products."""
    sizes = [ps.num_sequences for ps in sf.players]
    product_codes = _key_codes(product_keys, sizes)
    product_order = np.argsort(product_codes)
    closure_codes = _key_codes(closure_keys, sizes)
    closure_order = np.argsort(closure_codes)
    x_offsets = np.array([offset[f"x{q}"] for q in range(sf.num_players)], dtype=np.int64)

    def columns(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Column of each key and the approximation error it carries."""
        factors = np.count_nonzero(keys, axis=1)
        col = np.empty(keys.shape[0], dtype=np.int64)
        err = np.zeros(keys.shape[0])
        single = factors == 1
        owner = np.argmax(keys[single] != 0, axis=1)
        col[single] = x_offsets[owner] + keys[single, owner]
        multi = np.flatnonzero(factors >= 2)
        codes = _key_codes(keys[multi], sizes)
        at = np.searchsorted(product_codes, codes, sorter=product_order)
        at = np.minimum(at, max(product_codes.shape[0] - 1, 0))
        is_product = product_codes.shape[0] > 0
        found = np.zeros(multi.shape[0], dtype=bool)
        if is_product:
            found = product_codes[product_order[at]] == codes
        col[multi[found]] = offset["w"] + product_order[at[found]]
        err[multi[found]] = slack[product_order[at[found]]]
        rest = multi[~found]
        where = np.searchsorted(closure_codes, codes[~found], sorter=closure_order)
        col[rest] = offset["u"] + closure_order[where]
        return col, err

    row_index, col_index, values = [], [], []
    tolerance = []
    num_rows = 0
    factors = np.count_nonzero(closure, axis=1)
    for j, ps in enumerate(sf.players):
        seq = closure[:, j]
        heads = closure[(factors >= 2) & (seq != 0)]
        heads = heads[ps.infoset_first_sequence[ps.sequence_infoset[heads[:, j]]] == heads[:, j]]
        if not heads.shape[0]:
            continue
        infoset = ps.sequence_infoset[heads[:, j]]
        count = ps.infoset_num_actions[infoset]
        which = np.repeat(np.arange(heads.shape[0]), count)
        members = heads[which]
        members[:, j] = heads[which, j] + group_ranks(which)
        parents = heads.copy()
        parents[:, j] = ps.infoset_parent_sequence[infoset]
        member_col, member_err = columns(members)
        parent_col, parent_err = columns(parents)
        rows_here = np.arange(heads.shape[0]) + num_rows
        row_index += [rows_here[which], rows_here]
        col_index += [member_col, parent_col]
        values += [np.ones(members.shape[0]), -np.ones(heads.shape[0])]
        tolerance.append(np.bincount(which, weights=member_err, minlength=heads.shape[0]) + parent_err)
        num_rows += heads.shape[0]
    if not num_rows:
        return sp.csr_matrix((0, num_cols)), np.zeros(0)
    matrix = sp.csr_matrix(
        (np.concatenate(values), (np.concatenate(row_index), np.concatenate(col_index))), shape=(num_rows, num_cols)
    )
    return matrix, np.concatenate(tolerance)


def _key_codes(keys: np.ndarray, sizes: list[int]) -> np.ndarray:
    """One int64 per key (mixed radix over the players' sequence counts)."""
    code = np.zeros(keys.shape[0], dtype=np.int64)
    for j, size in enumerate(sizes):
        code = code * size + keys[:, j]
    return code


def mip_nash(
    sf: SequenceForm,
    formulation: int = 1,
    objective: str = "any",
    *,
    breakpoints: int | None = None,
    epsilon: float | None = None,
    exact: bool = False,
    forbidden: list[np.ndarray] | None = None,
    linearize: bool = True,
    measured: bool = False,
    box: list[tuple[np.ndarray, np.ndarray]] | None = None,
    played: list[np.ndarray] | None = None,
    excluded: Sequence[list[np.ndarray]] = (),
) -> MipNashProgram:
    """The MIP of ``formulation`` (1-4) for the game ``sf`` (any number of players) in
    sparse form.

    Columns per player ``i`` (blocks named ``x{i}``, ``v{i}``, ``s{i}``, ``b{i}``, and
    ``f{i}`` / ``g{i}`` where the formulation has them), then ``z`` for the ``maxmin`` and
    ``envy`` objectives, then ``w``: one column per product of two or more other players'
    realization weights (games of three or more players; module docstring, "More than two
    players"). The rows are linear in ``w``; :func:`nash_model` adds the products. With
    products, ``breakpoints`` per square (or the fewest meeting ``epsilon``, default
    :data:`DEFAULT_EPSILON`) set the tolerance of every slack; ``exact=True`` means the
    products will be exact (bilinear) and allows none. ``forbidden`` (per player, a mask
    over sequences) fixes those sequences' weights at 0 (actions no equilibrium needs).
    ``linearize`` adds the products' sequence-form equations (module docstring,
    "Tightening the products") in columns ``u``.

    ``measured`` (approximate products only) replaces the fixed tolerance of the regret
    rows by columns ``a{i}``, each sequence's payoff error where the solver lands, which
    :func:`nash_model` bounds by the products' measured errors (module docstring,
    "Refining around an answer"). ``box`` (per player, lower and upper bounds on the
    realization weights) narrows the factors, so the products' breakpoints span only the
    box; ``played`` (per player, a mask) fixes those sequences' binaries at 0 (they may be
    played and must have no regret); each entry of ``excluded`` (per player, the binaries'
    0/1 values) is cut off by a no-good row.

    ``layout`` (a :class:`MipNashLayout`) holds the column offsets, ``M`` per player, the
    factor that turns the objective of formulations 2-4 into a bound on the sum of the
    regrets (``bound_factor``), the products (``products``: per product, its factors'
    column indices), ``breakpoints`` and ``promised``, the bound on NashConv that the
    products' approximation costs (0 without products or with exact ones).
    """
    n_players = sf.num_players
    check_objective(objective, formulation, n_players)
    E = [sf.players[p].constraint_matrix.tocsr() for p in range(n_players)]
    n = [E[p].shape[1] for p in range(n_players)]
    k = [E[p].shape[0] for p in range(n_players)]
    ranges = [payoff_range(sf, p) for p in range(n_players)]
    uses_f = formulation in (2, 4)
    uses_g = formulation in (3, 4)
    uses_z = objective in ("maxmin", "envy")
    terms, product_keys = _products_of_others(sf)
    num_products = product_keys.shape[0]
    measured = bool(measured and num_products and not exact)
    product_factors = np.count_nonzero(product_keys, axis=1)
    # a product with a forbidden factor is 0: no chain, no approximation error
    vanishing = np.zeros(num_products, dtype=bool)
    if forbidden is not None:
        for q in range(n_players):
            vanishing |= forbidden[q][product_keys[:, q]] & (product_keys[:, q] != 0)

    # the products' own sequence-form equations mention products no payoff needs: columns u
    if linearize and num_products:
        closure = _closed_products(sf, product_keys)
        known = np.isin(_key_codes(closure, n), _key_codes(product_keys, n))
        closure_keys = closure[(np.count_nonzero(closure, axis=1) >= 2) & ~known]
    else:
        closure = closure_keys = np.zeros((0, n_players), dtype=np.int64)
    num_closure = closure_keys.shape[0]
    closure_vanishing = np.zeros(num_closure, dtype=bool)
    if forbidden is not None:
        for q in range(n_players):
            closure_vanishing |= forbidden[q][closure_keys[:, q]] & (closure_keys[:, q] != 0)

    # ------------------------------------------------------------ columns
    col_blocks: list[Block] = []
    offset: dict[str, int] = {}

    def add(name: str, size: int, doc: str) -> None:
        start = sum(b.size for b in col_blocks)
        col_blocks.append(Block(name, start, start + size, doc))
        offset[name] = start

    for p in range(n_players):
        add(f"x{p}", n[p], f"player {p + 1}'s realization plan (mixed strategy)")
        add(f"v{p}", k[p], f"player {p + 1}'s best-response values (v[0]: the payoff)")
        add(f"s{p}", n[p], f"regret (slack) of each of player {p + 1}'s sequences")
        add(f"b{p}", n[p], f"1 when player {p + 1}'s sequence is not played")
        if measured:
            add(f"a{p}", n[p], f"error of each of player {p + 1}'s payoff terms where the solver lands")
        if uses_f:
            add(f"f{p}", n[p], "regret on a sequence that may be played")
        if uses_g:
            add(f"g{p}", n[p], "weight on a sequence that has regret")
    if uses_z:
        add("z", 1, "the smallest payoff (maxmin) or the largest payoff gap (envy)")
    add("w", num_products, "product of other players' realization weights")
    add("u", num_closure, "product of realization weights in the products' equations only")
    num_cols = sum(b.size for b in col_blocks)

    # ------------------------------------------------------------ payoff against the others
    against = []  # per player: (sparse sequences x columns, constant per sequence)
    for p in range(n_players):
        t = terms[p]
        seq_p = sf.terminal_sequences[:, p]
        value = sf.terminal_chance * sf.terminal_payoffs[:, p]
        factors = t["factors"]
        constant = np.bincount(seq_p[factors == 0], weights=value[factors == 0], minlength=n[p])
        single = np.flatnonzero(factors == 1)
        owner = np.argmax(t["keys"][single] != 0, axis=1)
        single_col = (
            np.array([offset[f"x{q}"] for q in range(n_players)], dtype=np.int64)[owner] + t["keys"][single, owner]
        )
        multi = np.flatnonzero(factors >= 2)
        rows_ = np.concatenate([seq_p[single], seq_p[multi]])
        cols_ = np.concatenate([single_col, offset["w"] + t["product"][multi]])
        vals_ = np.concatenate([value[single], value[multi]])
        G = sp.csr_matrix((vals_, (rows_, cols_)), shape=(n[p], num_cols))
        G.sum_duplicates()
        G.eliminate_zeros()
        against.append((G, constant))

    # ------------------------------------------------------------ what the products cost
    def deviations(kbp: int) -> list[np.ndarray]:
        """Per player and sequence, the bound on the error of its payoff term."""
        err = np.zeros(num_cols)
        if num_products and box is None:
            by_count = {f: chain_error(kbp, int(f)) for f in np.unique(product_factors)}
            err[offset["w"] : offset["w"] + num_products] = [by_count[f] for f in product_factors]
        elif num_products:
            assert box is not None
            # the chains' grids span the box, so each product's error follows its factors' ranges
            err[offset["w"] : offset["w"] + num_products] = [
                chain_error_bound(kbp, [(box[q][0][s], box[q][1][s]) for q, s in enumerate(key) if s])
                for key in product_keys
            ]
        err[offset["w"] : offset["w"] + num_products][vanishing] = 0.0
        return [abs(G) @ err for G, _ in against]

    def promise(dev: list[np.ndarray]) -> float:
        return 4.0 * sum(plan_maximum(sf.players[p], dev[p])[0] for p in range(n_players))

    if num_products and not exact:
        if breakpoints is None:
            target = DEFAULT_EPSILON if epsilon is None else float(epsilon)
            breakpoints = _fewest_breakpoints(lambda kbp: promise(deviations(kbp)), target)
        dev = deviations(breakpoints)
    else:
        breakpoints = None
        dev = [np.zeros(n[p]) for p in range(n_players)]
    reach = [plan_maximum(sf.players[p], dev[p])[0] for p in range(n_players)]
    promised = 4.0 * sum(reach)
    mass = sequence_chance_reach(sf)
    big = [np.maximum(m * (hi - lo), 1e-9) + 2.0 * a for m, (lo, hi), a in zip(mass, ranges, reach)]

    lower = np.empty(num_cols)
    upper = np.empty(num_cols)
    integer = np.zeros(num_cols, dtype=bool)

    def bounds(name: str, lo: float | np.ndarray, hi: float | np.ndarray) -> None:
        b = next(b for b in col_blocks if b.name == name)
        lower[b.start : b.stop] = lo
        upper[b.start : b.stop] = hi

    for p in range(n_players):
        lo, hi = ranges[p]
        bounds(f"x{p}", 0.0, 1.0)
        bounds(f"v{p}", lo - reach[p], hi + reach[p])
        bounds(f"s{p}", -dev[p], big[p] + dev[p])
        bounds(f"b{p}", 0.0, 1.0)
        if forbidden is not None:
            upper[offset[f"x{p}"] : offset[f"x{p}"] + n[p]][forbidden[p]] = 0.0
            lower[offset[f"b{p}"] : offset[f"b{p}"] + n[p]][forbidden[p]] = 1.0
        integer[offset[f"b{p}"] : offset[f"b{p}"] + n[p]] = True
        if measured:
            bounds(f"a{p}", 0.0, dev[p])
        if box is not None:
            x_range = slice(offset[f"x{p}"], offset[f"x{p}"] + n[p])
            lower[x_range] = np.maximum(lower[x_range], box[p][0])
            upper[x_range] = np.minimum(upper[x_range], box[p][1])
        if played is not None:
            upper[offset[f"b{p}"] : offset[f"b{p}"] + n[p]][played[p]] = 0.0
        if uses_f:
            bounds(f"f{p}", 0.0, np.inf)
        if uses_g:
            bounds(f"g{p}", 0.0, 1.0)
    if uses_z:
        bounds("z", -np.inf, np.inf)
    if num_products:
        slack = np.array([chain_error(breakpoints, int(f)) if breakpoints else 0.0 for f in product_factors])
        bounds("w", np.where(vanishing, 0.0, -slack), np.where(vanishing, 0.0, 1.0 + slack))
        bounds("u", 0.0, np.where(closure_vanishing, 0.0, 1.0))

    # ------------------------------------------------------------ rows
    pieces: list[sp.spmatrix] = []
    row_lo: list[np.ndarray] = []
    row_hi: list[np.ndarray] = []
    row_blocks: list[Block] = []

    def rows(
        name: str,
        parts: dict[str, sp.spmatrix],
        lo: np.ndarray,
        hi: np.ndarray,
        doc: str,
        full: sp.spmatrix | None = None,
    ) -> None:
        size = lo.shape[0]
        blocks = []
        for block in col_blocks:
            m = parts.get(block.name)
            blocks.append(sp.csr_matrix((size, block.size)) if m is None else sp.csr_matrix(m))
        matrix = sp.hstack(blocks, format="csr")
        pieces.append(matrix if full is None else (matrix + full).tocsr())
        start = sum(b.size for b in row_blocks)
        row_blocks.append(Block(name, start, start + size, doc))
        row_lo.append(lo)
        row_hi.append(hi)

    for p in range(n_players):
        eye = sp.identity(n[p], format="csr")
        G, constant = against[p]
        tol = dev[p]
        rows(f"realization{p}", {f"x{p}": E[p]}, e_vector(k[p]), e_vector(k[p]), f"E x = e for player {p + 1}")
        # E' v - (payoff against the others) - s = constant part of that payoff
        rows(
            f"slack{p}",
            {f"v{p}": E[p].T, f"s{p}": -eye},
            constant,
            constant,
            f"each of player {p + 1}'s sequences: its regret against the others' plans",
            full=-G,
        )
        if formulation in (1, 2):
            rows(f"played{p}", {f"x{p}": eye, f"b{p}": eye}, np.full(n[p], -np.inf), np.ones(n[p]), "x <= 1 - b")
        # with measured errors the tolerance is the column a, not the fixed bound
        allow = {f"a{p}": eye} if measured else {}
        if measured:
            rows(f"regret_floor{p}", {f"s{p}": eye, **allow}, np.zeros(n[p]), np.full(n[p], np.inf), "s >= -a")
            tol = np.zeros(n[p])
        if formulation in (1, 3):
            rows(
                f"no_regret{p}",
                {f"s{p}": eye, f"b{p}": -sp.diags(big[p]), **{c: -m for c, m in allow.items()}},
                np.full(n[p], -np.inf),
                tol,
                "s <= tolerance + M b: a sequence that may be played has no regret",
            )
        if uses_f:
            rows(
                f"regret_penalty{p}",
                {f"f{p}": eye, f"s{p}": -eye, f"b{p}": sp.diags(big[p]), **allow},
                -tol,
                np.full(n[p], np.inf),
                "f >= s - tolerance - M b",
            )
        if uses_g:
            rows(
                f"weight_penalty{p}",
                {f"g{p}": eye, f"x{p}": -eye, f"b{p}": -eye},
                np.full(n[p], -1.0),
                np.full(n[p], np.inf),
                "g >= x + b - 1",
            )
    if linearize and num_products:
        equations, tolerance = _product_equations(
            sf, closure, product_keys, closure_keys, offset, num_cols, np.where(vanishing, 0.0, slack)
        )
        if equations.shape[0]:
            rows(
                "product_equations",
                {},
                -tolerance,
                tolerance,
                "sum of a product over the actions of one factor's information set = the product with its parent",
                full=equations,
            )
    for index, binaries in enumerate(excluded):
        # no-good row: at least one binary differs from this assignment
        parts = {f"b{p}": sp.csr_matrix(np.where(binaries[p] > 0.5, -1.0, 1.0)[None, :]) for p in range(n_players)}
        ones = sum(int(np.count_nonzero(binaries[p] > 0.5)) for p in range(n_players))
        rows(f"excluded{index}", parts, np.array([1.0 - ones]), np.array([np.inf]), "another support than a cut one")
    if uses_z:
        root = [sp.csr_matrix(([1.0], ([0], [0])), shape=(1, k[p])) for p in range(n_players)]
        one = sp.csr_matrix(np.ones((1, 1)))
        if objective == "maxmin":  # z <= v_p[0]
            for p in range(n_players):
                rows(f"maxmin{p}", {"z": one, f"v{p}": -root[p]}, np.array([-np.inf]), np.zeros(1), "z <= payoff")
        else:  # z >= v_p[0] - v_q[0] for every ordered pair
            for p in range(n_players):
                for q in range(n_players):
                    if p != q:
                        rows(
                            f"envy{p}_{q}",
                            {"z": one, f"v{p}": -root[p], f"v{q}": root[q]},
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
            for p in range(n_players):
                c[offset[f"v{p}"]] = 1.0
            maximize = True
        elif objective == "maxmin":
            c[offset["z"]] = 1.0
            maximize = True
        elif objective == "envy":
            c[offset["z"]] = 1.0
        elif objective in ("min-support", "max-support"):
            # sum (1 - b) allowed sequences: min-support maximises sum b
            for p in range(n_players):
                c[offset[f"b{p}"] : offset[f"b{p}"] + n[p]] = 1.0
            maximize = objective == "min-support"
        elif kind in ("best", "worst"):
            c[offset[f"v{int(who) - 1}"]] = 1.0
            maximize = kind == "best"
    else:
        for p in range(n_players):
            if uses_f:
                c[offset[f"f{p}"] : offset[f"f{p}"] + n[p]] = 1.0 / big[p] if formulation == 4 else 1.0
            if uses_g:
                c[offset[f"g{p}"] : offset[f"g{p}"] + n[p]] = 1.0
    largest = max(float(m.max()) for m in big)
    bound_factor = {1: 0.0, 2: 1.0, 3: largest, 4: largest}[formulation]
    x_offsets = np.array([offset[f"x{q}"] for q in range(n_players)], dtype=np.int64)
    factor_columns = [x_offsets[np.flatnonzero(key)] + key[np.flatnonzero(key)] for key in product_keys]
    blocks = [(b.name, b.size) for b in col_blocks]

    def names() -> tuple[list[str], list[str]]:
        # the realization plans named as in every export, so a solver's solution file
        # of this program is certified like one of the sequence-form LP's
        from ..models.sequence_names import mip_nash_column_names

        return mip_nash_column_names(sf, blocks), LinearProgram._names(row_blocks)

    return MipNashProgram(
        name=f"mip_nash_F{formulation}",
        names=names,
        c=c,
        A=sp.vstack(pieces, format="csc"),
        row_lower=np.concatenate(row_lo),
        row_upper=np.concatenate(row_hi),
        col_lower=lower,
        col_upper=upper,
        maximize=maximize,
        col_blocks=col_blocks,
        row_blocks=row_blocks,
        integrality=integer,
        objective_doc=f"formulation {formulation}, objective {objective}",
        layout=MipNashLayout(
            formulation=formulation,
            objective=objective,
            offset=offset,
            sizes=n,
            M=big,
            bound_factor=bound_factor,
            products=factor_columns,
            equation_products=[x_offsets[np.flatnonzero(key)] + key[np.flatnonzero(key)] for key in closure_keys],
            vanishing=vanishing,
            breakpoints=breakpoints,
            exact=bool(exact and num_products),
            promised=promised,
            allowance_weights=(
                [abs(G[:, offset["w"] : offset["w"] + num_products]).tocsr() for G, _ in against] if measured else None
            ),
        ),
    )


def _fewest_breakpoints(promise_at: Callable[[int], float], target: float) -> int:
    """Smallest ``k`` with ``promise_at(k) <= target`` (``promise_at`` decreases in k)."""
    if not target > 0:
        raise OptionError(f"epsilon must be a positive number, not {target!r}")
    high = 2
    while promise_at(high) > target:
        high *= 2
        if high > 1 << 20:
            raise OptionError(f"epsilon {target:g} needs more than a million breakpoints per square; ask for less")
    low = max(2, high // 2)
    while low < high:
        mid = (low + high) // 2
        if promise_at(mid) <= target:
            high = mid
        else:
            low = mid + 1
    return low


def nash_model(lp: MipNashProgram, *, representation: str = DEFAULT_PRODUCTS, mccormick: bool = False) -> Any:
    """The Pyomo model of a :func:`mip_nash` program with products: the program's rows as
    matrix rows and, per product column ``w[j]`` not fixed at 0, ``w[j] == chain`` of its factors built
    by :func:`equilibria.formulations.products.add_product_chain` with the program's
    breakpoints (``representation`` ``exact``: bilinear, for a global solver)."""
    import pyomo.environ as pyo

    layout = lp.layout
    model = lp.to_pyomo()
    products = layout.products
    if not products:
        return model
    columns = np.empty(lp.num_cols, dtype=object)
    for b in lp.col_blocks:
        var = model.component(b.name)
        columns[b.start : b.stop] = [var[i] for i in range(b.size)]
    model.products = pyo.Block()
    links = []
    w_start = layout.offset["w"]
    vanishing = layout.vanishing
    for j, cols in enumerate(products):
        if vanishing[j]:
            continue  # fixed at 0 by its column bounds
        chain = add_product_chain(
            model.products,
            list(columns[cols]),
            name=f"product{j}",
            breakpoints=layout.breakpoints or 2,
            representation=representation,
            mccormick=mccormick,
        )
        links.append((columns[w_start + j], chain))
    model.product_link = pyo.Constraint(range(len(links)), rule=lambda m, j: links[j][0] == links[j][1])
    weights = layout.allowance_weights
    if weights is not None and representation != "exact":
        # a{p}[s] <= sum over its payoff products of |chance * u| times the product's error
        # where the solver lands (zero on grid points)
        errors: dict[int, Any] = {}
        for j in range(len(products)):
            if not vanishing[j]:
                errors[j] = chain_allowance(model.products.component(f"product{j}"))[0]
        model.allowance = pyo.ConstraintList()
        for p, matrix in enumerate(weights):
            allowance = model.component(f"a{p}")
            for s in range(matrix.shape[0]):
                lo, hi = matrix.indptr[s], matrix.indptr[s + 1]
                bound = sum(
                    float(v) * errors[int(j)]
                    for j, v in zip(matrix.indices[lo:hi], matrix.data[lo:hi])
                    if int(j) in errors
                )
                if isinstance(bound, float):
                    allowance[s].setub(0.0)
                else:
                    model.allowance.add(allowance[s] <= bound)
    return model


def e_vector(rows: int) -> np.ndarray:
    """The right-hand side ``e``: 1 for the empty sequence's row, 0 for the others."""
    e = np.zeros(rows)
    e[0] = 1.0
    return e


def read_profile(lp: MipNashProgram, x: np.ndarray) -> tuple[list[np.ndarray], list[float]]:
    """The realization plans and the payoffs (``v_i[0]``) in a solution ``x`` of
    :func:`mip_nash`; plans clipped to [0, 1]."""
    off, n = lp.layout.offset, lp.layout.sizes
    players = range(len(n))
    plans = [np.clip(x[off[f"x{p}"] : off[f"x{p}"] + n[p]], 0.0, 1.0) for p in players]
    return plans, [float(x[off[f"v{p}"]]) for p in players]


__all__ = [
    "DEFAULT_EPSILON",
    "DEFAULT_PRODUCTS",
    "FORMULATIONS",
    "OBJECTIVES",
    "MipNashLayout",
    "MipNashProgram",
    "check_objective",
    "mip_nash",
    "nash_model",
    "payoff_range",
    "read_profile",
]
