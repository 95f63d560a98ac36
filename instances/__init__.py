"""Named games. ``load("name:key=value,...")`` or ``load("path/to/game.efg")``.

Registered names: see :data:`REGISTRY` (or ``equilibria info --list``).
"""
from __future__ import annotations

import inspect
from importlib import resources
from pathlib import Path
from typing import Callable

from ..models.efg import ExtensiveGame
from ..models.errors import UnknownInstanceError
from .liars_dice import liars_dice
from .poker import generalized_kuhn, kuhn, leduc, rhode_island

REGISTRY: dict[str, Callable[..., ExtensiveGame]] = {
    "kuhn": kuhn,
    "generalized_kuhn": generalized_kuhn,
    "leduc": leduc,
    "liars_dice": liars_dice,
    "rhode_island": rhode_island,
}


def bundled_files() -> dict[str, Path]:
    """The ``.efg`` files shipped with the package, by stem."""
    folder = resources.files(__name__)
    return {Path(str(f)).stem: Path(str(f)) for f in folder.iterdir() if str(f).endswith(".efg")}


def known_names() -> list[str]:
    """Every name :func:`load` accepts without a path."""
    return sorted(REGISTRY) + sorted(bundled_files())


def _parse_value(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str, registry: dict, extra_names=()) -> tuple[str, dict]:
    """Split ``"name:key=value,..."`` into the registered name and keyword arguments.

    Values become int or float where they parse as such. UnknownInstanceError lists the
    known names, or the parameters the named factory takes.
    """
    name, _, params = spec.partition(":")
    if name not in registry:
        known = sorted(registry) + list(extra_names)
        raise UnknownInstanceError(f"unknown game '{name}'; known: {', '.join(known)}")
    accepted = list(inspect.signature(registry[name]).parameters)
    kwargs = {}
    for item in filter(None, params.split(",")):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or key not in accepted:
            raise UnknownInstanceError(
                f"'{name}' takes parameters {', '.join(accepted) or '(none)'}; got '{item}'"
            )
        kwargs[key] = _parse_value(value.strip())
    return name, kwargs


def load(spec: str) -> ExtensiveGame:
    """Load a game by registered name with parameters, bundled file name, or ``.efg`` path.

    ``"leduc:ranks=4,suits=2"`` calls the ``leduc`` generator with those keywords.
    Raises UnknownInstanceError listing the known names and parameters.
    """
    from ..models.efg_io import read_efg

    if spec.endswith(".efg") or Path(spec).is_file():
        path = Path(spec)
        if not path.is_file():
            raise UnknownInstanceError(f"no such file: {spec}")
        return read_efg(path)
    name, _, params = spec.partition(":")
    if name in bundled_files() and not params:
        return read_efg(bundled_files()[name])
    name, kwargs = parse_spec(spec, REGISTRY, extra_names=sorted(bundled_files()))
    factory = REGISTRY[name]
    return factory(**kwargs)


__all__ = ["REGISTRY", "load", "known_names", "kuhn", "generalized_kuhn", "leduc", "liars_dice"]
