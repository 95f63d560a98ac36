"""A Pyomo constraint family whose rows live in a CSR matrix.

Pyomo stores every constraint as an expression tree, and building those trees (one Python
object per term) is what makes a large Pyomo model slow to create. :class:`MatrixRows` is
an ordinary indexed ``Constraint`` to Pyomo (same ctype, iterable, writable to LP/MPS,
accepted by ``appsi_highs``, ``highs``, ``scip_direct``, ``gurobi_direct``, ...), but each
row keeps only its index: the row's ``LinearExpression`` is made from the shared arrays
when a writer or a solver interface asks for it, and its bounds are read from numpy
arrays without making any expression at all.

The rows cannot be edited in place (``set_value`` raises); deactivate a row and add an
ordinary constraint instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn
from weakref import ref as weakref_ref

import numpy as np
import numpy.typing as npt
from pyomo.core.base.constraint import ConstraintData, IndexedConstraint
from pyomo.core.expr.numeric_expr import LinearExpression
from pyomo.core.expr.relational_expr import EqualityExpression, InequalityExpression, RangedExpression

if TYPE_CHECKING:
    import scipy.sparse as sp


class MatrixRowData(ConstraintData):
    """One row ``lower <= A[i] x <= upper`` of a :class:`MatrixRows` family."""

    __slots__ = ()

    def __init__(self, index: int, component: MatrixRows):
        # ComponentData/ConstraintData initialisation without an expression: the row is its index.
        # The slots are declared by Pyomo's ComponentData, which has no type information, so
        # mypy sees only this class's empty __slots__.
        self._component = weakref_ref(component)  # type: ignore[misc]
        self._active = True  # type: ignore[misc]
        self._index = index  # type: ignore[misc]

    # The base class keeps the relational expression in ``_expr``; here it is derived on
    # demand, so every inherited method (expr, body, pprint, slack) sees a real expression.
    @property
    def _expr(self) -> Any:
        lower, body, upper = self.to_bounded_expression()
        if lower is not None and lower == upper:
            return EqualityExpression((body, upper))
        if lower is None:
            return InequalityExpression((body, upper), False)
        if upper is None:
            return InequalityExpression((lower, body), False)
        return RangedExpression((lower, body, upper), (False, False))

    @_expr.setter
    def _expr(self, value: Any) -> None:
        if value is not None:
            self._refuse()

    def _refuse(self) -> NoReturn:
        raise TypeError(
            f"constraint {self.name} is a row of the matrix constraint {self.parent_component().name} "
            "and cannot be changed; deactivate it and add an ordinary Constraint instead"
        )

    def _linear_body(self) -> LinearExpression:
        comp = self.parent_component()
        i = self._index
        # Writers and solver interfaces ask for body, bounds and expr of the same row in a
        # row; keeping the last expression built makes that one construction per row.
        last = comp._last_body
        if last[0] == i:
            return last[1]
        s, e = comp._indptr[i], comp._indptr[i + 1]
        body = LinearExpression(
            constant=0.0,
            linear_coefs=comp._values[s:e].tolist(),
            linear_vars=comp._columns[comp._indices[s:e]].tolist(),
        )
        comp._last_body = (i, body)
        return body

    def to_bounded_expression(
        self, evaluate_bounds: bool = False
    ) -> tuple[float | None, LinearExpression, float | None]:
        """``(lower, body, upper)`` with float bounds (``None`` when infinite)."""
        return self.lb, self._linear_body(), self.ub

    @property
    def lb(self) -> float | None:
        """Lower bound as a float, ``None`` when there is none."""
        x = self.parent_component()._lower[self._index]
        return None if x == -np.inf else float(x)

    @property
    def ub(self) -> float | None:
        """Upper bound as a float, ``None`` when there is none."""
        x = self.parent_component()._upper[self._index]
        return None if x == np.inf else float(x)

    @property
    def equality(self) -> bool:
        """True when lower and upper bound coincide."""
        comp = self.parent_component()
        return bool(comp._lower[self._index] == comp._upper[self._index])

    @property
    def strict_lower(self) -> bool:
        return False

    @property
    def strict_upper(self) -> bool:
        return False

    def set_value(self, expr: Any) -> None:
        """Rows are fixed by the matrix; raises ``TypeError``."""
        self._refuse()

    def __getstate__(self):
        # pickling and clone() keep the row index only; the expression slot is derived
        slots = self.__auto_slots__.slots
        state = [None if name == "_expr" else getattr(self, name) for name in slots]
        for i, mapper in self.__auto_slots__.slot_mappers.items():
            state[i] = mapper(True, state[i])
        return state


class MatrixRows(IndexedConstraint):
    """Indexed constraint ``lower[i] <= sum_j A[i, j] columns[j] <= upper[i]`` for i in 0..n-1.

    ``A`` is any scipy sparse matrix (kept as CSR), ``columns`` a sequence of Pyomo
    ``VarData`` of length ``A.shape[1]``, ``lower``/``upper`` float arrays with ``-inf``/
    ``inf`` for a missing bound. Construction makes one small object per row and none per
    nonzero.
    """

    _constructed: bool  # set by Pyomo's IndexedComponent

    def __init__(
        self,
        A: sp.spmatrix,
        lower: npt.ArrayLike,
        upper: npt.ArrayLike,
        columns: Sequence[Any] | np.ndarray,
        doc: str | None = None,
        name: str | None = None,
    ):
        csr = A.tocsr()
        n = csr.shape[0]
        lower = np.asarray(lower, dtype=float)
        upper = np.asarray(upper, dtype=float)
        if lower.shape != (n,) or upper.shape != (n,):
            raise ValueError(f"matrix has {n} rows but {lower.shape[0]} lower and {upper.shape[0]} upper bounds")
        bad = np.flatnonzero(
            np.isnan(lower) | np.isnan(upper) | (lower > upper) | (lower == np.inf) | (upper == -np.inf)
        )
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"row {i} has invalid bounds [{lower[i]}, {upper[i]}] ({bad.size} such rows)")
        if len(columns) != csr.shape[1]:
            raise ValueError(f"matrix has {csr.shape[1]} columns but {len(columns)} variables were given")
        kwargs = {"doc": doc}
        if name is not None:
            kwargs["name"] = name
        IndexedConstraint.__init__(self, range(n), **kwargs)
        self._indptr = csr.indptr
        self._indices = csr.indices
        self._values = csr.data.astype(float, copy=False)
        self._columns = np.asarray(columns, dtype=object) if not isinstance(columns, np.ndarray) else columns
        self._lower = lower
        self._upper = upper
        self._last_body = (-1, None)

    def construct(self, data: Any = None) -> None:
        """Create the row objects (one per row, holding only the row index)."""
        if self._constructed:
            return
        self._constructed = True
        self.index_set().construct()
        self._data = {i: MatrixRowData(i, self) for i in range(len(self._lower))}

    def add(self, index: Any, expr: Any) -> NoReturn:
        raise TypeError(f"matrix constraint {self.name} has a fixed set of rows; add an ordinary Constraint instead")

    def matrix(self) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
        """The rows as ``(A, lower, upper)``, A in CSR form over this family's columns."""
        import scipy.sparse as sp

        A = sp.csr_matrix((self._values, self._indices, self._indptr), shape=(len(self._lower), len(self._columns)))
        return A, self._lower, self._upper
