"""What a route supplies: its :class:`Steps` (build, solve, answer) and the
:class:`Outcome` its solve step returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .options import RouteOptions

if TYPE_CHECKING:
    from ..models.best_response import Exploitability
    from ..models.sequence import SequenceForm
    from ..solvers.results import Status
    from .answer import Answer


@dataclass
class Outcome:
    """What a route's solve step found: how the run ended and the strategies it holds.

    Strategies come either as ``behaviors`` on ``sequence_form`` or, for a normal-form
    view, as one mixed strategy per player in ``profile`` (the skeleton turns those into
    behaviour strategies of the game's extensive form). A route that certified already
    (an anytime solve keeps its best certified strategies) sets ``certificate``.
    """

    status: Status  # a word of the vocabulary is taken and made the enum
    backend: str | None  # None when no solver ran
    method: str | None = None
    behaviors: list | None = None
    sequence_form: SequenceForm | None = None
    profile: list | None = None
    value: float | None = None
    certificate: Exploitability | None = None
    sizes: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    #: the solve step's own stages (an LP's build, transfer, solve, certificate), reported
    #: in its place when given
    seconds: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        from ..solvers.results import Status  # when a route runs: the parser imports no solver

        self.status = Status(self.status)  # a word outside the vocabulary is a bug: it raises


class Steps:
    """A route's own steps. Subclasses set :attr:`Options` and override :meth:`build` and
    :meth:`solve`; :meth:`answer` makes the :class:`~equilibria.core.answer.Answer` of an
    :class:`Outcome` (override it for an Answer subclass of the route's own, or return the
    Answer from :meth:`solve`)."""

    Options: type[RouteOptions] = RouteOptions
    #: The build step's name in the answer's seconds, and its progress message.
    build_key = "build"
    build_message = ""

    def build(self, view: Any, options: Any) -> Any:
        """The problem to solve (by default the view itself)."""
        return view

    def solve(self, problem: Any, options: Any, deadline: float | None) -> Outcome | Answer:
        """Solve ``problem``, stopping by ``deadline`` (a ``time.perf_counter()`` value):
        an :class:`Outcome`, or the route's Answer when it has certified it itself."""
        raise NotImplementedError

    def answer(self, name: str, outcome: Outcome, options: Any) -> Answer:
        """The route's answer from its certified outcome."""
        from .answer import Answer

        return Answer(**_answer_fields(name, outcome))


def _answer_fields(name: str, outcome: Outcome) -> dict[str, Any]:
    """The fields every :class:`~equilibria.core.answer.Answer` takes, from an outcome."""
    cert = outcome.certificate
    zero_sum = True
    value = outcome.value
    if cert is not None and len(cert.payoffs) != 2:
        zero_sum = False
    elif outcome.sequence_form is not None:
        from ..models.constant_sum import is_zero_sum

        zero_sum = is_zero_sum(outcome.sequence_form.terminal_payoffs)
    if value is None and cert is not None:
        value = float(cert.payoffs[0])
    return dict(
        route=name,
        game_name="",
        status=outcome.status,
        backend=outcome.backend,
        method=outcome.method,
        value=value,
        certificate=cert,
        sequence_form=outcome.sequence_form,
        behaviors=outcome.behaviors,
        sizes=dict(outcome.sizes),
        zero_sum=zero_sum,
    )


__all__ = ["Outcome", "Steps"]
