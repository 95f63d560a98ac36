"""The README's sample outputs are what the commands print (regenerate with `make readme`)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from equilibria.scripts.readme_samples import BLOCK, PLAIN, check_plain, regenerate, shape

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_samples_have_the_shape_of_the_real_output():
    text = README.read_text()
    assert len(BLOCK.findall(text)) >= 4
    _, drifted = regenerate(text)
    assert drifted == [], "run `make readme`"


def test_shape_ignores_numbers_and_timings_only():
    assert shape("value (player 1) -0.0856\nseconds game 0.1") == ["value (player #) #"]
    assert shape("status optimal") != shape("status time_limit")


def test_the_architecture_page_shows_the_shipped_backend_read_when_the_site_is_built():
    page = (README.parent / "docs" / "architecture.md").read_text()
    assert "import equilibria.solvers.coin as coin" in page
    assert "source = Path(coin.__file__).read_text()" in page


def test_the_rules_page_shows_the_shipped_file_read_when_the_site_is_built():
    page = (README.parent / "docs" / "tutorials" / "rules.md").read_text()
    assert "import equilibria.instances.rules.kuhn_rules as kuhn_rules" in page
    assert "print(Path(kuhn_rules.__file__).read_text()" in page


def test_every_sample_typed_as_a_user_types_it_runs_as_shown():
    text = README.read_text()
    assert len(PLAIN.findall(text)) >= 6
    assert check_plain(text) == []


PYTHON_SAMPLES = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


@pytest.mark.parametrize("index", range(len(PYTHON_SAMPLES)))
def test_every_python_sample_runs(index, tmp_path):
    """Each ``python`` block of the README as a script of its own, in a scratch folder:
    it must run to the end, and a script whose work starts worker processes must not
    repeat its output (each worker imports the script again)."""
    code = PYTHON_SAMPLES[index]
    script = tmp_path / "sample.py"
    script.write_text(code)
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert res.returncode == 0, res.stderr
    printed = res.stdout.splitlines()
    assert len(printed) == len(set(printed)) or len(printed) <= code.count("print(")
