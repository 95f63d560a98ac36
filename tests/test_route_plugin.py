"""A route from another package, installed as a user installs one: the tutorial's example
(docs/examples/support-route) goes into a fresh virtual environment, where it is known
only through the ``equilibria.routes`` entry point. It must appear in the command's help
and game list, run from Python, from its generated command and in a sweep's worker
processes, and listing it must import no numerical package."""

import json
import site
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from equilibria.models.nfg_io import write_nfg
from equilibria.models.normal_form import NormalFormGame

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "support-route"


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A virtual environment that sees this environment's packages (equilibria among
    them) and has the example route installed into it by pip."""
    root = tmp_path_factory.mktemp("plugin") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    own = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # this environment's packages, their .pth files (the editable equilibria) included
    lines = [f"import site; site.addsitedir({p!r})" for p in site.getsitepackages()]
    Path(own, "outer.pth").write_text("\n".join(lines) + "\n")
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "--quiet"]
        + [str(EXAMPLE)],
        capture_output=True,
        text=True,
        cwd=root.parent,
    )
    assert installed.returncode == 0, installed.stderr
    return python


@pytest.fixture(scope="module")
def rps(tmp_path_factory):
    a = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    path = tmp_path_factory.mktemp("games") / "rps.nfg"
    write_nfg(NormalFormGame(np.stack([a, -a]), title="rock-paper-scissors"), path)
    return str(path)


def run(python, *argv, cwd=None):
    return subprocess.run([str(python), *argv], capture_output=True, text=True, cwd=cwd, timeout=600)


def test_the_installed_route_is_listed_and_listing_it_loads_no_numpy(venv):
    helped = run(venv, "-m", "equilibria", "--help")
    assert helped.returncode == 0 and "support enumeration (two players, normal form)" in helped.stdout
    games = run(venv, "-m", "equilibria", "games")
    assert games.returncode == 0 and "support (support enumeration" in games.stdout
    code = (
        "import sys\n"
        "from equilibria.scripts.cli import build_parser\n"
        "build_parser(['--help'])\n"
        "build_parser(['support', '--help'])\n"
        "print(sorted(m for m in ('numpy', 'scipy', 'pandas', 'pyomo', 'highspy') if m in sys.modules))\n"
    )
    assert run(venv, "-c", code).stdout.strip() == "[]"


def test_the_installed_route_answers_from_python_and_its_command(venv, rps):
    code = (
        "import equilibria\n"
        f"answer = equilibria.solve({rps!r}, 'support', order='large-first')\n"
        "print(answer.route, [round(float(p), 9) for p in answer.payoffs], answer.exploitability < 1e-9)\n"
    )
    python = run(venv, "-c", code)
    assert python.stdout.split() == ["support", "[0.0,", "0.0]", "True"], python.stderr
    command = run(venv, "-m", "equilibria", "support", rps, "--largest", "3", "--json")
    assert command.returncode == 0, command.stderr
    answer = json.loads(command.stdout)
    assert answer["route"] == "support" and answer["exploitability"] < 1e-9
    refused = run(venv, "-m", "equilibria", "support", rps, "--order", "middle")
    assert refused.returncode == 2 and "invalid choice: 'middle'" in refused.stderr


def test_a_sweep_of_the_installed_route_runs_in_worker_processes(venv, rps, tmp_path):
    swept = run(
        venv,
        "-m",
        "equilibria",
        "sweep",
        "--route",
        "support",
        "--game",
        rps,
        "--option",
        "order=small-first,large-first",
        "--option",
        "largest=3,4",
        "--workers",
        "2",
        "-o",
        str(tmp_path / "sweep"),
        "--quiet",
    )
    assert swept.returncode == 0, swept.stderr
    import pandas as pd

    table = pd.read_csv(tmp_path / "sweep.csv")
    # every cell answered in a worker process that learnt the route from its entry point
    assert len(table) == 4 and list(table["status"]) == ["optimal"] * 4
    assert table["exploitability"].max() < 1e-9
