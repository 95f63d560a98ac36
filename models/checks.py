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


def count(name: str, value: Any, minimum: int = 1) -> int:
    """``value`` if it is a whole number at least ``minimum``; OptionError otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise OptionError(f"{name} must be a whole number of at least {minimum}, not {value!r}")
    return int(value)


def name(option: str, value: Any, optional: bool = True) -> Any:
    """``value`` if it is a string (or None when ``optional``); OptionError otherwise."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise OptionError(f"{option} must be a name (a string), not {value!r}")
    return value


__all__ = ["OptionError", "count", "name", "number"]
