"""``threshold``: threshold programs from qualitative models of signal games."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .common import (
    METHOD_HELP,
    TIME_LIMIT_HELP,
    add_product_options,
    add_rounds_option,
    fixed,
    number_type,
    plural,
    print_rounds,
    text_type,
    usage_error,
)


def chain(order: list[tuple[str, str]]) -> list[str]:
    """Pairs a <= b of a chain as the chain's names in order."""
    if not order:
        return []
    return [order[0][0]] + [b for _, b in order]


def cmd_threshold(args: argparse.Namespace) -> int:
    from ...core.skeleton import solve
    from ...models.errors import NoAnswerError
    from ...routes.threshold.route import ThresholdSolution
    from ...solvers import write_disjunctive

    several = args.join is not None or len(args.model or []) > 1
    if args.refinement and not several:
        raise usage_error("--refinement needs several --model or --join")
    chosen = {"models": args.model, "join": args.join or "one-program", "refinement": args.refinement}
    from ...models.output import check_target

    for target in (args.write_model, args.write):
        if target:
            check_target(target)  # before the work
    sol = solve(
        args.game,
        "threshold",
        **(chosen if several else {"model": (args.model or [None])[0]}),
        backend=args.backend,
        indicators=args.indicators,
        cells=args.cells,
        certificate=args.certificate,
        time_limit=args.time_limit,
        verbose=args.verbose,
        select=args.select,
        min_width=args.min_width,
        epsilon=args.epsilon,
        breakpoints=args.breakpoints,
        products=args.products,
        mccormick=args.mccormick,
        **({"every_signal": True} if args.every_signal else {}),
        **({"rounds": args.rounds} if args.rounds is not None else {}),
        **({"method": args.method} if args.method is not None else {}),
    )
    assert isinstance(sol, ThresholdSolution)
    if not sol.is_equilibrium:
        # the program answered, the certificate rejects it: no answer (the Python API
        # still returns the solution, is_equilibrium False, for a look at it)
        raise NoAnswerError(
            f"model '{sol.model.name}' gives no equilibrium of {sol.game.name}: its program's strategies are "
            f"{sol.exploitability:.3e} exploitable, since the program checks the thresholds and {sol.looseness()}; "
            "try another model, or --model auto"
        )
    if args.write:
        if sol.program is None:
            raise usage_error(f"--write needs a program; the model found for {sol.game.name} was read without one")
        write_disjunctive(sol.program.model, args.write, sol.indicators)
    if args.write_model:
        sol.model.to_json(args.write_model)
    if args.json:
        print(json.dumps(sol.to_dict(), indent=2))
        return 0
    game = sol.game
    print(f"game            {game.name}  ({'finite' if game.finite else 'continuous'} signals, {game.winner} wins)")
    print(f"model           {sol.model.name}" + (f": {sol.model.description}" if sol.model.description else ""))
    if sol.discovery:
        tries = sol.discovery["attempts"]
        relation = ", ".join(f"{k} {v}" for k, v in sol.discovery["relation"].items()) or "no shipped models"
        if sol.program is None:
            read = ", ".join(str(t["signals"]) for t in tries)
            print(
                f"found           after {plural(len(tries), 'reading')} (CFR+ on {read} cells); against the shipped "
                f"models: {relation}"
            )
        else:
            print(
                f"found           after {plural(len(tries), 'program')} ({tries[-1]['signals']} signals read, "
                f"{plural(tries[-1]['repair'], 'repair')}); against the shipped models: {relation}"
            )
        for p in range(sol.game.num_players):
            plans = " | ".join(", ".join(f"{k or 'root'}: {v}" for k, v in r.items()) for r in sol.model.regions[p])
            print(f"  player {p + 1} regions  {plans}")
        print(f"  order           {' <= '.join(chain(sol.model.order))}")
    if args.write_model:
        print(f"model written   {args.write_model}")
    if sol.join:
        if sol.join["join"] == "one-program":
            zeta = ", ".join(f"{k} {v:g}" for k, v in sol.join["zeta"].items())
            print(f"join            one program over the common US-refinement '{sol.join['refinement']}'; zeta: {zeta}")
        else:
            outcomes = ", ".join(f"{k} {v}" for k, v in sol.join["outcomes"].items())
            over = f" over the common US-refinement '{sol.join['refinement']}'" if "refinement" in sol.join else ""
            print(f"join            separate programs{over}: {outcomes}")
    players = range(game.num_players)
    for p in players:
        ts = ", ".join(f"{t:.6f}" for t in sol.thresholds[p]) or "(none)"
        print(f"player {p + 1} thresholds {ts}")
    print("regions (signal interval: plan)")
    for row in sol.region_table():
        print(f"  player {row['player']}  [{row['from']:.6f}, {row['to']:.6f}]  {row['plan']}")
    if game.finite:
        print("mixed strategies at the signals a threshold cuts (section 6.2 overlap)")
        for p in players:
            sigma = sol.strategies[p]
            names = game.signals[p].names
            for s in range(sigma.shape[0]):
                mixed = [(q, w) for q, w in enumerate(sigma[s]) if w > 1e-12]
                if len(mixed) > 1:
                    parts = "; ".join(f"{w:.6f} {game.tree.plan_text(p, q)}" for q, w in mixed)
                    print(f"  player {p + 1} signal {names[s]}: {parts}")
    if game.num_players == 2 and sol.zero_sum and sol.value is not None:
        print(f"value (player 1) {fixed(sol.value, 12)}")
    else:
        print("payoffs         " + ", ".join(f"{fixed(v, 9)}" for v in sol.payoffs or []))
    print(f"exploitability  {sol.exploitability:.3e}  ({sol.verification['method']}; NashConv {sol.nash_conv:.3e})")
    check = sol.verification.get("cells_check")
    if check:
        print(f"  on {check['cells']} cells  {check['exploitability']:.3e}  (cross-check; differs by the cells' error)")
    program = sol.program
    if sol.choice:
        print(f"choice          {sol.choice}; backend {sol.backend}")
    if sol.curve:
        print_rounds(sol.curve)
    if program is None:
        print(
            f"thresholds      read from a discretisation, no program solved (NashConv target "
            f"{sol.target_nash_conv:.1e}, certified {sol.nash_conv:.3e})"
        )
    elif program.num_products:
        points = f"{program.breakpoints} breakpoints per square" if program.breakpoints else "bilinear, no breakpoints"
        print(f"products        {program.num_products} ({program.products}, {points})")
        at_answer = "" if sol.bound_at_answer is None else f", proven at the answer {sol.bound_at_answer:.3e}"
        print(
            f"epsilon         promised {program.promised_epsilon:.3e} (NashConv bound){at_answer}, "
            f"certified {sol.certified_epsilon:.3e} (largest gain of one player)"
        )
    sizes = sol.sizes
    if program is not None:
        print(
            f"program         {sizes['rows']} rows, {sizes['columns']} columns, "
            f"{sizes['binaries']} binaries, {sizes['sos2']} SOS2"
        )
    if sol.note:
        print(f"note            {sol.note}")
    if program is not None:
        print(f"solver          {sol.backend}, indicators {sol.indicators}")
    print("seconds         " + ", ".join(f"{k} {v:.3f}" for k, v in sol.seconds.items()))
    if args.write:
        print(f"program         written to {args.write}")
    return 0


def add_threshold(sub: Any) -> None:
    """The ``threshold`` command's arguments."""
    p = sub.add_parser("threshold", help="solve a signal game from a qualitative (parametric) model")
    p.add_argument("game", help="one_street:pot=R, kuhn_continuous, generalized_kuhn:cards=N, river_endgame, ...")
    p.add_argument(
        "--model",
        type=text_type,
        action="append",
        default=None,
        help="a model shipped with the game (default 'standard'), a .json file, or 'auto' (found from "
        "the game's discretised equilibrium, two players); give it again for several models of which one holds",
    )
    p.add_argument(
        "--write-model",
        type=text_type,
        default=None,
        metavar="FILE.json",
        help="write the model of the answer (with --model auto: the one found) for --model and sweeps",
    )
    p.add_argument(
        "--join",
        choices=("one-program", "separate"),
        default=None,
        help="several models: one program through their common US-refinement (default), or each "
        "model's program in worker processes, the first feasible answering; without --model, every "
        "model the game ships",
    )
    p.add_argument(
        "--refinement",
        type=text_type,
        default=None,
        help="the models' common US-refinement (a model name or .json file; default: the coarsest, found)",
    )
    p.add_argument("--backend", type=text_type, default="highs", help="highs (default), scip or pyomo:NAME")
    p.add_argument("--method", type=text_type, default=None, help=METHOD_HELP)
    p.add_argument(
        "--indicators",
        choices=("native", "bigm", "hull"),
        default=None,
        help="how indicator constraints reach the solver (default: native for scip without SOS2 sets, else bigm)",
    )
    p.add_argument(
        "--cells",
        type=number_type("cells"),
        default=4000,
        help="cells of the discretisation that cross-checks continuous answers (two players) or "
        "certifies them with --certificate cells (default 4000)",
    )
    p.add_argument(
        "--certificate",
        choices=("exact", "cells"),
        default="exact",
        help="continuous signals: exact best responses in the continuous game (default) or on --cells cells",
    )
    p.add_argument(
        "--select",
        choices=("any", "lowest", "highest"),
        default="any",
        help="which conforming equilibrium: any (feasibility, default), or the lowest / highest "
        "thresholds (the same answer from every solver)",
    )
    p.add_argument(
        "--min-width",
        type=number_type("nonnegative"),
        default=0.0,
        help="every region at least this wide in signal units (rules out empty regions)",
    )
    add_product_options(
        p,
        "three or more players: the certified NashConv to reach (finite signals: rounds refine the "
        "answer until the exact certificate meets it; continuous signals: the promised bound); "
        "default 0.05 unless --breakpoints is given alone",
        "the others' masses",
    )
    p.add_argument("--mccormick", action="store_true", help="add McCormick envelope cuts to every product")
    add_rounds_option(p, "finite signals, three or more players")
    p.add_argument(
        "--every-signal",
        action="store_true",
        help="finite signals: every signal must prefer its region's plan to every other plan "
        "(a feasible answer is then an equilibrium whatever the model)",
    )
    p.add_argument("--time-limit", type=number_type("positive"), default=None, help=TIME_LIMIT_HELP)
    p.add_argument("--write", type=text_type, metavar="FILE.mps|FILE.lp", help="also write the program")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--verbose", action="store_true", help="show the solver's log")
    p.set_defaults(func=cmd_threshold)
