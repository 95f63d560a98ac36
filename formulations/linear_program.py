"""A linear (or mixed-integer) program kept in sparse standard form.

``optimise c x  subject to  row_lower <= A x <= row_upper,  col_lower <= x <= col_upper``

Columns and rows are grouped in named blocks (``r``, ``v``, ``realization``,
``best_response``, ...) so that a solution can be read back by name and the Pyomo model
made by :meth:`LinearProgram.to_pyomo` carries the names of the mathematics. Solvers take
the matrix directly; Pyomo is only built when asked for.
"""

from __future__ import annotations

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
    """Sparse standard form of an LP/MILP with named column and row blocks."""

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
    meta: dict = field(default_factory=dict)

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

    def col_names(self) -> list[str]:
        """Column names ``block_i`` (e.g. ``r_12``), as written to MPS/LP files."""
        return self._names(self.col_blocks)

    def row_names(self) -> list[str]:
        """Row names ``block_i`` (e.g. ``best_response_3``)."""
        return self._names(self.row_blocks)

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
