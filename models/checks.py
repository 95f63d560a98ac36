"""Checks of option values given through the Python API, with errors naming the option."""

from __future__ import annotations

import math
import numbers
from typing import Any

from .errors import EquilibriaError


class OptionError(EquilibriaError):
    """An option has a value of the wrong type or outside its range."""


def number(name: str, value: Any, *, minimum: float = 0.0, strict: bool = False, optional: bool = True) -> Any:
    """``value`` if it is a finite real number at least ``minimum`` (above it when
    ``strict``), or None when ``optional``; OptionError naming ``name`` otherwise."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise OptionError(f"{name} must be a finite number, not {value!r}")
    if value < minimum or (strict and value == minimum):
        bound = "above" if strict else "at least"
        raise OptionError(f"{name} must be {bound} {minimum:g}, not {value!r}")
    return value


def count(name: str, value: Any, minimum: int = 1, maximum: int | None = None) -> int:
    """``value`` if it is a whole number at least ``minimum`` (and at most ``maximum``);
    OptionError otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise OptionError(f"{name} must be a whole number of at least {minimum}, not {_short(value)}")
    if maximum is not None and int(value) > maximum:
        raise OptionError(f"{name} must be at most {maximum:,}, not {_short(value)}")
    return int(value)


def finite_from_text(text: str) -> float | None:
    """The finite number ``text`` writes, or None (for ``abc``, ``nan``, ``inf``)."""
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def name(option: str, value: Any, optional: bool = True) -> Any:
    """``value`` if it is a string (or None when ``optional``); OptionError otherwise."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise OptionError(f"{option} must be a name (a string), not {value!r}")
    return value


#: Most breakpoints per piecewise-linear square (2**10 + 1: a product's error is then at
#: most 2.4e-7 of its range; three-player Kuhn's 261 products at 2**16 + 1 built for minutes).
MAX_BREAKPOINTS = 2**10 + 1

#: Most signal cells of a continuous game's discretisation.
MAX_CELLS = 1_000_000

#: Most worker processes a sweep starts.
MAX_WORKERS = 512


def _short(value: Any) -> str:
    """``repr(value)``, shortened when long (a 5,000-digit number)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:20] + "..." + text[-8:]


__all__ = ["MAX_BREAKPOINTS", "MAX_CELLS", "MAX_WORKERS", "OptionError", "count", "name", "number"]
