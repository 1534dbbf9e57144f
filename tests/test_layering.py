"""The house's layering, checked on the sources: the core (every module of `benchledger` but the
CLI and the entry point) imports neither half, the two halves import each other nowhere, nothing
but the entry point imports the CLI, and no module of the packages takes part in an import circle
(imports inside functions count: a circle hidden in a function is still a circle; one closed only
by annotations under TYPE_CHECKING is allowed in the records core, where the modules the store
stands on take a `Store` as their argument)."""

import ast
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("benchledger", "collector", "site_gen")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            found[name] = path
    return found


MODULES = _modules()


def _typing_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under `if TYPE_CHECKING:` (never run)."""
    return {id(inner) for node in ast.walk(tree) if isinstance(node, ast.If)
            and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
            for statement in node.body for inner in ast.walk(statement)}


def _imports(name: str, source: str, known: dict[str, Path], annotations: bool = True) -> set[str]:
    """The known modules that the module `name` (its `source`) imports: absolute and relative
    imports, and `importlib.import_module("...")` with a literal name; with `annotations`
    False, not those under `if TYPE_CHECKING:`."""
    package = name if known[name].name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    tree = ast.parse(source)
    skipped = set() if annotations else _typing_only(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            # `from ..cli import main` in benchledger.records.store is benchledger.cli(.main)
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level else node.module
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
              and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            names = [node.args[0].value]
        out |= {n for n in names if n in known}
    return out


GRAPH = {name: _imports(name, path.read_text(encoding="utf-8"), MODULES) - {name} for name, path in MODULES.items()}
RUNTIME_GRAPH = {name: _imports(name, path.read_text(encoding="utf-8"), MODULES, annotations=False) - {name}
                 for name, path in MODULES.items()}
CORE = sorted(m for m in MODULES if m.startswith("benchledger") and m != "benchledger.__main__"
              and not m.startswith("benchledger.cli"))


def _edges(source_prefix: str, target_prefix: str) -> list[str]:
    return sorted(f"{m} -> {t}" for m, targets in GRAPH.items() if m.startswith(source_prefix)
                  for t in targets if t == target_prefix or t.startswith(target_prefix + "."))


def test_the_graph_sees_the_packages():
    # guards the checks below against passing on an empty graph
    assert {"benchledger.records.store", "collector.runner", "site_gen.build", "benchledger.cli.main"} <= set(GRAPH)
    assert "benchledger.records.store" in GRAPH["site_gen.build"]


def test_the_graph_sees_relative_and_dynamic_imports():
    # a relative import inside a function, and import_module by name, are edges too
    source = "def f():\n    from ..cli import main\n    from . import ledger\n    importlib.import_module('site_gen.build')\n"
    assert _imports("benchledger.records.store", source, MODULES) == {
        "benchledger.cli", "benchledger.cli.main", "benchledger.records", "benchledger.records.ledger", "site_gen.build"}


def test_collector_and_site_gen_never_import_each_other():
    assert _edges("collector", "site_gen") == []
    assert _edges("site_gen", "collector") == []


def test_the_core_stands_on_nothing_above_it():
    assert {"benchledger.records.store", "benchledger.project", "benchledger.errors", "benchledger.cases.comparison"} <= set(CORE)
    assert [f"{m} -> {t}" for m in CORE for t in sorted(GRAPH[m])
            if t.startswith(("collector", "site_gen", "benchledger.cli"))] == []


def test_only_the_entry_point_imports_the_cli():
    users = {m for m, targets in GRAPH.items() if not m.startswith("benchledger.cli")
             and any(t.startswith("benchledger.cli") for t in targets)}
    assert users <= {"benchledger.__main__"}


def _cycles(graph: dict[str, set[str]] = GRAPH) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle():
    GRAPH["collector.plan"].add("collector.plan_loader")  # plan_loader imports plan
    try:
        assert any({"collector.plan", "collector.plan_loader"} <= set(c) for c in _cycles())
    finally:
        GRAPH["collector.plan"].discard("collector.plan_loader")


def test_the_runtime_graph_leaves_out_annotations_only():
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from benchledger.records.store import Store\nfrom benchledger.records import ledger\n"
    assert _imports("benchledger.records.sealing", source, MODULES) == {
        "benchledger.records", "benchledger.records.ledger", "benchledger.records.store"}
    assert _imports("benchledger.records.sealing", source, MODULES, annotations=False) == {
        "benchledger.records", "benchledger.records.ledger"}


def test_no_import_circles():
    assert _cycles(RUNTIME_GRAPH) == []
    assert [c for c in _cycles() if not all(m.startswith("benchledger.records") for m in c)] == []
