"""``nash``: MIP Nash for general-sum and many-player games."""

from __future__ import annotations

import argparse
from typing import Any

from .common import (
    METHOD_HELP,
    add_product_options,
    add_rounds_option,
    check_program_target,
    fixed,
    number_type,
    print_rounds,
    text_type,
)


def cmd_nash(args: argparse.Namespace) -> int:
    from ...core.skeleton import solve
    from ...routes.nash.route import NashSolution

    if args.write:
        check_program_target(args.write)  # before the work
    sol = solve(
        args.game,
        "nash",
        formulation=args.formulation,
        objective=args.objective,
        backend=args.backend,
        time_limit=args.time_limit,
        epsilon=args.epsilon,
        breakpoints=args.breakpoints,
        products=args.products,
        prune=not args.keep_dominated,
        verbose=args.verbose,
        **({"rounds": args.rounds} if args.rounds is not None else {}),
        **({"method": args.method} if args.method is not None else {}),
    )
    assert isinstance(sol, NashSolution)
    written = ""
    if args.write:
        from ...formulations.linear_program import LinearProgram
        from ...models.output import content_suffix
        from ...solvers import write_disjunctive, write_problem

        problem, written = sol.program_to_export()
        if isinstance(problem, LinearProgram):
            write_problem(problem, args.write, "lp" if content_suffix(args.write) == ".lp" else "mps")
        else:
            write_disjunctive(problem, args.write, "bigm")
    if args.json:
        print(sol.to_json())
        return 0
    print(f"game            {sol.game_name or args.game}" + ("" if not sol.zero_sum else "  (zero-sum)"))
    print(f"program         MIP Nash formulation {sol.formulation}, objective {sol.objective}")
    for entry in sol.profile():
        p = entry["player"] - 1
        if sol.mixed is not None and sol.normal_form is not None:
            names = sol.normal_form.strategy_names[p]
            parts = [f"{n} {w:.6f}" for n, w in zip(names, sol.mixed[p]) if w > 1e-9]
            print(f"player {p + 1} ({entry['name']}): " + ", ".join(parts))
            continue
        print(f"player {p + 1} ({entry['name']})")
        for info in entry["infosets"]:
            line = ", ".join(f"{a} {w:.6f}" for a, w in zip(info["actions"], info["probabilities"]))
            print(f"  {info['infoset']:>4}  {info['label']}: {line}")
    print("payoffs         " + ", ".join(f"{fixed(v, 9)}" for v in sol.payoffs or []))
    print(
        "regrets         "
        + ", ".join(f"{r:.3e}" for r in sol.regrets)
        + f"  (exact best responses; NashConv {sol.nash_conv:.3e})"
    )
    if sol.published_family is not None:
        first, second = sol.published_family.lines()
        print(f"family          {first}\n                {second}")
    if sol.curve:
        print_rounds(sol.curve)
    if sol.from_seed:
        print("answer          the CFR+ seed: it met epsilon, and no round's program gave a profile as good")
    if sol.num_products:
        detail = "exact (bilinear)" if sol.products == "exact" else f"{sol.products}, {sol.breakpoints} breakpoints"
        at_answer = "" if sol.bound_at_answer is None else f", proven at the answer <= {sol.bound_at_answer:.3e}"
        print(
            f"products        {sol.num_products} of the others' weights, {detail}; "
            f"promised NashConv <= {sol.promised_nash_conv:.3e}{at_answer}"
        )
    if sol.formulation == 1 and sol.objective != "any" and sol.objective_value is not None:
        bound = "" if sol.best_bound is None else f"; the solver's bound on it {fixed(sol.best_bound, 9)}"
        print(f"objective       {sol.objective} {fixed(sol.objective_value, 9)}{bound}")
    if sol.proven_bound is not None:
        print(
            f"proven bound    sum of regrets <= {sol.proven_bound:.3e} (from the objective {sol.objective_value:.3e}"
            + (f" and the products' {sol.promised_nash_conv:.3e})" if sol.promised_nash_conv else ")")
        )
    sizes = sol.sizes
    print(
        f"program size    {sizes['rows']} rows, {sizes['columns']} columns, {sizes['binaries']} binaries"
        + (f", {sizes['sos2']} SOS2 sets" if sizes.get("sos2") else "")
    )
    print(f"status          {sol.status} ({sol.backend})")
    print("seconds         " + ", ".join(f"{k} {v:.3f}" for k, v in sol.seconds.items()))
    if args.write:
        print(f"program         written to {args.write}: {written}")
    return 0


def add_nash(sub: Any) -> None:
    """The ``nash`` command's arguments."""
    p = sub.add_parser(
        "nash", help="an equilibrium of a general-sum or n-player game (normal or extensive form) by MIP Nash"
    )
    p.add_argument("game", type=text_type, help="a game: mipnash_test:k=3, random_normal:rows=5, FILE.nfg, FILE.efg")
    p.add_argument(
        "--formulation",
        type=int,
        choices=(1, 2, 3, 4),
        default=1,
        help="1: feasibility with an objective; 2-4: minimise a regret penalty (anytime bounds)",
    )
    p.add_argument(
        "--objective",
        type=text_type,
        default="any",
        help="formulation 1: any, welfare, maxmin, envy, min-support, max-support, best:P, worst:P",
    )
    p.add_argument("--backend", type=text_type, default="highs", help="solver backend (see 'equilibria backends')")
    p.add_argument("--method", type=text_type, default=None, help=METHOD_HELP)
    p.add_argument(
        "--time-limit",
        type=number_type("positive"),
        default=None,
        help="seconds: with rounds (three or more players, approximate products) for the whole command, "
        "else for the solver; exit 2 when no profile is found in time",
    )
    add_product_options(
        p,
        "three or more players: the certified NashConv to reach (formulation 1, objective any: "
        "rounds refine the answer until the exact certificate meets it; otherwise the bound the "
        "products' approximation may cost); default 0.05 unless --breakpoints is given alone",
        "the other players' weights",
    )
    add_rounds_option(p, "three or more players, formulation 1, objective any")
    p.add_argument(
        "--keep-dominated",
        action="store_true",
        help="keep actions dominated at every node of their information set (removed by default: "
        "no equilibrium needs them)",
    )
    p.add_argument("--write", type=text_type, metavar="FILE.mps|FILE.lp", help="also write the program")
    p.add_argument("--json", action="store_true")
    p.add_argument("--verbose", action="store_true")
    p.set_defaults(func=cmd_nash)
