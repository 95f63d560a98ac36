"""The ``support`` route's options: each field's type says what it takes, its metadata
the help text of its flag."""

from dataclasses import dataclass, field
from typing import Literal

from equilibria.core.options import RouteOptions


@dataclass(kw_only=True)
class SupportOptions(RouteOptions):
    largest: int | None = field(default=None, metadata={"help": "largest support size tried", "range": 1})
    order: Literal["small-first", "large-first"] = field(
        default="small-first", metadata={"help": "which support sizes are tried first"}
    )
