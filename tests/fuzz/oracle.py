"""Gambit as an independent oracle for a mutated file that ``equilibria`` solved: the
game value by Gambit's own reader and LP, in a process of its own (a damaged file may
crash a C++ reader). Run as a script: ``python -m tests.fuzz.oracle FILE`` prints JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def gambit_value(path: Path, timeout: float = 60.0) -> dict:
    """``{"values": [lp value, lcp value], "scale": max |payoff|}`` or ``{"skip": reason}`` when Gambit cannot
    read the file, the game is not two-player constant-sum, or pygambit is missing."""
    root = Path(__file__).resolve().parents[2]
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "tests.fuzz.oracle", str(path)],
            cwd=root,
            capture_output=True,
            timeout=timeout,
            text=True,
        )
    except subprocess.TimeoutExpired:
        return {"skip": "gambit timed out"}
    if proc.returncode != 0:
        return {"skip": f"gambit exited {proc.returncode}: {proc.stderr.strip()[-200:]}"}
    return json.loads(proc.stdout)


def _main(path: str) -> dict:
    try:
        import pygambit as gbt
    except ImportError:
        return {"skip": "pygambit is not installed"}
    try:
        game = gbt.read_efg(path)
    except Exception as exc:  # noqa: BLE001  (any refusal by Gambit's reader)
        return {"skip": f"gambit cannot read it: {type(exc).__name__}"}
    if len(game.players) != 2 or not game.is_const_sum or not game.is_perfect_recall:
        return {"skip": "not a two-player constant-sum game with perfect recall for gambit"}
    from ..gambit_compat import equilibrium, first_payoff

    # pygambit 17.0.0b2's lp_solve misses the value of some games lcp_solve gets right
    # (random_game(5, max_depth=4)): a value counts as Gambit's when either solver finds it
    values = [
        first_payoff(equilibrium(solve(game, rational=False)), game)
        for solve in (gbt.nash.lp_solve, gbt.nash.lcp_solve)
    ]
    scale = max(abs(float(game.max_payoff)), abs(float(game.min_payoff)), 1.0)
    return {"values": values, "scale": scale}


if __name__ == "__main__":
    print(json.dumps(_main(sys.argv[1])))
