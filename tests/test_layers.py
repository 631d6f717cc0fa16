"""The course's Python imports run one way: no import cycle, and no module that imports a layer above its own.

The graph is read with `ast` from the source files (nothing is imported), over korean_text/, kernels/, sims/,
course/, tools/ and any module at the top of the repository. What counts as an import of module M:
  * `import M`, `from M import name`, and `from P import M` where M is a submodule of package P;
  * relative imports (`from . import x`, `from ..p import y`), resolved against the importing file;
  * imports inside functions and classes: a lazy import defers the cycle to the first call, it does not
    remove it, so a cycle through one is still a cycle;
  * `importlib.import_module("M")` and `__import__("M")` with the name written out. A name built at run
    time (kernels.configs imports `kernels.{spec.dispatch}` this way) cannot be read and is not counted;
  * in a folder of scripts without __init__.py (tools/), a bare name of a sibling script
    (`from level7_forms import ...`, which works because the script puts its folder on sys.path).
An import names the deepest module of the dotted name that exists; the parent packages' __init__ files
also run, but each of those is checked on its own imports, and counting them at every submodule would
turn every package that re-exports its submodules into a cycle. Third-party and standard-library
modules are not part of the graph.

LAYERS lists the layers from the bottom up. A module belongs to the longest entry that is its name or a
package above it, and may import its own layer and those listed before it. Most entries are packages;
the few single modules listed apart are the leaves that lower layers share (the text-safety files of
course.instructor, the unlock codes course.settings checks, the figures' text that course.page writes)
and the two parts of kernels/ that read the syllabus (the doctor and the `python -m kernels` command).
"""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = ("korean_text", "kernels", "sims", "course", "tools")

# Bottom to top. Within a layer any order is allowed as long as it has no cycle.
LAYERS = (
    "korean_text",
    "kernels",                        # compiler <- sass <- configs <- loader <- launch ...: no cycle inside
    "sims",
    "course",                         # the package's own __init__ (and any course module not listed below)
    "course.instructor.safe_text",    # text-safety leaves: any course layer may use them
    "course.instructor.files",
    "course.instructor.problems",
    "course.site.figure_text",        # a figure's name, description and tables (course.page writes them)
    "course.syllabus",
    "course.toc",
    "course.quiz.unlock",             # the unlock codes' key check, which course.settings runs
    "course.settings",
    "kernels.doctor",                 # reads the syllabus's module numbers
    "kernels.__main__",               # `python -m kernels doctor` runs the doctor
    "course.page",
    "course.quiz",
    "course.notebook",
    "course.gating",
    "course.facts",
    "course.autograder",
    "course.notebook.exercise_magic",  # the JupyterLab magic wraps course.autograder.lab
    "course.instructor",
    "course.site",
    "course.__main__",
    "tools",
)


# ----------------------------------------------------------------------------- the graph

def find_modules(root: Path, sources=SOURCES) -> dict[str, Path]:
    """Every Python module under the source folders and at the top of `root`, by its dotted name."""
    found: dict[str, Path] = {}
    files = [p for top in sources if (root / top).is_dir() for p in (root / top).rglob("*.py")]
    files += [p for p in root.glob("*.py") if p.stem not in ("setup", "conftest")]
    for path in files:
        parts = path.relative_to(root).with_suffix("").parts
        if "__pycache__" in parts or any(part.startswith(".") for part in parts):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _dynamic_name(node: ast.Call) -> str | None:
    """The module of `importlib.import_module("x")` or `__import__("x")` when it is written out."""
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if called not in ("import_module", "__import__") or not node.args:
        return None
    first = node.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and not first.value.startswith("."):
        return first.value
    return None


def _import_nodes(tree: ast.Module, with_calls: bool):
    """The import statements at any depth (function and class bodies, branches, handlers), and the calls when
    the text names importlib.import_module or __import__. Only statements are walked otherwise: expressions
    hold most of a tree's nodes and no import statement."""
    if with_calls:
        yield from (n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom, ast.Call)))
        return
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            pending.extend(getattr(node, field, ()))


def import_graph(root: Path, sources=SOURCES) -> dict[str, set[str]]:
    """Module -> the modules of the graph it imports (see the module docstring for what counts)."""
    modules = find_modules(root, sources)

    def deepest(name: str) -> str | None:
        parts = name.split(".")
        for end in range(len(parts), 0, -1):
            candidate = ".".join(parts[:end])
            if candidate in modules:
                return candidate
        return None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        package = name if is_package else name.rpartition(".")[0]
        script_folder = not (path.parent / "__init__.py").exists()

        def absolute(target: str) -> str | None:
            found = deepest(target)
            if found is None and script_folder and package:   # a sibling script put on sys.path
                found = deepest(f"{package}.{target}")
            return found

        imported: set[str] = set()
        text = path.read_text(encoding="utf-8")
        for node in _import_nodes(ast.parse(text, filename=str(path)), "import_module" in text or "__import__" in text):
            if isinstance(node, ast.Import):
                imported.update(absolute(alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base_parts = package.split(".") if package else []
                    if node.level - 1 > len(base_parts):
                        continue
                    base_parts = base_parts[:len(base_parts) - (node.level - 1)]
                    base = ".".join(base_parts + ([node.module] if node.module else []))
                    resolve = deepest
                else:
                    base, resolve = node.module, absolute
                for alias in node.names:
                    submodule = f"{base}.{alias.name}" if base else alias.name
                    imported.add(submodule if submodule in modules else resolve(base) if base else None)
            elif isinstance(node, ast.Call) and (dynamic := _dynamic_name(node)):
                imported.add(absolute(dynamic))
        imported.discard(None)
        imported.discard(name)
        graph[name] = imported
    return graph


# ----------------------------------------------------------------------------- the checks

def cycle_groups(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of two or more modules: each member reaches every other one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(start: str) -> None:   # Tarjan's algorithm, iterative so that a long chain cannot overflow
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(groups)


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected group of modules, as a path that ends where it starts."""
    return [_cycle_path(graph, set(group), group[0]) for group in cycle_groups(graph)]


def _cycle_path(graph: dict[str, set[str]], group: set[str], start: str) -> list[str]:
    """The shortest path from `start` back to itself inside one strongly connected group."""
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & group):
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start] + path[::-1][1:] + [start] if len(path) > 1 else [start, start]
                if nxt not in previous:
                    previous[nxt] = node
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"{start} is in a strongly connected group but no path returns to it")


def layer_of(module: str, layers=LAYERS) -> int | None:
    """Index in `layers` of the longest entry that is the module or a package above it."""
    best, length = None, -1
    for i, entry in enumerate(layers):
        if (module == entry or module.startswith(entry + ".")) and len(entry) > length:
            best, length = i, len(entry)
    return best


def imports_up(graph: dict[str, set[str]], layers=LAYERS) -> list[str]:
    """Every import from a module to one in a layer above its own, as readable lines."""
    found = []
    for module in sorted(graph):
        own = layer_of(module, layers)
        for target in sorted(graph[module]):
            theirs = layer_of(target, layers)
            if own is not None and theirs is not None and theirs > own:
                found.append(f"{module} (layer {layers[own]}) imports {target} (layer {layers[theirs]}, higher)")
    return found


def unplaced(graph: dict[str, set[str]], layers=LAYERS) -> list[str]:
    return sorted(m for m in graph if layer_of(m, layers) is None)


# ----------------------------------------------------------------------------- the repository

_GRAPH: dict[str, set[str]] = {}


def repository_graph() -> dict[str, set[str]]:
    if not _GRAPH:
        _GRAPH.update(import_graph(REPO))
    return _GRAPH


def test_the_graph_is_read_from_every_source_folder():
    graph = repository_graph()
    for module in ("kernels.compiler", "kernels.loader", "sims.roofline", "course.syllabus", "korean_text"):
        assert module in graph
    # the three kinds of import the docstring promises to count, on modules whose imports are known
    assert "kernels.compiler" in graph["kernels.sass"]           # from kernels import compiler
    assert "kernels.configs" in graph["kernels.loader"]
    assert "kernels.doctor" in graph["kernels.__main__"]        # __import__("kernels.doctor", ...)
    assert "kernels.loader" not in graph["kernels.compiler"]


def test_the_course_code_has_no_import_cycle():
    graph = repository_graph()
    lines = []
    for group in cycle_groups(graph):
        path = _cycle_path(graph, set(group), group[0])
        others = sorted(set(group) - set(path))
        lines.append(" -> ".join(path) + (f"   (also in this cycle: {', '.join(others)})" if others else ""))
    assert not lines, "import cycles (each path returns to its start):\n" + "\n".join(lines)


def test_no_module_imports_a_layer_above_its_own():
    found = imports_up(repository_graph())
    assert not found, "imports that run up the layer order (tests/test_layers.py LAYERS):\n" + "\n".join(found)


def test_every_module_has_a_layer():
    assert not unplaced(repository_graph()), "modules in no layer of LAYERS: " + ", ".join(unplaced(repository_graph()))


# ----------------------------------------------------------------------------- the checker itself

def _package(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_the_checker_finds_a_planted_cycle_through_a_lazy_relative_import(tmp_path):
    root = _package(tmp_path, {
        "low/__init__.py": "",
        "low/a.py": "from low import b\n",                       # a submodule by `from package import`
        "low/b.py": "import os\n\ndef later():\n    from . import c\n",   # relative, inside a function
        "low/c.py": "import low.a as first\n",
        "low/d.py": "from low.a import something\n",             # imports into the cycle, not part of it
    })
    graph = import_graph(root, ("low",))
    assert graph["low.b"] == {"low.c"}                           # os is not part of the graph
    assert find_cycles(graph) == [["low.a", "low.b", "low.c", "low.a"]]


def test_the_checker_finds_a_cycle_of_two_through_importlib(tmp_path):
    root = _package(tmp_path, {
        "low/__init__.py": "",
        "low/a.py": "import importlib\n\ndef f():\n    return importlib.import_module('low.b')\n",
        "low/b.py": "from low.a import f\n",
    })
    assert find_cycles(import_graph(root, ("low",))) == [["low.a", "low.b", "low.a"]]


def test_the_checker_finds_a_planted_import_up_the_layers(tmp_path):
    root = _package(tmp_path, {
        "low/__init__.py": "",
        "low/m.py": "def late():\n    from high import shown\n",   # lazy, and still counted
        "high/__init__.py": "shown = 1\n",
        "high/user.py": "from low import m\n",
    })
    graph = import_graph(root, ("low", "high"))
    assert find_cycles(graph) == []                              # no cycle: only the layer order breaks
    assert imports_up(graph, ("low", "high")) == ["low.m (layer low) imports high (layer high, higher)"]
    assert imports_up(graph, ("high", "low")) == ["high.user (layer high) imports low.m (layer low, higher)"]
    assert imports_up({"low.m": set(), **{k: v for k, v in graph.items() if k != "low.m"}}, ("low", "high")) == []


def test_a_single_module_listed_apart_takes_its_own_layer(tmp_path):
    root = _package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/leaf.py": "",
        "pkg/top.py": "from pkg import leaf\n",
        "base/__init__.py": "from pkg import leaf\n",
    })
    graph = import_graph(root, ("pkg", "base"))
    assert imports_up(graph, ("base", "pkg")) == ["base (layer base) imports pkg.leaf (layer pkg, higher)"]
    assert imports_up(graph, ("pkg.leaf", "base", "pkg")) == []
    assert unplaced(graph, ("pkg",)) == ["base"]


def test_scripts_import_their_siblings_by_bare_name(tmp_path):
    root = _package(tmp_path, {
        "scripts/one.py": "from two import helper\n",
        "scripts/two.py": "import one\n",
    })
    assert find_cycles(import_graph(root, ("scripts",))) == [["scripts.one", "scripts.two", "scripts.one"]]
