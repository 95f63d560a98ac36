"""Route options: one dataclass per route, read by its types.

A route's options are the fields of a :class:`RouteOptions` subclass. Each field's type,
read with :func:`typing.get_type_hints` and :func:`typing.get_args` (never from the text
of the annotation), says what the option takes: ``bool``, ``int``, ``float``, ``str``, a
``Literal`` of words or numbers, a ``tuple[X, ...]``, any of those ``| None``. Its
``metadata`` holds the help text written once (``help``), a range (``range``: ``positive``,
``nonnegative``, or a least whole number, with ``maximum`` the most), the command line's flag where it is not the
name's (``flag``, with ``negates`` for a flag that turns a default-true option off), and
``objects`` for an option that also takes a Python object the command line cannot write (a
model). From that one declaration come the Python keywords (checked by
:func:`checked_options`), the command's flags (:func:`add_arguments`) and the values a
sweep grid reads from text (:func:`value_from_text`).
Rules across options live in the dataclass's :meth:`RouteOptions.validate`.

This module imports nothing numerical: the command line builds its parser from it.
"""

from __future__ import annotations

import argparse
import numbers
import re
import types
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from ..models import checks
from ..models.errors import EquilibriaError


class RouteError(EquilibriaError):
    """An unknown route, an option the route does not take, or a value it cannot take."""


@dataclass(kw_only=True)
class RouteOptions:
    """The options every route takes; a route extends this dataclass with its own."""

    backend: str = field(default="highs", metadata={"help": "the solver backend (see 'equilibria backends')"})
    time_limit: float | None = field(
        default=None,
        metadata={"help": "seconds for the whole run (build, solve, certificate)", "range": "positive"},
    )

    def validate(self) -> None:
        """Rules across options (one option's value that another excludes); raises
        :class:`~equilibria.models.checks.OptionError`. Each option's own type and range
        are checked before this is called."""


# --------------------------------------------------------------------------- types


_BASES = (bool, int, float, str)
_WORDS = {bool: "true or false", int: "a whole number", float: "a number", str: "text", tuple: "a list"}


@dataclass(frozen=True)
class OptionSpec:
    """What one option takes, read from its type and metadata."""

    name: str
    default: Any
    help: str
    optional: bool  # None is a value
    choices: tuple[Any, ...]  # the values of a Literal, if any
    bases: tuple[type, ...]  # bool, int, float, str, tuple beside the choices
    element: OptionSpec | None  # a tuple's element
    range: str | int | None
    maximum: int | None  # the most a whole-number option takes
    flag: str
    negates: bool
    objects: str | None  # the objects it takes besides text, in words

    @property
    def kind(self) -> str:
        """``bool``, ``int``, ``float``, ``str``, ``tuple`` or ``choice``: what text is read as."""
        for base in _BASES + (tuple,):
            if base in self.bases:
                return base.__name__
        return "choice" if self.choices else "str"

    def describe(self) -> str:
        """What the option takes, in words."""
        words = [_WORDS[b] for b in self.bases]
        if self.choices:
            words.insert(0, "one of " + ", ".join(str(c) for c in self.choices))
        if self.objects:
            words.append(self.objects)
        return " or ".join(words) or "a value"


def _spec(name: str, hint: Any, default: Any, metadata: Any) -> OptionSpec:
    optional, element = False, None
    choices: list[Any] = []
    bases: list[type] = []
    pending = [hint]
    while pending:
        t = pending.pop(0)
        origin = get_origin(t)
        if origin in (Union, types.UnionType):
            pending[:0] = list(get_args(t))
        elif origin is Literal:
            choices.extend(get_args(t))  # nested Literals are flattened by typing
        elif t is type(None):
            optional = True
        elif origin is tuple:
            bases.append(tuple)
            args = get_args(t)
            element = _spec(name, args[0] if args else str, MISSING, {"objects": metadata.get("objects")})
        elif t in _BASES:
            bases.append(t)
        elif t is Any:
            bases.append(str)
        else:
            raise TypeError(f"option {name}: its type {t!r} is none of bool, int, float, str, Literal, tuple, None")
    return OptionSpec(
        name=name,
        default=None if default is MISSING else default,
        help=metadata.get("help", ""),
        optional=optional or default is None,
        choices=tuple(choices),
        bases=tuple(dict.fromkeys(bases)),
        element=element,
        range=metadata.get("range"),
        maximum=metadata.get("maximum"),
        flag=metadata.get("flag", "--" + name.replace("_", "-")),
        negates=metadata.get("negates", False),
        objects=metadata.get("objects"),
    )


_SPECS: dict[type, dict[str, OptionSpec]] = {}


def option_specs(options: type[RouteOptions]) -> dict[str, OptionSpec]:
    """Each option of the dataclass ``options``, by name, read from its resolved type."""
    if options not in _SPECS:
        _SPECS[options] = _read_specs(options)
    return _SPECS[options]


def _read_specs(options: type[RouteOptions]) -> dict[str, OptionSpec]:
    hints = get_type_hints(options)
    out = {}
    for f in fields(options):
        default = f.default
        if default is MISSING and f.default_factory is not MISSING:
            default = f.default_factory()
        out[f.name] = _spec(f.name, hints[f.name], default, f.metadata)
    return out


# --------------------------------------------------------------------------- values


def value_from_text(route: str, spec: OptionSpec, text: str) -> Any:
    """Text (a command-line flag, a sweep grid) read as the option takes it, and checked."""
    value = text.strip()
    if spec.optional and value.lower() == "none":
        return None
    for choice in spec.choices:
        if value == str(choice):
            return check_value(route, spec, choice)
    for base in spec.bases:
        read = _read(base, value, spec)
        if read is not _UNREAD:
            return check_value(route, spec, read)
    raise checks.OptionError(f"option {spec.name} of route '{route}' is {spec.describe()}, not '{text}'")


_UNREAD = object()
_BOOLEANS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


def _read(base: type, text: str, spec: OptionSpec) -> Any:
    if base is bool:
        return {
            "1": True,
            "true": True,
            "yes": True,
            "on": True,
            "0": False,
            "false": False,
            "no": False,
            "off": False,
        }.get(text.lower(), _UNREAD)
    if base is int:
        # ASCII digits only (int() would also take '+3', '٣' and '1_0')
        return int(text) if re.fullmatch(r"-?[0-9]+", text) else _UNREAD
    if base is float:
        number = checks.finite_from_text(text)
        return _UNREAD if number is None else number
    if base is tuple:
        assert spec.element is not None
        parts = [p.strip() for p in text.split(",") if p.strip()]
        return tuple(value_from_text("", spec.element, p) for p in parts) if parts else _UNREAD
    return text


def check_value(route: str, spec: OptionSpec, value: Any) -> Any:
    """``value`` as the option takes it (its type, choices and range), else an error that
    names the route and the option."""
    if value is None:
        if spec.optional:
            return None
        raise checks.OptionError(f"option {spec.name} of route '{route}' takes {spec.describe()}, not None")
    if spec.choices and any(value == c and type(value) is type(c) for c in spec.choices):
        return value
    for base in spec.bases:
        taken = _as(base, value, route, spec)
        if taken is not _UNREAD:
            _check_range(route, spec, taken)
            return taken
    if spec.objects and not isinstance(value, (bool, numbers.Number)):
        return value  # an object the route checks itself (a model)
    if spec.choices and not spec.bases:
        choices = ", ".join(str(c) for c in spec.choices)
        raise checks.OptionError(f"option {spec.name} of route '{route}' is one of {choices}, not {value!r}")
    raise checks.OptionError(f"option {spec.name} of route '{route}' takes {spec.describe()}, not {value!r}")


def _as(base: type, value: Any, route: str, spec: OptionSpec) -> Any:
    if base is bool:
        if isinstance(value, bool) or (isinstance(value, numbers.Integral) and value in (0, 1)):
            return bool(value)
    elif base is int:
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return int(value)
    elif base is float:
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            return float(value)
    elif base is str:
        if isinstance(value, str):
            return value
    elif base is tuple and isinstance(value, (tuple, list)) and spec.element is not None:
        return tuple(check_value(route, spec.element, v) for v in value)
    return _UNREAD


def _check_range(route: str, spec: OptionSpec, value: Any) -> None:
    if spec.range is None:
        return
    try:
        if isinstance(spec.range, int):
            checks.count(spec.name, value, minimum=spec.range, maximum=spec.maximum)
        else:
            checks.number(spec.name, value, minimum=0.0, strict=spec.range == "positive", optional=False)
    except checks.OptionError as exc:
        raise checks.OptionError(f"route '{route}': {exc}") from None


def checked_options(route: str, options_class: type[RouteOptions], given: dict[str, Any]) -> RouteOptions:
    """The route's options object from keywords: unknown names, then each value's type and
    range, then the rules across options (:meth:`RouteOptions.validate`)."""
    specs = option_specs(options_class)
    unknown = [k for k in given if k not in specs]
    if unknown:
        raise RouteError(f"route '{route}' takes no option '{unknown[0]}'; it takes: {', '.join(specs)}")
    values = {k: check_value(route, specs[k], v) for k, v in given.items()}
    options = options_class(**values)
    options.validate()
    return options


# --------------------------------------------------------------------------- the command line


def add_arguments(
    parser: argparse.ArgumentParser, route: str, options_class: type[RouteOptions], skip: tuple[str, ...] = ()
) -> None:
    """A flag per option of ``options_class`` (but those in ``skip``) on ``parser``; each
    stores into ``option_NAME`` only when given (the route's own default applies otherwise)."""
    for spec in option_specs(options_class).values():
        if spec.name in skip:
            continue
        dest = f"option_{spec.name}"
        default = spec.default
        says = spec.help + (f" (default {default})" if default not in (None, False) else "")
        if spec.bases == (bool,) and not spec.choices:
            if spec.negates:
                parser.add_argument(spec.flag, dest=dest, action="store_false", default=None, help=spec.help)
            elif default is True:
                says = f"{spec.help} (on by default; this flag turns it off)"
                flag = "--no-" + spec.flag[2:]
                parser.add_argument(flag, dest=dest, action="store_false", default=None, help=says)
            else:
                parser.add_argument(spec.flag, dest=dest, action="store_true", default=None, help=says)
            continue
        only_choices = bool(spec.choices) and not spec.bases
        parser.add_argument(
            spec.flag,
            dest=dest,
            type=_argparse_type(route, spec),
            choices=spec.choices if only_choices else None,
            default=None,
            metavar=None if only_choices else spec.name.upper(),
            help=says,
        )


def _argparse_type(route: str, spec: OptionSpec) -> Callable[[str], Any]:
    """An argparse type reading a flag's text as the option takes it. A word outside a
    ``Literal`` is left to argparse's own ``choices`` check (its message lists them)."""

    def parse(text: str) -> Any:
        if spec.choices and not spec.bases:
            return next((c for c in spec.choices if str(c) == text.strip()), text)
        try:
            return value_from_text(route, spec, text)
        except checks.OptionError as exc:
            reason = str(exc).removeprefix(f"route '{route}': ").removeprefix(f"{spec.name} ")
            if reason.startswith("option "):  # not read at all
                raise argparse.ArgumentTypeError(f"'{text:.40}' is not {spec.describe()}") from None
            raise argparse.ArgumentTypeError(f"'{text:.40}': {reason.rsplit(', not ', 1)[0]}") from None

    parse.__name__ = spec.name
    return parse


def given_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options a parsed command line gave (flags made by :func:`add_arguments`)."""
    prefix = "option_"
    return {k[len(prefix) :]: v for k, v in vars(args).items() if k.startswith(prefix) and v is not None}


__all__ = [
    "OptionSpec",
    "RouteError",
    "RouteOptions",
    "add_arguments",
    "check_value",
    "checked_options",
    "given_options",
    "option_specs",
    "value_from_text",
]
