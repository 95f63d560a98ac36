"""GameShrink's two merge rules side by side: classes, LP sizes, values and the loss.

For each deck, the lossless rule (the project's: a matching must also keep the
opponent's class) and the published rule (Gilpin and Sandholm, "Lossless abstraction of
imperfect information games", J. ACM 2007, Algorithm 1 per player on the own tree) are
run; each shrunk LP is solved, its strategies lifted to the full game and certified
there. Then the first pair of views the published rule merges and the lossless rule does
not is printed, with the opponent's cards under each: their showdown result and the
opponent's own (lossless) class, which is what the matching of the published rule does
not look at.

    python -m research.gameshrink_rules [DECK ...]
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

DECKS = ("leduc", "leduc:ranks=4", "rhode_island:ranks=4,suits=1", "rhode_island:ranks=3,suits=2")


def gaps(deck: str) -> dict[str, Any]:
    """The full LP's value and both rules' classes, values and lifted exploitability."""
    import equilibria

    full = equilibria.solve(deck)
    row: dict[str, Any] = {"deck": deck, "value": full.value}
    for rule in ("lossless", "published"):
        answer = equilibria.solve(deck, "shrink", rule=rule)
        row[rule] = {
            "classes": [c["classes"] for c in answer.report.classes["player1"]],
            "rows": answer.report.lp.num_rows,
            "value": answer.value,
            "value_gap": answer.value - full.value,
            "exploitability": answer.exploitability,
        }
    return row


def counterexample(deck: str = "leduc") -> list[str]:
    """Lines describing the first last-round views of player 1 that the published rule
    merges and the lossless rule keeps apart."""
    from equilibria.instances import describe
    from equilibria.models.gameshrink import game_shrink, published_shrink
    from equilibria.models.ordered import SignalSpace

    game = describe(deck).view("ordered")
    space = SignalSpace(game)
    D, R = game.deck, game.rounds
    published, lossless = published_shrink(game, space), game_shrink(game, space)
    r = R - 1
    codes = space.view_codes[0][r]
    pub, los = published.classes[0][r], lossless.classes[0][r]
    names = game.card_names

    def cards(code: int, count: int) -> list[str]:
        out = []
        for _ in range(count):
            out.append(names[code % D])
            code //= D
        return out[::-1]

    for k in range(int(pub.max()) + 1):
        members = np.flatnonzero(pub == k)
        split = {int(los[m]): int(m) for m in members}
        if len(split) < 2:
            continue
        lines = [f"{deck}: player 1's views merged by the published rule, kept apart by the lossless rule:"]
        for view in list(split.values())[:2]:
            own, *board = cards(int(codes[view]), r + 1)
            rows = np.flatnonzero(space.view_index[0][r] == view)
            parts = []
            for row in rows:
                state = space.states[r][row]
                opp = int(state[1])
                result = {1: "win", 0: "tie", -1: "loss"}[int(space.outcome[row])]
                opp_class = int(lossless.classes[1][r][space.view_index[1][r][row]])
                parts.append(f"{names[opp]} ({result}, opponent class {opp_class})")
            lines.append(f"  holding {own}, board {' '.join(board)}: opponent " + ", ".join(parts))
        lines.append(
            "  equal win/tie/loss counts, so the published matching pairs them; no pairing also keeps every "
            "opponent card in the same opponent class, so the lossless rule does not"
        )
        return lines
    return [f"{deck}: the two rules give the same classes"]


def main(argv: list[str] | None = None) -> int:
    """Print the table of both rules on the decks, and the counterexample on Leduc."""
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("decks", nargs="*", default=list(DECKS))
    args = parser.parse_args(argv)
    print(f"{'deck':<30} {'rule':<10} {'classes':<16} {'LP rows':>8} {'value gap':>10} {'lifted expl.':>12}")
    for deck in args.decks:
        row = gaps(deck)
        for rule in ("lossless", "published"):
            d = row[rule]
            classes = "/".join(str(c) for c in d["classes"])
            print(
                f"{deck:<30} {rule:<10} {classes:<16} {d['rows']:>8,} {d['value_gap']:>+10.4f} "
                f"{d['exploitability']:>12.3e}"
            )
    print()
    print("\n".join(counterexample("leduc")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
