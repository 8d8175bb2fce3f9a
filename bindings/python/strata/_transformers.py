"""Host transformers: Python callables registered on a schema builder.

The engine calls a transformer through a C callback with a borrowed json_t;
the callback turns it into Python data, calls the user's function and hands
back a new json_t. An exception becomes the engine's ``format`` error at the
value's path, carrying ``TypeName: message``: it is never lost and never
crosses into the engine.
"""

from __future__ import annotations

import ctypes
import itertools
import json
import threading
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from ._errors import SchemaError
from ._handles import dumps, last_errors
from ._native import KEY_FN, MERGE_FN, RELEASE_FN, TRANSFORM_FN, lib, strata_error_t

Function = Callable[[Any], Any]

# Callbacks stay alive while the engine may call them: from registration until
# the builder and every schema loaded through it are gone (the release callback).
_alive: Dict[int, Tuple[Any, Any]] = {}
_alive_lock = threading.Lock()
_ids = itertools.count(1)


def _release(payload: Optional[int]) -> None:
    with _alive_lock:
        _alive.pop(payload or 0, None)


_RELEASE = RELEASE_FN(_release)


def _write_message(buffer: Optional[int], size: int, message: str) -> None:
    if not buffer or size <= 0:
        return
    raw = message.encode("utf-8", "replace")[: size - 1]
    # Do not cut a UTF-8 sequence in half.
    while raw and (raw[-1] & 0xC0) == 0x80:
        raw = raw[:-1]
    if raw and raw[-1] >= 0xC0:
        raw = raw[:-1]
    ctypes.memmove(buffer, raw + b"\0", len(raw) + 1)


def _step(function: Function) -> Any:
    def call(value: Optional[int], payload: Optional[int], buffer: Optional[int], size: int) -> Optional[int]:
        try:
            data = json.loads(dumps(value or 0))
            result = function(data)
            text = json.dumps(result, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except Exception as exc:  # reported as a format error, with its type and message
            _write_message(buffer, size, f"{type(exc).__name__}: {exc}")
            return None
        handle = lib.strata_json_loadb(text, len(text), None)
        if not handle:
            _write_message(buffer, size, "the transformer returned a value JSON cannot hold")
            return None
        return int(handle)

    return TRANSFORM_FN(call)


def _merge_step(function: Callable[[Any, Any], Any]) -> Any:
    def call(
        current: Optional[int], incoming: Optional[int], payload: Optional[int], buffer: Optional[int], size: int
    ) -> Optional[int]:
        try:
            mine = json.loads(dumps(current)) if current else None
            theirs = json.loads(dumps(incoming or 0))
            result = function(mine, theirs)
            text = json.dumps(result, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except Exception as exc:  # a refusal, with the exception's type and message
            _write_message(buffer, size, f"{type(exc).__name__}: {exc}")
            return None
        handle = lib.strata_json_loadb(text, len(text), None)
        if not handle:
            _write_message(buffer, size, "the merger returned a value JSON cannot hold")
            return None
        return int(handle)

    return MERGE_FN(call)


def _key_step(function: Callable[[Any, Any], Any]) -> Any:
    def call(
        value: Optional[int], parent: Optional[int], payload: Optional[int], buffer: Optional[int], size: int
    ) -> Optional[int]:
        try:
            data = json.loads(dumps(value or 0))
            holder = json.loads(dumps(parent)) if parent else None
            result = function(data, holder)
            text = json.dumps(result, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except Exception as exc:  # a refusal, with the exception's type and message
            _write_message(buffer, size, f"{type(exc).__name__}: {exc}")
            return None
        handle = lib.strata_json_loadb(text, len(text), None)
        if not handle:
            _write_message(buffer, size, "the key injector returned a value JSON cannot hold")
            return None
        return int(handle)

    return KEY_FN(call)


def new_builder(
    transformers: Mapping[str, Any],
    mergers: Optional[Mapping[str, Any]] = None,
    key_injectors: Optional[Mapping[str, Any]] = None,
) -> int:
    """A schema builder holding ``transformers`` (name -> (forward, reverse or
    None)) and ``mergers`` (name -> callable(current, incoming) -> merged).

    Raises TypeError for a malformed mapping; the caller frees the builder.
    """
    builder = lib.strata_schema_builder_new()
    if not builder:
        raise MemoryError("strata: cannot make a schema builder")
    try:
        for name, pair in transformers.items():
            if not isinstance(name, str):
                raise TypeError(f"strata: a transformer name must be a str, not {type(name).__name__}")
            forward, reverse = _split(name, pair)
            callbacks = (_step(forward), _step(reverse) if reverse is not None else TRANSFORM_FN())
            key = next(_ids)
            with _alive_lock:
                _alive[key] = callbacks
            error = strata_error_t()
            status = lib.strata_schema_builder_add_transformer(
                builder, name.encode("utf-8"), callbacks[0], callbacks[1], key, _RELEASE, ctypes.byref(error)
            )
            if status != 0:
                _release(key)
                raise SchemaError(last_errors(error), f"cannot register transformer {name!r}")
        for name, function in (mergers or {}).items():
            if not isinstance(name, str) or not callable(function):
                raise TypeError(f"strata: merger {name!r} must be a callable(current, incoming)")
            callback = _merge_step(function)
            key = next(_ids)
            with _alive_lock:
                _alive[key] = (callback, None)
            error = strata_error_t()
            status = lib.strata_schema_builder_add_merger(
                builder, name.encode("utf-8"), callback, key, _RELEASE, ctypes.byref(error)
            )
            if status != 0:
                _release(key)
                raise SchemaError(last_errors(error), f"cannot register merger {name!r}")
        for name, function in (key_injectors or {}).items():
            if not isinstance(name, str) or not callable(function):
                raise TypeError(f"strata: key injector {name!r} must be a callable(value, parent)")
            callback = _key_step(function)
            key = next(_ids)
            with _alive_lock:
                _alive[key] = (callback, None)
            error = strata_error_t()
            status = lib.strata_schema_builder_add_key_injector(
                builder, name.encode("utf-8"), callback, key, _RELEASE, ctypes.byref(error)
            )
            if status != 0:
                _release(key)
                raise SchemaError(last_errors(error), f"cannot register the key injector of {name!r}")
    except BaseException:
        lib.strata_schema_builder_free(builder)
        raise
    return int(builder)


def _split(name: str, pair: Any) -> Tuple[Function, Optional[Function]]:
    if callable(pair):
        return pair, None
    if isinstance(pair, tuple) and len(pair) == 2 and callable(pair[0]) and (pair[1] is None or callable(pair[1])):
        return pair[0], pair[1]
    raise TypeError(
        f"strata: transformer {name!r} must be a callable or a (forward, reverse) pair "
        "whose reverse may be None"
    )
