"""First-order solvers for the sequence-form saddle point ``max_x min_y x'Ay``.

``x`` and ``y`` range over the two players' treeplexes (realization plans); ``A`` is
player 1's chance-weighted payoff matrix over sequences. The solvers never form an LP:
each iteration is two or four sparse products with ``A`` and one sweep per own depth level
over each player's information-set forest, every step a numpy operation over all the
information sets of a level at once.

- :class:`RegretMatchingSolver`: counterfactual regret minimisation on the sequence form,
  with alternating updates. ``cfr+`` is CFR+ (Tammelin, Burch, Johanson and Bowling,
  "Solving heads-up limit Texas hold'em", 2015: regrets floored at zero, linearly weighted
  average); ``dcfr`` is discounted CFR (Brown and Sandholm, "Solving imperfect-information
  games via discounted regret minimization", 2019, alpha 1.5, beta 0, gamma 2); ``pcfr+``
  is predictive CFR+ (Farina, Kroer and Sandholm, "Faster game solving via predictive
  Blackwell approachability: connecting regret matching and mirror descent", 2021): regret
  matching+ on the floored regrets plus each information set's last instantaneous regret
  as the prediction of its next, quadratically weighted average. That prediction is the
  one LiteEFG (Liu, Farina and Ozdaglar, 2024) uses, and its iterates equal LiteEFG's;
  predicting each set's utilities bottom-up from the new strategies below it, as the
  paper's analysis does, needed the same iterations on Leduc and Liar's dice at twice
  the cost of an iteration.
- :class:`MirrorProxSolver`: Nemirovski's mirror-prox ("Prox-method with rate of
  convergence O(1/t)", 2004) with the dilated entropy as distance on each treeplex, whose
  prox step has the closed form of Hoda, Gilpin, Pena and Sandholm ("Smoothing techniques
  for computing Nash equilibria of sequential games", 2010). The step size adapts, and each
  step is accepted only when it satisfies the local condition of the analysis, so the
  duality gap of the average is proven at most ``gap_bound`` (the dilated entropy's
  range over the treeplexes divided by the sum of the step sizes).

Certificates are not these solvers' business: callers compute exact best responses
against :meth:`average_behaviors`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ..models.array_ops import NUMPY, ArrayOps, PayoffEntries
from ..models.treeplex import Treeplex
from ..models.vocabulary import FIRST_ORDER_ALGORITHMS

ALGORITHMS = FIRST_ORDER_ALGORITHMS


class SaddlePointSolver:
    """Common state: the payoff matrix, both treeplexes, where the arrays live and the
    iteration count.

    ``ops`` (default numpy) says where the iterations run: with :class:`TorchOps` the
    matrices and the treeplexes' index arrays are moved to its device once, every
    iteration runs there, and only :meth:`average_behaviors` comes back to the host."""

    name = ""

    def __init__(
        self, payoff: sp.spmatrix | PayoffEntries, treeplexes: tuple[Treeplex, Treeplex], ops: ArrayOps = NUMPY
    ):
        self.treeplexes = treeplexes
        self.iterations = 0
        shape = payoff.shape
        if shape != (treeplexes[0].num_sequences, treeplexes[1].num_sequences):
            raise ValueError(
                f"payoff matrix of shape {shape} for treeplexes of "
                f"{treeplexes[0].num_sequences} and {treeplexes[1].num_sequences} sequences"
            )
        self.ops = ops
        # the products every iteration takes (on all usable cores for large matrices on
        # numpy; built on the device from the entries on a GPU)
        self.payoff = ops.payoff_products(payoff)
        self.times, self.times_transposed = self.payoff.times, self.payoff.times_transposed
        self.placed = tuple(tp.on(ops) for tp in treeplexes)

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations."""
        raise NotImplementedError

    def device_behaviors(self) -> list[Any]:
        """Both players' behaviour strategies of the current average, as arrays of the
        solver's kind (for a certificate computed where the solver runs)."""
        raise NotImplementedError

    def average_behaviors(self) -> list[np.ndarray]:
        """Both players' behaviour strategies of the current average (the answer), as
        numpy arrays."""
        return [self.ops.numpy(b) for b in self.device_behaviors()]


class RegretMatchingSolver(SaddlePointSolver):
    """CFR+, predictive CFR+ or discounted CFR on the sequence form, players updated in turn.

    Regrets are kept per sequence; the current strategy is regret matching on them (for
    ``pcfr+``, on them plus the prediction); the average is of realization plans, weighted
    as the variant prescribes."""

    def __init__(
        self,
        payoff: sp.spmatrix | PayoffEntries,
        treeplexes: tuple[Treeplex, Treeplex],
        variant: str = "cfr+",
        ops: ArrayOps = NUMPY,
    ):
        super().__init__(payoff, treeplexes, ops)
        if variant not in ("cfr+", "pcfr+", "dcfr"):
            raise ValueError(f"variant must be cfr+, pcfr+ or dcfr, not {variant!r}")
        self.name = variant
        self.alpha, self.beta, self.gamma = 1.5, 0.0, 2.0
        self.regrets = [ops.zeros(tp.num_sequences) for tp in treeplexes]
        self.current = [tp.uniform() for tp in self.placed]
        self.plans = [tp.realization(b) for tp, b in zip(self.placed, self.current)]
        self.plan_sums = [ops.zeros(tp.num_sequences) for tp in treeplexes]
        # on CUDA one iteration is a recorded graph: it updates its arrays in place and
        # reads the iteration number from the device
        self._replay = ops.replayable(self._iteration_on_device)
        self._t: Any = ops.zeros(1) if self._replay is not None else None

    def _matched(self, p: int, prediction: Any = None) -> Any:
        """Regret matching on the regrets (plus ``prediction``, per non-empty sequence)."""
        tp, ops = self.placed[p], self.ops
        b = tp.uniform()
        if tp.num_infosets == 0:
            return b
        regrets = self.regrets[p][1:] if prediction is None else self.regrets[p][1:] + prediction
        positive = ops.positive(regrets, out=regrets if prediction is not None else None)
        totals = tp.action_totals(positive)[tp.sequence_infoset]
        # divided, not multiplied by an inverse: regret matching jumps where a regret
        # crosses zero, and a last-digit change there changes the iterates; uniform where
        # no action has positive regret
        ops.divide(positive, totals, out=b[1:], where=totals > 0)
        return b

    def _update(self, p: int, t: Any) -> None:
        """Player ``p``'s update at iteration ``t`` (a float, or a tensor holding it)."""
        tp, ops = self.placed[p], self.ops
        values = self.times @ self.plans[1] if p == 0 else -(self.times_transposed @ self.plans[0])
        v, info = tp.expected_values(self.current[p], values)
        r = self.regrets[p]
        instant = v[1:] - info[tp.sequence_infoset]
        r[1:] += instant
        prediction = None
        if self.name == "pcfr+":
            ops.positive(r, out=r)
            self.plan_sums[p] += t**2 * self.plans[p]
            prediction = instant  # the regrets just seen predict the next ones
        elif self.name == "cfr+":
            ops.positive(r, out=r)
            self.plan_sums[p] += t * self.plans[p]
        else:
            pos = t**self.alpha / (t**self.alpha + 1.0)
            neg = t**self.beta / (t**self.beta + 1.0)
            r *= ops.where(r > 0, pos, neg)
            self.plan_sums[p] += t**self.gamma * self.plans[p]
        current = self._matched(p, prediction)
        plan = tp.realization(current)
        if self._replay is None:
            self.current[p], self.plans[p] = current, plan
        else:  # a recorded graph reads and writes the same arrays at every replay
            self.current[p].copy_(current)
            self.plans[p].copy_(plan)

    def _iteration_on_device(self) -> None:
        self._update(0, self._t)
        self._update(1, self._t)

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations (player 1 then player 2 in each)."""
        for _ in range(n):
            t = self.iterations + 1
            if self._replay is None:
                self._update(0, float(t))
                self._update(1, float(t))
            else:
                self._t.fill_(t)
                self._replay()
            self.iterations += 1

    def device_behaviors(self) -> list[Any]:
        """Behaviour strategies of the weighted average realization plans."""
        if self.iterations == 0:
            return [tp.uniform() for tp in self.placed]
        return [tp.behavior(s) for tp, s in zip(self.placed, self.plan_sums)]


class MirrorProxSolver(SaddlePointSolver):
    """Mirror-prox with the dilated entropy (unit weights) on each treeplex.

    Strategies are held as log-probabilities per sequence, so prox steps never lose an
    action to underflow. A step of size ``eta`` is accepted when the analysis's local
    condition ``eta <F(z) - F(x), z - x'> <= D(x', z) + D(z, x)`` holds (then the bound
    ``gap <= range / sum(eta)`` stays proven); otherwise it is halved and retried.
    Accepted steps grow the next step by 20%."""

    name = "mirror-prox"

    def __init__(
        self,
        payoff: sp.spmatrix | PayoffEntries,
        treeplexes: tuple[Treeplex, Treeplex],
        step: float | None = None,
        ops: ArrayOps = NUMPY,
    ):
        super().__init__(payoff, treeplexes, ops)
        scale = self.payoff.largest or 1.0
        self.step = step if step is not None else 1.0 / scale
        self.logb = [ops.log(tp.uniform()) for tp in self.placed]
        self.avg = [ops.zeros(tp.num_sequences) for tp in treeplexes]
        self.step_sum = 0.0
        # the dilated entropy's range from the uniform start: sum over reached information
        # sets of log(actions), maximised over pure plans
        self.range = sum(tp.best_value(self._log_actions(tp)) for tp in treeplexes)

    @staticmethod
    def _log_actions(tp: Treeplex) -> np.ndarray:
        w = np.zeros(tp.num_sequences)
        # charge each information set's log(actions) to every sequence leading into it
        np.add.at(w, tp.parent_sequence, np.log(tp.num_actions))
        return w

    def _costs(self, plans: list[Any]) -> list[Any]:
        return [-(self.times @ plans[1]), self.times_transposed @ plans[0]]

    def _prox(self, p: int, logb0: Any, cost: Any, eta: float) -> Any:
        """Behaviour (log-probabilities) minimising ``eta <cost, x> + D(x, x0)``."""
        tp, ops = self.placed[p], self.ops
        s = eta * ops.vector(cost)
        logb = ops.zeros(tp.num_sequences)
        for lv in reversed(tp.levels):
            logits = logb0[lv.sequences] - s[lv.sequences]
            top = ops.segment_max(logits, lv.offsets, lv.owner, lv.size)
            lse = top + ops.log(ops.segment_sum(ops.exp(logits - top[lv.owner]), lv.offsets, lv.owner, lv.size))
            logb[lv.sequences] = logits - lse[lv.owner]
            # the subproblem's optimal value, per unit of reach, charged to the parent
            s[lv.parents] -= ops.grouped_sum(lv.parent_of, lse, lv.parent_count)
        return logb

    def _divergence(self, logb_u: Any, plan_u: Any, logb_v: Any) -> float:
        """``D(u, v)`` of the dilated entropy: reach-weighted KL per information set."""
        return self.ops.dot(plan_u[1:], logb_u[1:] - logb_v[1:])

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` accepted steps."""
        tps, ops = self.placed, self.ops
        for _ in range(n):
            x = [tp.realization(ops.exp(lb)) for tp, lb in zip(tps, self.logb)]
            fx = self._costs(x)
            while True:
                eta = self.step
                lz = [self._prox(p, self.logb[p], fx[p], eta) for p in (0, 1)]
                z = [tp.realization(ops.exp(lb)) for tp, lb in zip(tps, lz)]
                fz = self._costs(z)
                lx = [self._prox(p, self.logb[p], fz[p], eta) for p in (0, 1)]
                xn = [tp.realization(ops.exp(lb)) for tp, lb in zip(tps, lx)]
                lhs = eta * sum(ops.dot(fz[p] - fx[p], z[p] - xn[p]) for p in (0, 1))
                rhs = sum(
                    self._divergence(lx[p], xn[p], lz[p]) + self._divergence(lz[p], z[p], self.logb[p]) for p in (0, 1)
                )
                if lhs <= rhs + 1e-12 * max(1.0, abs(rhs)):
                    break
                self.step /= 2.0
            for p in (0, 1):
                self.avg[p] += eta * z[p]
            self.step_sum += eta
            self.logb = lx
            self.step *= 1.2
            self.iterations += 1

    @property
    def gap_bound(self) -> float:
        """Proven bound on the average's duality gap (NashConv): range / sum of steps."""
        return self.range / self.step_sum if self.step_sum > 0 else float("inf")

    def device_behaviors(self) -> list[Any]:
        """Behaviour strategies of the step-weighted average of the middle points."""
        if self.step_sum == 0:
            return [tp.uniform() for tp in self.placed]
        return [tp.behavior(a / self.step_sum) for tp, a in zip(self.placed, self.avg)]


class MultiplayerCFR:
    """CFR+ for any number of players on the sequence form, players updated in turn.

    A player's counterfactual values are, per sequence, the sum over the terminals it ends
    at of chance times payoff times the other players' realization weights: one product
    and one grouped sum over the terminals, no tree walk. With three or more players the
    average carries no convergence guarantee (it often gets close on small poker games);
    callers certify it by exact best responses. ``ops`` says where the arrays live, as for
    :class:`SaddlePointSolver`.
    """

    name = "cfr+"

    def __init__(
        self,
        terminal_sequences: np.ndarray,
        terminal_chance: np.ndarray,
        terminal_payoffs: np.ndarray,
        treeplexes: list[Treeplex],
        ops: ArrayOps = NUMPY,
    ):
        sequences = np.asarray(terminal_sequences, dtype=np.int64)
        weighted = np.asarray(terminal_chance, dtype=np.float64)[:, None] * np.asarray(terminal_payoffs)
        self.treeplexes = list(treeplexes)
        n = len(self.treeplexes)
        if sequences.shape[1] != n or weighted.shape[1] != n:
            raise ValueError(f"terminal arrays for {sequences.shape[1]} players and {n} treeplexes")
        self.ops = ops
        self.placed = [tp.on(ops) for tp in self.treeplexes]
        self.sequences = [ops.indices(np.ascontiguousarray(sequences[:, p])) for p in range(n)]
        self.weighted = [ops.vector(weighted[:, p]) for p in range(n)]
        self.iterations = 0
        self.regrets = [ops.zeros(tp.num_sequences) for tp in self.treeplexes]
        self.current = [tp.uniform() for tp in self.placed]
        self.plans = [tp.realization(b) for tp, b in zip(self.placed, self.current)]
        self.plan_sums = [ops.zeros(tp.num_sequences) for tp in self.treeplexes]

    def _update(self, p: int) -> None:
        tp, ops = self.placed[p], self.ops
        reach = ops.vector(self.weighted[p])
        for q, plan in enumerate(self.plans):
            if q != p:
                reach *= plan[self.sequences[q]]
        values = ops.grouped_sum(self.sequences[p], reach, tp.num_sequences)
        v, info = tp.expected_values(self.current[p], values)
        r = self.regrets[p]
        r[1:] += v[1:] - info[tp.sequence_infoset]
        ops.positive(r, out=r)
        self.plan_sums[p] += (self.iterations + 1) * self.plans[p]
        positive = r[1:]
        b = tp.uniform()
        if tp.num_infosets:
            totals = tp.action_totals(positive)[tp.sequence_infoset]
            ops.divide(positive, totals, out=b[1:], where=totals > 0)
        self.current[p] = b
        self.plans[p] = tp.realization(b)

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations (every player once in each, in order)."""
        for _ in range(n):
            for p in range(len(self.treeplexes)):
                self._update(p)
            self.iterations += 1

    def average_plans(self) -> list[np.ndarray]:
        """The linearly weighted average realization plans (the answer), as numpy arrays."""
        if self.iterations == 0:
            return [self.ops.numpy(p).copy() for p in self.plans]
        return [self.ops.numpy(s / s[0]) for s in self.plan_sums]

    def average_behaviors(self) -> list[np.ndarray]:
        """Behaviour strategies of :meth:`average_plans`."""
        return [tp.behavior(plan) for tp, plan in zip(self.treeplexes, self.average_plans())]


def make_solver(
    algorithm: str, payoff: sp.spmatrix | PayoffEntries, treeplexes: tuple[Treeplex, Treeplex], ops: ArrayOps = NUMPY
) -> SaddlePointSolver:
    """The solver called ``algorithm`` (one of :data:`ALGORITHMS`), its arrays of ``ops``'s
    kind."""
    if algorithm in ("cfr+", "pcfr+", "dcfr"):
        return RegretMatchingSolver(payoff, treeplexes, algorithm, ops=ops)
    if algorithm == "mirror-prox":
        return MirrorProxSolver(payoff, treeplexes, ops=ops)
    raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, not {algorithm!r}")


__all__ = [
    "ALGORITHMS",
    "MirrorProxSolver",
    "MultiplayerCFR",
    "RegretMatchingSolver",
    "SaddlePointSolver",
    "Treeplex",
    "make_solver",
]
