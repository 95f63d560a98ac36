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

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from ..models.treeplex import Treeplex
from ..models.vocabulary import FIRST_ORDER_ALGORITHMS

ALGORITHMS = FIRST_ORDER_ALGORITHMS

#: Matrices with at least this many nonzeros are multiplied by row blocks on several
#: threads (scipy's sparse products release the GIL); below it a thread costs more than
#: it saves.
PARALLEL_NONZEROS = 1 << 21


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class RowBlocks:
    """A CSR matrix multiplied by row blocks of about equal nonzeros, one thread each.

    The blocks are views of the matrix's arrays (only their row pointers are copied), and
    ``blocks @ x`` equals ``matrix @ x`` exactly: every row is summed by one thread, in
    the same order."""

    def __init__(self, matrix: sp.csr_matrix, threads: int):
        self.shape = matrix.shape
        nnz = matrix.indptr[-1]
        cuts = np.searchsorted(matrix.indptr, np.linspace(0, nnz, threads + 1)[1:-1])
        bounds = [0, *sorted(set(int(c) for c in cuts) - {0, matrix.shape[0]}), matrix.shape[0]]
        self.blocks = []
        for r0, r1 in zip(bounds[:-1], bounds[1:]):
            a0, a1 = matrix.indptr[r0], matrix.indptr[r1]
            # an empty matrix of the block's shape given the slices afterwards: scipy's
            # constructor copies a slice shorter than half its array, which would double
            # the memory of a matrix of a hundred million entries
            block = sp.csr_matrix((r1 - r0, matrix.shape[1]), dtype=matrix.dtype)
            block.indptr = (matrix.indptr[r0 : r1 + 1] - a0).astype(matrix.indices.dtype)
            block.indices, block.data = matrix.indices[a0:a1], matrix.data[a0:a1]
            self.blocks.append(block)
        self._pool = ThreadPoolExecutor(len(self.blocks), thread_name_prefix="sparse-product")

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        return np.concatenate(list(self._pool.map(lambda block: block @ x, self.blocks)))


def products(matrix: sp.csr_matrix, threads: int | None = None) -> sp.csr_matrix | RowBlocks:
    """What a solver multiplies by: ``matrix`` itself, or :class:`RowBlocks` of it when it
    is large enough to share among the usable cores (``threads``: how many; default all)."""
    threads = _usable_cores() if threads is None else threads
    if threads < 2 or matrix.nnz < PARALLEL_NONZEROS or matrix.shape[0] < threads:
        return matrix
    return RowBlocks(matrix, threads)


class SaddlePointSolver:
    """Common state: the payoff matrix, both treeplexes and the iteration count."""

    name = ""

    def __init__(self, payoff: sp.spmatrix, treeplexes: tuple[Treeplex, Treeplex]):
        self.A = sp.csr_matrix(payoff, dtype=np.float64)
        self.At = self.A.T.tocsr()
        # the products every iteration takes, on all usable cores for large matrices
        self.times, self.times_transposed = products(self.A), products(self.At)
        self.treeplexes = treeplexes
        self.iterations = 0
        if self.A.shape != (treeplexes[0].num_sequences, treeplexes[1].num_sequences):
            raise ValueError(
                f"payoff matrix of shape {self.A.shape} for treeplexes of "
                f"{treeplexes[0].num_sequences} and {treeplexes[1].num_sequences} sequences"
            )

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations."""
        raise NotImplementedError

    def average_behaviors(self) -> list[np.ndarray]:
        """Both players' behaviour strategies of the current average (the answer)."""
        raise NotImplementedError


class RegretMatchingSolver(SaddlePointSolver):
    """CFR+, predictive CFR+ or discounted CFR on the sequence form, players updated in turn.

    Regrets are kept per sequence; the current strategy is regret matching on them (for
    ``pcfr+``, on them plus the prediction); the average is of realization plans, weighted
    as the variant prescribes."""

    def __init__(self, payoff: sp.spmatrix, treeplexes: tuple[Treeplex, Treeplex], variant: str = "cfr+"):
        super().__init__(payoff, treeplexes)
        if variant not in ("cfr+", "pcfr+", "dcfr"):
            raise ValueError(f"variant must be cfr+, pcfr+ or dcfr, not {variant!r}")
        self.name = variant
        self.alpha, self.beta, self.gamma = 1.5, 0.0, 2.0
        self.regrets = [np.zeros(tp.num_sequences) for tp in treeplexes]
        self.current = [tp.uniform() for tp in treeplexes]
        self.plans = [tp.realization(b) for tp, b in zip(treeplexes, self.current)]
        self.plan_sums = [np.zeros(tp.num_sequences) for tp in treeplexes]
        self._uniform = [tp.uniform()[1:] for tp in treeplexes]

    def _matched(self, p: int, prediction: np.ndarray | None = None) -> np.ndarray:
        """Regret matching on the regrets (plus ``prediction``, per non-empty sequence)."""
        tp = self.treeplexes[p]
        b = np.ones(tp.num_sequences)
        if tp.num_infosets == 0:
            return b
        regrets = self.regrets[p][1:] if prediction is None else self.regrets[p][1:] + prediction
        positive = np.maximum(regrets, 0.0, out=regrets if prediction is not None else None)
        totals = np.add.reduceat(positive, tp.first_sequence - 1)
        some = totals > 0
        # divided, not multiplied by an inverse: regret matching jumps where a regret
        # crosses zero, and a last-digit change there changes the iterates
        np.divide(positive, totals[tp.sequence_infoset], out=b[1:], where=some[tp.sequence_infoset])
        if not some.all():
            none = ~some[tp.sequence_infoset]
            b[1:][none] = self._uniform[p][none]
        return b

    def _update(self, p: int) -> None:
        tp = self.treeplexes[p]
        t = self.iterations + 1
        values = self.times @ self.plans[1] if p == 0 else -(self.times_transposed @ self.plans[0])
        v, info = tp.expected_values(self.current[p], values)
        r = self.regrets[p]
        instant = v[1:] - info[tp.sequence_infoset]
        r[1:] += instant
        prediction = None
        if self.name == "pcfr+":
            np.maximum(r, 0.0, out=r)
            self.plan_sums[p] += float(t) ** 2 * self.plans[p]
            prediction = instant  # the regrets just seen predict the next ones
        elif self.name == "cfr+":
            np.maximum(r, 0.0, out=r)
            self.plan_sums[p] += t * self.plans[p]
        else:
            pos = t**self.alpha / (t**self.alpha + 1.0)
            neg = t**self.beta / (t**self.beta + 1.0)
            r *= np.where(r > 0, pos, neg)
            self.plan_sums[p] += t**self.gamma * self.plans[p]
        self.current[p] = self._matched(p, prediction)
        self.plans[p] = tp.realization(self.current[p])

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations (player 1 then player 2 in each)."""
        for _ in range(n):
            self._update(0)
            self._update(1)
            self.iterations += 1

    def average_behaviors(self) -> list[np.ndarray]:
        """Behaviour strategies of the weighted average realization plans."""
        if self.iterations == 0:
            return [tp.uniform() for tp in self.treeplexes]
        return [tp.behavior(s) for tp, s in zip(self.treeplexes, self.plan_sums)]


class MirrorProxSolver(SaddlePointSolver):
    """Mirror-prox with the dilated entropy (unit weights) on each treeplex.

    Strategies are held as log-probabilities per sequence, so prox steps never lose an
    action to underflow. A step of size ``eta`` is accepted when the analysis's local
    condition ``eta <F(z) - F(x), z - x'> <= D(x', z) + D(z, x)`` holds (then the bound
    ``gap <= range / sum(eta)`` stays proven); otherwise it is halved and retried.
    Accepted steps grow the next step by 20%."""

    name = "mirror-prox"

    def __init__(self, payoff: sp.spmatrix, treeplexes: tuple[Treeplex, Treeplex], step: float | None = None):
        super().__init__(payoff, treeplexes)
        scale = float(np.abs(self.A.data).max(initial=0.0)) or 1.0
        self.step = step if step is not None else 1.0 / scale
        self.logb = [np.log(tp.uniform()) for tp in treeplexes]
        self.avg = [np.zeros(tp.num_sequences) for tp in treeplexes]
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

    def _costs(self, plans: list[np.ndarray]) -> list[np.ndarray]:
        return [-(self.times @ plans[1]), self.times_transposed @ plans[0]]

    def _prox(self, p: int, logb0: np.ndarray, cost: np.ndarray, eta: float) -> np.ndarray:
        """Behaviour (log-probabilities) minimising ``eta <cost, x> + D(x, x0)``."""
        tp = self.treeplexes[p]
        s = eta * np.asarray(cost, dtype=np.float64)
        logb = np.zeros(tp.num_sequences)
        for lv in reversed(tp.levels):
            if not lv.sequences.size:
                continue
            logits = logb0[lv.sequences] - s[lv.sequences]
            top = np.maximum.reduceat(logits, lv.offsets)
            lse = top + np.log(np.add.reduceat(np.exp(logits - top[lv.owner]), lv.offsets))
            logb[lv.sequences] = logits - lse[lv.owner]
            # the subproblem's optimal value, per unit of reach, charged to the parent
            s[lv.parents] -= np.bincount(lv.parent_of, weights=lse, minlength=lv.parents.shape[0])
        return logb

    def _divergence(self, p: int, logb_u: np.ndarray, plan_u: np.ndarray, logb_v: np.ndarray) -> float:
        """``D(u, v)`` of the dilated entropy: reach-weighted KL per information set."""
        return float(np.dot(plan_u[1:], logb_u[1:] - logb_v[1:]))

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` accepted steps."""
        tps = self.treeplexes
        for _ in range(n):
            x = [tp.realization(np.exp(lb)) for tp, lb in zip(tps, self.logb)]
            fx = self._costs(x)
            while True:
                eta = self.step
                lz = [self._prox(p, self.logb[p], fx[p], eta) for p in (0, 1)]
                z = [tp.realization(np.exp(lb)) for tp, lb in zip(tps, lz)]
                fz = self._costs(z)
                lx = [self._prox(p, self.logb[p], fz[p], eta) for p in (0, 1)]
                xn = [tp.realization(np.exp(lb)) for tp, lb in zip(tps, lx)]
                lhs = eta * sum(float(np.dot(fz[p] - fx[p], z[p] - xn[p])) for p in (0, 1))
                rhs = sum(
                    self._divergence(p, lx[p], xn[p], lz[p]) + self._divergence(p, lz[p], z[p], self.logb[p])
                    for p in (0, 1)
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

    def average_behaviors(self) -> list[np.ndarray]:
        """Behaviour strategies of the step-weighted average of the middle points."""
        if self.step_sum == 0:
            return [tp.uniform() for tp in self.treeplexes]
        return [tp.behavior(a / self.step_sum) for tp, a in zip(self.treeplexes, self.avg)]


class MultiplayerCFR:
    """CFR+ for any number of players on the sequence form, players updated in turn.

    A player's counterfactual values are, per sequence, the sum over the terminals it ends
    at of chance times payoff times the other players' realization weights: one product
    and one ``bincount`` over the terminals, no tree walk. With three or more players the
    average carries no convergence guarantee (it often gets close on small poker games);
    callers certify it by exact best responses.
    """

    name = "cfr+"

    def __init__(
        self,
        terminal_sequences: np.ndarray,
        terminal_chance: np.ndarray,
        terminal_payoffs: np.ndarray,
        treeplexes: list[Treeplex],
    ):
        self.sequences = np.asarray(terminal_sequences, dtype=np.int64)
        self.weighted = np.asarray(terminal_chance, dtype=np.float64)[:, None] * np.asarray(terminal_payoffs)
        self.treeplexes = list(treeplexes)
        n = len(self.treeplexes)
        if self.sequences.shape[1] != n or self.weighted.shape[1] != n:
            raise ValueError(f"terminal arrays for {self.sequences.shape[1]} players and {n} treeplexes")
        self.iterations = 0
        self.regrets = [np.zeros(tp.num_sequences) for tp in self.treeplexes]
        self.current = [tp.uniform() for tp in self.treeplexes]
        self.plans = [tp.realization(b) for tp, b in zip(self.treeplexes, self.current)]
        self.plan_sums = [np.zeros(tp.num_sequences) for tp in self.treeplexes]

    def _update(self, p: int) -> None:
        tp = self.treeplexes[p]
        reach = self.weighted[:, p].copy()
        for q, plan in enumerate(self.plans):
            if q != p:
                reach *= plan[self.sequences[:, q]]
        values = np.bincount(self.sequences[:, p], weights=reach, minlength=tp.num_sequences)
        v, info = tp.expected_values(self.current[p], values)
        r = self.regrets[p]
        r[1:] += v[1:] - info[tp.sequence_infoset]
        np.maximum(r, 0.0, out=r)
        self.plan_sums[p] += (self.iterations + 1) * self.plans[p]
        positive = r[1:]
        totals = (np.add.reduceat(positive, tp.first_sequence - 1) if positive.size else positive)[tp.sequence_infoset]
        b = np.ones(tp.num_sequences)
        b[1:] = np.where(
            totals > 0, positive / np.where(totals > 0, totals, 1.0), 1.0 / tp.num_actions[tp.sequence_infoset]
        )
        self.current[p] = b
        self.plans[p] = tp.realization(b)

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations (every player once in each, in order)."""
        for _ in range(n):
            for p in range(len(self.treeplexes)):
                self._update(p)
            self.iterations += 1

    def average_plans(self) -> list[np.ndarray]:
        """The linearly weighted average realization plans (the answer)."""
        if self.iterations == 0:
            return [p.copy() for p in self.plans]
        return [s / s[0] for s in self.plan_sums]

    def average_behaviors(self) -> list[np.ndarray]:
        """Behaviour strategies of :meth:`average_plans`."""
        return [tp.behavior(plan) for tp, plan in zip(self.treeplexes, self.average_plans())]


def make_solver(algorithm: str, payoff: sp.spmatrix, treeplexes: tuple[Treeplex, Treeplex]) -> SaddlePointSolver:
    """The solver called ``algorithm`` (one of :data:`ALGORITHMS`)."""
    if algorithm in ("cfr+", "pcfr+", "dcfr"):
        return RegretMatchingSolver(payoff, treeplexes, algorithm)
    if algorithm == "mirror-prox":
        return MirrorProxSolver(payoff, treeplexes)
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
