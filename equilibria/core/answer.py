"""The one result type every route returns: strategies, value or payoffs, certificate.

Each route (the full sequence-form LP, GameShrink's shrunk LP, threshold programs, ...)
subclasses :class:`Answer` with its own details; what a user reads first is the same for
all of them: status, backend, the strategies on the game they belong to, the players'
payoffs, and the certificate computed by exact best responses
(:func:`equilibria.models.best_response.certify`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..models.best_response import Exploitability
from ..models.sequence import SequenceForm
from ..models.strategy import realization_from_behavior, strategy_table
from ..solvers.results import SolutionStatus, Status, solution_status

if TYPE_CHECKING:
    import pandas as pd


def _plain(value: Any) -> Any:
    """``value`` with numpy scalars and arrays turned into JSON-ready Python objects."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def _whole(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


#: NashConv, relative to the largest payoff (at least 1), up to which a certified profile
#: counts as an equilibrium (the verdict of a sweep's ``equilibrium`` column).
EQUILIBRIUM_TOLERANCE = 1e-6


@dataclass(kw_only=True)
class Answer:
    """What every route returns.

    ``behaviors`` are behaviour strategies (one array per player, indexed by the sequences
    of ``sequence_form``); ``certified_in`` says on which game the ``certificate`` was
    computed (``"the game"`` for the full game; a shrunk game or a discretisation
    otherwise). ``value`` is player 1's value where the route computes one (two-player
    zero-sum), else player 1's payoff under the profile; ``zero_sum`` is False for a game
    whose payoffs do not cancel (then ``payoffs`` matter, not a value); a constant-sum game
    counts as zero-sum, its constant in ``payoff_sum``. ``sizes`` holds the program's
    rows, columns, nonzeros (and binaries where there are any); ``seconds`` the wall time
    of each stage. ``plan`` says what was chosen for the user where nothing was named
    (``equilibria solve`` without flags: abstraction, formulation, backend) and why.
    """

    route: str
    game_name: str
    status: Status
    backend: str | None
    method: str | None = None
    algorithm: str | None = None
    value: float | None = None
    certificate: Exploitability | None = None
    certified_in: str = "the game"
    sequence_form: SequenceForm | None = None
    behaviors: list[np.ndarray] | None = None
    sizes: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    zero_sum: bool = True
    payoff_sum: float = 0.0
    plan: list[str] = field(default_factory=list)
    #: what the command did beside the answer (files written), printed after it
    notes: list[str] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self.status = Status(self.status)  # a word outside the vocabulary is a bug: it raises

    @property
    def solution_status(self) -> SolutionStatus:
        """What the answer holds, apart from why its run stopped (:attr:`status`):
        ``optimal`` when the run proved its program solved, ``feasible`` for certified
        strategies from a run stopped otherwise, ``none`` without strategies."""
        return solution_status(self.status, self.behaviors is not None or self.certificate is not None)

    @property
    def exploitability(self) -> float | None:
        """Certified exploitability (mean over players of best-response gain), or None."""
        return None if self.certificate is None else float(self.certificate.exploitability)

    @property
    def nash_conv(self) -> float | None:
        """Certified NashConv (sum over players of best-response gain), or None."""
        return None if self.certificate is None else float(self.certificate.nash_conv)

    @property
    def is_equilibrium(self) -> bool | None:
        """True when the certificate shows an equilibrium: NashConv at most
        :data:`EQUILIBRIUM_TOLERANCE` times the largest payoff (at least 1); None without a
        certificate. Routes with an epsilon of their own (nash, threshold) judge by it."""
        if self.certificate is None or self.sequence_form is None:
            return None
        largest = float(np.abs(self.sequence_form.terminal_payoffs).max(initial=0.0))
        return float(self.certificate.nash_conv) <= EQUILIBRIUM_TOLERANCE * max(1.0, largest)

    @property
    def payoffs(self) -> list[float] | None:
        """Each player's expected payoff under the returned profile."""
        return None if self.certificate is None else [float(v) for v in self.certificate.payoffs]

    @property
    def value_bounds(self) -> tuple[float, float] | None:
        """Two-player zero-sum games: certified bounds on player 1's game value, what
        player 1's strategy guarantees against a best response and what player 2's concedes
        to one (their difference is the NashConv). None otherwise."""
        if self.certificate is None or len(self.certificate.best_response_values) != 2 or not self.zero_sum:
            return None
        br = self.certificate.best_response_values
        low, high = float(self.payoff_sum - br[1]), float(br[0])
        if low > high:  # rounding of an exact equilibrium's two sides
            low = high = (low + high) / 2.0
        return low, high

    @property
    def rows(self) -> int | None:
        """Rows of the solved program."""
        return self.sizes.get("rows")

    @property
    def columns(self) -> int | None:
        """Columns of the solved program."""
        return self.sizes.get("columns")

    @property
    def nonzeros(self) -> int | None:
        """Nonzeros of the solved program's matrix."""
        return self.sizes.get("nonzeros")

    def strategy_table(self) -> pd.DataFrame:
        """Every player's behaviour strategy as one DataFrame (one row per information set
        and action, with realization weights), on the game named by ``certified_in``."""
        import pandas as pd

        if self.sequence_form is None or self.behaviors is None:
            raise ValueError(f"the {self.route} route returned no behaviour strategies")
        sf = self.sequence_form
        return pd.concat(
            [
                strategy_table(
                    sf,
                    p,
                    self.behaviors[p],
                    realization_from_behavior(sf.players[p], self.behaviors[p]),
                    self.sequence_labels(p),
                )
                for p in range(sf.num_players)
            ],
            ignore_index=True,
        )

    def sequence_labels(self, p: int) -> tuple[np.ndarray, np.ndarray] | None:
        """Names of player ``p``'s information sets and sequences where the sequence form
        has no game tree to take them from (a shrunk game's); None: the tree's labels."""
        return None

    def to_tabular_policy(self) -> Any:
        """The answer as an OpenSpiel ``TabularPolicy``, for games loaded from OpenSpiel
        (``openspiel:GAME``), whose information states and action ids the game keeps."""
        from ..interop.openspiel import pyspiel_module, to_tabular_policy
        from ..models.errors import EquilibriaError

        game = None if self.sequence_form is None else self.sequence_form.game
        source = getattr(game, "openspiel", None)
        if source is None or game is None or self.behaviors is None:  # no game: no source either
            raise EquilibriaError(
                "only answers on games loaded from OpenSpiel (openspiel:GAME) export as a TabularPolicy"
            )
        return to_tabular_policy(pyspiel_module().load_game(source.game_string), game, self.behaviors)

    def certificate_lines(self) -> list[str]:
        """What every route prints of its answer: the value (or payoffs), the certificate,
        the certified value bounds, the status."""
        from ..models.wording import fixed

        lines = []
        digits = self.value_decimals()
        if self.zero_sum and self.value is not None:
            lines.append(f"value (player 1) {fixed(self.value, digits)}")
        elif self.payoffs is not None:
            lines.append("payoffs         " + ", ".join(fixed(v, 9) for v in self.payoffs))
        if self.payoff_sum:
            lines.append(
                f"constant sum    the payoffs add up to {self.payoff_sum:g} everywhere: solved as zero-sum "
                f"(player 2 earns {self.payoff_sum:g} minus player 1's payoff)"
            )
        if self.certificate is not None:
            lines.append(
                f"exploitability  {self.exploitability:.3e}  (exact best responses in {self.certified_in}; "
                f"NashConv {self.nash_conv:.3e})"
            )
        if self.value_bounds is not None:
            low, high = self.value_bounds
            lines.append(
                f"value bounds    [{fixed(low, digits)}, {fixed(high, digits)}]  (certified; gap {high - low:.3e})"
            )
        attempts: list[Any] = getattr(self, "attempts", [])  # the LP ladder's, where the route has one
        for a in attempts:
            expl = f"exploitability {a.exploitability:.3e}" if a.exploitability is not None else "no strategies"
            lines.append(f"  IPM tolerance {a.tolerance:.0e}: {a.status}, {a.seconds:.2f} s, {expl}")
        if self.backend is None:  # no solver behind it: a first-order method names itself
            by = f" (algorithm {self.algorithm})" if self.algorithm not in (None, "lp") else f" ({self.route} route)"
            lines.append(f"status          {self.status}{by}")
        else:
            method = f", method {self.method})" if self.method else ")"
            lines.append(f"status          {self.status} ({self.backend}{method}")
        lines.extend(f"{'plan' if i == 0 else '':16}{reason}" for i, reason in enumerate(self.plan))
        if self.status == Status.STALLED:
            lines.append(
                "                the exploitability falls too slowly for the target: at its rate the target "
                "needs over 1,000 times the iterations run; the best certified strategies are above"
            )
        return lines

    def value_decimals(self) -> int:
        """Decimals of the value worth printing: as many as its certified bounds pin down
        (an interior point's 1e-10 gap gives 10; an exact simplex solution, and an answer
        without bounds, 12; never fewer than 6)."""
        bounds = self.value_bounds
        if bounds is None or bounds[1] - bounds[0] <= 1e-12:
            return 12
        return int(min(12, max(6, math.ceil(-math.log10(bounds[1] - bounds[0])))))

    def report_lines(self) -> list[str]:
        """The answer as the command line prints it: the game, :meth:`certificate_lines`,
        the program's size and the seconds of each stage."""
        lines = [f"game            {self.game_name}", *self.certificate_lines()]
        if self.sizes:
            lines.append("program         " + ", ".join(f"{k} {v:,}" for k, v in self.sizes.items() if _whole(v)))
        lines.append(self.seconds_line())
        return lines

    def seconds_line(self) -> str:
        """The seconds of each stage and their total, as one line."""
        total = sum(self.seconds.values())
        return "seconds         " + ", ".join(f"{k} {v:.3f}" for k, v in self.seconds.items()) + f"; total {total:.3f}"

    def details(self) -> dict:
        """Route-specific figures added to :meth:`to_dict` (overridden by routes)."""
        return {}

    def to_dict(self) -> dict:
        """The JSON the command line prints: the fields every route shares, then the
        route's own details."""
        out: dict[str, Any] = {
            "game": self.game_name,
            "route": self.route,
            "status": str(self.status),
            "solution_status": str(self.solution_status),
            "backend": self.backend,
            "method": self.method,
            "algorithm": self.algorithm,
            "value": self.value,
            "exploitability": self.exploitability,
            "nash_conv": self.nash_conv,
            "payoffs": self.payoffs,
            "zero_sum": self.zero_sum,
            "certified_in": self.certified_in,
            "is_equilibrium": self.is_equilibrium,
        }
        if self.payoff_sum:
            out["payoff_sum"] = self.payoff_sum
        if self.plan:
            out["plan"] = list(self.plan)
        if self.value_bounds is not None:
            out["value_bounds"] = list(self.value_bounds)
        out.update(self.sizes)
        out.update(self.details())
        out.update(self._strategy_records())
        out["seconds"] = dict(self.seconds)
        return _plain(out)

    def _strategy_records(self) -> dict[str, Any]:
        """``strategies``: the strategy table's rows, where the answer has one of at most
        :data:`JSON_STRATEGY_ROWS` rows (``--strategy-out`` writes any size); otherwise
        how many rows were left out."""
        sequences = 0 if self.sequence_form is None else sum(p.num_sequences for p in self.sequence_form.players)
        if self.behaviors is None or not sequences:
            return {}
        if sequences > JSON_STRATEGY_ROWS:
            return {"strategies_omitted": f"{sequences:,} rows: write them with --strategy-out"}
        table = self.strategy_table()
        return {"strategies": table.to_dict(orient="records")}

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(), indent=indent)


#: The most strategy-table rows an answer's JSON holds.
JSON_STRATEGY_ROWS = 20_000

__all__ = ["EQUILIBRIUM_TOLERANCE", "JSON_STRATEGY_ROWS", "Answer"]
