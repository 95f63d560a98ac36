"""The package's layers, read from the source (imports inside functions count too): no
import cycle, and each package imports only the packages its layer allows (:data:`LAYERS`,
the table docs/architecture.md shows)."""

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


#: Each package and the packages its modules may import besides its own. The first layers
#: know no games' routes; the routes are named in the registry by text, so ``core`` does
#: not import them; only the command line (``scripts``) and the package's lazy
#: ``__init__`` import everything.
LAYERS = {
    "equilibria.models": (),
    "equilibria.interop": ("equilibria.models",),
    "equilibria.instances": ("equilibria.models", "equilibria.interop"),
    "equilibria.formulations": ("equilibria.models",),
    "equilibria.solvers": (
        "equilibria.formulations",
        "equilibria.models.array_ops",
        "equilibria.models.errors",
        "equilibria.models.output",
        "equilibria.models.progress",
        "equilibria.models.treeplex",
        "equilibria.models.vocabulary",
    ),
    "equilibria.core": ("equilibria.models", "equilibria.interop", "equilibria.instances", "equilibria.solvers"),
    "equilibria.routes": (
        "equilibria.models",
        "equilibria.interop",
        "equilibria.instances",
        "equilibria.formulations",
        "equilibria.solvers",
        "equilibria.core",
    ),
    "equilibria.sweep": ("equilibria.models", "equilibria.instances", "equilibria.core"),
    "equilibria.presentation": ("equilibria.models",),
    "equilibria.scripts": ("equilibria",),
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


def _layer(module: str) -> str | None:
    return next((p for p in LAYERS if module == p or module.startswith(p + ".")), None)


def test_every_package_imports_only_what_its_layer_allows():
    graph = _graph()
    assert {_layer(m) for m in graph} - {None} == set(LAYERS), "a package of LAYERS has no module"
    for name, targets in graph.items():
        layer = _layer(name)
        if layer is None:  # equilibria/__init__ (lazy exports) and __main__
            continue
        allowed = (layer, *LAYERS[layer])
        outside = {t for t in targets if not any(t == a or t.startswith(a + ".") for a in allowed)}
        assert not outside, (name, outside)


def test_every_module_belongs_to_a_layer():
    loose = {m for m in _graph() if _layer(m) is None}
    assert loose <= {"equilibria", "equilibria.__main__"}, loose


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
