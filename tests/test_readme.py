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


def test_the_backend_shown_in_the_architecture_is_the_real_one():
    import ast

    root = README.parent
    arch = (root / "docs" / "architecture.md").read_text()
    start = arch.index("### Adding a backend")
    block = arch[arch.index("```python", start) + len("```python\n") :]
    shown = block[: block.index("```")].strip("\n")
    source = (root / "solvers" / "coin.py").read_text()
    first = ast.parse(source).body[0]
    assert isinstance(first, ast.Expr)  # the module docstring, left out of the page
    assert shown == "\n".join(source.splitlines()[first.end_lineno :]).strip("\n")


def test_the_rules_file_shown_is_the_shipped_one():
    root = README.parent
    text = README.read_text()
    start = text.index("## Games written as rules")
    block = text[text.index("```python\n", start) + len("```python\n") :]
    shown = block[: block.index("```")]
    assert shown == (root / "instances" / "rules" / "kuhn_rules.py").read_text()
