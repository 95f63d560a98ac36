"""The product layer: binaries per representation, the error bound on a grid of fixed
points (checked against numpy's interpolation of t**2), optimisation with closed-form
optima, McCormick cuts and chains."""

from __future__ import annotations

import math

import numpy as np
import pyomo.environ as pyo
import pytest

from equilibria.formulations.products import (
    REPRESENTATIONS,
    add_product,
    add_product_chain,
    breakpoints_for,
    breakpoints_for_indifference,
    chain_error,
    count_binaries,
    count_sos,
    product_error,
)
from equilibria.models.checks import OptionError
from equilibria.models.errors import SolverError
from equilibria.solvers import available_backends, solve_model

PIECEWISE = [r for r in REPRESENTATIONS if r != "exact"]


def need(backend: str) -> None:
    if backend not in available_backends():
        pytest.skip(f"backend {backend} not installed")


def backend_for(representation: str) -> str:
    """SOS2 needs SCIP; every other piecewise model is a MILP HiGHS takes."""
    return "scip" if representation == "sos2" else "highs"


def unit_model(k: int, representation: str, *, mccormick: bool = False) -> pyo.ConcreteModel:
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.y = pyo.Var(bounds=(0, 1))
    add_product(m, m.x, m.y, name="xy", breakpoints=k, representation=representation, mccormick=mccormick)
    return m


def interpolated_product(x: float, y: float, k: int, lx=0.0, ux=1.0, ly=0.0, uy=1.0) -> float:
    """The value the construction must give, from numpy's interpolation of t**2."""
    u, v = (x - lx) / (ux - lx), (y - ly) / (uy - ly)
    grid1 = np.linspace(0.0, 1.0, k)
    grid2 = np.linspace(-0.5, 0.5, k)
    uv = np.interp((u + v) / 2, grid1, grid1**2) - np.interp((u - v) / 2, grid2, grid2**2)
    dx, dy = ux - lx, uy - ly
    return lx * ly + lx * (y - ly) + ly * (x - lx) + dx * dy * float(uv)


# --- (a) binaries per curve --------------------------------------------------------------


@pytest.mark.parametrize("k", [8, 64, 512])
def test_binaries_per_square(k):
    expected = {
        "log": math.ceil(math.log2(k - 1)),
        "dlog": math.ceil(math.log2(k - 1)),
        "incremental": k - 2,
        "cc": k - 1,
        "sos2": 0,
    }
    for representation, per_square in expected.items():
        m = unit_model(k, representation)
        assert count_binaries(m) == 2 * per_square, representation
        assert count_sos(m) == (2 if representation == "sos2" else 0), representation
    # logarithmic: 3, 6, 9 binaries per square against 7, 63, 511 segments
    assert expected["log"] <= (k - 1) / 2
    assert expected["log"] == {8: 3, 64: 6, 512: 9}[k]


def test_sos2_sets_hold_all_breakpoints():
    m = unit_model(17, "sos2")
    sets = list(m.component_data_objects(pyo.SOSConstraint))
    assert [len(list(s.get_variables())) for s in sets] == [17, 17]


# --- the bound itself ----------------------------------------------------------------------


def test_error_bound_closed_forms():
    assert product_error(3) == pytest.approx(1 / 16)
    assert product_error(9) == pytest.approx(1 / 256)
    assert product_error(5, 2.0, 3.0) == pytest.approx(6 / 64)
    # (k-1) >= sqrt(1/(4e)): e = 1e-3 gives 15.8, so 17 breakpoints
    assert breakpoints_for(1e-3) == 17
    assert product_error(16) > 1e-3 >= product_error(17)
    assert breakpoints_for(1 / 16) == 3
    # T*M/(4(k-1)^2) <= eps/2 with T=10, M=2, eps=0.01: (k-1)^2 >= 1000, k = 33
    assert breakpoints_for_indifference(0.01, payoff_range=2.0, terms=10, factors=2) == 33
    # a chain of three: d1 = h^2/4, the middle factor widened to [-d1, 1+d1]
    h2 = 1 / 16
    d1 = h2 / 4
    assert chain_error(5, 3) == pytest.approx((1 + 2 * d1) * h2 / 4 + d1)
    assert chain_error(5, 1) == 0.0
    assert chain_error(5, 2) == pytest.approx(d1)


def test_bad_options_are_refused():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.free = pyo.Var()
    with pytest.raises(OptionError, match="representation"):
        add_product(m, m.x, m.x, name="p", representation="bogus")
    with pytest.raises(OptionError, match="breakpoints"):
        add_product(m, m.x, m.x, name="p", breakpoints=1)
    with pytest.raises(OptionError, match="finite bounds"):
        add_product(m, m.x, m.free, name="p")
    with pytest.raises(OptionError, match="error"):
        breakpoints_for(0.0)


# --- (b) fixed points: the interpolant, within the bound, the bound nearly attained -----


GRID = [0.0, 1 / 16, 1 / 3, 0.7, 1.0]


@pytest.mark.parametrize("backend", ["highs", "scip"])
@pytest.mark.parametrize("representation", PIECEWISE)
def test_fixed_grid_within_bound(backend, representation):
    need(backend)
    k = 9
    m = unit_model(k, representation)
    if representation == "sos2" and backend == "highs":
        m.x.fix(0.5)
        m.y.fix(0.5)
        with pytest.raises(SolverError, match="sos2"):
            solve_model(m, backend)
        return
    bound = 1 / (4 * (k - 1) ** 2)
    assert pyo.value(m.xy.error_bound) == pytest.approx(bound)
    worst = 0.0
    for x in GRID:
        for y in GRID:
            m.x.fix(x)
            m.y.fix(y)
            sol = solve_model(m, backend)
            assert sol.status == "optimal", (x, y)
            z = pyo.value(m.xy.z)
            assert z == pytest.approx(interpolated_product(x, y, k), abs=1e-7), (x, y)
            assert abs(z - x * y) <= bound + 1e-7, (x, y)
            worst = max(worst, abs(z - x * y))
    assert worst >= bound / 2  # x = y = 1/16 attains it: beta1 mid-segment, beta2 = 0


def test_general_bounds_by_affine_scaling():
    need("highs")
    k = 8
    lx, ux, ly, uy = -1.0, 2.0, 0.5, 3.0
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(lx, ux))
    m.y = pyo.Var(bounds=(ly, uy))
    z = add_product(m, m.x, m.y, name="xy", breakpoints=k, representation="log", mccormick=True)
    bound = 3.0 * 2.5 / (4 * (k - 1) ** 2)
    assert pyo.value(m.xy.error_bound) == pytest.approx(bound)
    for x in (-1.0, -0.3, 0.0, 1.1, 2.0):
        for y in (0.5, 1.0, 2.2, 3.0):
            m.x.fix(x)
            m.y.fix(y)
            assert solve_model(m, "highs").status == "optimal"
            assert pyo.value(z) == pytest.approx(interpolated_product(x, y, k, lx, ux, ly, uy), abs=1e-7)
            assert abs(pyo.value(z) - x * y) <= bound + 1e-7


# --- (c) optimisation with closed-form optima ---------------------------------------------


def max_product(representation: str, k: int, weight: float, *, mccormick: bool = False) -> pyo.ConcreteModel:
    """max x*y subject to x + weight*y <= 1: optimum 1/(4*weight) at x = 1/2, y = 1/(2w)."""
    m = unit_model(k, representation, mccormick=mccormick)
    m.budget = pyo.Constraint(expr=m.x + weight * m.y <= 1)
    m.obj = pyo.Objective(expr=m.xy.z, sense=pyo.maximize)
    return m


@pytest.mark.parametrize("representation", PIECEWISE)
def test_optimum_within_bound_and_converging(representation):
    backend = backend_for(representation)
    need(backend)
    for weight in (1.0, 2.0):
        best = 1 / (4 * weight)
        gaps = []
        for k in (3, 9, 33):
            m = max_product(representation, k, weight)
            sol = solve_model(m, backend)
            assert sol.status == "optimal"
            bound = 1 / (4 * (k - 1) ** 2)
            # z <= xy + d <= best + d, and x = 1/2, y = 1/(2w) is feasible with z >= best - d
            assert abs(sol.objective - best) <= bound + 1e-7, (weight, k)
            x, y = pyo.value(m.x), pyo.value(m.y)
            assert x + weight * y <= 1 + 1e-7
            assert best - x * y <= 2 * bound + 1e-7, (weight, k)  # true value of the answer
            gaps.append(best - x * y)
        assert gaps[-1] <= 2 / (4 * 32**2) + 1e-7


@pytest.mark.parametrize("backend", ["scip", "gurobi"])
def test_exact_product_on_global_solver(backend):
    need(backend)
    for weight in (1.0, 2.0):
        m = max_product("exact", 2, weight)
        assert count_binaries(m) == 0
        sol = solve_model(m, backend)
        assert sol.status == "optimal"
        assert sol.objective == pytest.approx(1 / (4 * weight), abs=1e-6)
        assert pyo.value(m.x) * pyo.value(m.y) == pytest.approx(1 / (4 * weight), abs=1e-6)


def test_exact_product_refused_by_highs():
    need("highs")
    with pytest.raises(SolverError, match="bilinear"):
        solve_model(max_product("exact", 2, 1.0), "highs")


# --- (d) McCormick cuts keep the optimum ---------------------------------------------------


@pytest.mark.parametrize("representation", [*PIECEWISE, "exact"])
def test_mccormick_keeps_the_optimum(representation):
    backend = "scip" if representation in ("sos2", "exact") else "highs"
    need(backend)
    for k in (4, 9):  # an even k puts neither 0 nor 1/2 on the grid of beta2
        m = max_product(representation, k, 1.0, mccormick=True)
        sol = solve_model(m, backend)
        assert sol.status == "optimal"
        bound = 0.0 if representation == "exact" else 1 / (4 * (k - 1) ** 2)
        assert abs(sol.objective - 0.25) <= bound + 1e-6
        # the true optimum x = y = 1/2 stays feasible, with z at its interpolated value
        m.x.fix(0.5)
        m.y.fix(0.5)
        assert solve_model(m, backend).status == "optimal"
        expected = 0.25 if representation == "exact" else interpolated_product(0.5, 0.5, k)
        assert pyo.value(m.xy.z) == pytest.approx(expected, abs=1e-6)


def test_mccormick_never_cuts_a_grid_point():
    need("highs")
    k = 4
    m = unit_model(k, "log", mccormick=True)
    for x in (0.0, 0.2, 1 / 3, 0.5, 1.0):
        for y in (0.0, 0.45, 1.0):
            m.x.fix(x)
            m.y.fix(y)
            assert solve_model(m, "highs").status == "optimal", (x, y)
            assert pyo.value(m.xy.z) == pytest.approx(interpolated_product(x, y, k), abs=1e-7)


# --- chains -------------------------------------------------------------------------------


def test_chain_of_three_within_accumulated_bound():
    need("highs")
    k = 5
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(3), bounds=(0, 1))
    w = add_product_chain(m, [m.x[i] for i in range(3)], name="chain", breakpoints=k)
    bound = pyo.value(m.chain.error_bound)
    assert bound == pytest.approx(chain_error(k, 3))
    assert count_binaries(m) == 2 * 2 * math.ceil(math.log2(k - 1))
    worst = 0.0
    for values in [(0.5, 0.5, 0.5), (1 / 8, 1 / 8, 1.0), (0.3, 0.9, 0.6), (1.0, 1.0, 1.0), (0.0, 0.7, 0.2)]:
        for i, v in enumerate(values):
            m.x[i].fix(v)
        assert solve_model(m, "highs").status == "optimal"
        worst = max(worst, abs(pyo.value(w) - math.prod(values)))
        assert abs(pyo.value(w) - math.prod(values)) <= bound + 1e-7, values
    assert worst > 0  # the approximation is not accidentally exact


def test_chain_exact_on_scip():
    need("scip")
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(3), bounds=(0, 1))
    w = add_product_chain(m, [m.x[i] for i in range(3)], name="chain", representation="exact")
    m.budget = pyo.Constraint(expr=sum(m.x[i] for i in range(3)) <= 1)
    m.obj = pyo.Objective(expr=w, sense=pyo.maximize)
    sol = solve_model(m, "scip")
    assert sol.status == "optimal"
    assert sol.objective == pytest.approx(1 / 27, abs=1e-6)
    assert pyo.value(m.chain.error_bound) == 0.0
