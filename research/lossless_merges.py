"""Merges beyond the lossless GameShrink rule, tried on small decks.

The lossless rule (:func:`equilibria.models.gameshrink.game_shrink`) gives the coarsest
pair of view partitions in which every merged pair of sibling views is payoff-equivalent
against every strategy of the abstract opponent (docs/gameshrink_rules.md has the
argument). Losslessness needs only that merged views keep a common best response, and
:func:`sure_hands_merged` is one such merge: the last-round hands of the player who acts
last that lose to no card. This script measures both that merge and every single merge of
two sibling classes of the lossless abstraction (same parent class): it solves the
abstract LP, lifts both strategies to the full game and certifies them there, and sorts a
single merge into

- ``value``: the abstract game's value differs from the game's;
- ``lifted``: the value is kept but the lifted profile is exploitable in the full game
  (the merged player's strategy stays optimal, the opponent's does not);
- ``lossless``: value kept and lifted exploitability at most 1e-9 for the equilibrium the
  LP returned (which may only say that this equilibrium plays the two views alike).

The ``equivalent`` column counts merges after which no strategy of the abstract opponent
tried (20 per merge, interior and pure) lowers the merged player's best-response value: a
necessary condition for a merge to be lossless against every strategy, not a proof.

    python -m research.lossless_merges [DECK ...] [--csv FILE]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from research._report import write_rows

DECKS = ("leduc", "leduc:ranks=4", "rhode_island:ranks=4,suits=1", "rhode_island:ranks=3,suits=2")
TOLERANCE = 1e-9


def sibling_pairs(filt: Any, i: int, r: int) -> list[tuple[int, int]]:
    """Pairs of player ``i``'s round-``r`` classes with the same parent class."""
    parent = filt.parent_class(i, r) if r else np.zeros(filt.num_classes(i, r), dtype=np.int64)
    pairs = []
    for p in np.unique(parent):
        members = np.flatnonzero(parent == p)
        pairs += [(int(a), int(b)) for k, a in enumerate(members) for b in members[k + 1 :]]
    return pairs


def merged(filt: Any, i: int, r: int, a: int, b: int) -> Any:
    """The filter with player ``i``'s round-``r`` classes ``a`` and ``b`` made one (and
    the classes renumbered so they stay 0..k-1)."""
    from equilibria.models.gameshrink import InformationFilter

    classes = [[c.copy() for c in per_round] for per_round in filt.classes]
    level = classes[i][r]
    level[level == b] = a
    classes[i][r] = np.unique(level, return_inverse=True)[1].astype(np.int64)
    return InformationFilter(filt.game, filt.space, classes)


def measure(filt: Any, original: Any, osf: Any) -> tuple[float, float]:
    """The abstract LP's value and the exploitability of its lifted strategies in the
    full game."""
    from equilibria.models.best_response import certify
    from equilibria.models.filtered import filtered_sequence_form, lift_behavior
    from equilibria.routes.lp import solve_sequence_form

    fg = filtered_sequence_form(filt)
    run = solve_sequence_form(fg.sequence_form, "highs")
    behaviors = lift_behavior(fg, run.behaviors, original, osf)
    return run.value, certify(osf, behaviors).exploitability


def sure_hands_merged(filt: Any, i: int) -> Any:
    """The filter with player ``i``'s last-round classes that lose to no opponent card
    (sure wins and ties) merged into one class per parent class. For the player who acts
    last in the round, betting or raising whenever possible is a best response to every
    opponent strategy at such a view: against each opponent card, on every line, it pays
    at least as much as checking or calling (a fold gives the same pot, a call more) and
    no later round can reward holding back. So the merged information set keeps a common
    best response at all its views. (At earlier rounds it does not hold: checking a sure
    hand can draw a bluff in a later round.)"""
    from equilibria.models.gameshrink import InformationFilter

    space, R = filt.space, filt.game.rounds
    r = R - 1
    loses = space.outcome == (1 if i == 1 else -1)
    views = filt.classes[i][r].shape[0]
    view_loses = np.bincount(space.view_index[i][r], weights=loses, minlength=views) > 0
    parent = filt.classes[i][r - 1][space.parent_view(i, r)]
    own = np.where(view_loses, filt.classes[i][r], -1)
    labels = np.unique(np.stack([parent, own], axis=1), axis=0, return_inverse=True)[1]
    classes = [[c.copy() for c in per_round] for per_round in filt.classes]
    classes[i][r] = labels.reshape(-1).astype(np.int64)
    return InformationFilter(filt.game, filt.space, classes)


def equivalence_gap(before: Any, merged_filt: Any, i: int, rng: np.random.Generator, trials: int = 20) -> float:
    """Largest loss of player ``i``'s best-response value, over random strategies of the
    abstract opponent, when ``i`` must play alike at the merged views: positive means the
    merged views are not payoff-equivalent (the opponent's classes are the same in both
    abstractions, so one opponent strategy serves both). ``before`` is the unmerged
    abstraction's sequence form."""
    from equilibria.models.best_response import best_response
    from equilibria.models.filtered import filtered_sequence_form
    from equilibria.models.strategy import realization_from_behavior

    after = filtered_sequence_form(merged_filt).sequence_form
    o = 1 - i
    ps = before.players[o]
    same = after.players[o]
    assert np.array_equal(ps.infoset_first_sequence, same.infoset_first_sequence)
    assert np.array_equal(ps.infoset_parent_sequence, same.infoset_parent_sequence)
    gap = 0.0
    for trial in range(trials):
        # interior strategies and pure ones: a difference of best responses can hide from either
        behavior = np.ones(ps.num_sequences)
        for k in range(ps.num_infosets):
            first, count = int(ps.infoset_first_sequence[k]), int(ps.infoset_num_actions[k])
            if trial % 2:
                behavior[first : first + count] = np.eye(count)[rng.integers(count)]
            else:
                behavior[first : first + count] = rng.dirichlet(np.full(count, 0.5))
        plans = [np.empty(0), np.empty(0)]
        plans[o] = realization_from_behavior(ps, behavior)
        gap = max(gap, best_response(before, i, plans).value - best_response(after, i, plans).value)
    return gap


def search(deck: str, single: bool = True) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rows for every single extra merge of sibling lossless classes on ``deck`` (when
    ``single``), and one row per player for the merge of that player's sure hands."""
    from equilibria.instances import describe
    from equilibria.models.filtered import filtered_sequence_form
    from equilibria.models.gameshrink import game_shrink
    from equilibria.models.ordered import SignalSpace
    from equilibria.models.sequence import SequenceForm

    game = describe(deck).view("ordered")
    space = SignalSpace(game)
    lossless = game_shrink(game, space)
    original = game.to_extensive()
    osf = SequenceForm(original)
    value, exploitability = measure(lossless, original, osf)
    lossless_sf = filtered_sequence_form(lossless).sequence_form
    assert exploitability <= TOLERANCE, f"{deck}: the lossless abstraction lost {exploitability}"
    rows = []
    rng = np.random.default_rng(0)
    for i in (0, 1) if single else ():
        for r in range(game.rounds):
            for a, b in sibling_pairs(lossless, i, r):
                candidate = merged(lossless, i, r, a, b)
                v, e = measure(candidate, original, osf)
                kind = "value" if abs(v - value) > TOLERANCE else ("lifted" if e > TOLERANCE else "lossless")
                rows.append(
                    {
                        "deck": deck,
                        "player": i + 1,
                        "round": r + 1,
                        "classes": f"{a}+{b}",
                        "value_gap": v - value,
                        "lifted_exploitability": e,
                        "kind": kind,
                        "equivalence_gap": equivalence_gap(lossless_sf, candidate, i, rng),
                    }
                )
    sure = []
    for i in (0, 1):
        candidate = sure_hands_merged(lossless, i)
        v, e = measure(candidate, original, osf)
        sure.append(
            {
                "deck": deck,
                "player": i + 1,
                "classes": [candidate.num_classes(i, r) for r in range(game.rounds)],
                "lossless_classes": [lossless.num_classes(i, r) for r in range(game.rounds)],
                "rows": filtered_sequence_form(candidate).sequence_form.lp_size()["rows"],
                "lossless_rows": lossless_sf.lp_size()["rows"],
                "value": v,
                "game_value": value,
                "lifted_exploitability": e,
                "equivalence_gap": equivalence_gap(lossless_sf, candidate, i, rng),
            }
        )
    return rows, sure


def main(argv: list[str] | None = None) -> int:
    """Print, per deck, player and round, how many single extra merges fall in each kind."""
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("decks", nargs="*", default=list(DECKS))
    parser.add_argument("--csv", help="write one row per merge tried")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    print(
        f"{'deck':<30} {'player':>6} {'round':>5} {'pairs':>6} {'value':>6} {'lifted':>7} {'lossless':>8} "
        f"{'equivalent':>10}"
    )
    sure_rows = []
    for deck in args.decks:
        found, sure = search(deck)
        rows += found
        sure_rows += sure
        for i in (1, 2):
            for r in sorted({row["round"] for row in found}):
                mine = [row for row in found if row["player"] == i and row["round"] == r]
                if not mine:
                    continue
                count = {k: sum(row["kind"] == k for row in mine) for k in ("value", "lifted", "lossless")}
                print(
                    f"{deck:<30} {i:>6} {r:>5} {len(mine):>6} {count['value']:>6} {count['lifted']:>7} "
                    f"{count['lossless']:>8} {sum(row['equivalence_gap'] <= TOLERANCE for row in mine):>10}"
                )
        sys.stdout.flush()
    print()
    print(f"{'sure hands merged':<30} {'player':>6} {'classes':>14} {'LP rows':>16} {'value gap':>10} {'lifted':>10}")
    for row in sure_rows:
        classes = "/".join(map(str, row["lossless_classes"])) + " -> " + "/".join(map(str, row["classes"]))
        print(
            f"{row['deck']:<30} {row['player']:>6} {classes:>14} "
            f"{row['lossless_rows']:>7,} -> {row['rows']:>6,} {row['value'] - row['game_value']:>+10.1e} "
            f"{row['lifted_exploitability']:>10.1e}"
        )
    if args.csv:
        write_rows(rows, Path(args.csv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
