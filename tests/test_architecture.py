"""The shape of the house (docs/architecture.md): layers import only layers above them, no
import circles, no private names across modules, every public function documented (numpydoc
Parameters / Returns).  Read from the source with ``ast``; lazy (in-function) imports count."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "symbolic_tf"

#: rooms from the most basic down to the faces; a room imports only rooms on earlier lines
LAYERS = [
    ("exact", "version"),  # the exact core and the version: they import nothing of the package
    ("atomic", "display"),  # leaf helpers every layer may use (file writes, progress, printing)
    ("spec",),
    ("variants",),
    ("symbolic",),
    ("numeric",),
    ("certify",),
    ("regimes",),
    ("plots",),  # draws what the faces pass it; imports none of them
    ("conjectures", "control"),
    ("models",),
    ("reproduce",),
    ("report", "api"),
    ("cli",),
    ("",),  # the package root: symbolic_tf/__init__.py (the lazy top-level API)
]
LAYER = {room: k for k, rooms in enumerate(LAYERS) for room in rooms}


def _modules() -> dict[str, Path]:
    out = {}
    for p in PACKAGE.rglob("*.py"):
        parts = list(p.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _imports(name: str, path: Path):
    """(target module, imported name or None, line) for every import of the package in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                if not is_pkg:
                    base = base[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "symbolic_tf":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in MODULES:
                    yield sub, None, node.lineno
                else:
                    yield target, alias.name, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "symbolic_tf":
                    yield alias.name, None, node.lineno


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


EDGES = {m: list(_imports(m, p)) for m, p in MODULES.items()}


def test_every_room_has_a_layer():
    rooms = {_room(m) for m in MODULES}
    assert rooms <= set(LAYER), f"add these rooms to LAYERS (and docs/architecture.md): {sorted(rooms - set(LAYER))}"


def test_no_upward_imports():
    bad = []
    for m, edges in EDGES.items():
        for target, _, line in edges:
            a, b = _room(m), _room(target)
            if a != b and LAYER[b] >= LAYER[a]:
                bad.append(f"{MODULES[m].relative_to(PACKAGE.parent)}:{line}: {a or 'symbolic_tf'} imports "
                           f"{b or 'symbolic_tf'} ({target})")
    assert not bad, "upward or sideways imports:\n" + "\n".join(bad)


def test_no_private_names_across_modules():
    bad = []
    for m, edges in EDGES.items():
        for target, name, line in edges:
            private_module = any(part.startswith("_") for part in target.split("."))
            private_name = name is not None and name.startswith("_") and not name.startswith("__")
            if target != m and (private_module or private_name):
                bad.append(f"{MODULES[m].relative_to(PACKAGE.parent)}:{line}: {target}.{name or ''}")
    assert not bad, "private names imported across modules:\n" + "\n".join(bad)


def _cycles() -> list[list[str]]:
    graph = {m: sorted({t for t, _, _ in edges if t in MODULES and t != m}) for m, edges in EDGES.items()}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):  # Tarjan's strongly connected components, iteratively deep enough for this graph
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    cycles = _cycles()
    assert not cycles, "import circles (lazy imports count):\n" + "\n".join(" ↔ ".join(c) for c in cycles)


# ------------------------------------------------------------------------------------ numpydoc
_SECTION = {s: re.compile(r"^\s*" + s + r"\s*\n\s*-{3,}\s*$", re.M) for s in ("Parameters", "Returns", "Yields")}


def _own(fn, kinds) -> bool:
    stack = list(fn.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(n, kinds) and not (isinstance(n, ast.Return) and (
                n.value is None or isinstance(n.value, ast.Constant) and n.value.value is None)):
            return True
        stack.extend(ast.iter_child_nodes(n))
    return False


def _doc_problems(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def check(fn, owner=""):
        where = f"{path.relative_to(PACKAGE.parent)}:{fn.lineno}: {owner}{fn.name}"
        doc = ast.get_docstring(fn)
        if not doc:
            yield f"{where}: no docstring"
            return
        decorators = [ast.unparse(d) for d in fn.decorator_list]
        if "property" in decorators or "overload" in decorators or any(d.endswith(".setter") for d in decorators):
            return
        a = fn.args
        params = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs if x.arg not in ("self", "cls")]
        params += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
        if params and not _SECTION["Parameters"].search(doc):
            yield f"{where}: no Parameters section"
        if _own(fn, (ast.Yield, ast.YieldFrom)):
            if not (_SECTION["Yields"].search(doc) or _SECTION["Returns"].search(doc)):
                yield f"{where}: no Yields section"
        elif _own(fn, (ast.Return,)) and not _SECTION["Returns"].search(doc):
            yield f"{where}: no Returns section"

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            yield from check(node)
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for m in node.body:
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and not m.name.startswith("_"):
                    yield from check(m, node.name + ".")


PUBLIC_FILES = sorted(p for p in PACKAGE.rglob("*.py")
                      if not any(part.startswith("_") and part != "__init__.py" for part in p.relative_to(PACKAGE).parts))


@pytest.mark.parametrize("path", PUBLIC_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_public_functions_have_numpydoc(path):
    problems = list(_doc_problems(path))
    assert not problems, "\n".join(problems)
