"""Ganzfried and Sandholm, "Computing equilibria by incorporating qualitative models" (2010),
Figure 2: G_250 abstracted into buckets of consecutive cards.

    python -m research.qualitative_figure2 [--n 250] [--buckets 2 5 10 25 50 125] [--out figures]

For each bucket count b, G_n's cards are grouped into b buckets of consecutive cards
(models.abstraction.uniform_buckets) in two ways: ``exact`` (buckets dealt with their true
probabilities, showdowns paid at the true odds) and ``ordered`` (the abstraction of G_n is
G_b: one card per bucket, ranked, dealt without replacement). The abstract game is
solved by the sequence-form LP, and player 1's abstract equilibrium strategy, played in the full G_n with every card
using its bucket's strategy, is evaluated against a best response there. The abstraction
has many equilibria for player 1, so five are reported: the one the LP returns, the
quasi-perfect one (``--refine quasi-perfect``), the extensive-form perfect one
(``--refine ef-perfect``; empty where its limit is not found), the
best one in the full game (a second LP: among player 1's maximin strategies of the
abstraction, the one whose lifted strategy guarantees most in G_n), and the worst one
found among the vertices of player 1's equilibrium polytope that ``--vertices`` random
objectives reach (what a strategy guarantees is concave in it, so its minimum over the
polytope is at a vertex; the search is exhaustive only if every vertex is reached). The
worst is also bracketed by the worst-equilibrium MILP (``--select worst`` on the shrink
route) within ``--worst-seconds``: the strategy it finds, certified in G_n, and its bound,
below which no equilibrium of the abstraction guarantees. Prints them beside the paper's
numbers; writes figure2.csv and figure2.png.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from research._report import finish, pyplot, write_rows

PAPER = {2: -0.2305, 5: -0.0667, 10: -0.0593, 25: -0.0569, 50: -0.0562, 125: -0.0560}


def run(
    n: int,
    buckets: Iterable[int],
    out: Path,
    plot: bool = True,
    vertices: int = 100,
    seed: int = 0,
    kinds: Sequence[str] = ("exact", "ordered"),
    worst_seconds: float = 30.0,
) -> list[dict]:
    """Compute the rows of Figure 2 (see the module docstring); returns them."""
    import numpy as np

    from equilibria import solve_game
    from equilibria.formulations import best_abstract_equilibrium_lp, realization_plan, worst_abstract_equilibrium_milp
    from equilibria.instances import load_bayesian
    from equilibria.models.abstraction import uniform_buckets
    from equilibria.models.bayesian import plans_from_behavior
    from equilibria.models.errors import SolveFailed
    from equilibria.models.sequence import SequenceForm
    from equilibria.models.strategy import behavior_from_realization
    from equilibria.routes.extensive_form_perfect import extensive_form_perfect
    from equilibria.routes.quasi_perfect import quasi_perfect
    from equilibria.solvers import solve

    full = load_bayesian(f"generalized_kuhn:cards={n}").finite_game()
    full_efg = full.to_extensive()
    full_sf = SequenceForm(full_efg)
    value = solve_game(full_efg).value
    print(f"v(G_{n}) = {value:.6f} (sequence-form LP)")
    rows = []
    for kind, b in [(k, b) for k in kinds for b in buckets]:
        abst = uniform_buckets(full, b, odds=kind)
        efg = abst.game.to_extensive()
        sol = solve_game(efg, method="simplex")
        sigmas = plans_from_behavior(abst.game, efg, sol.sequence_form, sol.behaviors)
        lifted = abst.lift(sigmas)
        pi_lp = -full.best_response_values(lifted)[1]
        # the second LP: the abstraction's best equilibrium strategy for the full game
        lift = abst.lift_matrix(0, full_sf, sol.sequence_form)
        lp = best_abstract_equilibrium_lp(sol.sequence_form, full_sf, lift, sol.value)
        best = solve(lp)
        if best.x is None:
            raise RuntimeError(f"the best-equilibrium LP was not solved: {best.status}")
        r = realization_plan(lp, best.x)
        beh = behavior_from_realization(sol.sequence_form.players[0], r)
        best_sigma = plans_from_behavior(abst.game, efg, sol.sequence_form, [beh, sol.behaviors[1]])
        pi_best = max(pi_lp, -full.best_response_values(abst.lift(best_sigma))[1])
        # the abstraction's quasi-perfect equilibrium (the perturbed LP's exact limit)
        qpe = quasi_perfect(sol.sequence_form).behaviors[0]
        qpe_sigma = plans_from_behavior(abst.game, efg, sol.sequence_form, [qpe, sol.behaviors[1]])
        pi_qpe = -full.best_response_values(abst.lift(qpe_sigma))[1]
        # the extensive-form perfect one (that perturbation's exact limit), where it is found
        try:
            efpe = extensive_form_perfect(sol.sequence_form)
        except SolveFailed:
            efpe = None
        pi_efpe = None
        if efpe is not None and not any(efpe.violations):
            efpe_sigma = plans_from_behavior(abst.game, efg, sol.sequence_form, [efpe.behaviors[0], sol.behaviors[1]])
            pi_efpe = -full.best_response_values(abst.lift(efpe_sigma))[1]
        # worst: vertices of the equilibrium polytope reached by random objectives on r
        rng = np.random.default_rng(seed)
        r_block = lp.col_block("r")
        worst, seen = pi_lp, set()  # the LP's own answer is one of the equilibria
        for _ in range(vertices):
            lp.c = np.zeros_like(lp.c)
            lp.c[r_block.start : r_block.stop] = rng.normal(size=r_block.size)
            vert = solve(lp, method="simplex")
            if vert.x is None:
                continue
            r_v = realization_plan(lp, vert.x)
            key = tuple(np.round(r_v, 9))
            if key in seen:
                continue
            seen.add(key)
            beh_v = behavior_from_realization(sol.sequence_form.players[0], r_v)
            sig_v = plans_from_behavior(abst.game, efg, sol.sequence_form, [beh_v, sol.behaviors[1]])
            worst = min(worst, -full.best_response_values(abst.lift(sig_v))[1])
        # the worst by the MILP: the strategy it ends with (certified in G_n) and its bound
        milp = worst_abstract_equilibrium_milp(sol.sequence_form, full_sf, lift, sol.value)
        ended = solve(milp, time_limit=worst_seconds)
        if ended.x is None:
            raise RuntimeError(f"the worst-equilibrium MILP found no strategy: {ended.status}")
        beh_w = behavior_from_realization(sol.sequence_form.players[0], realization_plan(milp, ended.x))
        sig_w = plans_from_behavior(abst.game, efg, sol.sequence_form, [beh_w, sol.behaviors[1]])
        pi_worst_milp = -full.best_response_values(abst.lift(sig_w))[1]
        bound = ended.objective if ended.optimal else ended.dual_objective
        rows.append(
            {
                "abstraction": kind,
                "buckets": b,
                "paper": PAPER.get(b),
                "abstract_value": sol.value,
                "pi_lp_equilibrium": pi_lp,
                "pi_best_equilibrium": pi_best,
                "pi_quasi_perfect": pi_qpe,
                "pi_ef_perfect": pi_efpe,
                "pi_worst_vertex_found": worst,
                "vertices_found": len(seen),
                "pi_worst_milp_found": pi_worst_milp,
                "pi_worst_milp_bound": bound,
                "worst_milp_status": str(ended.status),
                "pi_best_lp_objective": best.objective,
                "v_full": value,
            }
        )
        print(
            f"  {kind:>7} b={b:>4}: abstract value {sol.value:.6f}, lifted LP equilibrium {pi_lp:.6f}, "
            f"quasi-perfect {pi_qpe:.6f}, ef-perfect {'-' if pi_efpe is None else f'{pi_efpe:.6f}'}, "
            f"best {pi_best:.6f}, worst of {len(seen)} vertices {worst:.6f}, "
            f"worst by the MILP in [{bound:.6f}, {pi_worst_milp:.6f}] ({ended.status})",
            flush=True,
        )
    print(
        f"{'abstraction':>11} {'buckets':>8} {'paper':>8} {'LP equilibrium':>15} {'quasi-perfect':>14} "
        f"{'ef-perfect':>11} {'best':>10} {'worst found':>12} {'v(G_n)':>10}"
    )
    for row in rows:
        pp = f"{row['paper']:.4f}" if row["paper"] is not None else "-"
        print(
            f"{row['abstraction']:>11} {row['buckets']:>8} {pp:>8} {row['pi_lp_equilibrium']:>15.6f} "
            f"{row['pi_quasi_perfect']:>14.6f} "
            f"{'-' if row['pi_ef_perfect'] is None else format(row['pi_ef_perfect'], '.6f'):>11} "
            f"{row['pi_best_equilibrium']:>10.6f} "
            f"{row['pi_worst_vertex_found']:>12.6f} {row['v_full']:>10.6f}"
        )
    write_rows(rows, out / "figure2.csv")
    if plot:
        _plot(rows, out / "figure2.png", np)
    return rows


def _plot(rows: list[dict], path: Path, np: Any) -> None:
    plt = pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for kind, color in (("exact", "C0"), ("ordered", "C1")):
        sub = [r for r in rows if r["abstraction"] == kind]
        if not sub:
            continue
        b = [r["buckets"] for r in sub]
        ax.fill_between(
            b,
            [min(r["pi_worst_vertex_found"], r["pi_worst_milp_found"]) for r in sub],
            [r["pi_best_equilibrium"] for r in sub],
            color=color,
            alpha=0.2,
            label=f"{kind}: worst found .. best equilibrium",
        )
        ax.plot(b, [r["pi_lp_equilibrium"] for r in sub], "o-", color=color, label=f"{kind}: LP's equilibrium")
    b = sorted({r["buckets"] for r in rows})
    paper = [(k, v) for k, v in PAPER.items() if k in b]
    if paper:
        ax.plot(*zip(*paper), "x--", label="Ganzfried and Sandholm 2010")
    ax.axhline(rows[0]["v_full"], color="grey", lw=0.8, label="v(G_n)")
    ax.set_xscale("log")
    ax.set_xlabel("buckets")
    ax.set_ylabel("player 1's payoff against a best response in G_n")
    finish(fig, ax, path)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--n", type=int, default=250)
    parser.add_argument("--buckets", type=int, nargs="+", default=[2, 5, 10, 25, 50, 125])
    parser.add_argument("--out", type=Path, default=Path("figures"))
    parser.add_argument(
        "--vertices",
        type=int,
        default=100,
        help="random objectives used to search the worst abstract equilibrium (default 100)",
    )
    parser.add_argument(
        "--worst-seconds",
        type=float,
        default=30.0,
        help="time limit of each worst-equilibrium MILP (default 30)",
    )
    parser.add_argument("--abstraction", nargs="+", choices=("exact", "ordered"), default=["exact", "ordered"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    run(
        args.n,
        args.buckets,
        args.out,
        plot=not args.no_plot,
        vertices=args.vertices,
        seed=args.seed,
        kinds=args.abstraction,
        worst_seconds=args.worst_seconds,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
