"""The ``equilibria`` command.

    equilibria solve GAME [--shrink [--threshold T] [--rule R]] [--backend B] [--method M] [--time-limit S]
                          [--target-exploitability EPS] [--json] [--strategy-out FILE.csv]
    equilibria info GAME [--json]
    equilibria games [--json]
    equilibria export GAME --player 1|2 --format mps|lp -o FILE
    equilibria threshold GAME [--model NAME|FILE.json ...] [--join one-program|separate] [--refinement R]
        [--backend B] [--indicators native|bigm|hull]
        [--epsilon E] [--breakpoints K] [--products sos2|cc|incremental|log|dlog|exact]
                                [--select any|lowest|highest] [--json]
    equilibria nash GAME [--formulation 1|2|3|4] [--objective O] [--backend B] [--time-limit S]
        [--epsilon E] [--breakpoints K] [--products log|sos2|...|exact] [--json] [--write FILE]
    equilibria shrink GAME [--threshold T] [--rule lossless|published] [--json] [--write FILE.mps|FILE.lp]
    equilibria show GAME [--infoset REGEX] [--beliefs] [--plot FILE.png] [--json]
    equilibria play GAME [--as PLAYER] [--seed S] [--hands N]
    equilibria backends

GAME is a registered name with parameters (``leduc:ranks=4``; ``equilibria games`` lists
them), a bundled game, a path to a ``.efg`` file, a rules file ``PATH.py[:key=value,...]``
or ``openspiel:GAME_STRING``. Errors in
the input print one line on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import os
import sys
import threading
import time
from typing import Any, NoReturn


def _load(spec: str) -> tuple[Any, float]:
    from ..instances import load

    t0 = time.perf_counter()
    game = load(spec)
    return game, time.perf_counter() - t0


def _write_strategies(answer: Any, path: str) -> None:
    """The answer's strategy table as CSV, all or nothing (see models.output)."""
    from ..models.output import atomic_output

    table = answer.strategy_table()
    with atomic_output(path) as tmp:
        table.to_csv(tmp, index=False)


#: What ends a line for str.splitlines, or moves a terminal's cursor to another line.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def one_line(text: str) -> str:
    """``text`` with every line break shown as an escape (a file name or option value the
    user gave may hold one): an error message stays one line."""
    return text.translate({ord(c): repr(c)[1:-1] for c in LINE_BREAKS})


def fixed(value: float, digits: int) -> str:
    """:func:`equilibria.models.wording.fixed`, imported when first printed (parsing the
    command line imports no numerical code)."""
    from ..models.wording import fixed as wording_fixed

    return wording_fixed(value, digits)


def plural(count: int, noun: str) -> str:
    """:func:`equilibria.models.wording.plural`, imported when first printed."""
    from ..models.wording import plural as wording_plural

    return wording_plural(count, noun)


def _print_certificate(answer: Any) -> None:
    """The lines every route prints: value, certificate, bounds, status."""
    for line in answer.certificate_lines():
        print(line)
    if answer.status == "stalled":
        print(
            "                the exploitability falls too slowly for the target: at its rate the target "
            "needs over 1,000 times the iterations run; the best certified strategies are above"
        )


def cmd_solve(args: argparse.Namespace) -> int:
    from ..routes import solve
    from ..shrink import ShrunkSolution

    options = dict(
        backend=args.backend,
        method=args.method,
        time_limit=args.time_limit,
        target_exploitability=args.target_exploitability,
        verbose=args.verbose,
        algorithm=args.algorithm,
        iterations=args.iterations,
        eliminate_dominated=args.eliminate_dominated,
    )
    if args.algorithm != "lp":
        given = [flag for flag, on in (("--both-lps", args.both_lps), ("--method", args.method)) if on]
        if args.backend != "highs":
            given.append("--backend")
        if given:
            raise _usage(f"{given[0]} applies to the LP, not to {args.algorithm}")
    if args.shrink:
        answer = solve(args.game, "shrink", threshold=args.threshold, rule=args.rule, compact=args.compact, **options)
    else:
        if args.compact:
            raise _usage("--compact needs --shrink --rule none")
        if args.threshold:
            raise _usage("--threshold needs --shrink")
        if args.rule != "lossless":
            raise _usage("--rule needs --shrink")
        answer = solve(args.game, "lp", both_lps=args.both_lps, **options)
    if args.strategy_out:
        _write_strategies(answer, args.strategy_out)
    if args.json:
        print(answer.to_json())
        return 0
    if isinstance(answer, ShrunkSolution):
        _print_shrink(answer.report)
        print(f"exploitability   {answer.abstract_exploitability:.3e} in the shrunk game (exact best responses)")
        if not answer.lifted:
            print("                 the original game is too large to expand for certification")
        else:
            print(f"original game    {answer.original_nodes:,} nodes; strategies lifted")
    else:
        print(f"game            {answer.game_name or args.game}")
    _print_certificate(answer)
    curve = getattr(answer, "curve", [])
    if curve:
        last = curve[-1]
        bound = f"; proven exploitability bound {last['proven_bound']:.3e}" if "proven_bound" in last else ""
        print(f"iterations      {last['iterations']:,} in {last['seconds']:.2f} s, certified {len(curve)} times{bound}")
        seqs = answer.sizes["sequences"]
        print(f"saddle point    {seqs[0]:,} x {seqs[1]:,} sequences, {answer.nonzeros:,} payoff nonzeros (no LP built)")
    else:
        print(f"LP              {answer.rows} rows, {answer.columns} columns, {answer.nonzeros} nonzeros")
    dominance = getattr(answer, "dominance", None)
    if dominance:
        _print_dominance(dominance, answer.game_name)
    print(answer.seconds_line())
    if args.strategy_out:
        print(f"strategies      written to {args.strategy_out}")
    return 0


def _usage(message: str) -> Exception:
    from ..models.errors import EquilibriaError

    return EquilibriaError(message)


def _print_shrink(report: Any) -> None:
    d = report.to_dict()
    if report.threshold:
        kind = f"lossy, threshold {report.threshold:g}"
    elif report.rule == "published":
        kind = "published rule: not lossless"
    elif report.rule == "none":
        kind = "no merging, compact LP" if report.lp is not None and report.lp.meta.get("compact") else "no merging"
    else:
        kind = "lossless"
    print(f"game             {report.game.name}  ({kind})")
    print(f"signal tree      {d['signal_tree_nodes']:,} nodes")
    for p in (1, 2):
        parts = ", ".join(f"round {c['round']}: {c['views']:,} -> {c['classes']:,}" for c in d["classes"][f"player{p}"])
        print(f"player {p} views   {parts}")
    print(f"infosets         {d['infosets_before'][0]:,} -> {d['infosets_after'][0]:,} per player")
    print(f"LP rows          {d['rows_before']:,} -> {d['rows_after']:,}")
    print(f"LP columns       {d['columns_before']:,} -> {d['columns_after']:,}")
    if d["nonzeros_after"] is not None:
        print(
            f"LP nonzeros      {d['nonzeros_after']:,}" + (" (shrunk)" if d.get("rule", "lossless") != "none" else "")
        )
    print("seconds          " + ", ".join(f"{k} {v:.3f}" for k, v in d["seconds"].items()))
    print(f"peak memory      {d['peak_mb']:,.0f} MB")


def cmd_shrink(args: argparse.Namespace) -> int:
    from ..shrink import shrink
    from ..solvers import write_problem

    report = shrink(
        args.game, args.threshold, progress=args.verbose, rule=args.rule, build_lp=not args.eliminate_dominated
    )
    lp, dominance = report.lp, None
    if args.eliminate_dominated:
        from ..formulations import sequence_form_lp
        from ..models.dominance import eliminate_dominated

        reduced = eliminate_dominated(report.filtered.sequence_form)
        dominance = reduced.lp_size() | {"passes": reduced.rounds}
        lp = sequence_form_lp(reduced.sequence_form, 0) if args.write else None
    if args.write and lp is not None:
        write_problem(lp, args.write, "lp" if args.write.lower().endswith(".lp") else "mps")
    if args.json:
        print(json.dumps(report.to_dict() | ({"dominance": dominance} if dominance else {}), indent=2))
        return 0
    _print_shrink(report)
    if dominance:
        _print_dominance(dominance, report.game.name)
    if args.write:
        print(f"shrunk LP        written to {args.write}")
    return 0


#: Gilpin and Sandholm's LP for Rhode Island hold'em after GameShrink and iterated
#: elimination of dominated strategies ("Lossless abstraction of imperfect information
#: games", 2007, section 1.3), printed beside ours.
PAPER_RHODE_ISLAND_DOMINANCE = (1_190_443, 1_181_084)


def _print_dominance(d: dict, game_name: str) -> None:
    print(
        f"dominated        removed: LP rows {d['rows_before']:,} -> {d['rows_after']:,}, "
        f"columns {d['columns_before']:,} -> {d['columns_after']:,} ({d['passes']} passes)"
    )
    if game_name == "rhode_island":
        rows, cols = PAPER_RHODE_ISLAND_DOMINANCE
        print(f"                 Gilpin and Sandholm (2007): {rows:,} rows, {cols:,} columns after their elimination")


def cmd_info(args: argparse.Namespace) -> int:
    from ..instances import describe

    if args.list:
        return cmd_games(args)
    if not args.game:
        raise _usage("info needs a GAME (or --list)")
    description = describe(args.game)
    game, t_game = _load(args.game)
    c = game.counts()
    info = {
        "game": game.title,
        "players": game.player_names,
        "nodes": c.nodes,
        "terminal": c.terminal,
        "chance": c.chance,
        "decision": c.decision,
        "infosets": list(c.infosets),
        "sequences": list(c.sequences),
        "bytes": game.nbytes(),
        "views": list(description.views),
        "seconds": t_game,
    }
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f"game       {game.title or args.game}")
    print(f"nodes      {c.nodes} (terminal {c.terminal}, chance {c.chance}, decision {c.decision})")
    for p, name in enumerate(game.player_names):
        print(f"{name:10} {plural(c.infosets[p], 'information set')}, {plural(c.sequences[p], 'sequence')}")
    print(f"views      {', '.join(description.views)}")
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    from ..instances import catalog
    from ..routes import ROUTES

    rows = catalog()
    if getattr(args, "json", False):
        print(json.dumps(rows, indent=2))
        return 0
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        params = ", ".join(f"{k}={v}" for k, v in r["parameters"].items()) or "-"
        print(f"{r['name']:<{width}}  {r['summary']}")
        print(f"{'':<{width}}  parameters: {params}; routes: {', '.join(r['routes'])}")
    print()
    print("routes: " + "; ".join(f"{name} ({route.summary})" for name, route in ROUTES.items()))
    print(
        "also: a path to a .efg file, a rules file PATH.py[:key=value,...], or openspiel:GAME_STRING (needs open_spiel)"
    )
    return 0


#: Exit status of a command whose program answered with strategies that the certificate
#: shows are no equilibrium (the answer is printed, its first line says so).
NOT_AN_EQUILIBRIUM = 3

#: What a file's ending says it holds, for ``export``.
EXPORT_FORMATS = {".mps": "mps", ".lp": "lp", ".efg": "efg"}


def export_format(output: str, asked: str | None) -> str:
    """The format ``export`` writes: ``asked``, else the one the file's ending names, else
    MPS; a format that contradicts the ending is refused (a reader goes by the ending)."""
    named = EXPORT_FORMATS.get(os.path.splitext(output)[1].lower())
    if asked is not None and named is not None and asked != named:
        raise _usage(f"--format {asked} does not match the file name {output} (it says {named}); change one of them")
    return asked or named or "mps"


def cmd_export(args: argparse.Namespace) -> int:
    from ..formulations import sequence_form_lp
    from ..models.sequence import SequenceForm
    from ..solvers import write_problem

    fmt = export_format(args.output, args.format)
    game, _ = _load(args.game)
    if fmt == "efg":
        from ..models.efg_io import write_efg

        write_efg(game, args.output)
        print(f"wrote {args.output}: the game in Gambit's .efg format, {game.num_nodes} nodes")
        return 0
    lp = sequence_form_lp(SequenceForm(game), args.player - 1)
    write_problem(lp, args.output, fmt)
    print(
        f"wrote {args.output}: player {args.player}'s LP, {lp.num_rows} rows, {lp.num_cols} columns, {lp.nnz} nonzeros"
    )
    return 0


def _chain(order: list[tuple[str, str]]) -> list[str]:
    """Pairs a <= b of a chain as the chain's names in order."""
    if not order:
        return []
    return [order[0][0]] + [b for _, b in order]


def cmd_threshold(args: argparse.Namespace) -> int:
    from ..qualitative import ThresholdSolution
    from ..routes import solve
    from ..solvers.disjunctive import write_disjunctive

    several = args.join is not None or len(args.model or []) > 1
    if args.refinement and not several:
        raise _usage("--refinement needs several --model or --join")
    chosen = {"models": args.model, "join": args.join or "one-program", "refinement": args.refinement}
    if args.write_model:
        from ..models.output import check_target

        check_target(args.write_model)  # before the work
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
    if args.write:
        if sol.program is None:
            raise _usage(f"--write needs a program; the model found for {sol.game.name} was read without one")
        write_disjunctive(sol.program.model, args.write, sol.indicators)
    if args.write_model:
        sol.model.to_json(args.write_model)
    if args.json:
        print(json.dumps(sol.to_dict(), indent=2))
        return 0 if sol.is_equilibrium else NOT_AN_EQUILIBRIUM
    game = sol.game
    if not sol.is_equilibrium:
        print(
            f"warning         NOT an equilibrium of the game (exploitability {sol.exploitability:.3e}): the program "
            f"checks the thresholds and {sol.looseness()}, so the model does not describe this game's equilibria; "
            "try another model"
        )
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
        print(f"  order           {' <= '.join(_chain(sol.model.order))}")
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
        _print_rounds(sol.curve)
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
    return 0 if sol.is_equilibrium else NOT_AN_EQUILIBRIUM


def cmd_nash(args: argparse.Namespace) -> int:
    from ..nash import NashSolution
    from ..routes import solve

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
    if args.write:
        from ..formulations.linear_program import LinearProgram
        from ..solvers import write_problem
        from ..solvers.disjunctive import write_disjunctive

        if isinstance(sol.problem, LinearProgram):
            write_problem(sol.problem, args.write, "lp" if args.write.lower().endswith(".lp") else "mps")
        else:
            write_disjunctive(sol.problem, args.write, "bigm")
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
        _print_rounds(sol.curve)
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
        print(f"program         written to {args.write}")
    return 0


def _print_equilibrium(answer: Any) -> None:
    """One line for the equilibrium shown or played against, with its certificate."""
    if answer.zero_sum and answer.value is not None and answer.sequence_form.num_players == 2:
        what = f"value (player 1) {fixed(answer.value, 9)}"
    else:
        what = "payoffs " + ", ".join(f"{fixed(v, 9)}" for v in answer.payoffs or [])
    print(
        f"equilibrium     {what}; NashConv {answer.nash_conv:.3e} (exact best responses); "
        f"{answer.route} route, {answer.status} ({answer.backend})"
    )


SHOW_TIME_LIMIT_HELP = "seconds for the solver (general-sum and 3+ player games: default 60)"


def cmd_show(args: argparse.Namespace) -> int:
    from ..models.output import atomic_output
    from ..models.presentation import belief_report, check_plot_target, plot_strategies, present, strategy_report
    from .play import equilibrium_for

    if args.infoset is not None:
        import re

        try:
            re.compile(args.infoset)
        except (re.error, OverflowError, RecursionError) as exc:
            raise _usage(f"--infoset is not a regular expression Python reads: {exc}") from None
    if args.plot:
        check_plot_target(args.plot)  # before the solve
    answer = equilibrium_for(args.game, args.backend, args.time_limit)
    game = answer.sequence_form.game
    pres = present(game, answer.behaviors)
    table = strategy_report(pres, args.infoset)
    beliefs = belief_report(pres, args.infoset) if args.beliefs else None
    if args.infoset and table.empty:
        raise _usage(f"--infoset '{args.infoset}' matches no information set of {game.title or args.game}")
    if args.plot:
        with atomic_output(args.plot) as tmp:
            plot_strategies(pres, str(tmp), pattern=args.infoset)
    if args.json:
        out = {
            "game": game.title or args.game,
            "route": answer.route,
            "payoffs": answer.payoffs,
            "nash_conv": answer.nash_conv,
            "strategies": table.to_dict(orient="records"),
        }
        if beliefs is not None:
            out["beliefs"] = beliefs.to_dict(orient="records")
        print(json.dumps(out, indent=2))
        return 0
    print(f"game            {game.title or args.game}")
    _print_equilibrium(answer)
    width = max((len(str(a)) for a in table["action"]), default=4)
    for (player, infoset), rows in table.sort_values(["player", "infoset"], kind="stable").groupby(
        ["player", "infoset"], sort=False
    ):
        first = rows.iloc[0]
        name = game.player_names[int(player) - 1]
        print(f"\n{name} #{infoset}: {first['label']}   (reached {first['reach']:.4f})")
        for _, row in rows.iterrows():
            print(f"    {row['action']:<{width}}  probability {row['probability']:.4f}   value {row['value']:+.4f}")
        if beliefs is not None:
            mine = beliefs[(beliefs["player"] == player) & (beliefs["infoset"] == infoset)]
            if len(mine) == 1:  # one history: the player knows where it is
                print("    beliefs: nothing hidden (the information set is one history)")
            else:
                parts = [f"{r['hidden']} {r['belief']:.4f}" for _, r in mine.iterrows()]
                unreached = " (nobody reaches it: chance alone)" if first["reach"] <= 0 else ""
                print(f"    beliefs{unreached}: " + ", ".join(parts))
    if args.plot:
        print(f"\nplot            written to {args.plot}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from ..models.presentation import present
    from .play import equilibrium_for, parse_seat, play

    answer = equilibrium_for(args.game, args.backend, args.time_limit)
    game = answer.sequence_form.game
    seat = parse_seat(game, args.seat)
    _print_equilibrium(answer)
    play(present(game, answer.behaviors), seat, args.hands, args.seed)
    return 0


def cmd_backends(args: argparse.Namespace) -> int:
    from ..solvers import CAPABILITIES, PYOMO_CANDIDATES, available_backends, registered
    from ..solvers.pyomo_backend import PyomoBackend

    here = available_backends()
    if args.names:
        print("\n".join(here))
        return 0
    # every Pyomo solver the project knows, found here or not, with what to install
    names = list(registered()) + [f"pyomo:{n}" for n in PYOMO_CANDIDATES]
    names += [n for n in here if n not in names]
    width = max(map(len, names))
    print(f"{'backend':{width}}  available  " + " ".join(CAPABILITIES))
    for name in names:
        backend = registered().get(name) or PyomoBackend(name.split(":", 1)[1])
        caps = backend.capabilities
        marks = " ".join(f"{'yes' if getattr(caps, c) else '-':{len(c)}}" for c in CAPABILITIES)
        missing = "" if name in here else f"  {backend.install_hint()}"
        print(f"{name:{width}}  {'yes' if name in here else 'no':9}  {marks}{missing}".rstrip())
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    """Run a route over a grid of games and options; print a summary of the table."""
    from ..sweep import PRODUCT_COLUMNS, RESULT_COLUMNS, Grid, SweepError, plot, run_sweep

    grid = Grid.from_file(args.grid) if args.grid else Grid()
    if args.route:
        grid.route = args.route
    if args.game:
        grid.games = list(args.game)
    for flag, target in (("--param", grid.params), ("--option", grid.options)):
        for item in getattr(args, flag.lstrip("-")) or []:
            name, eq, values = item.partition("=")
            if not eq or not name.strip():
                raise SweepError(f"{flag} is written NAME=VALUE[,VALUE...], not '{item}'")
            target[name.strip()] = values
    cells = grid.cells()
    if args.plot:
        from ..models.presentation import check_plot_target

        if not args.x or not args.y:
            raise SweepError("--plot needs --x COLUMN and --y COLUMN")
        check_plot_target(args.plot)  # matplotlib, the format and the folder, before the sweep
        known = set(RESULT_COLUMNS) | {k for c in cells for k, _ in c.params + c.options}
        if grid.route in ("threshold", "nash"):
            known |= set(PRODUCT_COLUMNS)
        for flag, name in (("--x", args.x), ("--y", args.y), ("--series", args.series)):
            if name and name not in known and not name.startswith("seconds_"):
                raise SweepError(f"{flag}: no column '{name}'; columns: {', '.join(sorted(known))}, seconds_STAGE")
    result = run_sweep(
        grid,
        args.output,
        workers=args.workers,
        scheduler=args.scheduler,
        retry_errors=args.retry_errors,
        progress=not args.quiet,
    )
    print(
        f"sweep    {plural(result.cells, 'cell')}: {result.solved - result.errors} solved, "
        f"{plural(result.errors, 'error')}, "
        f"{result.skipped} already recorded; {result.seconds:.1f} s"
    )
    failed = int((result.table["status"] == "error").sum()) if len(result.table) else 0
    print(f"table    {result.parquet} and {result.csv}: {len(result.table)} rows, {failed} with status error")
    if args.plot:
        plot(result.table, args.plot, args.x, args.y, args.series)
        print(f"plot     {args.plot}: {args.y} against {args.x}" + (f" by {args.series}" if args.series else ""))
    return 0


GAME_HELP = (
    "a game: a registered name with parameters (kuhn, leduc:ranks=4; see 'equilibria games'), "
    "a Gambit .efg file, a rules file PATH.py[:key=value,...], or openspiel:GAME"
)

METHOD_HELP = "one of the backend's solvers where it has several (OR-Tools: scip or cp_sat)"

TIME_LIMIT_HELP = "seconds for the whole command (build, every solve, the certificate); exit 2 when reached"


def _version() -> str:
    """The installed distribution's version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("equilibria")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``equilibria`` command."""
    common = _Parser(add_help=False)
    common.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser = _Parser(
        prog="equilibria", description="Equilibria of games of imperfect information by mathematical programming."
    )
    parser.add_argument("--version", action="version", version=f"equilibria {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _add = sub.add_parser

    def add_parser(*a: Any, **k: Any) -> argparse.ArgumentParser:
        return _add(*a, parents=[common], **k)

    sub.add_parser = add_parser  # type: ignore[method-assign,assignment]  # every command takes --quiet

    p = sub.add_parser(
        "show", help="an equilibrium as a person reads it: per information set the actions, values and beliefs"
    )
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("--infoset", type=_text, default=None, help="only information sets whose label matches this regex")
    p.add_argument("--beliefs", action="store_true", help="the player's posterior over the nodes it cannot tell apart")
    p.add_argument("--plot", type=_text, default=None, help="draw the strategies (probability against private info)")
    p.add_argument("--backend", type=_text, default=None, help="solver (default highs; scip for 3+ players)")
    p.add_argument("--time-limit", type=_number("positive"), default=None, help=SHOW_TIME_LIMIT_HELP)
    p.add_argument("--json", action="store_true", help="the tables as JSON")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("play", help="play hands in the terminal against the computed equilibrium")
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("--as", dest="seat", type=_text, default=None, help="your seat: a player's name or number")
    p.add_argument("--seed", type=_number("seed"), default=None, help="seed of the cards and the program's moves")
    p.add_argument("--hands", type=_number("count"), default=5, help="hands to play (default 5)")
    p.add_argument("--backend", type=_text, default=None, help="solver (default highs; scip for 3+ players)")
    p.add_argument("--time-limit", type=_number("positive"), default=None, help=SHOW_TIME_LIMIT_HELP)
    p.set_defaults(func=cmd_play, interactive=True)

    p = sub.add_parser("solve", help="solve a two-player zero-sum game by the sequence-form LP")
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("--backend", type=_text, default="highs", help="highs (default), scip or pyomo:NAME")
    p.add_argument(
        "--method",
        type=_text,
        dest="method",
        default=None,
        help="HiGHS algorithm: concurrent (default: simplex and IPX race), simplex, ipx, ipm or pdlp",
    )
    p.add_argument(
        "--time-limit",
        type=_number("positive"),
        default=None,
        help="seconds for the solver; the best certified strategies so far are returned",
    )
    p.add_argument(
        "--target-exploitability",
        type=_number("positive"),
        default=None,
        metavar="EPS",
        help="stop as soon as the certified exploitability is at most EPS",
    )
    p.add_argument(
        "--algorithm",
        choices=("lp",) + FIRST_ORDER,
        default="lp",
        help="lp (default: the sequence-form LP, solved exactly) or a first-order method on the saddle point "
        "(cfr+, dcfr, mirror-prox: anytime, needs --target-exploitability, --time-limit or --iterations)",
    )
    p.add_argument(
        "--iterations", type=_number("count"), default=None, help="with a first-order --algorithm: iterations at most"
    )
    p.add_argument("--eliminate-dominated", action="store_true", help=_DOMINATED_HELP)
    p.add_argument("--both-lps", action="store_true", help="solve player 2's LP instead of reading duals")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--strategy-out", type=_text, metavar="FILE.csv", help="write both strategies as CSV")
    p.add_argument("--verbose", action="store_true", help="show the solver's log")
    p.add_argument(
        "--shrink",
        action="store_true",
        help="solve through GameShrink's shrunk LP (ordered games: kuhn, generalized_kuhn, leduc, rhode_island)",
    )
    p.add_argument(
        "--threshold", type=_number("nonnegative"), default=0.0, help="with --shrink: lossy GameShrink threshold"
    )
    p.add_argument("--rule", choices=("lossless", "published", "none"), default="lossless", help=_RULE_HELP)
    p.add_argument(
        "--compact",
        action="store_true",
        help="with --shrink --rule none: the LP with fold and showdown payoffs through sum and prefix-sum "
        "variables (O(k) nonzeros per betting terminal and board instead of O(k^2))",
    )
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("shrink", help="GameShrink an ordered game and report the shrunk LP")
    p.add_argument("game", help="kuhn, generalized_kuhn:cards=N, leduc:ranks=R,suits=S, rhode_island[:ranks=R,suits=S]")
    p.add_argument(
        "--threshold",
        type=_number("nonnegative"),
        default=0.0,
        help="lossy merge threshold (matching cost per opponent card; 0: lossless)",
    )
    p.add_argument("--rule", choices=("lossless", "published", "none"), default="lossless", help=_RULE_HELP)
    p.add_argument("--write", type=_text, metavar="FILE.mps|FILE.lp", help="write the shrunk LP (player 1's)")
    p.add_argument("--eliminate-dominated", action="store_true", help=_DOMINATED_HELP)
    p.add_argument("--json", action="store_true")
    p.add_argument("--verbose", action="store_true", help="log GameShrink's passes (classes per round)")
    p.set_defaults(func=cmd_shrink)

    p = sub.add_parser("info", help="print the size of a game")
    p.add_argument("game", nargs="?", help=GAME_HELP)
    p.add_argument("--list", action="store_true", help="list the registered games (as `equilibria games`)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("games", help="list the registered games, their parameters and routes")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("export", help="write a player's sequence-form LP as MPS or LP, or the game as .efg")
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("--player", type=int, choices=(1, 2), default=1, help="whose LP (default 1)")
    p.add_argument(
        "--format",
        choices=("mps", "lp", "efg"),
        default=None,
        help="mps or lp: the LP; efg: the game itself (default: what the file's ending names, else mps)",
    )
    p.add_argument("-o", "--output", type=_text, required=True)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("threshold", help="solve a signal game from a qualitative (parametric) model")
    p.add_argument("game", help="one_street:pot=R, kuhn_continuous, generalized_kuhn:cards=N, river_endgame, ...")
    p.add_argument(
        "--model",
        type=_text,
        action="append",
        default=None,
        help="a model shipped with the game (default 'standard'), a .json file, or 'auto' (found from "
        "the game's discretised equilibrium, two players); give it again for several models of which one holds",
    )
    p.add_argument(
        "--write-model",
        type=_text,
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
        type=_text,
        default=None,
        help="the models' common US-refinement (a model name or .json file; default: the coarsest, found)",
    )
    p.add_argument("--backend", type=_text, default="highs", help="highs (default), scip or pyomo:NAME")
    p.add_argument("--method", type=_text, default=None, help=METHOD_HELP)
    p.add_argument(
        "--indicators",
        choices=("native", "bigm", "hull"),
        default=None,
        help="how indicator constraints reach the solver (default: native for scip without SOS2 sets, else bigm)",
    )
    p.add_argument(
        "--cells",
        type=_number("cells"),
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
        type=_number("nonnegative"),
        default=0.0,
        help="every region at least this wide in signal units (rules out empty regions)",
    )
    _product_options(
        p,
        "three or more players: the certified NashConv to reach (finite signals: rounds refine the "
        "answer until the exact certificate meets it; continuous signals: the promised bound); "
        "default 0.05 unless --breakpoints is given alone",
        "the others' masses",
    )
    p.add_argument("--mccormick", action="store_true", help="add McCormick envelope cuts to every product")
    _rounds_option(p, "finite signals, three or more players")
    p.add_argument(
        "--every-signal",
        action="store_true",
        help="finite signals: every signal must prefer its region's plan to every other plan "
        "(a feasible answer is then an equilibrium whatever the model)",
    )
    p.add_argument("--time-limit", type=_number("positive"), default=None, help=TIME_LIMIT_HELP)
    p.add_argument("--write", type=_text, metavar="FILE.mps|FILE.lp", help="also write the program")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--verbose", action="store_true", help="show the solver's log")
    p.set_defaults(func=cmd_threshold)

    p = sub.add_parser(
        "nash", help="an equilibrium of a general-sum or n-player game (normal or extensive form) by MIP Nash"
    )
    p.add_argument("game", type=_text, help="a game: mipnash_test:k=3, random_normal:rows=5, FILE.nfg, FILE.efg")
    p.add_argument(
        "--formulation",
        type=int,
        choices=(1, 2, 3, 4),
        default=1,
        help="1: feasibility with an objective; 2-4: minimise a regret penalty (anytime bounds)",
    )
    p.add_argument(
        "--objective",
        type=_text,
        default="any",
        help="formulation 1: any, welfare, maxmin, envy, min-support, max-support, best:P, worst:P",
    )
    p.add_argument("--backend", type=_text, default="highs", help="solver backend (see 'equilibria backends')")
    p.add_argument("--method", type=_text, default=None, help=METHOD_HELP)
    p.add_argument(
        "--time-limit",
        type=_number("positive"),
        default=None,
        help="seconds: with rounds (three or more players, approximate products) for the whole command, "
        "else for the solver; exit 2 when no profile is found in time",
    )
    _product_options(
        p,
        "three or more players: the certified NashConv to reach (formulation 1, objective any: "
        "rounds refine the answer until the exact certificate meets it; otherwise the bound the "
        "products' approximation may cost); default 0.05 unless --breakpoints is given alone",
        "the other players' weights",
    )
    _rounds_option(p, "three or more players, formulation 1, objective any")
    p.add_argument(
        "--keep-dominated",
        action="store_true",
        help="keep actions dominated at every node of their information set (removed by default: "
        "no equilibrium needs them)",
    )
    p.add_argument("--write", type=_text, metavar="FILE.mps|FILE.lp", help="also write the program")
    p.add_argument("--json", action="store_true")
    p.add_argument("--verbose", action="store_true")
    p.set_defaults(func=cmd_nash)

    p = sub.add_parser("sweep", help="run a route over a grid of games and options; a table row per cell")
    p.add_argument("--grid", type=_text, metavar="FILE.json|FILE.yaml", help="the grid (route, games, params, options)")
    p.add_argument("--route", choices=_route_names(), default=None, help="the route (default lp)")
    p.add_argument(
        "--game",
        type=_text,
        action="append",
        metavar="SPEC",
        help="a game (repeatable): kuhn, leduc:ranks=3..5, generalized_kuhn:cards=3|5",
    )
    p.add_argument(
        "--param", type=_text, action="append", metavar="NAME=V1,V2", help="a game parameter's values (every game)"
    )
    p.add_argument(
        "--option",
        type=_text,
        action="append",
        metavar="NAME=V1,V2",
        help="a route option's values: backend=highs,scip method=ipx,simplex threshold=0,0.1 cells=500,1000",
    )
    p.add_argument(
        "-o",
        "--output",
        type=_text,
        required=True,
        metavar="RESULTS",
        help="writes RESULTS.parquet, RESULTS.csv and one file per cell in RESULTS.cells/",
    )
    p.add_argument(
        "--workers", type=_number("workers"), default=2, help="local worker processes (default 2; 0: in this process)"
    )
    p.add_argument("--scheduler", type=_text, metavar="tcp://HOST:PORT", help="run on this Dask cluster")
    p.add_argument("--retry-errors", action="store_true", help="solve again the cells recorded with status error")
    p.add_argument("--plot", type=_text, metavar="FILE.png", help="plot --y against --x, a line per --series")
    p.add_argument("--x", type=_text, metavar="COLUMN", help="with --plot: the table's column on the x axis")
    p.add_argument("--y", type=_text, metavar="COLUMN", help="with --plot: the column on the y axis")
    p.add_argument("--series", type=_text, metavar="COLUMN", help="with --plot: one line per value of this column")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("backends", help="list the solver backends: availability and capabilities")
    p.add_argument("--names", action="store_true", help="only the names of the available backends")
    p.set_defaults(func=cmd_backends)
    _route_commands(sub)
    return parser


def _route_commands(sub: Any) -> None:
    """``equilibria NAME GAME`` for every registered route without a command of its own
    (``Route.command``), its flags made from the route's options."""
    from ..routes import ROUTES, load_plugins, option_choices, option_kind

    load_plugins()
    for name, route in ROUTES.items():
        if route.command is not None or name in sub.choices:
            continue
        p = sub.add_parser(name, help=route.summary, description=route.summary)
        p.add_argument("game", type=_text, help=GAME_HELP)
        helps = route.help()
        for option, parameter in route.signature().items():
            flag = "--" + option.replace("_", "-")
            dest = f"option_{option}"
            default = None if parameter.default is parameter.empty else parameter.default
            says = helps.get(option, "") + (f" (default {default})" if default not in (None, False) else "")
            if option_kind(parameter) == "bool":
                if default is True:
                    p.add_argument(f"--no-{flag[2:]}", dest=dest, action="store_false", default=None, help=says)
                else:
                    p.add_argument(flag, dest=dest, action="store_true", default=None, help=says)
                continue
            p.add_argument(
                flag,
                dest=dest,
                type=_route_option(name, option, parameter),
                choices=option_choices(parameter),
                default=None,
                metavar=option.upper(),
                help=says,
            )
        p.add_argument("--json", action="store_true", help="print the answer as JSON")
        p.add_argument("--strategy-out", type=_text, metavar="FILE.csv", help="write the strategies as CSV")
        p.set_defaults(func=cmd_route, route=name)


def _route_option(route: str, option: str, parameter: Any):  # noqa: ANN202  (an argparse type)
    """An argparse type reading a route option's text as the route takes it."""

    def parse(text: str) -> Any:
        from ..models.errors import EquilibriaError
        from ..routes import check_option, option_from_text

        try:
            return check_option(route, option, parameter, option_from_text(route, option, parameter, text))
        except EquilibriaError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = option
    return parse


def cmd_route(args: argparse.Namespace) -> int:
    """A route's command made by :func:`_route_commands`: solve, then print the answer."""
    from ..models.output import check_target
    from ..routes import solve

    if args.strategy_out:
        check_target(args.strategy_out)  # before the work
    prefix = "option_"
    options = {k[len(prefix) :]: v for k, v in vars(args).items() if k.startswith(prefix) and v is not None}
    answer = solve(args.game, args.route, **options)
    if args.strategy_out:
        _write_strategies(answer, args.strategy_out)
    if args.json:
        print(answer.to_json())
        return 0
    for line in answer.report_lines():
        print(line)
    if args.strategy_out:
        print(f"strategies      written to {args.strategy_out}")
    return 0


_RULE_HELP = (
    "GameShrink's merge rule: lossless (default; matched opponent cards in one opponent class) or "
    "published (the paper's Algorithm 1 per player: merges more, not lossless) or none (no merging: the "
    "full game built from its signals)"
)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {one_line(message)} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def _product_options(p: argparse.ArgumentParser, epsilon_help: str, factors: str) -> None:
    """--epsilon, --breakpoints and --products: how a program writes products of weights."""
    p.add_argument("--epsilon", type=_number("positive"), default=None, help=epsilon_help)
    p.add_argument(
        "--breakpoints",
        type=_number("breakpoints"),
        default=None,
        help="points per piecewise-linear square (at least 2; default: the fewest that keep --epsilon, "
        "or 9 in the first round of a threshold program with finite signals)",
    )
    p.add_argument(
        "--products",
        choices=("sos2", "cc", "incremental", "log", "dlog", "exact"),
        default=None,
        help=f"how products of {factors} are written (default log; exact: bilinear, for SCIP)",
    )


def _rounds_option(p: argparse.ArgumentParser, where: str) -> None:
    """--rounds: the most rounds of refinement an approximate program gets."""
    p.add_argument(
        "--rounds",
        type=_number("count"),
        default=None,
        help=f"{where}: the most rounds of refinement towards --epsilon (default 40; 1 with --breakpoints alone)",
    )


def _print_rounds(curve: list[dict]) -> None:
    """One line per round of an anytime program: what it solved and what its answer is worth."""
    for entry in curve:
        got = entry["certified_nash_conv"]
        box = "" if entry["box"] is None else f", box +-{entry['box']:.2g}"
        grid = f" ({entry['breakpoints']} breakpoints{box})" if entry["breakpoints"] else ""
        result = entry["status"] if got is None else f"certified NashConv {got:.3e}"
        print(f"round {entry['round']:<9} {entry['phase']}{grid}: {result}, {entry['seconds']:.2f} s")


_DOMINATED_HELP = (
    "remove dominated actions first (every payoff below the action worse than every payoff below another "
    "action of its information set, iterated); strategies are lifted back and certified"
)


def _route_names() -> list[str]:
    """The registered routes (:data:`equilibria.routes.ROUTES`, with plugins)."""
    from ..routes import ROUTES, load_plugins

    load_plugins()
    return list(ROUTES)


#: The first-order algorithms (``solvers.first_order.ALGORITHMS``), named here so that
#: parsing the command line imports no numerical code.
FIRST_ORDER = ("cfr+", "dcfr", "mirror-prox")


def _number(kind: str):  # noqa: ANN202  (an argparse type)
    """An argparse type: a finite float that is ``positive`` or ``nonnegative``, or a
    ``count`` (a whole number of at least 1), ``breakpoints`` (at least 2), checked by :mod:`equilibria.models.checks`
    as the Python API checks the same options."""

    def parse(text: str) -> float | int:
        from ..models import checks

        try:
            if kind in ("count", "breakpoints", "seed", "cells", "workers"):
                # digits only (int() would also take '+3', ' 3', '٣' and '1_0')
                whole = int(text) if text.isascii() and text.isdigit() else text
                if not isinstance(whole, int):
                    raise ValueError(text)
                minimum = {"breakpoints": 2, "seed": 0, "workers": 0}.get(kind, 1)
                maximum = {
                    "breakpoints": checks.MAX_BREAKPOINTS,
                    "cells": checks.MAX_CELLS,
                    "workers": checks.MAX_WORKERS,
                    "seed": 2**63 - 1,
                }.get(kind)
                return checks.count("the value", whole, minimum=minimum, maximum=maximum)
            value = float(text)
            return checks.number("the value", value, strict=kind == "positive", optional=False)
        except ValueError:
            what = "a whole number (digits only)" if kind not in ("positive", "nonnegative") else "a number"
            raise argparse.ArgumentTypeError(f"'{text:.40}' is not {what}") from None
        except checks.OptionError as exc:
            reason = str(exc).rsplit(", not ", 1)[0].removeprefix("the value ")
            raise argparse.ArgumentTypeError(f"'{text:.40}': {reason}") from None

    parse.__name__ = kind  # argparse names the type in its messages
    return parse


def _text(value: str) -> str:
    """An argparse type: any text but the empty one (an empty file or model name is a
    mistake, not a request for the default)."""
    if not value.strip():
        raise argparse.ArgumentTypeError("an empty value")
    return value


class _Progress(logging.Handler):
    """Shows the library's progress on stderr: INFO records as they come, and the current
    stage (``equilibria.models.progress``) once it has run for :data:`SHOW_AFTER` seconds,
    then every few seconds until it ends."""

    SHOW_AFTER = 2.0
    EVERY = 5.0

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.stages: list[tuple[str, float]] = []
        self.state_lock = threading.Lock()
        self.stop = threading.Event()
        self.ticker = threading.Thread(target=self._tick, name="progress", daemon=True)
        self.ticker.start()

    def emit(self, record: logging.LogRecord) -> None:
        event = getattr(record, "event", None)
        with self.state_lock:
            if event == "start":
                self.stages.append((record.getMessage(), time.perf_counter()))
            elif event in ("end", "failed"):
                seconds = getattr(record, "seconds", 0.0)
                name = getattr(record, "stage", "")
                self.stages = [st for st in self.stages if st[0] != name]
                if event == "end" and seconds >= self.SHOW_AFTER:
                    self._say(f"{name}: done in {seconds:.1f} s")
            elif record.levelno >= logging.INFO:
                self._say(record.getMessage())

    def _say(self, text: str) -> None:
        print(f"equilibria: {text}", file=sys.stderr, flush=True)

    def _tick(self) -> None:
        shown: dict[str, float] = {}
        while not self.stop.wait(0.5):
            with self.state_lock:
                if not self.stages:
                    continue
                name, start = self.stages[-1]
                now = time.perf_counter()
                last = shown.get(name)
                if now - start >= self.SHOW_AFTER and (last is None or now - last >= self.EVERY):
                    shown[name] = now
                    self._say(f"{name} ... {now - start:.0f} s")

    def close(self) -> None:
        self.stop.set()
        super().close()


@contextlib.contextmanager
def _progress(quiet: bool, verbose: bool):  # noqa: ANN202  (a context manager)
    """Route the library's logging to stderr for the length of a command."""
    logger = logging.getLogger("equilibria")
    if quiet:
        yield
        return
    handler = _Progress()
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        handler.close()


@contextlib.contextmanager
def _c_stdout_to_stderr() -> Any:
    """File descriptor 1 points at standard error for the block (C libraries write there
    directly), and back afterwards."""
    try:
        saved = os.dup(1)
    except OSError:  # no standard output to redirect
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _run(argv: list[str] | None) -> int:
    from ..models.errors import EquilibriaError

    args = build_parser().parse_args(argv)
    out = io.StringIO()
    try:
        with _progress(getattr(args, "quiet", False), getattr(args, "verbose", False)):
            # what a command prints is held back until it has succeeded: an error or an
            # interrupt leaves no partial output
            if getattr(args, "interactive", False):
                code = args.func(args)  # a person reads it as it happens
            else:
                # and what solver libraries write to the process's standard output (HiGHS's
                # log with --verbose) goes to standard error: standard output is the answer
                with contextlib.redirect_stdout(out), _c_stdout_to_stderr():
                    code = args.func(args)
    except EquilibriaError as exc:
        print(f"equilibria: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except MemoryError:
        print("equilibria: error: out of memory; try a smaller game or parameters", file=sys.stderr)
        return 2
    except RecursionError:
        print("equilibria: error: the input nests too deeply to be read", file=sys.stderr)
        return 2
    except OSError as exc:
        name = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"equilibria: error:{name} {exc.strerror or exc}", file=sys.stderr)
        return 2
    sys.stdout.write(out.getvalue())
    sys.stdout.flush()
    return code


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for bad input, 130 if interrupted)."""
    try:
        return _run(argv)
    except KeyboardInterrupt:
        from .console import SIGNALLED, WATCHING

        if WATCHING.is_set() and not SIGNALLED.is_set():
            # no Ctrl-C was seen: the game's own code (a rules file) raised it
            print("equilibria: error: the game's code raised KeyboardInterrupt", file=sys.stderr)
            return 2
        _interrupted()
        return 130


def _interrupted() -> None:
    """Remove partial outputs and say so (once per process)."""
    from .console import interrupted

    interrupted()


if __name__ == "__main__":
    from .console import entry

    entry()
