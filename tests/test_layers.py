"""The package's layers, read from the source (imports inside functions count too): no
import cycle, and the game layer imports nothing of the others."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Folders and the package each one is installed as (pyproject's package-dir).
FOLDERS = {
    "equilibria": "equilibria",
    "models": "equilibria.models",
    "formulations": "equilibria.formulations",
    "solvers": "equilibria.solvers",
    "instances": "equilibria.instances",
    "scripts": "equilibria.scripts",
}


def _modules() -> dict[str, Path]:
    out = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([package, *parts])] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name if is_package else name.rsplit(".", 1)[0]
                for _ in range(node.level - 1):
                    package = package.rsplit(".", 1)[0]
                base = f"{package}.{base}" if base else package
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            # a module importing its own package's __init__ is no edge of a cycle
            if target in modules and target != name and not name.startswith(target + "."):
                found.add(target)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_no_import_cycle():
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert cycles == []


def test_the_game_layer_imports_no_other_layer():
    for name, targets in _graph().items():
        if name.startswith("equilibria.models"):
            assert all(t.startswith("equilibria.models") for t in targets), (name, targets)


def test_the_solvers_know_no_games():
    """Backends see matrices and Pyomo models; the first-order methods see treeplexes (a
    player's strategy polytope), not games. Both may announce a long stage (writing a
    large model) through models.progress, which knows no games either."""
    allowed = {
        "equilibria.models.errors",
        "equilibria.models.output",
        "equilibria.models.progress",
        "equilibria.models.treeplex",
        "equilibria.models.vocabulary",
    }
    for name, targets in _graph().items():
        if name.startswith("equilibria.solvers"):
            outside = {t for t in targets if not t.startswith(("equilibria.solvers", "equilibria.formulations"))}
            assert outside <= allowed, (name, outside)


def test_parsing_a_command_line_loads_no_numerical_package():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from equilibria.scripts.cli import build_parser\n"
        "build_parser().parse_args(['solve', 'kuhn'])\n"
        "print(sorted(m for m in ('numpy', 'scipy', 'pandas', 'pyomo', 'highspy') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
