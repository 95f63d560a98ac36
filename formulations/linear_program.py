"""A linear (or mixed-integer) program kept in sparse standard form.

``optimise c x  subject to  row_lower <= A x <= row_upper,  col_lower <= x <= col_upper``

Columns and rows are grouped in named blocks (``r``, ``v``, ``realization``,
``best_response``, ...) so that a solution can be read back by name and the Pyomo model
made by :meth:`LinearProgram.to_pyomo` carries the names of the mathematics. Solvers take
the matrix directly; Pyomo is only built when asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    import pyomo.environ as pyo


@dataclass(frozen=True)
class Block:
    """A contiguous range of columns (a variable) or rows (a constraint family)."""

    name: str
    start: int
    stop: int
    doc: str = ""

    @property
    def size(self) -> int:
        """Number of columns or rows in the block."""
        return self.stop - self.start


@dataclass
class LinearProgram:
    """Sparse standard form of an LP/MILP with named column and row blocks.

    Past the matrix, a program carries what its builder knows and its readers need, each
    in a typed field whose default means "not this kind of program": ``objective_offset``
    (a Pyomo objective's constant), ``player`` and ``opponent`` (a sequence-form LP) and
    ``compact`` (the compact card-game LP). A MIP Nash program is the subclass
    :class:`~equilibria.formulations.mip_nash.MipNashProgram`, which adds its ``layout``.
    """

    name: str
    c: np.ndarray
    A: sp.spmatrix  # any scipy sparse format; builders use CSC, the layout solvers take
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    maximize: bool
    col_blocks: list[Block]
    row_blocks: list[Block]
    integrality: np.ndarray | None = None
    objective_doc: str = ""
    #: constant added to ``c x`` to give the objective's value (a Pyomo objective's
    #: constant, from :func:`standard_form`); solvers add it to the objective they report
    objective_offset: float = 0.0
    #: a sequence-form LP's player (0 or 1): whose realization plan the columns ``r`` are
    player: int | None = None
    #: a sequence-form LP's opponent, whose realization plan the duals of the
    #: ``best_response`` rows are; None where the builder names none
    opponent: int | None = None
    #: the LP is the compact sequence-form LP of a card game (its ``aux`` columns sum
    #: cards), from :func:`~equilibria.formulations.compact_lp.compact_sequence_form_lp`
    compact: bool = False
    #: the builder's names of the columns and of the rows, as a function called when names
    #: are asked for (writing a file, a solver that matches by name), so a solve that
    #: needs none builds none; None: ``block_i``
    names: Callable[[], tuple[list[str], list[str]]] | None = field(default=None, repr=False)

    _names_made: tuple[list[str], list[str]] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def num_rows(self) -> int:
        """Number of constraints."""
        return int(self.A.shape[0])

    @property
    def num_cols(self) -> int:
        """Number of variables."""
        return int(self.A.shape[1])

    @property
    def nnz(self) -> int:
        """Number of nonzero constraint coefficients."""
        return int(self.A.nnz)

    def col_block(self, name: str) -> Block:
        """The column block called ``name``."""
        return next(b for b in self.col_blocks if b.name == name)

    def row_block(self, name: str) -> Block:
        """The row block called ``name``."""
        return next(b for b in self.row_blocks if b.name == name)

    @staticmethod
    def _names(blocks: list[Block]) -> list[str]:
        out: list[str] = []
        for b in blocks:
            out.extend(np.char.add(f"{b.name}_", np.arange(b.size).astype(str)).tolist())
        return out

    def _named(self) -> tuple[list[str], list[str]] | None:
        """The builder's column and row names (computed once), or None where it gives none."""
        if self.names is None:
            return None
        if self._names_made is None:
            columns, rows = self.names()
            if len(columns) != self.num_cols or len(rows) != self.num_rows:
                raise ValueError(f"{self.name}: {len(columns)} column and {len(rows)} row names for its shape")
            self._names_made = (columns, rows)
        return self._names_made

    def col_names(self) -> list[str]:
        """Column names as written to MPS/LP files: the builder's (the sequence-form LP's
        ``r1(J._bet)``: :mod:`equilibria.models.sequence_names`), else ``block_i`` (e.g.
        ``r_12``)."""
        named = self._named()
        return list(named[0]) if named is not None else self._names(self.col_blocks)

    def row_names(self) -> list[str]:
        """Row names: the builder's, else ``block_i`` (e.g. ``best_response_3``)."""
        named = self._named()
        return list(named[1]) if named is not None else self._names(self.row_blocks)

    def to_pyomo(self, expanded: bool = False) -> pyo.ConcreteModel:
        """A Pyomo ``ConcreteModel`` of this program.

        One indexed ``Var`` per column block and one indexed ``Constraint`` per row block,
        named like the blocks; the objective is ``objective``. By default each row block is
        a :class:`~equilibria.formulations.pyomo_matrix.MatrixRows` family: a real Pyomo
        constraint whose row expressions are made from the sparse matrix when a writer or
        solver asks for them, so the model is built without a Python object per nonzero.
        ``expanded=True`` stores one ``LinearExpression`` per row instead (editable with
        ``set_value``; several times slower to build).
        """
        import pyomo.environ as pyo
        from pyomo.core.expr.numeric_expr import LinearExpression

        from .pyomo_matrix import MatrixRows

        m = pyo.ConcreteModel(name=self.name)
        columns = np.empty(self.num_cols, dtype=object)
        integral = self.integrality if self.integrality is not None else np.zeros(self.num_cols, bool)

        def bound(x: float) -> float | None:
            return None if np.isinf(x) else float(x)

        for b in self.col_blocks:
            lo = self.col_lower[b.start : b.stop]
            hi = self.col_upper[b.start : b.stop]
            bounds: Any
            if b.size and np.all(lo == lo[0]) and np.all(hi == hi[0]):
                bounds = (bound(lo[0]), bound(hi[0]))
            else:
                pairs = [(bound(a), bound(c)) for a, c in zip(lo, hi)]
                bounds = lambda _m, i, pairs=pairs: pairs[i]  # noqa: E731
            domain = pyo.Integers if np.any(integral[b.start : b.stop]) else pyo.Reals
            var = pyo.Var(range(b.size), domain=domain, bounds=bounds, doc=b.doc)
            m.add_component(b.name, var)
            columns[b.start : b.stop] = list(var.values())
        A = self.A.tocsr()
        for b in self.row_blocks:
            rows = A[b.start : b.stop]
            if not expanded:
                con = MatrixRows(
                    rows, self.row_lower[b.start : b.stop], self.row_upper[b.start : b.stop], columns, doc=b.doc
                )
                m.add_component(b.name, con)
                continue
            indptr, indices, data = rows.indptr, rows.indices, rows.data
            lower = [bound(x) for x in self.row_lower[b.start : b.stop]]
            upper = [bound(x) for x in self.row_upper[b.start : b.stop]]

            def rule(
                _m: Any,
                i: int,
                indptr: np.ndarray = indptr,
                indices: np.ndarray = indices,
                data: np.ndarray = data,
                lower: list[float | None] = lower,
                upper: list[float | None] = upper,
            ) -> Any:
                s, e = indptr[i], indptr[i + 1]
                expr = LinearExpression(
                    constant=0.0, linear_coefs=data[s:e].tolist(), linear_vars=columns[indices[s:e]].tolist()
                )
                if lower[i] is not None and lower[i] == upper[i]:
                    return expr == lower[i]
                return (lower[i], expr, upper[i])

            m.add_component(b.name, pyo.Constraint(range(b.size), rule=rule, doc=b.doc))
        nz = np.flatnonzero(self.c)
        obj = LinearExpression(constant=0.0, linear_coefs=self.c[nz].tolist(), linear_vars=columns[nz].tolist())
        m.objective = pyo.Objective(
            expr=obj, sense=pyo.maximize if self.maximize else pyo.minimize, doc=self.objective_doc
        )
        return m

    def pyomo_values(self, model: pyo.ConcreteModel) -> np.ndarray:
        """Column values read back from a solved Pyomo model made by :meth:`to_pyomo`."""
        x = np.zeros(self.num_cols)
        for b in self.col_blocks:
            var = getattr(model, b.name)
            x[b.start : b.stop] = [var[i].value if var[i].value is not None else np.nan for i in range(b.size)]
        return x

    def pyomo_duals(self, model: pyo.ConcreteModel) -> np.ndarray | None:
        """Row duals from the model's ``dual`` suffix, or None when the solver gave none."""
        suffix = getattr(model, "dual", None)
        if suffix is None or len(suffix) == 0:
            return None
        y = np.zeros(self.num_rows)
        for b in self.row_blocks:
            con = getattr(model, b.name)
            y[b.start : b.stop] = [suffix.get(con[i], 0.0) for i in range(b.size)]
        return y


def _number(variables: Sequence[Any] | np.ndarray, position: dict, columns: list) -> np.ndarray:
    """Column index of each variable, appending those not yet numbered to ``columns``."""
    idx = np.empty(len(variables), dtype=np.int64)
    for j, var in enumerate(variables):
        k = position.get(id(var))
        if k is None:
            k = position[id(var)] = len(columns)
            columns.append(var)
        idx[j] = k
    return idx


def standard_form(model: Any) -> tuple[LinearProgram, list[Any]]:
    """The linear (or mixed-integer) program of a Pyomo ``model`` in sparse standard form.

    Returns ``(lp, columns)``: a :class:`~equilibria.formulations.LinearProgram` and the
    model's ``VarData`` in the LP's column order. :class:`MatrixRows` families are taken
    straight from their arrays (their active rows only); every other active constraint and
    the objective go through Pyomo's ``LinearStandardFormCompiler``, so a model made by
    ``to_pyomo()`` and then extended with ordinary Pyomo constraints reaches a solver
    without Pyomo expanding the large families. Fixed variables become columns whose
    bounds equal their value; the objective's constant is ``lp.objective_offset``.
    Nonlinear terms, or more than one active objective, raise ``ValueError`` naming the
    component.
    """
    import pyomo.environ as pyo
    import scipy.sparse as sp
    from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

    from .pyomo_matrix import MatrixRows

    families = [
        c for c in model.component_objects(pyo.Constraint, active=True, descend_into=True) if isinstance(c, MatrixRows)
    ]

    # columns: every variable of the matrix families, in their order, then the compiler's extras
    columns: list = []
    position: dict[int, int] = {}
    family_columns: dict[int, np.ndarray] = {}
    for fam in families:
        key = id(fam._columns)
        if key in family_columns:
            continue
        family_columns[key] = _number(fam._columns, position, columns)

    try:
        for fam in families:
            fam._active = False  # only the component flag: the rows keep their own state
        try:
            form = LinearStandardFormCompiler().write(model, mixed_form=True, set_sense=None)
        except Exception as exc:  # nonlinear terms, trivially infeasible rows, unsupported components
            raise ValueError(f"cannot compile the Pyomo model {model.name!r} to a linear program: {exc}") from exc
    finally:
        for fam in families:
            fam._active = True
    form_index = _number(form.columns, position, columns)
    n = len(columns)

    parts, lowers, uppers, row_blocks = [], [], [], []
    start = 0
    for fam in families:
        A = sp.csr_matrix(
            (fam._values, family_columns[id(fam._columns)][fam._indices], fam._indptr), shape=(len(fam._lower), n)
        )
        lower, upper = fam._lower, fam._upper
        active = np.fromiter((row._active for row in fam._data.values()), dtype=bool, count=len(fam._data))
        if not active.all():
            A, lower, upper = A[active], lower[active], upper[active]
        parts.append(A)
        lowers.append(lower)
        uppers.append(upper)
        row_blocks.append(Block(fam.name, start, start + A.shape[0], fam.doc or ""))
        start += A.shape[0]
    if form.A.shape[0]:
        coo = form.A.tocoo()
        parts.append(sp.csr_matrix((coo.data, (coo.row, form_index[coo.col])), shape=(form.A.shape[0], n)))
        sense = np.array([entry[1] for entry in form.rows])
        rhs = np.asarray(form.rhs, dtype=float)
        lowers.append(np.where(sense <= 0, rhs, -np.inf))
        uppers.append(np.where(sense >= 0, rhs, np.inf))
        row_blocks.append(Block("pyomo_constraints", start, start + form.A.shape[0], "constraints compiled by Pyomo"))
    A = sp.vstack(parts, format="csc") if parts else sp.csc_matrix((0, n))

    if len(form.objectives) > 1:
        raise ValueError(f"model {model.name!r} has {len(form.objectives)} active objectives; keep one")
    c = np.zeros(n)
    maximize, offset, objective_doc = False, 0.0, ""
    if form.objectives:
        coo = sp.coo_matrix(form.c)
        first = coo.row == 0
        np.add.at(c, form_index[coo.col[first]], coo.data[first])
        maximize = form.objectives[0].sense == pyo.maximize
        offset = float(form.c_offset[0])
        objective_doc = form.objectives[0].name

    col_lower = np.empty(n)
    col_upper = np.empty(n)
    integrality = np.zeros(n, dtype=bool)
    for j, var in enumerate(columns):
        if var.fixed:
            if var.value is None:
                raise ValueError(f"variable {var.name} is fixed but has no value")
            col_lower[j] = col_upper[j] = var.value
            continue
        lb, ub = var.lb, var.ub
        col_lower[j] = -np.inf if lb is None else lb
        col_upper[j] = np.inf if ub is None else ub
        integrality[j] = var.is_integer()

    # column blocks: runs of the same Var component, so names read r_0, v_3, ...
    col_blocks, begin = [], 0
    parent: Any = None
    for j, var in enumerate(columns + [None]):
        owner = var.parent_component() if var is not None else None
        if j and owner is not parent:
            col_blocks.append(Block(parent.name, begin, j, parent.doc or ""))
            begin = j
        parent = owner
    lp = LinearProgram(
        name=model.name,
        c=c,
        A=A,
        row_lower=np.concatenate(lowers) if lowers else np.zeros(0),
        row_upper=np.concatenate(uppers) if uppers else np.zeros(0),
        col_lower=col_lower,
        col_upper=col_upper,
        maximize=maximize,
        col_blocks=col_blocks,
        row_blocks=row_blocks,
        integrality=integrality if integrality.any() else None,
        objective_doc=objective_doc,
        objective_offset=offset,
    )
    return lp, columns
