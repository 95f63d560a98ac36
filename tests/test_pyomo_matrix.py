"""The Pyomo model from ``to_pyomo()``: matrix-backed rows behave as ordinary Pyomo constraints.

Oracles: Kuhn poker's value -1/18 and Leduc's -0.085606424078 (published), reached through
Pyomo's solver interfaces and through the LP/MPS files Pyomo writes, read back by HiGHS.
"""

import pickle

import highspy
import numpy as np
import pytest
import scipy.sparse as sp

from equilibria.models.errors import SolverError

pyo = pytest.importorskip("pyomo.environ")

import equilibria  # noqa: E402
from equilibria.formulations import sequence_form_lp  # noqa: E402
from equilibria.formulations.pyomo_matrix import MatrixRows  # noqa: E402
from equilibria.models.sequence import SequenceForm  # noqa: E402

KUHN = -1 / 18
LEDUC = -0.085606424078


@pytest.fixture(scope="module")
def kuhn_lp():
    return sequence_form_lp(SequenceForm(equilibria.load("kuhn")), 0)


@pytest.mark.parametrize("solver", ["appsi_highs", "highs", "scip_direct"])
def test_solver_interfaces_accept_matrix_rows(kuhn_lp, solver):
    opt = pyo.SolverFactory(solver)
    if not opt.available(exception_flag=False):
        pytest.skip(f"{solver} not available")
    m = kuhn_lp.to_pyomo()
    assert isinstance(m.best_response, MatrixRows)
    opt.solve(m)
    assert pyo.value(m.objective) == pytest.approx(KUHN, abs=1e-9)
    # every row holds at the solution, read through Pyomo's own constraint API
    for con in m.component_data_objects(pyo.Constraint):
        body = pyo.value(con.body)
        assert con.lb is None or body >= con.lb - 1e-9
        assert con.ub is None or body <= con.ub + 1e-9


@pytest.mark.parametrize("suffix", ["lp", "mps"])
def test_files_written_by_pyomo_have_the_game_value(tmp_path, suffix):
    lp = sequence_form_lp(SequenceForm(equilibria.load("leduc")), 0)
    path = tmp_path / f"leduc.{suffix}"
    lp.to_pyomo().write(str(path))
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(path))
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    assert h.getInfo().objective_function_value == pytest.approx(LEDUC, abs=1e-9)


def test_matrix_and_expanded_models_compile_to_the_lp(kuhn_lp):
    from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

    for expanded in (False, True):
        model = kuhn_lp.to_pyomo(expanded=expanded)
        form = LinearStandardFormCompiler().write(model, mixed_form=True)
        # the compiler may order columns its own way; map them back by name
        position = {f"{b.name}[{i}]": b.start + i for b in kuhn_lp.col_blocks for i in range(b.size)}
        order = np.argsort([position[v.name] for v in form.columns])
        A = form.A.tocsc()[:, order].toarray()
        rows = {tuple(r) for r in np.round(A, 12)}
        expected = {tuple(r) for r in np.round(kuhn_lp.A.toarray(), 12)}
        assert rows == expected


def test_clone_and_pickle_keep_rows_on_their_own_variables(kuhn_lp):
    m = kuhn_lp.to_pyomo()
    for copy in (m.clone(), pickle.loads(pickle.dumps(m))):
        assert copy.realization[1].body.linear_vars[0] is copy.r[0]
        pyo.SolverFactory("appsi_highs").solve(copy)
        assert pyo.value(copy.objective) == pytest.approx(KUHN, abs=1e-9)
    assert m.r[0].value is None  # solving the copies left the original untouched


def test_rows_cannot_be_edited_but_can_be_replaced(kuhn_lp):
    m = kuhn_lp.to_pyomo()
    row = m.best_response[3]
    with pytest.raises(TypeError, match=r"best_response\[3\].*deactivate"):
        row.set_value(m.r[0] == 1)
    with pytest.raises(TypeError, match="fixed set of rows"):
        m.best_response.add(99, m.r[0] == 1)
    lower, body, upper = row.to_bounded_expression()
    row.deactivate()
    m.replacement = pyo.Constraint(expr=pyo.inequality(lower, body, upper))
    pyo.SolverFactory("appsi_highs").solve(m)
    assert pyo.value(m.objective) == pytest.approx(KUHN, abs=1e-9)


def test_bad_bounds_name_the_row():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(2))
    A = sp.csr_matrix(np.eye(2))
    with pytest.raises(ValueError, match=r"row 1 has invalid bounds \[2.0, 1.0\]"):
        MatrixRows(A, [0.0, 2.0], [1.0, 1.0], list(m.x.values()))
    with pytest.raises(ValueError, match="2 columns but 1 variables"):
        MatrixRows(A, [0.0, 0.0], [1.0, 1.0], [m.x[0]])


def _restrict(m):
    """User additions of every kind: a binding ordinary row, a binary, a fixed variable,
    a deactivated matrix row and a constant in the objective."""
    m.always_first = pyo.Constraint(expr=m.r[1] >= 0.9)
    m.switch = pyo.Var(domain=pyo.Binary)
    m.link = pyo.Constraint(expr=m.r[3] <= 0.2 + 0.5 * m.switch)
    m.penalty = pyo.Constraint(expr=m.r[5] >= 0.4 * m.switch)
    m.v[2].fix(0.0)
    m.best_response[4].deactivate()
    m.objective.expr = m.objective.expr + 2.5


def test_solve_pyomo_agrees_with_pyomo_on_an_extended_model(kuhn_lp):
    ours = kuhn_lp.to_pyomo()
    _restrict(ours)
    sol = equilibria.solve_pyomo(ours)
    theirs = kuhn_lp.to_pyomo(expanded=True)
    _restrict(theirs)
    pyo.SolverFactory("appsi_highs").solve(theirs)
    expected = pyo.value(theirs.objective)
    assert abs(expected - (KUHN + 2.5)) > 1e-3  # the additions bind
    assert sol.status == "optimal"
    assert sol.objective == pytest.approx(expected, abs=1e-9)
    assert pyo.value(ours.objective) == pytest.approx(expected, abs=1e-9)  # values were loaded back
    assert ours.switch.value in (pytest.approx(0.0, abs=1e-9), pytest.approx(1.0, abs=1e-9))
    assert ours.best_response[4].active is False and ours.best_response.active  # states restored


def test_solve_pyomo_on_leduc_and_its_standard_form_is_the_lp():
    lp = sequence_form_lp(SequenceForm(equilibria.load("leduc")), 0)
    model = lp.to_pyomo()
    from equilibria.formulations.linear_program import standard_form

    compiled, columns = standard_form(model)
    layout = [[(b.name, b.start, b.stop) for b in program.col_blocks] for program in (compiled, lp)]
    assert abs(compiled.A - lp.A).max() == 0 and layout[0] == layout[1]
    assert columns[0] is model.r[0]
    assert equilibria.solve_pyomo(model).objective == pytest.approx(LEDUC, abs=1e-9)


def test_solve_pyomo_names_a_nonlinear_constraint(kuhn_lp):
    m = kuhn_lp.to_pyomo()
    m.curved = pyo.Constraint(expr=m.r[1] * m.r[2] <= 0.1)
    with pytest.raises(SolverError, match="curved.*capability .bilinear."):
        equilibria.solve_pyomo(m)
    assert m.realization.active  # the matrix families are active again after the failure
