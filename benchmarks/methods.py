"""Compare solver methods on the sequence-form LPs of the largest games.

Each (game, method) runs in a fresh process under a time limit: HiGHS simplex, IPX
(interior point with crossover), PDLP, the ``concurrent`` race of simplex and IPX (the
default), and SCIP. Results go to CSV and a table is printed.

    python benchmarks/methods.py [--games "leduc:ranks=8;liars_dice:sides=6"] [--time-limit 600]
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
GAMES = ["leduc:ranks=8", "leduc:ranks=13", "liars_dice:sides=6", "generalized_kuhn:cards=1000"]
METHODS = ["concurrent", "simplex", "ipx", "pdlp", "scip"]

CHILD = r"""
import json, sys, resource, time
import equilibria
from equilibria.formulations import equilibrium_behaviors, sequence_form_lp
from equilibria.models.sequence import SequenceForm
from equilibria.models.best_response import certify
from equilibria.solvers import solve
spec, method = sys.argv[1], sys.argv[2]
sf = SequenceForm(equilibria.load(spec))
lp = sequence_form_lp(sf, 0)
backend, m = ("scip", None) if method == "scip" else ("highs", method)
sol = solve(lp, backend, method=m)
expl = None
if sol.x is not None and sol.row_duals is not None:
    expl = certify(sf, equilibrium_behaviors(sf, lp, sol.x, sol.row_duals)).exploitability
print(json.dumps({"status": str(sol.status), "value": sol.objective, "exploitability": expl,
                  "seconds": sum(sol.seconds.values()), "solve_seconds": sol.seconds["solve"],
                  "method_used": sol.method,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--games", default=";".join(GAMES))
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--out", default=str(HERE / "methods.csv"))
    args = parser.parse_args(argv)
    rows = []
    for game in filter(None, args.games.split(";")):
        for method in filter(None, args.methods.split(",")):
            row = {"game": game, "method": method}
            try:
                done = subprocess.run(
                    [sys.executable, "-c", CHILD, game, method], capture_output=True, text=True, timeout=args.time_limit
                )
                if done.returncode == 0:
                    row.update(json.loads(done.stdout.strip().splitlines()[-1]))
                else:
                    row["status"] = "error: " + (done.stderr.strip().splitlines() or ["?"])[-1][:100]
            except subprocess.TimeoutExpired:
                row["status"] = f"time limit (> {args.time_limit:.0f} s)"
            rows.append(row)
            expl = row.get("exploitability")
            print(
                f"{game:30} {method:11} {row.get('status', '?'):22} "
                f"{row.get('solve_seconds', float('nan')):9.2f} s  "
                f"exploitability {expl if expl is None else format(expl, '.1e')}",
                flush=True,
            )
    fields = [
        "game",
        "method",
        "status",
        "value",
        "exploitability",
        "seconds",
        "solve_seconds",
        "method_used",
        "peak_mb",
    ]
    with open(args.out, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    print(f"results written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
