"""Pickling a Schema: its document plus its host callables by reference.

A pickled :class:`~strata.Schema` holds the schema document (the JSON text it
was loaded from) and, for each registered transformer and merger, the module
and qualified name of the callable, never its code. Unpickling imports the
callables and loads the schema again, once per process: a module-level cache
keyed by the document's SHA-256 and the references hands every later unpickle
of the same schema the schema already loaded. That is what a cluster needs
(Dask, PySpark, multiprocessing): each task's schema costs one dictionary
look-up in a worker that has seen it before.

A callable that cannot be named (a lambda, a function defined inside another
function, a ``functools.partial``, an instance with ``__call__``) is refused
when the schema is pickled, with an error naming the transformer.

This module sits below strata._schema, whose ``Schema.__reduce__`` names
:func:`restore`: it loads a schema through the loader that strata._schema
gives :func:`set_loader`, the Schema class itself.
"""

from __future__ import annotations

import hashlib
import importlib
import pickle
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional, Tuple, Union

if TYPE_CHECKING:  # for annotations only: _schema sits above this module
    from ._schema import Schema

#: A callable by reference: (module, qualified name).
Reference = Tuple[str, str]
#: A transformer by reference: forward, and reverse or None.
TransformerReference = Tuple[Reference, Optional[Reference]]
#: What a pickled Schema carries besides its document, sorted by name.
References = Tuple[Tuple[Tuple[str, TransformerReference], ...], Tuple[Tuple[str, Reference], ...]]

# Schemas unpickled in this process, newest last; at most _CACHE_SIZE kept.
_CACHE_SIZE = 64
_cache: "OrderedDict[Tuple[str, References], Schema]" = OrderedDict()
_cache_lock = threading.Lock()

#: Loads a schema: ``Schema(document, transformers=..., mergers=...)``.
_loader: Optional[Callable[..., "Schema"]] = None


def set_loader(loader: Callable[..., "Schema"]) -> None:
    """Makes ``loader`` (the Schema class, which strata._schema gives) load
    the schemas that :func:`restore` unpickles."""
    global _loader
    _loader = loader


def reference(kind: str, name: str, function: Any) -> Reference:
    """The (module, qualified name) that finds ``function`` again in another
    process; ``pickle.PicklingError`` naming ``kind`` ``name`` when there is none."""

    def refuse(why: str) -> pickle.PicklingError:
        return pickle.PicklingError(
            f"strata: cannot pickle the Schema: {kind} {name!r} is {function!r}, {why}; "
            "a pickled Schema names its callables by module and qualified name, so register "
            "a function defined at the top level of an importable module"
        )

    qualname = getattr(function, "__qualname__", None)
    module = getattr(function, "__module__", None)
    if module is None:  # a method of a built-in type: str.upper
        owner = getattr(function, "__objclass__", None)
        module = getattr(owner, "__module__", None)
    if not isinstance(qualname, str) or not isinstance(module, str):
        raise refuse("which has no module and qualified name (a partial or a callable object?)")
    if "<lambda>" in qualname:
        raise refuse("a lambda")
    if "<locals>" in qualname:
        raise refuse("a function defined inside another function")
    try:
        found = _resolve(module, qualname)
    except (ImportError, AttributeError):
        found = None
    if found is not function and found != function:
        raise refuse(f"which is not what {module}.{qualname} names")
    return (module, qualname)


def _resolve(module: str, qualname: str) -> Any:
    target: Any = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


def references(
    transformers: Optional[Mapping[str, Any]], mergers: Optional[Mapping[str, Any]]
) -> References:
    """The references of a schema's transformers and mergers, sorted by name."""
    transformer_refs = []
    for name, pair in sorted((transformers or {}).items()):
        if isinstance(pair, tuple):
            forward, reverse = pair
        else:
            forward, reverse = pair, None
        transformer_refs.append(
            (
                name,
                (
                    reference("transformer", name, forward),
                    reference("transformer", name, reverse) if reverse is not None else None,
                ),
            )
        )
    merger_refs = [(name, reference("merger", name, function)) for name, function in sorted((mergers or {}).items())]
    return (tuple(transformer_refs), tuple(merger_refs))


def _callable(kind: str, name: str, ref: Reference) -> Callable[..., Any]:
    module, qualname = ref
    try:
        found = _resolve(module, qualname)
    except (ImportError, AttributeError) as error:
        raise pickle.UnpicklingError(
            f"strata: cannot unpickle the Schema: {kind} {name!r} is {module}.{qualname}, "
            f"which this process cannot import ({type(error).__name__}: {error}); "
            "make that module importable here (installed, or on PYTHONPATH)"
        ) from error
    if not callable(found):
        raise pickle.UnpicklingError(
            f"strata: cannot unpickle the Schema: {kind} {name!r} is {module}.{qualname}, which is not callable"
        )
    return found  # type: ignore[no-any-return]


def restore(document: bytes, refs: References) -> "Schema":
    """The schema of a pickle: loaded on the first call in this process,
    then the same (immutable) Schema from the cache."""
    key = (hashlib.sha256(document).hexdigest(), refs)
    with _cache_lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    transformer_refs, merger_refs = refs
    transformers: Dict[str, Union[Callable[..., Any], Tuple[Any, Any]]] = {}
    for name, (forward, reverse) in transformer_refs:
        transformers[name] = (
            _callable("transformer", name, forward),
            _callable("transformer", name, reverse) if reverse is not None else None,
        )
    mergers = {name: _callable("merger", name, ref) for name, ref in merger_refs}
    if _loader is None:
        raise pickle.UnpicklingError("strata: cannot unpickle a Schema: strata._schema is not loaded")
    schema = _loader(document, transformers=transformers or None, mergers=mergers or None)
    with _cache_lock:
        # Two threads may have loaded it at once: keep the first, so every
        # unpickle in this process gives the same object.
        schema = _cache.setdefault(key, schema)
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return schema


def cached_schemas() -> int:
    """How many unpickled schemas this process holds (for tests and diagnostics)."""
    with _cache_lock:
        return len(_cache)
