"""``info``, ``games``, ``export`` and ``backends``: what a game and this machine are."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .common import GAME_HELP, load_game, plural, report_stream, text_type, usage_error


def cmd_info(args: argparse.Namespace) -> int:
    from ...instances import describe

    if args.list:
        return cmd_games(args)
    if not args.game:
        raise usage_error("info needs a GAME (or --list)")
    from ...instances.registry import TooLarge, ViewUnavailable

    description = describe(args.game)
    try:
        game, t_game = load_game(args.game)
    except (TooLarge, ViewUnavailable) as exc:
        # a tree too large to build, or none (continuous signals): what is known without it
        info = info_without_tree(description, str(exc))
        if info is None:
            raise
        if args.json:
            print(json.dumps(info, indent=2))
        else:
            for line in info.pop("lines"):
                print(line)
        return 0
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


#: Tree sizes the papers state, beside the counts of the tree this package builds:
#: (game, its default parameters' figure, where it is stated, what it counts).
PUBLISHED_NODES = {
    "rhode_island": (
        3.1e9,
        "Gilpin and Sandholm, 'Lossless abstraction of imperfect information games' (2007): 'over 3.1 billion nodes'",
    ),
}


def info_without_tree(description: Any, why: str) -> dict[str, Any] | None:
    """``info`` of a game whose tree is not built (too large, or continuous signals):
    counts from the betting tree and the deck for games with ordered signals, the betting
    tree and the signals for signal games; None when nothing is known without the tree.
    The dict holds the JSON fields and, under ``lines``, the text."""
    if description.has("ordered"):
        og = description.view("ordered")
        counts = og.betting.expanded_counts(og.deck)
        nodes = counts["decision"] + counts["chance"] + counts["terminal"]
        lp = og.unabstracted_lp_size()
        lines = [
            f"game       {og.name}",
            f"nodes      {nodes:,} (terminal {counts['terminal']:,}, of which {counts['folds']:,} folds; chance "
            f"{counts['chance']:,}, one per card dealt; decision {counts['decision']:,}): counted from the betting "
            "tree and the deck, not built",
            f"signal     {og.signal_tree_nodes():,} signal-tree nodes (what GameShrink works on)",
            f"LP         {lp['rows']:,} rows, {lp['columns']:,} columns without abstraction; "
            f"information sets {lp['infosets'][0]:,} and {lp['infosets'][1]:,}",
        ]
        published = PUBLISHED_NODES.get(description.name) if not description.params else None
        if published is not None:
            figure, source = published
            lines.append(
                f"published  {figure / 1e9:.1f} billion nodes: {source}, with no definition of what is counted; "
                f"none of the counts above gives it (all nodes {nodes / 1e9:.2f} billion, decision and chance "
                f"{(counts['decision'] + counts['chance']) / 1e9:.2f} billion, half of all {nodes / 2e9:.2f} billion)"
            )
        lines.append(f"tree       not built: {why}")
        return {
            "game": og.name,
            "nodes": nodes,
            "terminal": counts["terminal"],
            "folds": counts["folds"],
            "chance": counts["chance"],
            "decision": counts["decision"],
            "signal_tree_nodes": og.signal_tree_nodes(),
            "lp_rows": lp["rows"],
            "infosets": list(lp["infosets"]),
            "published_nodes": None if published is None else published[0],
            "built": False,
            "views": list(description.views),
            "lines": lines,
        }
    if description.has("signal"):
        game = description.view("signal")
        kinds = ["finite" if s.finite else "continuous" for s in game.signals]
        lines = [
            f"game       {game.name}",
            f"players    {game.num_players}; signals {', '.join(kinds)} ({game.deal}); {game.winner} signal wins",
            f"betting    {game.tree.num_nodes:,} nodes of the public betting tree",
            f"tree       not built: {why}",
            f"views      {', '.join(description.views)}",
        ]
        return {
            "game": game.name,
            "players": game.num_players,
            "signals": kinds,
            "betting_nodes": game.tree.num_nodes,
            "built": False,
            "views": list(description.views),
            "lines": lines,
        }
    return None


def cmd_games(args: argparse.Namespace) -> int:
    from ...core.registry import routes
    from ...instances import catalog

    rows = catalog({name: route.view for name, route in routes().items()})
    if getattr(args, "json", False):
        print(json.dumps(rows, indent=2))
        return 0
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        params = ", ".join(f"{k}={v}" for k, v in r["parameters"].items()) or "-"
        print(f"{r['name']:<{width}}  {r['summary']}")
        print(f"{'':<{width}}  parameters: {params}; routes: {', '.join(r['routes'])}")
    print()
    print("routes: " + "; ".join(f"{name} ({route.summary})" for name, route in routes().items()))
    print(
        "also: a path to a .efg file, a rules file PATH.py[:key=value,...], or openspiel:GAME_STRING (needs open_spiel)"
    )
    return 0


#: What a file's ending says it holds, for ``export``.
EXPORT_FORMATS = {".mps": "mps", ".lp": "lp", ".efg": "efg", ".nfg": "nfg"}


def export_format(output: str, asked: str | None) -> str:
    """The format ``export`` writes: ``asked``, else the one the file's ending names, else
    MPS; a format that contradicts the ending is refused (a reader goes by the ending)."""
    from ...models.output import content_suffix

    ending = content_suffix(output)
    named = EXPORT_FORMATS.get(ending)
    if asked is None and named is None and ending:
        # a reader goes by the ending: an MPS file named .pdf is a file no one can open
        raise usage_error(f"-o {output}: name it .mps, .lp, .efg or .nfg (each may end in .gz), or give --format")
    if asked is not None and named is not None and asked != named:
        raise usage_error(
            f"--format {asked} does not match the file name {output} (it says {named}); change one of them"
        )
    return asked or named or "mps"


def cmd_export(args: argparse.Namespace) -> int:
    from ...formulations import sequence_form_lp
    from ...models.output import check_target
    from ...models.sequence import SequenceForm
    from ...solvers import write_problem

    fmt = export_format(args.output, args.format)
    check_target(args.output)  # before the work
    report = report_stream(args.output)
    game, _ = load_game(args.game)
    if fmt == "efg":
        from ...models.efg_io import write_efg

        write_efg(game, args.output)
        print(f"wrote {args.output}: the game in Gambit's .efg format, {game.num_nodes} nodes", file=report)
        return 0
    if fmt == "nfg":
        return export_reduced_normal_form(game, args.game, args.output, report)
    lp = sequence_form_lp(SequenceForm(game), args.player - 1)
    write_problem(lp, args.output, fmt)
    print(
        f"wrote {args.output}: player {args.player}'s LP, {lp.num_rows} rows, {lp.num_cols} columns, {lp.nnz} nonzeros",
        file=report,
    )
    return 0


def export_reduced_normal_form(game: Any, name: str, output: str, report: Any) -> int:
    """``export --format nfg``: the game's reduced normal form as Gambit's ``.nfg``, refused
    with its size (exit 2) when it would not fit in the memory this process may use."""
    from ...instances.registry import available_memory
    from ...models.nfg_io import write_nfg
    from ...models.reduced_normal_form import reduced_normal_form

    reduced = reduced_normal_form(game, memory=available_memory(), name=name)
    write_nfg(reduced.game, output)
    shape = " x ".join(f"{m:,}" for m in reduced.game.num_strategies)
    print(f"wrote {output}: the reduced normal form in Gambit's .nfg format, {shape} plans", file=report)
    return 0


def cmd_backends(args: argparse.Namespace) -> int:
    from ...solvers import (
        CAPABILITIES,
        PYOMO_CANDIDATES,
        available_backends,
        registered,
    )
    from ...solvers.pyomo_backend import PyomoBackend

    here = available_backends()
    if args.names:
        print("\n".join(here))
        return 0
    # every Pyomo solver the project knows, found here or not, with what to install
    names = list(registered()) + [f"pyomo:{n}" for n in PYOMO_CANDIDATES]
    names += [n for n in here if n not in names]
    if args.json:
        rows = []
        for name in names:
            backend = registered().get(name) or PyomoBackend(name.split(":", 1)[1])
            rows.append(
                {
                    "backend": name,
                    "available": name in here,
                    "capabilities": [c for c in CAPABILITIES if getattr(backend.capabilities, c)],
                    "install": None if name in here else backend.install_hint(),
                }
            )
        print(json.dumps(rows, indent=2))
        return 0
    width = max(map(len, names))
    print(f"{'backend':{width}}  available  " + " ".join(CAPABILITIES))
    for name in names:
        backend = registered().get(name) or PyomoBackend(name.split(":", 1)[1])
        caps = backend.capabilities
        marks = " ".join(f"{'yes' if getattr(caps, c) else '-':{len(c)}}" for c in CAPABILITIES)
        missing = "" if name in here else f"  {backend.install_hint()}"
        print(f"{name:{width}}  {'yes' if name in here else 'no':9}  {marks}{missing}".rstrip())
    return 0


def add_info(sub: Any) -> None:
    """The ``info`` command's arguments."""
    p = sub.add_parser("info", help="print the size of a game")
    p.add_argument("game", nargs="?", help=GAME_HELP)
    p.add_argument("--list", action="store_true", help="list the registered games (as `equilibria games`)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_info)


def add_games(sub: Any) -> None:
    """The ``games`` command's arguments."""
    p = sub.add_parser("games", help="list the registered games, their parameters and routes")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_games)


def add_export(sub: Any) -> None:
    """The ``export`` command's arguments."""
    p = sub.add_parser(
        "export",
        help="write a player's sequence-form LP as MPS or LP, the game as .efg, or its reduced normal form as .nfg",
    )
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("--player", type=int, choices=(1, 2), default=1, help="whose LP (default 1)")
    p.add_argument(
        "--format",
        choices=("mps", "lp", "efg", "nfg"),
        default=None,
        help="mps or lp: the LP; efg: the game itself; nfg: its reduced normal form (one strategy per plan, "
        "named by the action at each of the player's information sets, * where the plan excludes it); "
        "default: what the file's ending names, else mps",
    )
    p.add_argument("-o", "--output", type=text_type, required=True)
    p.set_defaults(func=cmd_export)


def add_backends(sub: Any) -> None:
    """The ``backends`` command's arguments."""
    p = sub.add_parser("backends", help="list the solver backends: availability and capabilities")
    p.add_argument("--names", action="store_true", help="only the names of the available backends")
    p.add_argument("--json", action="store_true", help="every backend, its availability and capabilities as JSON")
    p.set_defaults(func=cmd_backends)
