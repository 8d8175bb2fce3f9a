"""ctypes declarations of libstrata (include/strata.h). Private.

Every function of the header is declared here, in one table
(:data:`FUNCTIONS`: name, restype, argtypes). Handles (``strata_schema_t *``,
``strata_model_t *``) and ``json_t *`` are ``c_void_p``; strings the caller
must free are ``c_void_p`` too, so that they can be read and then handed back
to ``strata_free``. Borrowed ``const char *``
results are ``c_char_p`` (ctypes copies them into ``bytes``).
"""

from __future__ import annotations

import ctypes
import os
import re
import sys
from ctypes import (
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_int,
    c_int32,
    c_int64,
    c_long,
    c_longlong,
    c_size_t,
    c_uint,
    c_uint64,
    c_void_p,
)
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

# Sizes of the text fields of strata_error_t (strata.h).
STRATA_ERROR_PATH_LENGTH = 256
STRATA_ERROR_NAME_LENGTH = 80
STRATA_ERROR_MESSAGE_LENGTH = 256
STRATA_MAX_DEPTH = 512

# strata_code_t
STRATA_OK = 0
STRATA_ERROR_MISSING = 1
STRATA_ERROR_TYPE = 2
STRATA_ERROR_NULL = 3
STRATA_ERROR_FORMAT = 4
STRATA_ERROR_ENUM = 5
STRATA_ERROR_VALIDATION = 6
STRATA_ERROR_UNKNOWN_KEY = 7
STRATA_ERROR_SUBTYPE = 8
STRATA_ERROR_PATH = 9
STRATA_ERROR_SCHEMA = 10
STRATA_ERROR_SYNTAX = 11
STRATA_ERROR_DEPTH = 12
STRATA_ERROR_ARGUMENT = 13
STRATA_ERROR_IO = 14
STRATA_ERROR_DENY = 15
STRATA_ERROR_OOM = 16
STRATA_ERROR_PROPERTY = 17
STRATA_ERROR_HTTP = 18

CODE_NAMES: Dict[int, str] = {
    STRATA_OK: "ok",
    STRATA_ERROR_MISSING: "missing",
    STRATA_ERROR_TYPE: "type",
    STRATA_ERROR_NULL: "null",
    STRATA_ERROR_FORMAT: "format",
    STRATA_ERROR_ENUM: "enum",
    STRATA_ERROR_VALIDATION: "validation",
    STRATA_ERROR_UNKNOWN_KEY: "unknown_key",
    STRATA_ERROR_SUBTYPE: "subtype",
    STRATA_ERROR_PATH: "path",
    STRATA_ERROR_SCHEMA: "schema",
    STRATA_ERROR_SYNTAX: "syntax",
    STRATA_ERROR_DEPTH: "depth",
    STRATA_ERROR_ARGUMENT: "argument",
    STRATA_ERROR_IO: "io",
    STRATA_ERROR_DENY: "deny",
    STRATA_ERROR_OOM: "oom",
    STRATA_ERROR_PROPERTY: "property",
    STRATA_ERROR_HTTP: "http",
}

# strata_code_t is a C enum: an int-sized integer.
strata_code_t = c_int


class strata_error_t(Structure):
    """Mirrors ``struct strata_error`` of strata.h field by field."""

    _fields_ = [
        ("code", strata_code_t),
        ("count", c_size_t),
        ("code_name", c_char * 16),
        ("path", c_char * STRATA_ERROR_PATH_LENGTH),
        ("model", c_char * STRATA_ERROR_NAME_LENGTH),
        ("property", c_char * STRATA_ERROR_NAME_LENGTH),
        ("message", c_char * STRATA_ERROR_MESSAGE_LENGTH),
    ]


# Opaque handles and json_t * are plain pointers.
json_p = c_void_p
schema_p = c_void_p
model_p = c_void_p
error_p = POINTER(strata_error_t)

ENV_VAR = "STRATA_LIBRARY"

if sys.platform == "darwin":
    LIBRARY_NAME = "libstrata.dylib"
elif sys.platform == "win32":
    LIBRARY_NAME = "strata.dll"
else:
    LIBRARY_NAME = "libstrata.so"

_PACKAGE_DIR = Path(__file__).resolve().parent


# bindings/python/strata/../../.. when the package is used from a checkout.
_CHECKOUT_DIR = _PACKAGE_DIR.parent.parent.parent


def candidate_paths() -> List[Path]:
    """Where the library is looked for, in order (the env var is separate)."""
    return [
        # Bundled: pip install ./bindings/python builds it into the wheel.
        _PACKAGE_DIR / LIBRARY_NAME,
        # The checkout's CMake build (scripts/build).
        _CHECKOUT_DIR / "build" / LIBRARY_NAME,
    ]


def package_version() -> str:
    """The package's version: strata/_version.py, which the wheel build writes
    from include/strata.h; in a checkout the header's STRATA_VERSION; else the
    loaded library's."""
    try:
        from ._version import __version__ as version  # type: ignore[import-not-found]

        return str(version)
    except ImportError:
        pass
    header = _CHECKOUT_DIR / "include" / "strata.h"
    try:
        match = re.search(
            r'^#define STRATA_VERSION "([0-9]+\.[0-9]+\.[0-9]+)"',
            header.read_text(encoding="utf-8"),
            re.MULTILINE,
        )
    except OSError:
        match = None
    if match:
        return match.group(1)
    return text(lib.strata_version())


def find_library() -> Path:
    """Finds libstrata: $STRATA_LIBRARY, next to the package, the checkout's build/."""
    env = os.environ.get(ENV_VAR)
    if env:
        path = Path(env).expanduser()
        if not path.is_file():
            raise ImportError(
                f"strata: {ENV_VAR} is set to {env!r}, which is not a file; "
                f"point it at a built {LIBRARY_NAME}"
            )
        return path
    tried = candidate_paths()
    for path in tried:
        if path.is_file():
            return path
    places = "\n".join(f"  {p}" for p in tried)
    raise ImportError(
        f"strata: cannot find {LIBRARY_NAME}. Set {ENV_VAR} to its path, or put it "
        f"in one of:\n{places}\n(build it with CMake into the checkout's build/ folder, "
        f"or with `swift build --product strata`)"
    )


def _load(path: Path) -> ctypes.CDLL:
    try:
        return ctypes.CDLL(str(path))
    except OSError as exc:
        raise ImportError(f"strata: cannot load {path}: {exc}") from exc


#: strata_transform_fn: json_t *(*)(json_t *value, void *payload, char *message, size_t size)
TRANSFORM_FN = ctypes.CFUNCTYPE(c_void_p, c_void_p, c_void_p, c_void_p, c_size_t)
#: strata_merge_fn: json_t *(*)(json_t *current, json_t *incoming, void *payload, char *message, size_t size)
MERGE_FN = ctypes.CFUNCTYPE(c_void_p, c_void_p, c_void_p, c_void_p, c_void_p, c_size_t)
#: strata_release_fn: void (*)(void *payload)
RELEASE_FN = ctypes.CFUNCTYPE(None, c_void_p)
#: strata_line_model_fn: int (*)(strata_model_t *model, size_t line, void *data)
LINE_MODEL_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_size_t, c_void_p)
#: strata_line_error_fn: int (*)(const json_t *errors, size_t line, void *data)
LINE_ERROR_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_size_t, c_void_p)
#: strata_read_fn: size_t (*)(void *buffer, size_t size, void *data)
READ_FN = ctypes.CFUNCTYPE(c_size_t, c_void_p, c_size_t, c_void_p)
#: strata_keep_fn: int (*)(strata_model_t *record, void *payload)
KEEP_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p)
#: strata_key_fn: json_t *(*)(json_t *value, json_t *parent, void *payload, char *message, size_t size)
KEY_FN = ctypes.CFUNCTYPE(c_void_p, c_void_p, c_void_p, c_void_p, c_void_p, c_size_t)

# More pointer types of the table: a builder, a JSON lines mapper, a graph
# context, an array of models and the caller's size_t.
builder_p = c_void_p
lines_p = c_void_p
context_p = c_void_p
models_p = POINTER(model_p)
size_p = POINTER(c_size_t)

#: Every function of strata.h, grouped by the header's sections: (name, restype, argtypes).
FUNCTIONS: Tuple[Tuple[str, Any, Tuple[Any, ...]], ...] = (
    # Library
    ("strata_version", c_char_p, ()),
    ("strata_errors", json_p, ()),
    ("strata_json_decref", None, (json_p,)),
    ("strata_json_dumps", c_void_p, (json_p,)),  # char *, freed with strata_free
    ("strata_json_loadb", json_p, (c_char_p, c_size_t, error_p)),
    ("strata_free", None, (c_void_p,)),
    # Schemas
    ("strata_schema_load", schema_p, (json_p, error_p)),
    ("strata_schema_loadb", schema_p, (c_char_p, c_size_t, error_p)),
    ("strata_schema_load_file", schema_p, (c_char_p, error_p)),
    ("strata_schema_incref", schema_p, (schema_p,)),
    ("strata_schema_decref", None, (schema_p,)),
    ("strata_schema_version", c_int64, (schema_p,)),
    ("strata_schema_model_count", c_size_t, (schema_p,)),
    ("strata_schema_model_name", c_char_p, (schema_p, c_size_t)),
    # Custom transformers and the schema builder
    ("strata_schema_builder_new", builder_p, ()),
    ("strata_schema_builder_free", None, (builder_p,)),
    (
        "strata_schema_builder_add_transformer",
        c_int,
        (builder_p, c_char_p, TRANSFORM_FN, TRANSFORM_FN, c_void_p, RELEASE_FN, error_p),
    ),
    ("strata_schema_builder_load", schema_p, (builder_p, json_p, error_p)),
    ("strata_schema_builder_loadb", schema_p, (builder_p, c_char_p, c_size_t, error_p)),
    ("strata_schema_builder_load_file", schema_p, (builder_p, c_char_p, error_p)),
    ("strata_schema_builder_add_merger", c_int, (builder_p, c_char_p, MERGE_FN, c_void_p, RELEASE_FN, error_p)),
    # Mapping
    ("strata_map", model_p, (schema_p, c_char_p, json_p, error_p)),
    ("strata_mapb", model_p, (schema_p, c_char_p, c_char_p, c_size_t, error_p)),
    ("strata_map_many", models_p, (schema_p, c_char_p, json_p, size_p, error_p)),
    ("strata_map_manyb", models_p, (schema_p, c_char_p, c_char_p, c_size_t, size_p, error_p)),
    # Responses
    ("strata_map_response", models_p, (schema_p, c_char_p, json_p, json_p, size_p, POINTER(model_p), error_p)),
    (
        "strata_map_responseb",
        models_p,
        (schema_p, c_char_p, c_char_p, c_size_t, json_p, size_p, POINTER(model_p), error_p),
    ),
    # JSON lines (strata_map_lines and strata_map_lines_file take a C reader
    # or FILE *; the binding feeds the push-style mapper instead)
    ("strata_lines_new", lines_p, (schema_p, c_char_p, c_size_t, error_p)),
    ("strata_lines_free", None, (lines_p,)),
    (
        "strata_lines_feed",
        c_int64,
        (lines_p, c_char_p, c_size_t, LINE_MODEL_FN, LINE_ERROR_FN, c_void_p, error_p),
    ),
    ("strata_lines_finish", c_int64, (lines_p, LINE_MODEL_FN, LINE_ERROR_FN, c_void_p, error_p)),
    (
        "strata_lines_feed_array",
        models_p,
        (lines_p, c_char_p, c_size_t, c_int, size_p, POINTER(json_p), error_p),
    ),
    (
        "strata_map_lines",
        c_int64,
        (schema_p, c_char_p, READ_FN, c_void_p, c_size_t, LINE_MODEL_FN, LINE_ERROR_FN, c_void_p, error_p),
    ),
    (
        "strata_map_lines_file",
        c_int64,
        # the c_void_p after the model name is a FILE *
        (schema_p, c_char_p, c_void_p, c_size_t, LINE_MODEL_FN, LINE_ERROR_FN, c_void_p, error_p),
    ),
    # Models
    ("strata_model_incref", model_p, (model_p,)),
    ("strata_model_decref", None, (model_p,)),
    ("strata_model_name", c_char_p, (model_p,)),
    ("strata_model_schema", schema_p, (model_p,)),
    ("strata_model_has", c_int, (model_p, c_char_p, error_p)),
    ("strata_model_get", json_p, (model_p, c_char_p, error_p)),
    ("strata_model_get_date", c_int, (model_p, c_char_p, POINTER(c_int64), POINTER(c_int32), error_p)),
    ("strata_model_dictionary", json_p, (model_p, error_p)),
    ("strata_model_to_json", json_p, (model_p, error_p)),
    ("strata_model_equal", c_int, (model_p, model_p)),
    ("strata_model_hash", c_uint64, (model_p,)),
    ("strata_model_copy", model_p, (model_p,)),
    # Merge and update
    ("strata_model_merge", c_int, (model_p, model_p, error_p)),
    ("strata_model_update", c_int, (model_p, json_p, error_p)),
    ("strata_model_updateb", c_int, (model_p, c_char_p, c_size_t, error_p)),
    # Diff and patch
    ("strata_model_diff", json_p, (model_p, model_p, error_p)),
    ("strata_model_diff_merge", json_p, (model_p, model_p, error_p)),
    ("strata_model_patch", model_p, (model_p, json_p, error_p)),
    ("strata_model_merge_patch", model_p, (model_p, json_p, error_p)),
    # Archives and versions
    ("strata_model_archive", json_p, (model_p, error_p)),
    ("strata_unarchive", model_p, (schema_p, json_p, error_p)),
    ("strata_unarchiveb", model_p, (schema_p, c_char_p, c_size_t, error_p)),
    ("strata_schema_compare", json_p, (schema_p, schema_p, error_p)),
    # Tools: JSON Schema, diagrams, code generation (char * freed with strata_free)
    ("strata_schema_json_schema", json_p, (schema_p, c_char_p, c_int, error_p)),
    ("strata_schema_diagram", c_void_p, (schema_p, c_char_p, error_p)),
    ("strata_schema_codegen_python", c_void_p, (schema_p, c_char_p, error_p)),
    # Graph contexts
    ("strata_context_open", context_p, (schema_p, c_char_p, error_p)),
    ("strata_context_incref", context_p, (context_p,)),
    ("strata_context_decref", None, (context_p,)),
    ("strata_context_close", None, (context_p,)),
    (
        "strata_context_import",
        models_p,
        (context_p, c_char_p, json_p, json_p, KEEP_FN, c_void_p, size_p, POINTER(json_p), error_p),
    ),
    (
        "strata_context_importb",
        models_p,
        (context_p, c_char_p, c_char_p, c_size_t, json_p, KEEP_FN, c_void_p, size_p, POINTER(json_p), error_p),
    ),
    (
        "strata_context_import_response",
        models_p,
        (context_p, c_char_p, json_p, json_p, KEEP_FN, c_void_p, size_p, POINTER(model_p), POINTER(json_p), error_p),
    ),
    (
        "strata_context_import_responseb",
        models_p,
        (
            context_p, c_char_p, c_char_p, c_size_t, json_p, KEEP_FN, c_void_p, size_p, POINTER(model_p),
            POINTER(json_p), error_p,
        ),
    ),
    # the page loop over C callbacks; Python runs its own loop (Context.fetch)
    (
        "strata_context_fetch",
        c_long,
        (context_p, c_char_p, c_char_p, c_void_p, c_void_p, c_void_p, c_long, c_int, error_p),
    ),
    ("strata_context_fetch_headers", json_p, (context_p, c_char_p, error_p)),
    (
        "strata_context_fetch_page",
        models_p,
        (
            context_p, c_char_p, c_char_p, c_int, json_p, c_char_p, c_size_t, json_p, c_int, size_p,
            POINTER(model_p), POINTER(json_p), error_p,
        ),
    ),
    ("strata_context_get", model_p, (context_p, c_char_p, json_p, error_p)),
    ("strata_context_all", models_p, (context_p, c_char_p, size_p, error_p)),
    ("strata_context_count", c_longlong, (context_p, c_char_p, error_p)),
    ("strata_context_all_flags", models_p, (context_p, c_char_p, c_uint, size_p, error_p)),
    ("strata_context_count_flags", c_longlong, (context_p, c_char_p, c_uint, error_p)),
    ("strata_context_query", models_p, (context_p, c_char_p, json_p, size_p, error_p)),
    ("strata_context_query_count", c_longlong, (context_p, c_char_p, json_p, error_p)),
    ("strata_context_delete", c_int, (context_p, model_p, error_p)),
    ("strata_context_check", c_int, (context_p, error_p)),
    ("strata_context_set_cache_limit", c_int, (context_p, c_size_t, error_p)),
    ("strata_context_set_memory_map", c_int, (context_p, c_size_t, error_p)),
    ("strata_context_memory_map", c_int, (context_p, POINTER(c_size_t), error_p)),
    ("strata_context_cache_info", c_int, (context_p, POINTER(c_size_t), POINTER(c_size_t), error_p)),
    ("strata_context_begin_read", c_int, (context_p, error_p)),
    ("strata_context_end_read", c_int, (context_p, error_p)),
    ("strata_context_related", models_p, (context_p, model_p, c_char_p, size_p, error_p)),
    ("strata_context_dictionary", json_p, (context_p, model_p, error_p)),
    ("strata_context_dictionary_depth", json_p, (context_p, model_p, c_int, error_p)),
    ("strata_context_to_json", json_p, (context_p, model_p, error_p)),
    ("strata_record_key", json_p, (model_p,)),
    ("strata_record_is_stub", c_int, (model_p,)),
    ("strata_schema_relationship", c_int, (schema_p, c_char_p, c_char_p, error_p)),
    (
        "strata_schema_builder_add_key_injector",
        c_int,
        (builder_p, c_char_p, KEY_FN, c_void_p, RELEASE_FN, error_p),
    ),
)


def _declare(lib: ctypes.CDLL, path: Path) -> None:
    """Sets restype and argtypes of every function of :data:`FUNCTIONS`."""
    for name, restype, argtypes in FUNCTIONS:
        try:
            func = getattr(lib, name)
        except AttributeError as exc:
            raise ImportError(
                f"strata: {path} does not export {name}(); "
                f"is it an older or incomplete build of libstrata?"
            ) from exc
        func.restype = restype
        func.argtypes = list(argtypes)


library_path: Path = find_library()
lib: ctypes.CDLL = _load(library_path)
_declare(lib, library_path)


def text(raw: Optional[bytes]) -> str:
    """Decodes a UTF-8 string from the library ("" for NULL)."""
    if raw is None:
        return ""
    return raw.decode("utf-8", errors="replace")
