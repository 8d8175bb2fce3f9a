"""Conversions between Python and libstrata's values and handles. Private.

What every wrapper of the package shares: input as the JSON text and
``json_t`` the library takes (:func:`encode`, :func:`json_handle`,
:func:`model_name`); ``json_t``, ``char *`` and the thread's error list back
as Python data (:func:`take_json`, :func:`dumps`, :func:`take_string`,
:func:`last_errors`); and the one way an array of ``strata_model_t *``
becomes Python objects (:func:`adopt_array`, :func:`adopt_response`).
"""

from __future__ import annotations

import ctypes
import gc
import json
import math
from ctypes import byref
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, TypeVar, Union

from ._errors import ErrorEntry, MappingError
from ._native import CODE_NAMES, STRATA_OK, lib, strata_error_t, text

#: What map() and Schema() accept: JSON text (str or bytes) or Python data
#: that the json module can encode (dicts, lists, ...).
JSONInput = Union[
    str, bytes, bytearray, memoryview, Dict[str, Any], List[Any], Tuple[Any, ...], int, float, bool, None
]

T = TypeVar("T")
U = TypeVar("U")

# -- Python to the library -------------------------------------------------


def encode(data: Any) -> bytes:
    """JSON text for the library: str/bytes as they are, anything else json.dumps'ed.

    Text with a lone surrogate goes as the bytes it holds (the engine's
    parser then names where the text is not UTF-8). Python data that JSON
    cannot hold (``nan``, ``inf``, a string with a lone surrogate) raises
    :class:`MappingError` with a ``type`` error at its path."""
    if isinstance(data, str):
        return data.encode("utf-8", "surrogatepass")
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    try:
        return json.dumps(data, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        found = _not_json(data, "")
        if found is None:
            raise
        path, message = found
        raise MappingError(
            [{"path": path, "model": "", "property": "", "code": "type", "message": message}],
            "the input is not JSON",
        ) from None


def _not_json(value: Any, path: str) -> Optional[Tuple[str, str]]:
    """Where in Python data the first value JSON cannot hold is, and why."""
    if isinstance(value, float) and (value != value or value in (math.inf, -math.inf)):
        return path, f"{value!r} is not a JSON number"
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return path, f"the string holds a lone surrogate ({value[exc.start]!r}), which is not UTF-8"
        return None
    if isinstance(value, Mapping):
        for key, member in value.items():
            # a lone surrogate in a key is written as its escape in the path
            written = str(key).encode("utf-8", "backslashreplace").decode("utf-8")
            step = written.replace("~", "~0").replace("/", "~1")
            if isinstance(key, str) and _not_json(key, "") is not None:
                return path + "/" + step, f"the key {key!r} holds a lone surrogate, which is not UTF-8"
            found = _not_json(member, path + "/" + step)
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for position, member in enumerate(value):
            found = _not_json(member, f"{path}/{position}")
            if found is not None:
                return found
    return None


def json_handle(data: JSONInput, summary: str) -> int:
    """A new json_t reference holding ``data`` (Python data or JSON text);
    :class:`MappingError` with ``summary`` when it is not JSON."""
    buffer = encode(data)
    error = strata_error_t()
    handle = lib.strata_json_loadb(buffer, len(buffer), byref(error))
    if not handle:
        raise MappingError(last_errors(error), summary)
    return int(handle)


def argument_error(message: str, path: str = "") -> ErrorEntry:
    """An error-list entry with the code ``argument``."""
    return {"path": path, "model": "", "property": "", "code": "argument", "message": message}


_NAMES: Dict[str, bytes] = {}


def model_name(model: str) -> bytes:
    """A model name for the library: ``TypeError`` for a name that is not a
    str, :class:`MappingError` (``argument``) for one holding NUL. Names
    seen before come from a small table (a schema has few models)."""
    known = _NAMES.get(model) if type(model) is str else None
    if known is not None:
        return known
    if not isinstance(model, str):
        raise TypeError(f"strata: a model name must be a str, not {type(model).__name__}")
    raw = model.encode("utf-8")
    if b"\0" in raw:
        raise MappingError(
            [argument_error(f"no model named {model!r} (a name cannot contain NUL)")],
            f"cannot map {model!r}",
        )
    if type(model) is str and len(_NAMES) < 4096:
        _NAMES[model] = raw
    return raw


# -- the library to Python -------------------------------------------------


def dumps(handle: int) -> str:
    """Serializes a borrowed json_t * to JSON text (the char * is strata_free'd)."""
    raw = lib.strata_json_dumps(handle)
    if raw is None:
        raise MemoryError("strata: strata_json_dumps() returned NULL")
    try:
        return text(ctypes.string_at(raw))
    finally:
        lib.strata_free(raw)


def take_json(handle: Optional[int]) -> Any:
    """Converts a json_t * (a new reference) to Python data and releases it."""
    if handle is None:
        raise ValueError("strata: NULL json_t")
    try:
        return json.loads(dumps(handle))
    finally:
        lib.strata_json_decref(handle)


def take_string(raw: int) -> str:
    """A ``char *`` the caller owns (UTF-8 text), as str; freed with strata_free."""
    try:
        return ctypes.string_at(raw).decode("utf-8")
    finally:
        lib.strata_free(ctypes.c_void_p(raw))


ERROR_FIELDS = ("path", "model", "property", "code", "message")


def error_dict(err: strata_error_t) -> Dict[str, str]:
    """The first error of a call as an error-list entry, from the struct."""
    code = text(err.code_name) or CODE_NAMES.get(int(err.code), str(int(err.code)))
    return {
        "path": text(err.path),
        "model": text(err.model),
        "property": text(err.property),
        "code": code,
        "message": text(err.message),
    }


def last_errors(err: Optional[strata_error_t] = None) -> List[Dict[str, str]]:
    """Every error of this thread's most recent failed call (strata_errors()).

    Falls back to the first error in ``err`` if the library keeps no list.
    """
    handle = lib.strata_errors()
    if handle is not None:
        data = take_json(handle)
        if isinstance(data, list) and data:
            return [_normalize(entry) for entry in data]
    if err is not None and int(err.code) != STRATA_OK:
        return [error_dict(err)]
    return []


def take_errors(handle: int) -> List[List[Dict[str, Any]]]:
    """The error arrays of a json_t array of them (a new reference, released)."""
    data = take_json(handle)
    return [[_normalize(entry) for entry in errors] for errors in data if isinstance(errors, list)]


def _normalize(entry: Any) -> Dict[str, Any]:
    """One entry of strata_errors() with exactly the five string fields, and
    the integer ``line`` when the error belongs to a line of JSON lines."""
    if not isinstance(entry, dict):
        entry = {"message": str(entry)}
    normal: Dict[str, Any] = {key: str(entry.get(key) or "") for key in ERROR_FIELDS}
    line = entry.get("line")
    if isinstance(line, int):
        normal["line"] = line
    return normal


# -- arrays of models --------------------------------------------------------


def adopt_array(array: Any, count: int, wrap: Callable[[int], T]) -> List[T]:
    """The objects ``wrap`` makes of the ``count`` new model references of
    ``array`` (a ``strata_model_t **`` the library returned), in order; the
    array is freed with ``strata_free``. A NULL entry (only
    ``strata_lines_feed_array`` has them: a bad line's place) is ``None``, so
    such an array's ``wrap`` is typed to return an ``Optional``.

    ``wrap(handle)`` owns the handle once it returns (a Model releases it when
    collected) and none if it raises. Then every handle not yet adopted is
    released with ``strata_model_decref`` and the exception goes on: a
    failure half way leaks nothing and releases nothing twice."""
    return _adopt(_take(array, count), wrap)


def adopt_response(
    array: Any,
    count: int,
    wrap: Callable[[int], T],
    metadata: Optional[int],
    wrap_metadata: Callable[[int], U],
) -> Tuple[List[T], Optional[U]]:
    """:func:`adopt_array` for a response: its records, and its metadata model
    (``metadata``, a new reference or NULL) through ``wrap_metadata``; a
    failure releases every handle not yet adopted, the metadata's too."""
    handles: List[Optional[int]] = []
    try:
        handles = _take(array, count)
        meta = wrap_metadata(metadata) if metadata else None
    except BaseException:
        _release([*handles, metadata])
        raise
    return _adopt(handles, wrap), meta


def _take(array: Any, count: int) -> List[Optional[int]]:
    """The handles of a C array of ``count`` pointers; frees the array."""
    try:
        handles: List[Optional[int]] = array[:count]
        return handles
    finally:
        lib.strata_free(ctypes.cast(array, ctypes.c_void_p))


#: From this many models on, the cyclic garbage collector is paused while
#: they are wrapped (see :func:`_adopt`).
_PAUSE_GC_FROM = 256


def _adopt(handles: List[Optional[int]], wrap: Callable[[int], T]) -> List[T]:
    """The loop of :func:`adopt_array` (None for a NULL handle).

    Each wrapper is an object the cyclic garbage collector tracks, so
    wrapping 20,000 models would set off dozens of collections, each
    walking the young objects, for wrappers that hold no cycle. For a long
    array the collector is paused during the loop (when it was running),
    and resumed after it, whatever happens."""
    adopted: List[Any] = []
    append = adopted.append
    pause = len(handles) >= _PAUSE_GC_FROM and gc.isenabled()
    if pause:
        gc.disable()
    try:
        for handle in handles:
            append(wrap(handle) if handle else None)
    except BaseException:
        _release(handles[len(adopted) :])
        raise
    finally:
        if pause:
            gc.enable()
    return adopted


def _release(handles: List[Optional[int]]) -> None:
    """Releases model handles no object owns (NULL ones are skipped)."""
    for handle in handles:
        if handle:
            lib.strata_model_decref(handle)
