"""Products of bounded variables in a Pyomo model: ``z ~= x*y`` by two piecewise-linear
squares, or exactly as a bilinear constraint for a global solver.

The construction is the one Ganzfried and Sandholm, "Computing equilibria by incorporating
qualitative models" (2010), use for the indifference equations of games with three or more
players: with ``beta1 = (x + y)/2`` and ``beta2 = (x - y)/2`` the product is
``x*y = beta1**2 - beta2**2``, and each square is a function of one variable, which a MIP
represents on a grid of breakpoints. For factors in [0, 1], ``beta1`` ranges over [0, 1] and
``beta2`` over [-1/2, 1/2]; both intervals have width 1 and get ``k`` equally spaced
breakpoints (spacing ``h = 1/(k-1)``). Factors with other finite bounds are first scaled
affinely to [0, 1]: with ``x = lx + Dx*u`` and ``y = ly + Dy*v``,
``x*y = lx*ly + lx*(y - ly) + ly*(x - lx) + Dx*Dy*u*v``, and only ``u*v`` is approximated.

Representations (``representation=``), all from Pyomo's own piecewise machinery; the
binaries and SOS sets are counted per square (two squares per product), ``k`` breakpoints:

``sos2``         classic ``pyo.Piecewise(pw_repn="SOS2")``: convex-combination weights in one
                 SOS2 set of ``k`` variables, no binaries. Reaches SCIP and Gurobi as a
                 native SOS2 constraint (``solve_model`` routes SOS models to the backend's
                 Pyomo interface); HiGHS has no SOS and refuses it (capability ``sos2``).
``cc``           classic ``pyo.Piecewise(pw_repn="CC")``: the same weights, with one binary
                 per segment enforcing adjacency (``k - 1`` binaries): the SOS2 model for a
                 solver without SOS constraints, as the 2010 paper describes it.
``incremental``  classic ``pyo.Piecewise(pw_repn="INC")``: filling variables per segment and
                 ``k - 2`` binaries (the first segment needs none).

For ``cc`` and ``incremental`` the classic component was chosen over the equivalent
``contrib.piecewise.convex_combination`` / ``incremental`` transformations because it builds
far faster: at ``k = 512`` one product took 0.02 s with either against 54 s and
1.3 s through the transformations, with the same binaries.
``log``          classic ``pyo.Piecewise(pw_repn="LOG")``: the logarithmic convex
                 combination of Vielma and Nemhauser, "Modeling disjunctive constraints with
                 a logarithmic number of binary variables and constraints" (2011), with a
                 Gray code on the segments: ``ceil(log2(k - 1))`` binaries. Pyomo's LOG
                 accepts only ``2**n + 1`` points, so the grid is continued past the top of
                 the range to the next such count with the same spacing; the variable's
                 bounds keep it off the added segments, so the function on the range is the
                 one on ``k`` breakpoints.
``dlog``         ``contrib.piecewise.disaggregated_logarithmic``: the disaggregated
                 logarithmic model of the same paper, ``ceil(log2(k - 1))`` binaries, any
                 ``k``. (The classic ``pw_repn="DLOG"`` was measured to create ``O(k**2)``
                 variables, 4097 at ``k = 64`` against 135 here, and also needs ``2**n + 1``
                 points.)
``exact``        ``z == x*y`` as a bilinear equality: a nonconvex quadratic constraint for a
                 backend with the ``bilinear`` capability (SCIP's spatial branch and bound,
                 Gurobi's nonconvex MIQCP). No breakpoints, no error.

Measured here (Pyomo 6.10, HiGHS 1.15, SCIP 10): every representation but ``sos2`` compiles
to a MILP that HiGHS and SCIP both take through the matrix route; ``sos2`` needs SCIP or
Gurobi. The GDP-based transformations (``nested_inner_repn_gdp``, ``inner_repn_gdp``,
``outer_repn_gdp``) leave disjunctions that would need a second ``gdp.*`` transformation,
so they are not offered. ``benchmarks/products.py`` compares the sizes and times.

The error bound
---------------
Let ``g(t) = t**2`` and ``[a, a + h]`` a segment; the interpolant is the chord
``c(t) = g(a) + (2a + h)(t - a)``, and ``c(t) - g(t) = (t - a)(a + h - t)``, a concave
quadratic that vanishes at both ends and peaks at the midpoint with value ``(h/2)**2``.
So the chord lies above the square and exceeds it by at most ``h**2/4``. For the product,
``s1 = beta1**2 + e1`` and ``s2 = beta2**2 + e2`` with ``e1, e2`` in ``[0, h**2/4]``, and
``s1 - s2 - u*v = e1 - e2`` lies in ``[-h**2/4, h**2/4]``: because both errors have the same
sign, the bound is ``max(h1, h2)**2/4``, half the sum bound ``(h1**2 + h2**2)/4``. With unit
ranges and ``h = 1/(k-1)``, and after the affine scaling,

    ``|z - x*y| <= Dx * Dy / (4 * (k - 1)**2)``        (:func:`product_error`)

The bound is attained: with ``k = 3`` and ``x = y = 1/4``, ``beta1 = 1/4`` is the midpoint
of the segment [0, 1/2] and ``beta2 = 0`` a breakpoint, so ``z - x*y = 1/16 = h**2/4``.
With ``x`` and ``y`` fixed, every representation above determines ``s1`` and ``s2`` (the
interpolant is a function), so ``z`` is the interpolated value, not just within the bound.

A chain ``x1*x2*...*xn`` is built pairwise, ``w2 ~= x1*x2``, ``w_j ~= w_(j-1)*x_j``. The
intermediate ``w`` may leave the product's range by its own error, so its bounds are widened
by that error (the next product is scaled to them). With ``E_j`` the bound on
``|w_j - x1*...*xj|`` and ``d_j`` the bound of step ``j``:

    ``E_2 = d_2,   E_j = d_j + max|x_j| * E_(j-1)``        (:func:`chain_error`)

Breakpoints for an epsilon guarantee
------------------------------------
An indifference equation of an n-player game is ``f = sum_t c_t * P_t`` over at most ``T``
terms, each a payoff coefficient ``|c_t| <= M`` times a product ``P_t`` of ``n - 1``
probabilities. Replacing each ``P_t`` by its chain ``W_t`` (``|W_t - P_t| <= E``) gives
``|f~ - f| <= T * M * E``. The program of the 2010 paper requires ``|f~| <= epsilon/2``; then
``|f| <= epsilon/2 + T*M*E``, and the true equation holds to ``epsilon`` whenever

    ``T * M * E(k, n - 1) <= epsilon / 2``

which :func:`breakpoints_for_indifference` solves for the smallest ``k``. For two-factor
products (three players) this reads ``k - 1 >= sqrt(T * M / (2 * epsilon))``. This bounds
the residual of every indifference equation, the quantity the paper's Theorem 3 controls
through its breakpoint condition; the step from residuals to an epsilon-equilibrium is the
theorem's and is not re-proved here.

McCormick cuts
--------------
``mccormick=True`` adds the four inequalities of McCormick, "Computability of global
solutions to factorable nonconvex programs: Part I - Convex underestimating problems"
(1976), which bound ``x*y`` over the box. An approximated ``z`` may differ from ``x*y`` by
the error bound, so the cuts are loosened by it (by nothing for ``exact``): they tighten
the LP relaxation but never cut off a point the piecewise model admits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pyomo.environ as pyo

from ..models.checks import OptionError
from ..models.vocabulary import PRODUCTS

REPRESENTATIONS = PRODUCTS
"""Accepted values of ``representation``; see the module docstring."""

_CONTRIB = {"dlog": "contrib.piecewise.disaggregated_logarithmic"}
_CLASSIC = {"sos2": "SOS2", "cc": "CC", "incremental": "INC", "log": "LOG"}


# ---------------------------------------------------------------------------------------
# error bounds


def square_error(breakpoints: int, width: float = 1.0) -> float:
    """Largest amount by which the interpolant of ``t**2`` on ``breakpoints`` equally spaced
    points over an interval of ``width`` exceeds ``t**2``: ``(width/(k-1))**2 / 4``."""
    k = _breakpoints(breakpoints)
    return (width / (k - 1)) ** 2 / 4.0


def product_error(breakpoints: int, x_width: float = 1.0, y_width: float = 1.0) -> float:
    """Bound on ``|z - x*y|`` for one product built by :func:`add_product` with
    ``breakpoints`` per square, for factors whose ranges have widths ``x_width`` and
    ``y_width``: ``x_width * y_width / (4 * (k - 1)**2)`` (derived in the module docstring).
    Returned in the units of ``x*y``."""
    return x_width * y_width * square_error(breakpoints)


def breakpoints_for(error: float, x_width: float = 1.0, y_width: float = 1.0) -> int:
    """Smallest number of breakpoints per square for which :func:`product_error` is at most
    ``error`` (a positive number in the units of ``x*y``)."""
    if not error > 0 or not math.isfinite(error):
        raise OptionError(f"error must be a positive finite number, not {error!r}")
    k = 1 + max(1, math.ceil(math.sqrt(x_width * y_width / (4.0 * error))))
    while k > 2 and product_error(k - 1, x_width, y_width) <= error:
        k -= 1  # guard against the square root rounding up
    while product_error(k, x_width, y_width) > error:
        k += 1
    return k


def _product_range(x: tuple[float, float], y: tuple[float, float]) -> tuple[float, float]:
    corners = [a * b for a in x for b in y]
    return min(corners), max(corners)


def chain_error_bound(breakpoints: int, bounds: Sequence[tuple[float, float]]) -> float:
    """Bound on ``|w - x1*...*xn|`` for a chain built by :func:`add_product_chain` with
    ``breakpoints`` per square over factors with the given (lower, upper) bounds: the
    recursion of the module docstring, following the widened bounds of the intermediate
    products exactly as the chain builds them (equal to the chain's ``error_bound``)."""
    if len(bounds) < 1:
        raise OptionError("a chain needs at least one factor")
    k = _breakpoints(breakpoints)
    low, high = (float(v) for v in bounds[0])
    total = 0.0
    for lx, ux in bounds[1:]:
        step = 0.0 if (high - low == 0 or ux - lx == 0) else product_error(k, high - low, ux - lx)
        low, high = _product_range((low, high), (lx, ux))
        low, high = low - step, high + step
        total = step + max(abs(lx), abs(ux)) * total
    return total


def chain_error(breakpoints: int, factors: int) -> float:
    """Bound on ``|w - x1*...*xn|`` for a chain of ``factors`` variables in [0, 1] built by
    :func:`add_product_chain` with ``breakpoints`` per square (the recursion of the module
    docstring, with the widened bounds of the intermediate products); 0 for one factor."""
    if factors < 1:
        raise OptionError(f"a chain needs at least one factor, not {factors!r}")
    return chain_error_bound(breakpoints, [(0.0, 1.0)] * factors)


def breakpoints_for_indifference(epsilon: float, *, payoff_range: float, terms: int, factors: int) -> int:
    """Smallest number of breakpoints per square such that an indifference equation of
    ``terms`` terms, each a coefficient of absolute value at most ``payoff_range`` times a
    chain of ``factors`` probabilities, is off by at most ``epsilon / 2`` once every product
    is approximated: ``terms * payoff_range * chain_error(k, factors) <= epsilon / 2``.
    Requiring ``|f~| <= epsilon/2`` in the program then gives ``|f| <= epsilon``."""
    if not epsilon > 0 or not math.isfinite(epsilon):
        raise OptionError(f"epsilon must be a positive finite number, not {epsilon!r}")
    if factors < 2:
        raise OptionError(f"an indifference term needs at least two factors to approximate, not {factors!r}")
    target = epsilon / 2.0 / (terms * payoff_range)
    high = 2
    while chain_error(high, factors) > target:
        high *= 2
    low = max(2, high // 2)
    while low < high:  # chain_error decreases in k
        mid = (low + high) // 2
        if chain_error(mid, factors) <= target:
            high = mid
        else:
            low = mid + 1
    return low


# ---------------------------------------------------------------------------------------
# building products


def _breakpoints(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise OptionError(f"breakpoints must be a whole number at least 2, not {k!r}")
    return k


def _bounds(var: Any, what: str) -> tuple[float, float]:
    lb, ub = var.lb, var.ub
    if lb is None or ub is None or not (math.isfinite(lb) and math.isfinite(ub)) or lb > ub:
        raise OptionError(f"the factor {var.name} of product '{what}' needs finite bounds, not [{lb}, {ub}]")
    return float(lb), float(ub)


def uniform_grid(low: float, breakpoints: int) -> list[float]:
    """``breakpoints`` equally spaced points over ``[low, low + 1]``."""
    k = _breakpoints(breakpoints)
    return [low + i / (k - 1) for i in range(k)]


def _log_points(points: list[float]) -> list[float]:
    """Pyomo's LOG takes ``2**n + 1`` points: the grid is continued past the top of the
    range with its last spacing; the argument's bounds keep it off the added segments, so
    the function on the range is the one on ``points``."""
    pts = list(points)
    target = 2 ** math.ceil(math.log2(len(pts) - 1)) + 1 if len(pts) > 2 else 2
    step = pts[-1] - pts[-2]
    while len(pts) < target:
        pts.append(pts[-1] + step)
    return pts


def grid_error(points: Sequence[float]) -> float:
    """Largest amount by which the interpolant of ``t**2`` on ``points`` exceeds ``t**2``:
    a quarter of the widest segment's square."""
    return max((b - a) ** 2 for a, b in zip(points[:-1], points[1:])) / 4.0


def _square(block: pyo.Block, tag: str, arg: pyo.Var, points: list[float], representation: str) -> pyo.Var:
    """Add ``s_tag ~= arg**2`` interpolated on ``points``; return ``s_tag``. The points
    actually used (padded for ``log``) are kept on the block as ``grid<tag>``."""
    s = pyo.Var()
    block.add_component(f"s{tag}", s)
    if representation in _CLASSIC:
        if representation == "log":
            points = _log_points(points)
        pw = pyo.Piecewise(
            s,
            arg,
            pw_pts=points,
            f_rule=[t * t for t in points],
            pw_constr_type="EQ",
            pw_repn=_CLASSIC[representation],
            warn_domain_coverage=False,
        )
        block.add_component(f"square{tag}", pw)
    else:
        from pyomo.contrib.piecewise import PiecewiseLinearFunction

        f = PiecewiseLinearFunction(points=points, function=lambda t: t * t)
        block.add_component(f"square{tag}", f)
        block.add_component(f"interpolate{tag}", pyo.Constraint(expr=s == f(arg)))
    grids = block.__dict__.setdefault("_grids", {})
    grids[tag] = list(points)
    return s


def add_error_allowance(product: pyo.Block) -> Any:
    """Add to one :func:`add_product` block a bound on its error at whatever point the
    solver picks, and return it: ``Dx*Dy*(chord1 + chord2)``, 0 for an exact product.

    The chord of square ``i`` exceeds ``beta_i**2`` by ``e_i = s_i - beta_i**2``, and the
    product's error is ``Dx*Dy*(e1 - e2)``, so ``|z - x*y| <= Dx*Dy*(e1 + e2)``. As
    ``beta**2`` lies above each of its tangents, ``e <= s - (2*t*beta - t**2)`` for every
    ``t``; the rows ``tangent1``/``tangent2`` bound ``chord_i`` so at every grid point and
    every segment's midpoint, which makes the bound vanish at the grid points and stay
    within ``5/16`` of the squared segment width between them. The variables ``chord1``,
    ``chord2`` sit on the right of the rows that use them, so a solver can only make them
    smaller than the bound, never larger.
    """
    grids = product.__dict__.get("_grids")
    if not grids:
        return 0.0
    total: Any = 0.0
    for tag, points in grids.items():
        beta = product.component(f"beta{tag}")
        square = product.component(f"s{tag}")
        tangents = sorted(set(points) | {(a + b) / 2.0 for a, b in zip(points[:-1], points[1:])})
        chord = pyo.Var(bounds=(0.0, None))
        product.add_component(f"chord{tag}", chord)
        rows = pyo.ConstraintList()
        product.add_component(f"tangent{tag}", rows)
        for t in tangents:
            rows.add(chord <= square - (2.0 * t * beta - t * t))
        total += chord
    return product.__dict__["_scale"] * total


def chain_allowance(chain: pyo.Block) -> tuple[Any, float]:
    """A chain's error bound where the solver lands (the sum of its steps'
    :func:`~equilibria.formulations.products.add_error_allowance`: every later factor is a
    fraction in [0, 1], so an earlier error does not grow) and the most it can be."""
    total: Any = 0.0
    ceiling = 0.0
    j = 2
    while chain.component(f"step{j}") is not None:
        step = chain.component(f"step{j}")
        total += add_error_allowance(step)
        grids = step.__dict__.get("_grids") or {}
        ceiling += step.__dict__.get("_scale", 0.0) * sum(5.0 / 16.0 * 4.0 * grid_error(g) for g in grids.values())
        j += 1
    return total, ceiling


def add_product(
    block: pyo.Block,
    x: Any,
    y: Any,
    *,
    name: str,
    breakpoints: int = 9,
    representation: str = "log",
    mccormick: bool = False,
) -> pyo.Var:
    """Add to ``block`` a sub-block ``name`` holding ``z ~= x*y`` and return the variable ``z``.

    ``x`` and ``y`` are Pyomo variables with finite bounds (typically probabilities in
    [0, 1]). The sub-block holds ``beta1``, ``beta2`` (the scaled half sum and half
    difference), ``s1``, ``s2`` (their approximate squares), the piecewise components
    ``square1``/``square2`` and the constraint ``product``; ``error_bound`` (a Param) is the
    proven ``|z - x*y|`` of :func:`product_error` (0 for ``exact``). ``z`` is bounded by
    the range of ``x*y`` widened by that error. ``representation`` is one of
    :data:`REPRESENTATIONS`; ``breakpoints`` (at least 2) is the number per square and is
    ignored by ``exact``. ``mccormick`` adds the four envelope cuts ``mccormick[1..4]``.
    """
    if representation not in REPRESENTATIONS:
        raise OptionError(f"representation must be one of {', '.join(REPRESENTATIONS)}, not {representation!r}")
    k = _breakpoints(breakpoints)
    if block.component(name) is not None:
        raise OptionError(f"the block {block.name} already has a component named '{name}'")
    lx, ux = _bounds(x, name)
    ly, uy = _bounds(y, name)
    dx, dy = ux - lx, uy - ly
    exact = representation == "exact" or dx == 0 or dy == 0
    points1, points2 = uniform_grid(0.0, k), uniform_grid(-0.5, k)
    error = 0.0 if exact else dx * dy * max(grid_error(points1), grid_error(points2))
    low, high = _product_range((lx, ux), (ly, uy))

    sub = pyo.Block()
    block.add_component(name, sub)
    sub.error_bound = pyo.Param(initialize=error, within=pyo.NonNegativeReals)
    sub.z = pyo.Var(bounds=(low - error, high + error))
    z = sub.z
    if exact:
        sub.product = pyo.Constraint(expr=z == x * y)
    else:
        u = (x - lx) / dx
        v = (y - ly) / dy
        sub.beta1 = pyo.Var(bounds=(0.0, 1.0))
        sub.beta2 = pyo.Var(bounds=(-0.5, 0.5))
        sub.half_sum = pyo.Constraint(expr=sub.beta1 == (u + v) / 2)
        sub.half_difference = pyo.Constraint(expr=sub.beta2 == (u - v) / 2)
        sub.__dict__["_scale"] = dx * dy
        s1 = _square(sub, "1", sub.beta1, points1, representation)
        s2 = _square(sub, "2", sub.beta2, points2, representation)
        sub.product = pyo.Constraint(expr=z == lx * ly + lx * (y - ly) + ly * (x - lx) + dx * dy * (s1 - s2))
        if representation in _CONTRIB:
            pyo.TransformationFactory(_CONTRIB[representation]).apply_to(sub.model(), targets=[sub])
    if mccormick:
        sub.mccormick = pyo.ConstraintList()
        sub.mccormick.add(z >= lx * y + ly * x - lx * ly - error)
        sub.mccormick.add(z >= ux * y + uy * x - ux * uy - error)
        sub.mccormick.add(z <= ux * y + ly * x - ux * ly + error)
        sub.mccormick.add(z <= lx * y + uy * x - lx * uy + error)
    return z


def add_product_chain(
    block: pyo.Block,
    factors: Sequence[Any],
    *,
    name: str,
    breakpoints: int = 9,
    representation: str = "log",
    mccormick: bool = False,
) -> Any:
    """Add ``w ~= factors[0] * factors[1] * ...`` to ``block`` as pairwise products and
    return ``w`` (the single factor itself when there is one).

    The sub-block ``name`` holds steps ``step2``, ``step3``, ... (each an
    :func:`add_product` block, ``w_j ~= w_(j-1) * x_j``) and ``error_bound``, the
    accumulated bound ``E_n`` on ``|w - x1*...*xn|`` of the module docstring; for factors in
    [0, 1] it equals :func:`chain_error`. Options are passed to every step.
    """
    if len(factors) == 0:
        raise OptionError(f"the chain '{name}' needs at least one factor")
    if block.component(name) is not None:
        raise OptionError(f"the block {block.name} already has a component named '{name}'")
    sub = pyo.Block()
    block.add_component(name, sub)
    w = factors[0]
    total = 0.0
    for j, x in enumerate(factors[1:], start=2):
        lx, ux = _bounds(x, name)
        w = add_product(
            sub,
            w,
            x,
            name=f"step{j}",
            breakpoints=breakpoints,
            representation=representation,
            mccormick=mccormick,
        )
        total = pyo.value(sub.component(f"step{j}").error_bound) + max(abs(lx), abs(ux)) * total
    sub.error_bound = pyo.Param(initialize=total, within=pyo.NonNegativeReals)
    return w


# ---------------------------------------------------------------------------------------
# sizes


def count_binaries(model: pyo.Block) -> int:
    """Number of binary and general-integer variables in the active part of ``model`` that
    are not fixed."""
    return sum(
        1
        for v in model.component_data_objects(pyo.Var, active=True, descend_into=True)
        if not v.fixed and (v.is_binary() or v.is_integer())
    )


def count_sos(model: pyo.Block, level: int = 2) -> int:
    """Number of active SOS constraints of ``level`` (1 or 2) in ``model``."""
    return sum(1 for c in model.component_data_objects(pyo.SOSConstraint, active=True) if c.level == level)


def model_size(model: pyo.Block) -> dict[str, int]:
    """Sizes of the active part of ``model``: ``rows`` (constraints), ``columns``
    (unfixed variables), ``binaries`` (binary and integer columns) and ``sos2`` sets."""
    return {
        "rows": sum(1 for _ in model.component_data_objects(pyo.Constraint, active=True)),
        "columns": sum(1 for v in model.component_data_objects(pyo.Var, active=True) if not v.fixed),
        "binaries": count_binaries(model),
        "sos2": count_sos(model, 2),
    }


__all__ = [
    "REPRESENTATIONS",
    "add_product",
    "add_product_chain",
    "breakpoints_for",
    "breakpoints_for_indifference",
    "chain_allowance",
    "chain_error",
    "chain_error_bound",
    "count_binaries",
    "count_sos",
    "add_error_allowance",
    "grid_error",
    "model_size",
    "product_error",
    "square_error",
    "uniform_grid",
]
