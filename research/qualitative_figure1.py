"""Ganzfried and Sandholm, "Computing equilibria by incorporating qualitative models" (2010),
Figure 1: G-infinity's equilibrium projected onto G_n against v(G_n).

    python -m research.qualitative_figure1 [--n 50 100 150 200 250] [--out figures]

Solves G-infinity (Kuhn betting, uniform [0, 1] signals) by its threshold program and
projects its equilibrium onto G_n in two ways:

overlap   card i gets the interval [(i-1)/n, i/n] and plays the thresholds' mixture there
          (Ganzfried and Sandholm 2010, section 6.2): the projection this library uses;
pure      card i is the point (i-1)/(n-1) and plays the one plan of the region holding it;
          a card exactly on a threshold plays the region that bets first. This pure
          projection reproduces the paper's pi(sigma_n) (see the README).

Prints, per n, the game value v(G_n) from the sequence-form LP and what each projected
strategy of player 1 guarantees against a best response in G_n, pi(sigma_n), beside the
paper's numbers; writes figure1.csv and figure1.png.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from research._report import finish, pyplot, write_rows

if TYPE_CHECKING:
    from equilibria.models.bayesian import BayesianGame
    from equilibria.models.parametric import ParametricModel

PAPER_V = {50: -0.0576, 100: -0.0566, 150: -0.0563, 200: -0.0561, 250: -0.0560}
PAPER_PI = {50: -0.0624, 100: -0.0612, 150: -0.0579, 200: -0.0583, 250: -0.0560}


def pure_projection(
    game: BayesianGame, model: ParametricModel, thresholds: Sequence[Sequence[float]], n: int
) -> list[np.ndarray]:
    """Plan strategies of G_n: card i plays the region holding (i-1)/(n-1); on a threshold,
    the adjacent region whose plan bets at its first decision wins the tie."""
    plans = model.plan_indices(game)
    tree = game.tree
    pos = np.arange(n) / (n - 1)
    out = []
    for p in (0, 1):
        bounds = np.asarray(thresholds[p], dtype=float)
        region = np.searchsorted(bounds, pos, side="left")  # lower region on a tie
        for k, t in enumerate(bounds):
            on = np.isclose(pos, t, rtol=0, atol=1e-12)
            upper_bets = tree.plan_text(p, plans[p][k + 1]).startswith("bet")
            lower_bets = tree.plan_text(p, plans[p][k]).startswith("bet")
            region[on] = k + 1 if (upper_bets and not lower_bets) else k
        sigma = np.zeros((n, len(tree.plans[p])))
        sigma[np.arange(n), np.asarray(plans[p])[region]] = 1.0
        out.append(sigma)
    return out


def run(ns: Iterable[int], out: Path, plot: bool = True) -> list[dict]:
    """Compute the rows of Figure 1 (see the module docstring); returns them."""
    from equilibria import load, solve_game
    from equilibria.instances import load_bayesian
    from equilibria.routes.threshold.route import project, solve_threshold

    g_inf = load_bayesian("kuhn_continuous")
    sol = solve_threshold(g_inf)
    print(
        f"G-infinity thresholds: player 1 {np.round(sol.thresholds[0], 6).tolist()}, "
        f"player 2 {np.round(sol.thresholds[1], 6).tolist()}; value {sol.value:.6f}, "
        f"exploitability {sol.exploitability:.1e} ({sol.verification['method']})"
    )
    rows = []
    for n in ns:
        target = load_bayesian(f"generalized_kuhn:cards={n}").finite_game()
        sigmas = project(g_inf, sol.model, sol.thresholds, target, edges=np.linspace(0.0, 1.0, n + 1))
        br = target.best_response_values(sigmas)
        pure_br = target.best_response_values(pure_projection(g_inf, sol.model, sol.thresholds, n))
        value = solve_game(load(f"generalized_kuhn:cards={n}")).value
        rows.append(
            {
                "n": n,
                "v_paper": PAPER_V.get(n),
                "v_ours": value,
                "pi_paper": PAPER_PI.get(n),
                "pi_ours": -br[1],
                "pi_pure": -pure_br[1],
                "pi_player2_ours": br[0],  # what player 2's overlap projection concedes
                "exploitability": 0.5 * (br[0] + br[1]),  # of the overlap-projected profile
            }
        )
    print(
        f"{'n':>5} {'v(G_n) paper':>13} {'v(G_n) ours':>12} {'pi paper':>9} {'pi overlap':>11} "
        f"{'pi pure':>9} {'P2 concedes':>12} {'exploitability':>15}"
    )
    for r in rows:
        vp = f"{r['v_paper']:.4f}" if r["v_paper"] is not None else "-"
        pp = f"{r['pi_paper']:.4f}" if r["pi_paper"] is not None else "-"
        print(
            f"{r['n']:>5} {vp:>13} {r['v_ours']:>12.6f} {pp:>9} {r['pi_ours']:>11.6f} {r['pi_pure']:>9.6f} "
            f"{r['pi_player2_ours']:>12.6f} {r['exploitability']:>15.2e}"
        )
    write_rows(rows, out / "figure1.csv")
    if plot:
        _plot(rows, out / "figure1.png")
    return rows


def _plot(rows: list[dict], path: Path) -> None:
    plt = pyplot()
    if plt is None:
        return
    n = [r["n"] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(n, [r["v_ours"] for r in rows], "o-", label="v(G_n), sequence-form LP")
    ax.plot(n, [r["pi_ours"] for r in rows], "s-", label="pi(sigma_n), overlap projection")
    ax.plot(n, [r["pi_pure"] for r in rows], "^-", label="pi(sigma_n), pure projection")
    paper = [(k, v) for k, v in PAPER_PI.items() if k in n]
    if paper:
        ax.plot(*zip(*paper), "x--", label="pi(sigma_n), Ganzfried and Sandholm 2010")
    ax.set_xlabel("n (cards)")
    ax.set_ylabel("payoff to player 1")
    finish(fig, ax, path)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--n", type=int, nargs="+", default=[50, 100, 150, 200, 250])
    parser.add_argument("--out", type=Path, default=Path("figures"))
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    run(args.n, args.out, plot=not args.no_plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
