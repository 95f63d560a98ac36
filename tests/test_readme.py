"""The README's sample outputs are what the commands print (regenerate with `make readme`)."""

from pathlib import Path

from equilibria.scripts.readme_samples import BLOCK, regenerate, shape

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_samples_have_the_shape_of_the_real_output():
    text = README.read_text()
    assert len(BLOCK.findall(text)) >= 4
    _, drifted = regenerate(text)
    assert drifted == [], "run `make readme`"


def test_shape_ignores_numbers_and_timings_only():
    assert shape("value (player 1) -0.0856\nseconds game 0.1") == ["value (player #) #"]
    assert shape("status optimal") != shape("status time_limit")
