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


def private_module_visible(target: str, importer: str) -> bool:
    """A private module (``_name.py``) is an internal of its package: the package and the modules
    inside it (siblings and their sub-packages) may import it, nothing outside."""
    parts = target.split(".")
    k = next((i for i, part in enumerate(parts) if part.startswith("_")), None)
    if k is None:
        return True
    owner = ".".join(parts[:k])
    return importer == owner or importer.startswith(owner + ".")


def test_no_private_names_across_modules():
    """Private functions and classes (``_f``) stay in their module; private modules stay in their
    package."""
    bad = []
    for m, edges in EDGES.items():
        for target, name, line in edges:
            private_name = name is not None and name.startswith("_") and not name.startswith("__")
            if target != m and (private_name or not private_module_visible(target, m)):
                bad.append(f"{MODULES[m].relative_to(PACKAGE.parent)}:{line}: {target}.{name or ''}")
    assert not bad, "private names imported across modules (or private modules across packages):\n" + "\n".join(bad)


def test_private_modules_are_visible_only_inside_their_package():
    assert private_module_visible("symbolic_tf.numeric._jets", "symbolic_tf.numeric.reference")
    assert private_module_visible("symbolic_tf.numeric._jets", "symbolic_tf.numeric")
    assert private_module_visible("symbolic_tf.certify.search.validated._tube_ray",
                                  "symbolic_tf.certify.search.validated.flow")
    assert not private_module_visible("symbolic_tf.numeric._jets", "symbolic_tf.regimes.maps")
    assert not private_module_visible("symbolic_tf.certify.search.validated._tube_ray",
                                      "symbolic_tf.certify.search.routes")


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


# ------------------------------------------------------------------- the wall around the checker
# The checker kernel (symbolic_tf/certify/check/) may import only these rooms of the package; the
# closure is computed one level down: every module it reaches, transitively, lazy imports and
# importlib targets included (docs/architecture.md, "the checker kernel").
KERNEL = "symbolic_tf.certify.check"
KERNEL_ROOMS = ("symbolic_tf.exact", "symbolic_tf.spec", KERNEL)
# Importing a kernel module runs the __init__ of its parent packages: symbolic_tf (which imports
# symbolic_tf.version; its other names are PEP 562 lazy attributes, loaded only when an attribute
# of the package object is read, which the kernel never does) and symbolic_tf.certify (a docstring).
# They are read at module level only, and symbolic_tf.version is the one import they add.
DOORWAYS = ("symbolic_tf", "symbolic_tf.certify")
# symbolic_tf.atomic: file_sha256, to pin the checkpoint a head kind reads (a standard-library leaf).
ALSO_ALLOWED = ("symbolic_tf.version", "symbolic_tf.atomic")
FORBIDDEN_THIRD_PARTY = ("scipy", "cvxpy", "numba", "sympy")
UNRESOLVED = "<unresolved importlib call>"


def _kernel_allowed(module: str) -> bool:
    return module in DOORWAYS or module in ALSO_ALLOWED or any(
        module == r or module.startswith(r + ".") for r in KERNEL_ROOMS)


def _sources(root: Path, overrides: dict | None) -> dict[str, tuple[str, bool, str]]:
    """module → (source, is_package, display path) for the package at ``root``, with overrides
    (module → source; a new module name is added as a plain module)."""
    out = {}
    for p in root.rglob("*.py"):
        parts = list(p.relative_to(root.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (p.read_text(encoding="utf-8"), is_pkg, str(p.relative_to(root.parent)))
    for m, src in (overrides or {}).items():
        is_pkg = out[m][1] if m in out else False
        out[m] = (src, is_pkg, (out[m][2] if m in out else m.replace(".", "/") + ".py") + " (override)")
    return out


def _is_import_module(call: ast.Call) -> bool:
    f = call.func
    return ((isinstance(f, ast.Attribute) and f.attr == "import_module" and isinstance(f.value, ast.Name)
             and f.value.id == "importlib") or (isinstance(f, ast.Name) and f.id in ("import_module", "__import__")))


def _resolve_name(node, module: str, package: str, known: dict) -> tuple[str, bool] | None:
    """(name, every-module-under-it) of an import_module argument, or None when not resolvable:
    a literal, or an f-string of literals, ``__name__``, ``__package__``, ``<var>.__name__`` for a
    variable bound to a resolved import_module, and a last ``.{…}`` part meaning any module of that
    package (the ``pkgutil.iter_modules(pkg.__path__)`` pattern)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, False
    if not isinstance(node, ast.JoinedStr):
        return None
    text, values = "", node.values
    for k, part in enumerate(values):
        if isinstance(part, ast.Constant):
            text += part.value
            continue
        v = part.value
        if isinstance(v, ast.Name) and v.id in ("__name__", "__package__"):
            text += module if v.id == "__name__" else package
        elif (isinstance(v, ast.Attribute) and v.attr == "__name__" and isinstance(v.value, ast.Name)
              and v.value.id in known):
            text += known[v.value.id]
        elif k == len(values) - 1 and text.endswith("."):
            return text[:-1], True
        else:
            return None
    return text, False


def _absolute(name: str, package: str) -> str:
    if not name.startswith("."):
        return name
    level = len(name) - len(name.lstrip("."))
    base = package.split(".")[:len(package.split(".")) - (level - 1)]
    rest = name[level:]
    return ".".join(base + ([rest] if rest else []))


def _kernel_edges(module: str, source: str, is_pkg: bool, modules, doorway: bool):
    """(target, line) for every import of a module: package modules by name, third parties by
    their top-level name, :data:`UNRESOLVED` for an importlib call this test cannot read."""
    tree = ast.parse(source)
    package = module if is_pkg else module.rpartition(".")[0]
    # every node, lazy imports included; a doorway (see DOORWAYS) at module level only; never the
    # body of `if TYPE_CHECKING:` (annotations only, it does not run)
    stack, nodes = list(tree.body), []
    while stack:
        n = stack.pop()
        nodes.append(n)
        if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test):
            stack.extend(n.orelse)
        elif not (doorway and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))):
            stack.extend(ast.iter_child_nodes(n))

    def targets(name: str):
        if name.split(".")[0] != "symbolic_tf":
            yield name.split(".")[0]
            return
        parts = name.split(".")
        for k in range(1, len(parts) + 1):  # importing a.b.c runs a, a.b and a.b.c
            if ".".join(parts[:k]) in modules:
                yield ".".join(parts[:k])

    known: dict[str, str] = {}  # variable → module bound by `x = importlib.import_module(...)`
    for n in nodes:
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and _is_import_module(n.value):
            got = n.value.args and _resolve_name(n.value.args[0], module, package, known)
            if got and not got[1] and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                known[n.targets[0].id] = _absolute(got[0], package)
    for n in nodes:
        if isinstance(n, ast.Import):
            for alias in n.names:
                for t in targets(alias.name):
                    yield t, n.lineno
        elif isinstance(n, ast.ImportFrom):
            base = _absolute("." * n.level + (n.module or ""), package) if n.level else (n.module or "")
            yield from ((t, n.lineno) for t in targets(base))
            for alias in n.names:
                if f"{base}.{alias.name}" in modules:
                    yield f"{base}.{alias.name}", n.lineno
        elif isinstance(n, ast.Call) and _is_import_module(n):
            got = n.args and _resolve_name(n.args[0], module, package, known)
            if not got:
                yield UNRESOLVED, n.lineno
                continue
            if len(n.args) > 1 or n.keywords:  # import_module(".x", package=__package__)
                anchor = _resolve_name((n.args[1:] or [k.value for k in n.keywords])[0], module, package, known)
                if anchor is None:
                    yield UNRESOLVED, n.lineno
                    continue
                name = _absolute(got[0], anchor[0] if got[0].startswith(".") else "")
                if got[0].startswith("."):  # relative to the package named by the anchor
                    level = len(got[0]) - len(got[0].lstrip("."))
                    base = anchor[0].split(".")
                    name = ".".join(base[:len(base) - (level - 1)] + ([got[0][level:]] if got[0][level:] else []))
            else:
                name = _absolute(got[0], package)
            yield from ((t, n.lineno) for t in targets(name))
            if got[1]:  # every module under that package
                yield from ((m, n.lineno) for m in sorted(modules) if m.startswith(name + "."))


def kernel_closure(root: Path = PACKAGE, overrides: dict | None = None) -> tuple[list[str], list[str]]:
    """The import closure of the checker kernel and the edges that leave the wall.

    Parameters
    ----------
    root : Path
        The package directory (``symbolic_tf``).
    overrides : dict, optional
        module name → source replacing (or adding) that module, for planted imports.

    Returns
    -------
    tuple of (list of str, list of str)
        The package modules reached from the kernel (sorted), and the offending edges, each
        ``file:line: A imports B`` with the chain from a kernel module.
    """
    src = _sources(root, overrides)
    modules = set(src)
    start = sorted(m for m in modules if m == KERNEL or m.startswith(KERNEL + "."))
    parent = {m: None for m in start}
    queue, bad = list(start), []
    while queue:
        m = queue.pop(0)
        text, is_pkg, shown = src[m]
        for t, line in _kernel_edges(m, text, is_pkg, modules, m in DOORWAYS):
            offending = (t == UNRESOLVED or t in FORBIDDEN_THIRD_PARTY
                         or (t in modules and not _kernel_allowed(t)))
            if offending:
                chain, k = [m], m
                while parent[k] is not None:
                    k = parent[k]
                    chain.append(k)
                what = ("an importlib call this test cannot resolve (the kernel may not import what this "
                        "test cannot see)" if t == UNRESOLVED else t)
                bad.append(f"{shown}:{line}: {m} imports {what}  [chain: {' ← '.join(chain)}]")
            elif t in modules and t not in parent:
                parent[t] = m
                queue.append(t)
    return sorted(parent), bad


def kernel_lines(root: Path = PACKAGE) -> tuple[int, int]:
    """Lines of the kernel's import closure: (every module of it, the kernel's own modules).

    Parameters
    ----------
    root : Path
        The package directory.

    Returns
    -------
    tuple of int
        Source lines of all closure modules, and of those under symbolic_tf/certify/check/.
    """
    closure, _ = kernel_closure(root)
    src = _sources(root, None)
    lines = {m: src[m][0].count("\n") for m in closure}
    return sum(lines.values()), sum(n for m, n in lines.items() if m == KERNEL or m.startswith(KERNEL + "."))


def test_the_checker_kernel_imports_only_exact_spec_and_itself():
    _, bad = kernel_closure()
    assert not bad, "the checker kernel's import closure leaves its wall:\n" + "\n".join(bad)


PLANTS = {
    "lazy search import": (
        "symbolic_tf.certify.check.claims", "\n\ndef _planted():\n    from ..search import lmi\n    return lmi\n",
        "symbolic_tf.certify.search"),
    "importlib scipy": (
        "symbolic_tf.certify.check.claims", "\n\ndef _planted():\n    import importlib\n"
        "    return importlib.import_module(\"scipy.linalg\")\n", "imports scipy"),
    "sympy in a reached exact module": (
        "symbolic_tf.exact.rational", "\n\ndef _planted():\n    import sympy\n    return sympy\n", "imports sympy"),
    "unresolvable importlib": (
        "symbolic_tf.certify.check.claims", "\n\ndef _planted(name):\n    import importlib\n"
        "    return importlib.import_module(name)\n", "cannot resolve"),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_import_breaks_the_wall(plant):
    module, code, expected = PLANTS[plant]
    src = _sources(PACKAGE, None)
    _, before = kernel_closure()
    _, after = kernel_closure(overrides={module: src[module][0] + code})
    new = [b for b in after if b not in before]
    assert new and any(expected in b and "(override)" in b for b in new), new
    if plant == "sympy in a reached exact module":  # the chain names the kernel module that reaches it
        assert any(KERNEL in b.split("chain:")[1] for b in new)


def test_the_package_iteration_pattern_reaches_every_kind():
    closure, _ = kernel_closure()
    kinds = {m for m in MODULES if m.startswith(KERNEL + ".kinds.")}
    assert kinds and kinds <= set(closure)


_SIZE = re.compile(r"import\s+closure\s+is\s+about\s+\*\*([\d,]+)\s+lines\*\*.*?the\s+kernel\s+itself\s+"
                   r"\(certify/check/\)\s+about\s+\*\*([\d,]+)\s+lines\*\*", re.S)


def test_the_documented_kernel_size_is_within_ten_percent():
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    m = _SIZE.search(text)
    assert m, "docs/architecture.md must state the kernel's size (see _SIZE)"
    stated = [int(g.replace(",", "")) for g in m.groups()]
    actual = kernel_lines()
    for s, a, what in zip(stated, actual, ("the closure", "the kernel")):
        assert abs(s - a) <= a / 10, f"docs/architecture.md: {what} is {a} lines, the docs say {s}"
