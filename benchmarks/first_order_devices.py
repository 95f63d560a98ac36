"""First-order solvers on numpy, on torch on the CPU and on torch on CUDA: the same
iterations, timed on each device in the same run.

Each game is the lossless GameShrink of its spec (the game the shrink route iterates on).
Per game and device: milliseconds per iteration of ``--algorithm`` (after a warm-up,
min and median over ``--repeat`` timed blocks of ``--block`` iterations; CUDA is
synchronised before the clock stops), the ratio to numpy, and, for the games given
``--targets``, the iterations and seconds of iterating and certifying to each target
(:func:`~equilibria.routes.first_order.solve_first_order` with ``device``, so the
certificates run on the device too). ``cuda`` replays each iteration as a recorded CUDA
graph; ``cuda-eager`` launches its kernels one by one, to show what the graph buys.
Devices that are missing (no torch, no CUDA) are skipped and said so. The CSV names the
device and, for CUDA, the card.

    python benchmarks/first_order_devices.py [--devices numpy,cpu,cuda,cuda-eager] [--repeat 5]
        [--games leduc:ranks=8,leduc:ranks=13,rhode_island:ranks=4]
        [--targets leduc:ranks=13] [--out benchmarks/first_order_devices.csv]
"""

from __future__ import annotations

import argparse
import statistics
import time
from contextlib import contextmanager
from pathlib import Path

from tables import write_csv

HERE = Path(__file__).resolve().parent
GAMES = ["leduc:ranks=8", "leduc:ranks=13", "rhode_island:ranks=4", "rhode_island:ranks=5"]
TARGETS = (1.0, 1e-3, 1e-4)


def shrunk_sequence_form(spec: str):
    """The lossless shrunk game's sequence form and the seconds it took."""
    from equilibria.routes.shrink import shrink

    t0 = time.perf_counter()
    sf = shrink(spec, build_lp=False).filtered.sequence_form
    return sf, time.perf_counter() - t0


def card(device: str) -> str:
    """The device in words: the CUDA card's name, or the CPU's core count."""
    import os

    if device.startswith("cuda"):
        import torch

        return torch.cuda.get_device_name(0)
    return f"{os.cpu_count()} cores"


def usable(device: str) -> str | None:
    """Why ``device`` cannot run here, or None."""
    from equilibria.models.array_ops import torch_available

    if device == "numpy":
        return None
    if not torch_available():
        return "torch is not installed"
    import torch

    if device.startswith("cuda") and not torch.cuda.is_available():
        return "torch sees no CUDA device"
    return None


@contextmanager
def placed(device: str):
    """The device's name for torch (``cuda-eager``: CUDA with every kernel launched one by
    one, no recorded graph, to measure what the graph buys)."""
    from equilibria.models import array_ops

    graphs = array_ops.CUDA_GRAPHS
    array_ops.CUDA_GRAPHS = graphs and device != "cuda-eager"
    try:
        yield "cuda" if device == "cuda-eager" else device
    finally:
        array_ops.CUDA_GRAPHS = graphs


def per_iteration(sf, algorithm: str, device: str, block: int, repeat: int) -> tuple[list[float], float, int]:
    """Milliseconds per iteration of each timed block, the seconds the solver's build
    (the payoff matrix converted and moved to the device) took, and its nonzeros."""
    from equilibria.models.array_ops import array_ops
    from equilibria.routes.first_order import treeplexes
    from equilibria.solvers.first_order import make_solver

    with placed(device) as name:
        ops = array_ops(name)
        t0 = time.perf_counter()
        solver = make_solver(algorithm, sf.payoff_entries(0), treeplexes(sf), ops)
        build = time.perf_counter() - t0
        return _timed(solver, name, block, repeat), build, solver.payoff.nonzeros


def _timed(solver, device: str, block: int, repeat: int) -> list[float]:
    sync = solver.ops.torch.cuda.synchronize if device == "cuda" else (lambda: None)
    solver.iterate(3)  # warm-up: kernels loaded, caches filled
    sync()
    times = []
    for _ in range(repeat):
        t1 = time.perf_counter()
        solver.iterate(block)
        sync()
        times.append((time.perf_counter() - t1) * 1000.0 / block)
    return times


def to_targets(sf, algorithm: str, device: str, targets: tuple[float, ...]) -> list[tuple[float, int, float, float]]:
    """Per target: (target, iterations, seconds iterating, exploitability) of one run to
    the smallest target, read off its certificates."""
    from equilibria.routes.first_order import solve_first_order

    with placed(device) as name:
        run = solve_first_order(sf, algorithm, target_exploitability=min(targets), time_limit=600.0, device=name)
    out = []
    for target in targets:
        hit = next((c for c in run.curve if c.exploitability <= target), run.curve[-1])
        out.append((target, hit.iterations, hit.seconds, hit.exploitability))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", default="numpy,cpu,cuda")
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--targets", default="leduc:ranks=13", help="games also run to each target (comma list)")
    parser.add_argument("--algorithm", default="dcfr")
    parser.add_argument("--block", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=str(HERE / "first_order_devices.csv"))
    args = parser.parse_args()
    devices = args.devices.split(",")
    skipped = {d: why for d in devices if (why := usable(d))}
    for device, why in skipped.items():
        print(f"{device}: skipped ({why})")
    devices = [d for d in devices if d not in skipped]
    rows = []
    for spec in args.games.split(","):
        sf, seconds = shrunk_sequence_form(spec)
        print(f"\n{spec} (lossless shrunk): built in {seconds:.1f} s")
        numpy_min = None
        for device in devices:
            ms, build, nnz = per_iteration(sf, args.algorithm, device, args.block, args.repeat)
            best, median = min(ms), statistics.median(ms)
            numpy_min = best if device == "numpy" else numpy_min
            ratio = f"{numpy_min / best:.2f}x numpy" if numpy_min else ""
            print(
                f"  {device:10} {nnz:,} nonzeros {best:9.3f} ms/iteration min, {median:9.3f} median"
                f"  (build {build:.2f} s) {ratio}"
            )
            row = {
                "game": spec,
                "nonzeros": nnz,
                "algorithm": args.algorithm,
                "device": device,
                "card": card(device),
                "ms_per_iteration_min": round(best, 4),
                "ms_per_iteration_median": round(median, 4),
                "build_seconds": round(build, 3),
                "speedup_over_numpy": round(numpy_min / best, 3) if numpy_min else "",
            }
            rows.append(row | {"target": "", "iterations": "", "seconds": "", "exploitability": ""})
            if spec in args.targets.split(","):
                for target, iterations, secs, expl in to_targets(sf, args.algorithm, device, TARGETS):
                    print(f"    to {target:g}: {iterations:,} iterations, {secs:.2f} s, exploitability {expl:.3e}")
                    rows.append(
                        row
                        | {
                            "target": target,
                            "iterations": iterations,
                            "seconds": round(secs, 3),
                            "exploitability": expl,
                        }
                    )
    write_csv(rows, args.out)


if __name__ == "__main__":
    main()
