"""The package's layers, and the one adoption of arrays of models.

LAYERS lists the modules of the strata package from the bottom up. A module
imports only modules below it, wherever the import stands (at the top or in a
function), so no import cycle can form and none can hide in a function; only
under ``if TYPE_CHECKING:`` (annotations, never run) may it name a module
above. No module imports another's private (``_underscore``) name. Each
module also imports alone, in a fresh interpreter, as the first module of the
package.

Then _handles.adopt_array, through which every C array of ``strata_model_t *``
becomes Python objects: when wrapping fails half way, the handles not yet
adopted are released, each once, and the array is freed.
"""

from __future__ import annotations

import ast
import ctypes
import gc
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

import strata
from strata import _graph, _handles, _native, _schema
from strata._model import Model, model_adopter

PACKAGE_DIR = Path(strata.__file__).resolve().parent

#: The modules of strata, bottom first: each may import only those before it.
LAYERS = (
    "_version",  # the version, written by the wheel's build (absent in a checkout)
    "_native",  # the library and the ctypes declarations of every C function
    "_errors",  # the exceptions
    "_handles",  # JSON in and out, error lists, adopting arrays of models
    "_transformers",  # host callables on a schema builder
    "_pickling",  # a Schema's pickle: references to callables, the cache
    "_model",  # Model
    "_response",  # Response, a response's root and meta options
    "_lines",  # JSON lines: a source's chunks and their models
    "_http",  # fetching pages: the request, the clients over urllib, requests, httpx
    "_graph",  # Context, Record, ImportResult
    "_schema",  # Schema, compare
    "typed",  # the runtime of generated typed classes
    "codegen",  # strata.codegen.python
    "__init__",  # the public names
)

MODULES = [name for name in LAYERS if (PACKAGE_DIR / f"{name}.py").is_file()]


def test_the_layers_name_every_module() -> None:
    files = {path.stem for path in PACKAGE_DIR.glob("*.py")}
    assert files == set(MODULES), f"add new modules to LAYERS: {sorted(files - set(LAYERS))}"


def _imports(tree: ast.Module) -> Iterator[Tuple[ast.stmt, bool]]:
    """Every import statement of a module, and whether it stands under ``if TYPE_CHECKING:``."""

    def visit(node: ast.AST, typing_only: bool) -> Iterator[Tuple[ast.stmt, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, typing_only
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for statement in child.body:
                    yield from visit(ast.Module(body=[statement], type_ignores=[]), True)
                for statement in child.orelse:
                    yield from visit(ast.Module(body=[statement], type_ignores=[]), typing_only)
            else:
                yield from visit(child, typing_only)

    yield from visit(tree, False)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _siblings(node: ast.stmt) -> List[Tuple[str, List[str]]]:
    """The package's modules an import statement loads, each with the names it takes from it."""
    found: List[Tuple[str, List[str]]] = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] == "strata":
                found.append((parts[1] if len(parts) > 1 else "__init__", []))
        return found
    assert isinstance(node, ast.ImportFrom)
    module = node.module or ""
    if node.level == 0 and module.split(".")[0] != "strata":
        return found  # the standard library or a third-party package
    if node.level > 1:
        pytest.fail(f"an import leaves the package: {ast.unparse(node)}")
    parts = module.split(".")[1:] if node.level == 0 else module.split(".") if module else []
    if parts:
        found.append((parts[0], [alias.name for alias in node.names]))
    else:  # from . import _native: each name is a module (or __init__'s)
        for alias in node.names:
            name = alias.name
            found.append((name, []) if name in LAYERS else ("__init__", [name]))
    return found


def _module_imports(name: str) -> List[Tuple[str, List[str], bool, int]]:
    source = (PACKAGE_DIR / f"{name}.py").read_text(encoding="utf-8")
    tree = ast.parse(source, filename=f"strata/{name}.py")
    return [
        (target, names, typing_only, node.lineno)
        for node, typing_only in _imports(tree)
        for target, names in _siblings(node)
    ]


@pytest.mark.parametrize("name", MODULES)
def test_imports_go_downward(name: str) -> None:
    level = LAYERS.index(name)
    for target, names, typing_only, line in _module_imports(name):
        where = f"strata/{name}.py:{line} imports {target}"
        assert target in LAYERS, f"{where}, which LAYERS does not list"
        if not typing_only:
            assert LAYERS.index(target) < level, (
                f"{where}, which is not below it in LAYERS: an upward import (a cycle); "
                "move the shared code down, or import under `if TYPE_CHECKING:` for annotations"
            )
        private = [n for n in names if n.startswith("_") and not (n.startswith("__") and n.endswith("__"))]
        assert not private, f"{where}'s private {private}: make it a name of that module's interface"


def test_the_checks_see_every_import() -> None:
    # the parser of the test itself: a cycle hidden in a function, an
    # upward import under TYPE_CHECKING, a private name
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "from ._native import lib\n"
        "if TYPE_CHECKING:\n"
        "    from ._schema import Schema\n"
        "def f():\n"
        "    from ._graph import _helper\n"
        "    import strata.typed\n"
    )
    found = [(target, names, typing_only) for node, typing_only in _imports(tree) for target, names in _siblings(node)]
    assert found == [
        ("_native", ["lib"], False),
        ("_schema", ["Schema"], True),
        ("_graph", ["_helper"], False),
        ("typed", [], False),
    ]


def _run(code: str) -> "subprocess.CompletedProcess[str]":
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_DIR.parent))
    env.setdefault("STRATA_LIBRARY", str(_native.library_path))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("name", MODULES)
def test_each_module_imports_alone(name: str) -> None:
    # strata/__init__.py would import everything first: stand in for the
    # package so that this module is the first of it to load
    module = "strata" if name == "__init__" else f"strata.{name}"
    code = (
        "import importlib, sys, types\n"
        + (
            ""
            if name == "__init__"
            else "package = types.ModuleType('strata')\n"
            f"package.__path__ = [{str(PACKAGE_DIR)!r}]\n"
            "sys.modules['strata'] = package\n"
        )
        + f"importlib.import_module({module!r})\n"
        "print(' '.join(sorted(m[len('strata.'):] for m in sys.modules if m.startswith('strata.'))))\n"
    )
    done = _run(code)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    if name != "__init__":
        above = {other for other in loaded if LAYERS.index(other) > LAYERS.index(name)}
        assert not above, f"importing strata.{name} loaded {sorted(above)}, above it"
    # and the plain import through the package
    done = _run(f"import {module}")
    assert done.returncode == 0, done.stderr


def test_native_declares_every_function_in_one_table() -> None:
    declared = [name for name, _, _ in _native.FUNCTIONS]
    assert len(declared) == len(set(declared))
    for name, restype, argtypes in _native.FUNCTIONS:
        function = getattr(_native.lib, name)
        assert function.restype is restype and function.argtypes == list(argtypes), name


# --------------------------------------------------------------------------
# Adopting an array of models: a failure half way releases the rest


SCHEMA: Dict[str, Any] = {
    "strata": 1,
    "models": {
        "Post": {
            "primaryKey": "id",
            "meta": {"path": "paging", "model": "Paging"},
            "properties": {"id": {"type": "int", "required": True}},
        },
        "Paging": {"properties": {"next": {"type": "string"}}},
    },
}
POSTS = [{"id": 1}, {"id": 2}, {"id": 3}]


class Releases:
    """Counts strata_model_decref and strata_free (still calling them)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.decref: List[int] = []
        self.freed: List[Optional[int]] = []
        decref, free = _native.lib.strata_model_decref, _native.lib.strata_free

        def counting_decref(handle: int) -> None:
            self.decref.append(handle)
            decref(handle)

        def counting_free(pointer: Any) -> None:
            self.freed.append(ctypes.cast(pointer, ctypes.c_void_p).value)
            free(pointer)

        monkeypatch.setattr(_native.lib, "strata_model_decref", counting_decref)
        monkeypatch.setattr(_native.lib, "strata_free", counting_free)


def failing_on(call: int, wrap: Callable[[int], Any], seen: List[int]) -> Callable[[int], Any]:
    """``wrap``, raising (owning nothing) on its ``call``-th call; ``seen`` gets every handle."""

    def adopt(handle: int) -> Any:
        seen.append(handle)
        if len(seen) == call:
            raise RuntimeError("wrapping failed")
        return wrap(handle)

    return adopt


def test_adopt_array_releases_what_it_did_not_adopt(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = strata.Schema(SCHEMA)
    text = json.dumps(POSTS).encode()
    count = ctypes.c_size_t()
    error = _native.strata_error_t()
    array = _native.lib.strata_map_manyb(
        schema._handle, b"Post", text, len(text), ctypes.byref(count), ctypes.byref(error)
    )
    assert array and count.value == 3
    handles = array[:3]
    address = ctypes.cast(array, ctypes.c_void_p).value
    releases = Releases(monkeypatch)
    made: List[Model] = []
    adopt = model_adopter(schema)

    def wrap(handle: int) -> Model:
        if made:
            raise RuntimeError("wrapping failed")
        made.append(adopt(handle))
        return made[-1]

    with pytest.raises(RuntimeError, match="wrapping failed"):
        _handles.adopt_array(array, 3, wrap)
    assert releases.decref == handles[1:]  # the 2nd and 3rd, once each
    assert releases.freed == [address]  # the array, once
    assert made[0]["id"] == 1  # the 1st is its Model's, released with it
    released: List[int] = []
    release = Model._release

    def counting_release(handle: int) -> None:
        released.append(handle)
        release(handle)

    monkeypatch.setattr(Model, "_release", staticmethod(counting_release))
    made.clear()
    assert released == handles[:1]


def test_a_long_array_is_wrapped_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = strata.Schema(SCHEMA)
    posts = [{"id": index} for index in range(600)]
    collections: List[str] = []
    # how many collections had run when each model was wrapped
    seen: List[int] = []

    def noted(phase: str, info: Dict[str, Any]) -> None:
        if phase == "start":
            collections.append(phase)

    # wrapping that makes garbage cycles: the collector would run if it could
    def cyclic(wrap: Callable[[int], Model]) -> Callable[[int], Model]:
        def adopt(handle: int) -> Model:
            seen.append(len(collections))
            for _ in range(4):
                box: List[Any] = []
                box.append(box)
            return wrap(handle)

        return adopt

    gc.callbacks.append(noted)
    try:
        monkeypatch.setattr(_schema, "model_adopter", lambda owner: cyclic(model_adopter(owner)))
        assert gc.isenabled()
        models = schema.map_many("Post", posts)
        assert [model["id"] for model in models] == list(range(600))
        assert len(seen) == 600 and seen[0] == seen[-1]  # no collection while wrapping
        assert gc.isenabled()  # resumed
        # a short array is wrapped with the collector running
        seen.clear()
        schema.map_many("Post", posts[:200])
        assert seen[0] != seen[-1]
        # resumed after a failure too; left off when it was off
        monkeypatch.setattr(_schema, "model_adopter", lambda owner: failing_on(300, model_adopter(owner), []))
        with pytest.raises(RuntimeError, match="wrapping failed"):
            schema.map_many("Post", posts)
        assert gc.isenabled()
        gc.disable()
        try:
            with pytest.raises(RuntimeError, match="wrapping failed"):
                schema.map_many("Post", posts)
            assert not gc.isenabled()
        finally:
            gc.enable()
    finally:
        gc.callbacks.remove(noted)


def test_map_many_releases_the_rest_when_a_model_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = strata.Schema(SCHEMA)
    seen: List[int] = []
    monkeypatch.setattr(_schema, "model_adopter", lambda owner: failing_on(2, model_adopter(owner), seen))
    releases = Releases(monkeypatch)
    with pytest.raises(RuntimeError, match="wrapping failed"):
        schema.map_many("Post", POSTS)
    assert len(seen) == 2 and len(set(seen)) == 2
    assert len(releases.decref) == 2 and releases.decref[0] == seen[1]
    assert seen[0] not in releases.decref
    assert len(releases.freed) == 1


def test_map_response_releases_records_and_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = strata.Schema(SCHEMA)
    page = {"data": POSTS, "paging": {"next": "p2"}}
    seen: List[int] = []
    monkeypatch.setattr(_schema, "model_adopter", lambda owner: failing_on(1, model_adopter(owner), seen))
    releases = Releases(monkeypatch)
    # the metadata is wrapped first: its failure releases it and every record
    with pytest.raises(RuntimeError, match="wrapping failed"):
        schema.map_response("Post", page, root="data")
    assert len(releases.decref) == 4 and releases.decref[-1] == seen[0]
    seen.clear()
    releases.decref.clear()
    # the 2nd record fails: it and the 3rd are released; the metadata and
    # the 1st record are their Models'
    monkeypatch.setattr(_schema, "model_adopter", lambda owner: failing_on(3, model_adopter(owner), seen))
    with pytest.raises(RuntimeError, match="wrapping failed"):
        schema.map_response("Post", page, root="data")
    assert len(releases.decref) == 2 and releases.decref[0] == seen[2]
    assert seen[0] not in releases.decref and seen[1] not in releases.decref


def test_map_lines_releases_the_rest_of_its_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = strata.Schema(SCHEMA)
    seen: List[int] = []
    monkeypatch.setattr(_schema, "model_adopter", lambda owner: failing_on(2, model_adopter(owner), seen))
    releases = Releases(monkeypatch)
    lines = b'{"id": 1}\n{"id": "bad"}\n{"id": 3}\n{"id": 4}\n'
    with pytest.raises(RuntimeError, match="wrapping failed"):
        list(schema.map_lines("Post", lines, on_error="yield"))
    # the 3rd line's model (the 2nd wrapped) and the 4th; the bad line has none
    assert len(releases.decref) == 2 and releases.decref[0] == seen[1]


def test_graph_arrays_release_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = strata.Schema(SCHEMA)
    with schema.context() as ctx:
        ctx.import_("Post", POSTS)
        seen: List[int] = []
        adopter = _graph._record_adopter
        monkeypatch.setattr(_graph, "_record_adopter", lambda context: failing_on(2, adopter(context), seen))
        releases = Releases(monkeypatch)
        with pytest.raises(RuntimeError, match="wrapping failed"):
            ctx.all("Post")
        assert len(releases.decref) == 2 and releases.decref[0] == seen[1]
        assert len(releases.freed) == 1
        monkeypatch.undo()
        assert [record.key for record in ctx.all("Post")] == [1, 2, 3]
