"""docs/architecture.md held to the code where a test can: which way imports run, no import cycle,
and a score changing sides in one place only."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("game", "store", "search", "ais", "checks", "play")
# what each part of the library may import (docs/architecture.md, "Which way imports run");
# search reads the store for type hints only
ALLOWED = {
    "game": set(),
    "store": {"game"},
    "search": {"game"},
    "ais": {"game", "search", "store"},
    "checks": {"ais", "game", "store", "search", "play"},
    "play": {"ais", "game", "store", "search"},
}


def _modules(folder: str) -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for inner in node.body:
                lines.update(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1))
    return lines


def _imports(path: Path, *, runtime_only: bool) -> set[str]:
    """The modules `path` imports: all, or those imported when it runs (not for type hints only)."""
    tree = ast.parse(path.read_text())
    skipped = _type_checking_lines(tree) if runtime_only else set()
    names = set()
    for node in ast.walk(tree):
        if node.lineno in skipped if hasattr(node, "lineno") else False:
            continue
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_the_library_imports_run_the_documented_way() -> None:
    modules = _modules("ttt_db")
    broken = []
    for name, path in modules.items():
        part = name.split(".")[1] if name.count(".") else None
        if part not in ALLOWED:
            continue
        for target in _imports(path, runtime_only=True):
            pieces = target.split(".")
            if pieces[0] in ("cli", "builder"):
                broken.append(f"{name} imports {target}")
            elif pieces[0] == "ttt_db" and len(pieces) > 1 and pieces[1] in PACKAGES and pieces[1] != part:
                broken += [] if pieces[1] in ALLOWED[part] else [f"{name} imports {target}"]
    assert not broken


def test_builder_never_imports_the_cli() -> None:
    for name, path in _modules("builder").items():
        assert not any(target.split(".")[0] == "cli" for target in _imports(path, runtime_only=False)), name


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            part = []
            while True:
                member = stack.pop()
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_another_that_imports_it_back() -> None:
    modules = {name: path for folder in ("ttt_db", "builder", "cli") for name, path in _modules(folder).items()}
    graph = {
        name: {target for target in _imports(path, runtime_only=False) if target in modules and target != name}
        - {name.rpartition(".")[0]}  # a module may read its own package's __init__
        for name, path in modules.items()
        if not name.endswith("__init__") and name not in ("ttt_db", "builder", "cli")
    }
    graph = {name: targets & set(graph) for name, targets in graph.items()}
    assert _cycles(graph) == []


def _is_sign_flip(node: ast.IfExp) -> bool:
    """`a if side == ... else -a`, `1 if ... else -1`: a score changing sides by hand."""

    def negated(one: ast.expr, other: ast.expr) -> bool:
        if isinstance(other, ast.UnaryOp) and isinstance(other.op, ast.USub):
            return ast.dump(other.operand) == ast.dump(one)
        return False

    return negated(node.body, node.orelse) or negated(node.orelse, node.body)


def test_a_score_changes_sides_only_in_the_rules() -> None:
    owner = ROOT / "ttt_db" / "game" / "rules.py"
    flips = []
    for folder in ("ttt_db", "builder", "cli"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == owner:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.IfExp) and _is_sign_flip(node):
                    flips.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert flips == []


def test_the_sign_flip_finder_finds_the_forms_it_is_for() -> None:
    forms = ['s if m == "o" else -s', '1 if m == "o" else -1', "-s if first != m else s"]
    plain = ["s if m else t", '-1 if m == "o" else 0']
    assert all(_is_sign_flip(ast.parse(text, mode="eval").body) for text in forms)  # type: ignore[arg-type]
    assert not any(_is_sign_flip(ast.parse(text, mode="eval").body) for text in plain)  # type: ignore[arg-type]


def test_every_documented_endpoint_is_in_the_route_table_and_every_route_documented(db) -> None:
    import re

    from starlette.routing import Route

    from cli.web.app import create_app

    documented = set(re.findall(r"^\| `(/api/[a-z/-]+)`", (ROOT / "docs" / "api.md").read_text(), re.M))
    routes = {route.path for route in create_app(db).routes if isinstance(route, Route)}
    assert "/api/position" in documented
    assert documented == {path for path in routes if path.startswith("/api/")}
