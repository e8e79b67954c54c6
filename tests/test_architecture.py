"""docs/architecture.md held to the code where a test can: which way imports run, no import cycle,
and a score changing sides in one place only."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("game", "ranked", "position", "store", "outputs", "search", "ais", "checks", "play")
# what each part of the library may import (docs/architecture.md, "Which way imports run");
# search reads the store for type hints only
ALLOWED = {
    "game": set(),
    "ranked": {"game"},
    "position": {"game"},
    "store": {"game", "ranked", "position"},
    "outputs": {"game", "ranked", "position", "store"},
    "search": {"game", "ranked", "position"},
    "ais": {"game", "ranked", "search", "store"},
    "checks": {"ais", "game", "ranked", "position", "store", "play"},
    "play": {"ais", "game", "position", "store"},
}
EDGES = ("ttt_db.build", "ttt_db.cli", "ttt_db.web")
"""The parts outside the library, each installed under ttt_db from a source folder of its own."""


def _sources() -> dict[str, Path]:
    """Each installed package's source folder: pyproject's package-dir, ttt_db in its own."""
    with open(ROOT / "pyproject.toml", "rb") as stream:
        mapped = tomllib.load(stream)["tool"]["setuptools"]["package-dir"]
    return {"ttt_db": ROOT / "ttt_db"} | {name: ROOT / folder for name, folder in mapped.items()}


def _modules(package: str = "") -> dict[str, Path]:
    """Every module by its installed name (those under `package`, all by default)."""
    sources = _sources()
    found = {}
    for name, folder in sources.items():
        for path in sorted(folder.rglob("*.py")):  # the library's own subpackages too (ttt_db.game, ...)
            parts = path.relative_to(folder).with_suffix("").parts
            if _deepest_source(path, sources) != folder or not all(
                (folder.joinpath(*parts[:i]) / "__init__.py").is_file() for i in range(len(parts))
            ):
                continue
            inner = ".".join(part for part in parts if part != "__init__")
            found[f"{name}.{inner}" if inner else name] = path
    if not package:
        return found
    return {name: path for name, path in found.items() if name == package or name.startswith(f"{package}.")}


def _deepest_source(path: Path, sources: dict[str, Path]) -> Path:
    """The source folder a file belongs to: the deepest one holding it (cli/web is ttt_db.web's)."""
    return max((folder for folder in sources.values() if path.is_relative_to(folder)), key=lambda f: len(f.parts))


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
    broken = []
    for name, path in _modules("ttt_db").items():
        part = name.split(".")[1] if name.count(".") else None
        if part not in ALLOWED:
            continue
        for target in _imports(path, runtime_only=True):
            pieces = target.split(".")
            if pieces[0] in ("cli", "builder") or target.startswith(EDGES):
                broken.append(f"{name} imports {target}")
            elif target == "ttt_db":  # the root imports every layer: an arrow back up (issue 57)
                broken.append(f"{name} imports from the package root")
            elif pieces[0] == "ttt_db" and len(pieces) > 1 and pieces[1] in PACKAGES and pieces[1] != part:
                broken += [] if pieces[1] in ALLOWED[part] else [f"{name} imports {target}"]
    assert not broken


def test_the_build_never_imports_the_command_line_or_the_page_and_nothing_the_source_folders() -> None:
    for name, path in _modules().items():
        imported = _imports(path, runtime_only=False)
        assert not any(target.split(".")[0] in ("cli", "builder") for target in imported), name
        if name.startswith("ttt_db.build"):
            assert not any(target.startswith(("ttt_db.cli", "ttt_db.web")) for target in imported), name


def test_every_source_file_is_a_module_of_an_installed_package() -> None:
    """Nothing in builder/ or cli/ escapes the package-dir mapping (it would not be installed)."""
    files = {path for folder in ("ttt_db", "builder", "cli") for path in (ROOT / folder).rglob("*.py")}
    assert files == set(_modules().values())


def test_every_package_is_listed_for_the_sdist_and_the_wheel() -> None:
    """pyproject's packages list every package a source folder holds: one left out installs from an
    editable checkout and is missing from the sdist and the wheel."""
    with open(ROOT / "pyproject.toml", "rb") as stream:
        listed = set(tomllib.load(stream)["tool"]["setuptools"]["packages"])
    mapped = {folder: name for name, folder in _sources().items()}  # a folder installed under its own name
    packages = {mapped.get(path.parent, name) for name, path in _modules().items() if path.name == "__init__.py"}
    assert packages - listed == set()


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
    modules = _modules()
    packages = {name for name, path in modules.items() if path.stem == "__init__"}
    graph = {
        name: {target for target in _imports(path, runtime_only=False) if target in modules and target != name}
        - {name.rpartition(".")[0]}  # a module may read its own package's __init__
        for name, path in modules.items()
        if name not in packages
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
    for path in _modules().values():
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

    from ttt_db.web.app import create_app

    documented = set(re.findall(r"^\| `(/api/[a-z/-]+)`", (ROOT / "docs" / "api.md").read_text(), re.M))
    routes = {route.path for route in create_app(db).routes if isinstance(route, Route)}
    assert "/api/position" in documented
    assert documented == {path for path in routes if path.startswith("/api/")}


def _documented_tree() -> set[str]:
    """The paths docs/architecture.md's tree names (folders end in /), by their indentation."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("```\n", 2)[1]
    paths: set[str] = set()
    stack: list[str] = []
    for line in block.splitlines():
        head = line[:22].rstrip()
        if not head.strip():
            continue  # a description's second line
        depth = (len(head) - len(head.lstrip())) // 2
        stack = [*stack[:depth], head.strip()]
        paths.add("".join(stack))
    return paths


def test_the_documented_tree_is_the_code() -> None:
    """Every module and folder of the library, the build and the command line, and nothing else."""
    actual = set()
    for folder in ("ttt_db", "builder", "cli"):
        for path in (ROOT / folder).rglob("*"):
            relative = path.relative_to(ROOT).as_posix()
            if "__pycache__" in relative or "/static/" in relative or path.name in ("__init__.py", "__main__.py"):
                continue
            actual.add(relative + "/" if path.is_dir() else relative)
        actual.add(folder + "/")
    documented = {path for path in _documented_tree() if path.startswith(("ttt_db/", "builder/", "cli/"))}
    assert documented == actual


def _kernel_doors(path: Path) -> list[str]:
    """Where a module reaches past ranked/'s faces: a kernel called through a backend's `run`, or a
    scratch size (or anything but the `Ints` type) imported from the kernel source."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr == "run" and isinstance(node.value, ast.Attribute | ast.Name):
            owner = node.value.attr if isinstance(node.value, ast.Attribute) else node.value.id
            if owner in ("tables", "backend") or owner.endswith("tables"):
                found.append(f"{path.name}:{node.lineno} {owner}.run")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ttt_db.ranked.kernels"):
            found += [f"{path.name}:{node.lineno} {alias.name}" for alias in node.names if alias.name != "Ints"]
    return found


def test_no_module_outside_ranked_calls_a_kernel_or_takes_its_scratch() -> None:
    """Issue 57: the kernels are reached through ranked/'s typed faces only (the step, the walker,
    blocks, marks, playouts, policy, family, lines), each allocating its own scratch."""
    outside = {name: path for name, path in _modules().items() if not name.startswith("ttt_db.ranked")}
    assert [door for path in outside.values() for door in _kernel_doors(path)] == []
    inside = _kernel_doors(_modules("ttt_db.ranked")["ttt_db.ranked.blocks"])
    assert inside, "the finder finds the doors it is for (blocks.py calls kernels through tables.run)"


def test_each_command_module_holds_the_commands_the_tree_says() -> None:
    """docs/architecture.md's cli/ lines name each module's commands: held to where each
    registered command's function is defined."""
    import typer.main

    from ttt_db.cli.app import app

    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    found: dict[str, set[str]] = {}
    for name, command in commands.items():
        module = command.callback.__module__.rsplit(".", 1)[-1]
        found.setdefault(module, set()).add(name)
    text = (ROOT / "docs" / "architecture.md").read_text()
    cli_tree = text[text.index("\ncli/") : text.index("\n  web/")]
    documented = {}
    for line in cli_tree.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and parts[0].endswith(".py") and parts[0].removesuffix(".py") in found:
            documented[parts[0].removesuffix(".py")] = {word.strip(",") for word in parts[1].split()}
    assert documented == found
