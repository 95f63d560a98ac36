"""Numbers and counts as the command line prints them."""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``"1 round"``, ``"2 rounds"``: the count and the noun, plural unless the count is 1
    (``many`` when the plural is not the noun plus ``s``)."""
    return f"{count:,} {noun if count == 1 else (many or noun + 's')}"


def fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals, without the minus of a value that rounds to zero
    (rounding leaves -1e-17 where an exact computation gives 0)."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


__all__ = ["fixed", "plural"]
