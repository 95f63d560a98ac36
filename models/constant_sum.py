"""The one test of whether a game's payoffs add up to a constant (zero-sum when it is 0).

Every outcome's payoffs are summed over players; they count as constant when each sum lies
within :data:`TOLERANCE` times the largest payoff (at least 1) of the first, so that
payoffs written in decimals (0.1 + 0.2) still pass and a rake of a thousandth does not.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: Relative tolerance of the sums (times max(1, largest absolute payoff)).
TOLERANCE = 1e-9


def _sums(payoffs: npt.ArrayLike, axis: int) -> tuple[np.ndarray, float]:
    """Each outcome's payoff sum (C order of the other axes) and the tolerance's scale."""
    pay = np.asarray(payoffs, dtype=np.float64)
    return pay.sum(axis=axis).ravel(), max(1.0, float(np.abs(pay).max(initial=0.0)))


def off_constant(payoffs: npt.ArrayLike, axis: int = -1) -> tuple[float, np.ndarray]:
    """The first outcome's payoff sum and the indices (in C order of the other axes) of the
    outcomes whose sums differ from it. ``axis`` is the players' axis."""
    sums, scale = _sums(payoffs, axis)
    if sums.shape[0] == 0:
        return 0.0, np.zeros(0, dtype=np.int64)
    return float(sums[0]), np.flatnonzero(np.abs(sums - sums[0]) > TOLERANCE * scale)


#: Outcomes summed at a time by :func:`constant_sum`: a float64 copy of all payoffs of a
#: shrunk Rhode Island hold'em would take 2 GB.
CHUNK = 1 << 20


def constant_sum(payoffs: npt.ArrayLike, axis: int = -1) -> float | None:
    """The constant every outcome's payoffs add up to (0.0 for a zero-sum game, within the
    tolerance), or None when the sums differ."""
    pay = np.moveaxis(np.asarray(payoffs), axis, -1)
    pay = pay.reshape(-1, pay.shape[-1]) if pay.ndim else pay.reshape(1, 1)
    if pay.shape[0] == 0:
        return 0.0
    # the sums' range and the largest payoff, a chunk at a time: every sum lies within the
    # tolerance of the first exactly when the smallest and the largest do
    constant = float(pay[0].astype(np.float64).sum())
    low = high = constant
    scale = 1.0
    for start in range(0, pay.shape[0], CHUNK):
        block = pay[start : start + CHUNK].astype(np.float64)
        sums = block.sum(axis=1)
        low, high = min(low, float(sums.min())), max(high, float(sums.max()))
        scale = max(scale, float(np.abs(block).max(initial=0.0)))
    if high - constant > TOLERANCE * scale or constant - low > TOLERANCE * scale:
        return None
    return 0.0 if abs(constant) <= TOLERANCE * scale else constant


def is_zero_sum(payoffs: npt.ArrayLike, axis: int = -1) -> bool:
    """True when every outcome's payoffs add up to zero (within the tolerance)."""
    return constant_sum(payoffs, axis) == 0.0


__all__ = ["TOLERANCE", "constant_sum", "is_zero_sum", "off_constant"]
