"""The package's shape: no import cycles, a docstring on every package, few top-level modules, no back-edges.

Imports are read from the source with ``ast`` (top-level and function-level
alike: a lazy import is still a dependency). ``from a.b import c`` depends on
the module ``a.b.c`` when there is one, else on ``a.b``; a parent package
being initialized first is not counted as a dependency.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import council

PACKAGE = Path(council.__file__).parent


def module_files() -> dict[str, Path]:
    files = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(parts)] = path
    return files


def import_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    def known(name: str) -> str:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                deps |= {known(alias.name) for alias in node.names if alias.name.startswith("council")}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("council"):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    deps.add(full if full in files else known(node.module))
        deps.discard(module)
        graph[module] = {dep for dep in deps if dep}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path that returns to its start, or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return [*path[path.index(dep):], dep]
            if dep not in state and (found := visit(dep)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_no_import_cycles():
    cycle = find_cycle(import_graph(module_files()))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_lazy_and_package_imports_are_dependencies(tmp_path):
    graph = import_graph(module_files())
    assert "council.pipeline.orchestrator" in graph["council.pipeline"], "a package depends on what it re-exports"
    assert "council.rubrics.functions" in graph["council.rubrics.score"]


@pytest.mark.parametrize("package", sorted(p.parent.name for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE))
def test_every_package_says_what_it_is_for(package):
    init = next(p for p in PACKAGE.rglob("__init__.py") if p.parent.name == package)
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert doc and len(doc.split()) >= 12, f"council/{package}/__init__.py needs a docstring saying its job"
    assert re.search(r"^(Public|Internal):", doc, flags=re.MULTILINE), f"council/{package}: public or internal?"


def test_few_top_level_modules():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 15, top


# The layers, lowest first: a module may import its own layer or lower ones, never a higher one.
LAYERS = [
    {"council._version", "council.errors", "council.types", "council.logs", "council.assets", "council.strict_json",
     "council.text", "council.config_errors", "council.config", "council.events", "council.presets",
     "council.side_tasks"},
    {"council.transport", "council.safety", "council.ranking"},
    {"council.providers", "council.rubrics", "council.records", "council.result"},
    {"council.review", "council.storage"},
    {"council.simulation"},
    {"council.pipeline"},
    {"council.evals", "council.server", "council.web", "council.mcp_server"},
    {"council.cli"},
    {"council", "council.__main__", "council.testing"},
]


# Known exceptions, each with its reason.
UPWARD_ALLOWED: set[tuple[str, str]] = set()


def layer_of(module: str) -> int:
    for depth, layer in enumerate(LAYERS):
        if any(module == unit or module.startswith(unit + ".") for unit in layer if unit != "council"):
            return depth
    assert module in ("council", "council.__main__"), f"{module} is in no layer: add it to LAYERS"
    return len(LAYERS) - 1


def test_imports_only_run_downwards():
    upward = []
    for module, deps in import_graph(module_files()).items():
        for dep in deps:
            if layer_of(dep) > layer_of(module) and (module, dep) not in UPWARD_ALLOWED:
                upward.append(f"{module} -> {dep}")
    assert not upward, "imports that run back up the layers:\n" + "\n".join(sorted(upward))


def names_like_a_package(root: Path) -> list[str]:
    """Modules under ``root`` whose name reads as one of its packages: ``x.py`` (or ``x`` for ``xs/``) beside a
    package ``x``, or ``x_y.py`` while package ``x`` holds ``y.py`` (``pipeline/safety_gate.py`` and
    ``safety/gate.py``)."""
    packages = {p.parent.name for p in root.rglob("__init__.py") if p.parent != root}
    modules = [p for p in root.rglob("*.py") if p.stem != "__init__" and "__pycache__" not in p.parts]
    spelled = {name: f"package {name}/" for name in packages}
    spelled |= {name.removesuffix("s"): f"package {name}/" for name in packages if name.endswith("s")}
    spelled |= {f"{m.parent.name}_{m.stem}": f"{m.parent.name}/{m.name}" for m in modules if m.parent.name in packages}
    return sorted(f"{m.relative_to(root)} reads as {spelled[m.stem]}" for m in modules
                  if m.stem in spelled and spelled[m.stem] != f"{m.parent.name}/{m.name}")


def test_no_module_is_named_like_a_package():
    assert names_like_a_package(PACKAGE) == []


def test_the_name_check_finds_each_kind_of_clash(tmp_path):
    for path in ["pkg/__init__.py", "pkg/review.py", "pkg/rubric.py", "pkg/safety_gate.py", "pkg/fine.py",
                 "review/__init__.py", "rubrics/__init__.py", "safety/__init__.py", "safety/gate.py"]:
        (tmp_path / path).parent.mkdir(exist_ok=True)
        (tmp_path / path).write_text('"""A module."""\n', encoding="utf-8")
    assert names_like_a_package(tmp_path) == [
        "pkg/review.py reads as package review/", "pkg/rubric.py reads as package rubrics/",
        "pkg/safety_gate.py reads as safety/gate.py"]


def exception_classes() -> list[type[BaseException]]:
    found = {}
    for info in pkgutil.walk_packages(council.__path__, "council."):
        if not info.name.endswith("__main__"):
            for value in vars(importlib.import_module(info.name)).values():
                if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == info.name:
                    found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[name] for name in sorted(found)]


def test_every_exception_name_ends_in_error():
    classes = exception_classes()
    assert len(classes) > 20, "the walk finds Council's exceptions"
    misnamed = [f"{c.__module__}.{c.__qualname__}" for c in classes
                if not c.__name__.endswith("Error") and not c.__name__.startswith("_")]
    assert misnamed == []


# The faces (the command line, the HTTP server, the MCP server) talk to ``Council`` and to other packages' front
# doors, never to the parts behind them: a face that imports a store or a provider pins that part's shape, and a
# change inside the pipeline then breaks a screen.
FACES = {"cli", "server", "mcp_server"}
# Top-level modules a face may import: the vocabulary every layer shares.
SHARED_MODULES = {"errors", "result", "events", "types", "logs", "text", "side_tasks", "presets", "records",
                  "_version", "assets", "strict_json", "config_errors"}
# Packages no face may import at all, not even through their front doors: what a face needs of them it gets
# through ``Council`` and the pipeline's facades (council.pipeline.archive and .members).
SEALED = {"storage", "providers", "transport"}
# The other faces whose front doors a face may import.
FACE_DOORS = {"cli": {"server", "mcp_server"}, "mcp_server": {"server"}, "server": set()}


def front_door(init: Path) -> set[str]:
    """The names in a package's ``__all__``, read from its ``__init__.py`` without importing it."""
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def imported(path: Path, root: Path) -> list[tuple[str, str | None]]:
    """(module, name) for each import in ``path`` (name None for ``import module``), relative ones resolved."""
    here = path.relative_to(root.parent).with_suffix("").parts
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join([*here[:len(here) - node.level], *([node.module] if node.module else [])]) \
                if node.level else node.module or ""
            found += [(base, alias.name) for alias in node.names]
    return found


def face_import_problem(root: Path, face: str, module: str, name: str | None) -> str | None:
    """What is wrong with a module of the face ``face`` importing ``name`` from ``module`` (None: nothing)."""
    top, _, rest = module.partition(".")
    if top != root.name:
        return None
    if not rest:  # ``from council import storage`` imports council.storage; any other name, the top layer
        if name is not None and ((root / name / "__init__.py").exists() or (root / f"{name}.py").exists()):
            return face_import_problem(root, face, f"{top}.{name}", None)
        return f"{module}.{name or ''}".rstrip(".") + f" (the package {top} itself, the top of the layers)"
    unit, _, inner = rest.partition(".")
    shown = module + (f".{name}" if name else "")
    if unit == face:
        return None
    if unit in SEALED:
        return f"{shown} ({top}.{unit} is reached through Council, never imported by a face)"
    if not (root / unit / "__init__.py").exists():
        return None if unit in SHARED_MODULES else f"{shown} (not a top-level module the faces share)"
    if unit in FACES and unit not in FACE_DOORS[face]:
        return f"{shown} (the face {top}.{unit})"
    if inner:
        return f"{shown} (inside {top}.{unit}: import from its front door)"
    if name is not None and name not in front_door(root / unit / "__init__.py"):
        return f"{shown} (not in {top}.{unit}.__all__)"
    return None


def face_import_problems(root: Path) -> list[str]:
    """Imports in the faces of the package at ``root`` that reach past a front door, as ``file: what (why)``.

    A face may import its own modules, the shared top-level modules, and the
    names in another package's ``__all__`` (of another face, only those
    ``FACE_DOORS`` allows); never a module inside another package, nor
    anything of a package in ``SEALED``. Lazy and ``TYPE_CHECKING`` imports
    count like the others.
    """
    problems = []
    for face in sorted(FACES):
        for path in sorted((root / face).rglob("*.py")):
            for module, name in imported(path, root):
                if (problem := face_import_problem(root, face, module, name)) is not None:
                    problems.append(f"{path.relative_to(root.parent).as_posix()}: {problem}")
    return problems


def test_faces_import_only_front_doors():
    problems = face_import_problems(PACKAGE)
    assert not problems, "faces reaching past a front door:\n" + "\n".join(problems)


def test_the_face_check_finds_each_kind_of_reach(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/errors.py": "",
        "pkg/secret.py": "",
        "pkg/pipeline/__init__.py": "from pkg.pipeline.engine import Engine\n__all__ = ['Engine']\n",
        "pkg/pipeline/engine.py": "Engine = Gear = object\n",
        "pkg/storage/__init__.py": "from pkg.storage.store import Store\n__all__ = ['Store']\n",
        "pkg/storage/store.py": "Store = object\n",
        "pkg/server/__init__.py": "__all__ = ['serve']\nserve = None\n",
        "pkg/server/inner.py": "",
        "pkg/mcp_server/__init__.py": "",
        "pkg/cli/__init__.py": "",
        "pkg/cli/fine.py": (
            "from typing import TYPE_CHECKING\n"
            "import os\n"
            "from pkg.errors import Oops\n"                 # a shared top-level module
            "from pkg.pipeline import Engine\n"             # a name in a front door
            "from pkg.server import serve\n"                # another face's front door, allowed to the cli
            "from pkg.cli.other import thing\n"             # its own package
            "from . import other\n"
            "if TYPE_CHECKING:\n"
            "    from pkg.pipeline import Engine as E\n"
        ),
        "pkg/cli/bad.py": (
            "from typing import TYPE_CHECKING\n"
            "from pkg.pipeline.engine import Engine\n"      # inside a package
            "from pkg.pipeline import Gear\n"               # not in the front door's __all__
            "import pkg.storage\n"                          # a sealed package, even its front door
            "from pkg import storage\n"                     # the same, spelled another way
            "from pkg.secret import key\n"                  # a top-level module the faces do not share
            "from pkg import Council\n"                     # the top package itself
            "from ..server.inner import x\n"                # inside another face, relatively
            "def lazy():\n"
            "    from pkg.storage.store import Store\n"     # lazily
            "if TYPE_CHECKING:\n"
            "    from pkg.pipeline.engine import Gear\n"    # for the type checker only
        ),
        "pkg/server/reach.py": "from pkg.cli import fine\nfrom pkg.mcp_server import tool\n",  # faces it may not
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    assert face_import_problems(tmp_path / "pkg") == [
        "pkg/cli/bad.py: pkg.pipeline.engine.Engine (inside pkg.pipeline: import from its front door)",
        "pkg/cli/bad.py: pkg.pipeline.Gear (not in pkg.pipeline.__all__)",
        "pkg/cli/bad.py: pkg.storage (pkg.storage is reached through Council, never imported by a face)",
        "pkg/cli/bad.py: pkg.storage (pkg.storage is reached through Council, never imported by a face)",
        "pkg/cli/bad.py: pkg.secret.key (not a top-level module the faces share)",
        "pkg/cli/bad.py: pkg.Council (the package pkg itself, the top of the layers)",
        "pkg/cli/bad.py: pkg.server.inner.x (inside pkg.server: import from its front door)",
        "pkg/cli/bad.py: pkg.storage.store.Store (pkg.storage is reached through Council, never imported by a face)",
        "pkg/cli/bad.py: pkg.pipeline.engine.Gear (inside pkg.pipeline: import from its front door)",
        "pkg/server/reach.py: pkg.cli.fine (the face pkg.cli)",
        "pkg/server/reach.py: pkg.mcp_server.tool (the face pkg.mcp_server)",
    ]
