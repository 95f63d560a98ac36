"""Equilibria of games of any number of players, from an approximate one: descent on the
Liapunov function, then Newton's method on the support.

CFR+ carries no convergence guarantee with three or more players, and on three-player
generalized Kuhn poker with six cards it stalls near NashConv 3e-3. Two classic local
methods take such a profile the rest of the way:

- **The Liapunov function** (McKelvey, "A Liapunov function for Nash equilibria", 1991),
  written on the sequence form: the sum, over every player's information sets and actions,
  of the squared positive part of the action's counterfactual value over the information
  set's. It is zero exactly at the profiles where no action at any information set gains,
  and smooth in the behaviour probabilities; here they are a softmax of free logits, and
  L-BFGS (scipy) descends with the gradient computed in one reverse sweep (no Python object
  per node, one array step per level of each player's treeplex).
- **Newton's method on the support**: with the actions played fixed (those above a
  threshold), an equilibrium makes the played actions of every information set equally
  good, a polynomial system with one equation per free probability. Newton's method (the
  Jacobian by differences, least-squares steps so that a family of equilibria is no
  obstacle, a line search on the residual) converges quadratically when the support is
  right, to an equilibrium exact to rounding.

Neither is trusted: callers certify what comes back by exact best responses, and keep it
only when the certificate is lower (:func:`equilibria.core.anytime.seed_profile`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from ..models.treeplex import Treeplex

#: Logit given to a probability of zero when a profile becomes the descent's start.
LOG_FLOOR = np.log(1e-12)

#: The most free probabilities Newton's method takes on (its Jacobian costs one
#: evaluation of every player's values per probability).
NEWTON_MAX_FREE = 2000


@dataclass(frozen=True)
class _Level:
    sequences: np.ndarray  # the level's sequences
    infoset: np.ndarray  # information set (of the player) of each of them
    parent: np.ndarray  # parent sequence of each of them
    infosets: np.ndarray  # the level's information sets
    infoset_parent: np.ndarray  # parent sequence of each of those


def _levels(tp: Treeplex) -> list[_Level]:
    out = []
    seq_infoset = np.concatenate([[-1], tp.sequence_infoset])
    for lv in tp.levels:
        if not lv.sequences.size:
            continue
        infoset = seq_infoset[lv.sequences]
        out.append(_Level(lv.sequences, infoset, tp.parent_sequence[infoset], lv.infosets, lv.parent))
    return out


class LiapunovFunction:
    """The Liapunov function of a game given as terminal arrays (each terminal's sequence
    per player, chance probability and payoffs, as :class:`~equilibria.models.sequence.SequenceForm`
    holds them) and the players' treeplexes; behaviour strategies are one vector per
    player indexed by sequence (entry 0, the empty sequence, is 1)."""

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
        self.n = len(self.treeplexes)
        self.levels = [_levels(tp) for tp in self.treeplexes]
        self.sizes = [tp.num_sequences for tp in self.treeplexes]
        self.seq_infoset = [np.concatenate([[0], tp.sequence_infoset]) for tp in self.treeplexes]

    # -- behaviour strategies and logits -------------------------------------------------

    def split(self, z: np.ndarray) -> list[np.ndarray]:
        """Per player, the logits of its non-empty sequences, from one flat vector."""
        return np.split(np.asarray(z, dtype=np.float64), np.cumsum([s - 1 for s in self.sizes])[:-1])

    def behaviors_of(self, z: np.ndarray) -> list[np.ndarray]:
        """The behaviour strategies whose logits are ``z`` (softmax per information set)."""
        out = []
        for p, zp in enumerate(self.split(z)):
            tp = self.treeplexes[p]
            owner = tp.sequence_infoset
            top = np.full(tp.num_infosets, -np.inf)
            np.maximum.at(top, owner, zp)
            e = np.exp(zp - top[owner])
            total = np.bincount(owner, weights=e, minlength=tp.num_infosets)
            out.append(np.concatenate([[1.0], e / total[owner]]))
        return out

    @staticmethod
    def logits_of(behaviors: list[np.ndarray]) -> np.ndarray:
        """Logits of behaviour strategies (zeros at :data:`LOG_FLOOR`)."""
        return np.concatenate(
            [np.log(np.maximum(np.asarray(b[1:], dtype=float), np.exp(LOG_FLOOR))) for b in behaviors]
        )

    # -- values ---------------------------------------------------------------------------

    def _others(self, i: int, plans: list[np.ndarray], skip: int = -1) -> np.ndarray:
        w = self.weighted[:, i].copy()
        for j in range(self.n):
            if j != i and j != skip:
                w *= plans[j][self.sequences[:, j]]
        return w

    def sequence_values(
        self, behaviors: list[np.ndarray]
    ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
        """Per player: every sequence's counterfactual value (its terminals' and the
        information sets' below it, the player's own play below included), every
        information set's value (its actions' average), and the realization plan."""
        plans = [tp.realization(b) for tp, b in zip(self.treeplexes, behaviors)]
        values, means = [], []
        for i in range(self.n):
            v = np.bincount(self.sequences[:, i], weights=self._others(i, plans), minlength=self.sizes[i])
            mean = np.zeros(self.treeplexes[i].num_infosets)
            b = behaviors[i]
            for lv in reversed(self.levels[i]):
                m = np.bincount(lv.infoset, weights=b[lv.sequences] * v[lv.sequences], minlength=mean.shape[0])
                mean[lv.infosets] = m[lv.infosets]
                v += np.bincount(lv.infoset_parent, weights=m[lv.infosets], minlength=v.shape[0])
            values.append(v)
            means.append(mean)
        return values, means, plans

    def value_and_gradient(self, z: np.ndarray) -> tuple[float, np.ndarray]:
        """The Liapunov function at logits ``z`` and its gradient (one reverse sweep)."""
        behaviors = self.behaviors_of(z)
        values, means, plans = self.sequence_values(behaviors)
        total = 0.0
        plan_bar = [np.zeros(s) for s in self.sizes]
        b_bar = [np.zeros(s) for s in self.sizes]
        for i in range(self.n):
            v, mean, b, own = values[i], means[i], behaviors[i], self.seq_infoset[i]
            gain = np.zeros_like(v)
            gain[1:] = np.maximum(v[1:] - mean[own[1:]], 0.0)
            total += float(np.dot(gain, gain))
            e = 2.0 * gain  # d/dv of each action's term
            direct = -np.bincount(own[1:], weights=e[1:], minlength=mean.shape[0])
            v_bar = np.zeros_like(v)
            mean_bar = np.zeros_like(mean)
            for lv in self.levels[i]:  # top-down: the reverse of the bottom-up sweep
                mean_bar[lv.infosets] = direct[lv.infosets] + v_bar[lv.infoset_parent]
                v_bar[lv.sequences] = e[lv.sequences] + mean_bar[lv.infoset] * b[lv.sequences]
                b_bar[i][lv.sequences] += mean_bar[lv.infoset] * v[lv.sequences]
            # each sequence's terminal values: the other players' plans multiply them
            back = v_bar[self.sequences[:, i]]
            for j in range(self.n):
                if j != i:
                    plan_bar[j] += np.bincount(
                        self.sequences[:, j], weights=back * self._others(i, plans, skip=j), minlength=self.sizes[j]
                    )
        grads = []
        for p in range(self.n):
            r, r_bar, b = plans[p], plan_bar[p], behaviors[p]
            for lv in reversed(self.levels[p]):  # back through the top-down realization
                b_bar[p][lv.sequences] += r_bar[lv.sequences] * r[lv.parent]
                r_bar += np.bincount(lv.parent, weights=r_bar[lv.sequences] * b[lv.sequences], minlength=r_bar.shape[0])
            bb = b_bar[p][1:] * b[1:]
            own = self.treeplexes[p].sequence_infoset
            grads.append(bb - b[1:] * np.bincount(own, weights=bb, minlength=self.treeplexes[p].num_infosets)[own])
        return total, np.concatenate(grads)

    # -- methods --------------------------------------------------------------------------

    def descend(
        self, behaviors: list[np.ndarray], *, iterations: int, deadline: float | None = None
    ) -> tuple[list[np.ndarray], int]:
        """At most ``iterations`` steps of L-BFGS on the Liapunov function from
        ``behaviors`` (stopping at ``deadline``, a ``time.perf_counter()`` instant): the
        behaviour strategies of the lowest value met, and the evaluations made."""
        best_value, best_z = np.inf, self.logits_of(behaviors)
        calls = 0

        class _Late(Exception):
            pass

        def fun(z: np.ndarray) -> tuple[float, np.ndarray]:
            nonlocal best_value, best_z, calls
            if deadline is not None and time.perf_counter() > deadline:
                raise _Late
            value, grad = self.value_and_gradient(z)
            calls += 1
            if value < best_value:
                best_value, best_z = value, z.copy()
            return value, grad

        try:
            minimize(
                fun,
                best_z.copy(),
                jac=True,
                method="L-BFGS-B",
                options={"maxiter": iterations, "ftol": 0.0, "gtol": 0.0},
            )
        except _Late:
            pass
        return self.behaviors_of(best_z), calls

    def newton(
        self, behaviors: list[np.ndarray], *, played: float, steps: int = 30, deadline: float | None = None
    ) -> list[np.ndarray] | None:
        """Newton's method on the support: the actions with probability above ``played``
        are kept (the rest set to zero), and their probabilities moved until the played
        actions of every information set are equally good. None when the system does not
        converge or leaves the simplex (the support was wrong), has more than
        :data:`NEWTON_MAX_FREE` free probabilities (the Jacobian is taken by differences),
        or ``deadline`` passes."""
        base = []
        free: list[tuple[int, int, int]] = []  # (player, sequence, the information set's last played one)
        for p, b in enumerate(behaviors):
            tp = self.treeplexes[p]
            b = np.asarray(b, dtype=float).copy()
            b[1:][b[1:] <= played] = 0.0
            total = np.bincount(tp.sequence_infoset, weights=b[1:], minlength=tp.num_infosets)
            if np.any(total <= 0):
                return None
            b[1:] /= total[tp.sequence_infoset]
            base.append(b)
            for info in range(tp.num_infosets):
                first = int(tp.first_sequence[info])
                kept = [first + a for a in range(int(tp.num_actions[info])) if b[first + a] > 0]
                free.extend((p, s, kept[-1]) for s in kept[:-1])
        if not free:
            return base
        if len(free) > NEWTON_MAX_FREE:
            return None
        who = np.array([f[0] for f in free])
        seq = np.array([f[1] for f in free])
        last = np.array([f[2] for f in free])

        def profile(x: np.ndarray) -> list[np.ndarray]:
            out = [b.copy() for b in base]
            for p in range(self.n):
                mine = who == p
                out[p][seq[mine]] = x[mine]
                np.subtract.at(out[p], last[mine], x[mine] - base[p][seq[mine]])
            return out

        def residual(x: np.ndarray) -> np.ndarray:
            values, _, _ = self.sequence_values(profile(x))
            return np.array([values[p][s] - values[p][t] for p, s, t in free])

        x = np.array([base[p][s] for p, s, _ in free])
        f = residual(x)
        h = 1e-7
        for _ in range(steps):
            norm = float(np.linalg.norm(f))
            if norm <= 1e-14:
                break
            jac = np.empty((f.shape[0], x.shape[0]))
            for k in range(x.shape[0]):
                if deadline is not None and time.perf_counter() > deadline:
                    return None
                y = x.copy()
                y[k] += h
                jac[:, k] = (residual(y) - f) / h
            step = np.linalg.lstsq(jac, -f, rcond=1e-10)[0]
            a = 1.0
            while a > 1e-6:
                y = x + a * step
                fy = residual(y)
                if np.linalg.norm(fy) < (1.0 - 1e-4 * a) * norm:
                    break
                a /= 2.0
            else:
                break
            x, f = y, fy
        out = profile(x)
        if any(np.any(b < -1e-12) for b in out) or float(np.abs(f).max(initial=0.0)) > 1e-9:
            return None
        return [np.maximum(b, 0.0) for b in out]


__all__ = ["LiapunovFunction"]
