"""Typed classes for a schema's models: ``strata.codegen.python(schema)``.

The engine writes the module (the same text as ``strata codegen python``);
its classes are views over :class:`strata.Model` (runtime: :mod:`strata.typed`).
See docs/codegen.md.
"""

from __future__ import annotations

from ctypes import byref

from ._errors import StrataError
from ._handles import last_errors, take_string
from ._native import lib, strata_error_t
from ._schema import Schema

__all__ = ["python"]


def python(schema: Schema) -> str:
    """The Python module of typed classes for every model of ``schema``.

    The schema's document is embedded when the Schema keeps it (one made from
    text, bytes, a dict or a file), so the module works on its own; otherwise
    call the module's ``bind(schema)`` first."""
    if not isinstance(schema, Schema):
        raise TypeError(f"strata: codegen.python takes a Schema, not {type(schema).__name__}")
    document = getattr(schema, "_document", None)
    error = strata_error_t()
    raw = lib.strata_schema_codegen_python(schema._handle, document, byref(error))
    if not raw:
        raise StrataError(last_errors(error), "codegen failed")
    return take_string(raw)
