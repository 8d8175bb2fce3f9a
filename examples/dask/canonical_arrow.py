"""An Arrow schema for a model's canonical dictionaries, read from the
model's JSON Schema (``schema.json_schema(model, canonical=True)``).

Every partition writes its Parquet file with this one schema, so a file whose
records all lack a property, or a file with no good line at all, still reads
back with the same columns and types as the others.

    integer -> int64        number -> float64         boolean -> bool
    string  -> string       date-time -> timestamp[us, UTC]
    enum of strings -> string
    array   -> list         object (a model) -> struct
    anything else (a "json" property, a recursive model) -> its JSON text
"""

from __future__ import annotations

import datetime
import json
from typing import Any, Callable, Dict, FrozenSet, List, Tuple

import pyarrow as pa

import strata

#: Turns one canonical value into what the Arrow type holds (None stays None).
Convert = Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


def _json_text(value: Any) -> Any:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _timestamp(value: Any) -> Any:
    return None if value is None else datetime.datetime.fromisoformat(value)


class _Reader:
    def __init__(self, document: Dict[str, Any]) -> None:
        self.defs: Dict[str, Any] = document.get("$defs", {})

    def field(self, node: Dict[str, Any], seen: FrozenSet[str]) -> Tuple[pa.DataType, Convert]:
        """The Arrow type of a JSON Schema node, and how to convert its values."""
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref[len("#/$defs/") :]
            if name in seen:  # a recursive model: Arrow types are finite
                return pa.string(), _json_text
            return self.field(self.defs[name], seen | {name})
        choices = node.get("anyOf")
        if isinstance(choices, list):  # "User?": null or the model
            others = [choice for choice in choices if choice != {"type": "null"}]
            if len(others) == 1:
                return self.field(others[0], seen)
            return pa.string(), _json_text
        if "enum" in node:
            if all(isinstance(value, str) for value in node["enum"] if value is not None):
                return pa.string(), _same
            return pa.string(), _json_text
        kind = node.get("type")
        if isinstance(kind, list):  # ["string", "null"]
            kinds = [k for k in kind if k != "null"]
            kind = kinds[0] if len(kinds) == 1 else None
        if kind == "integer":
            return pa.int64(), _same
        if kind == "number":
            return pa.float64(), lambda value: None if value is None else float(value)
        if kind == "boolean":
            return pa.bool_(), _same
        if kind == "string":
            if node.get("format") == "date-time":
                return pa.timestamp("us", tz="UTC"), _timestamp
            return pa.string(), _same
        if kind == "array" and isinstance(node.get("items"), dict):
            item_type, convert_item = self.field(node["items"], seen)
            return pa.list_(item_type), lambda value: None if value is None else [convert_item(v) for v in value]
        if kind == "object" and isinstance(node.get("properties"), dict):
            return self.struct(node["properties"], seen)
        return pa.string(), _json_text  # "json": any value, kept as its JSON text

    def struct(self, properties: Dict[str, Any], seen: FrozenSet[str]) -> Tuple[pa.DataType, Convert]:
        fields: List[pa.Field] = []
        converts: List[Tuple[str, Convert]] = []
        for name, node in properties.items():
            arrow_type, convert = self.field(node, seen)
            fields.append(pa.field(name, arrow_type))
            converts.append((name, convert))

        def convert_object(value: Any) -> Any:
            if value is None:
                return None
            return {name: convert(value.get(name)) for name, convert in converts}

        return pa.struct(fields), convert_object


class CanonicalTable:
    """The Arrow schema of ``model``'s canonical dictionaries, and
    :meth:`batch` to turn a list of them into a ``pyarrow.RecordBatch``."""

    def __init__(self, schema: strata.Schema, model: str) -> None:
        document = schema.json_schema(model, canonical=True)
        reader = _Reader(document)
        root = reader.defs[model]
        self._columns: List[Tuple[str, Convert]] = []
        fields: List[pa.Field] = []
        for name, node in root.get("properties", {}).items():
            arrow_type, convert = reader.field(node, frozenset({model}))
            fields.append(pa.field(name, arrow_type, nullable=True))
            self._columns.append((name, convert))
        self.arrow_schema: pa.Schema = pa.schema(fields)

    def batch(self, rows: List[Dict[str, Any]]) -> pa.RecordBatch:
        """The canonical dictionaries ``rows`` as one record batch (an absent
        property is null)."""
        arrays = [
            pa.array([convert(row.get(name)) for row in rows], type=self.arrow_schema.field(name).type)
            for name, convert in self._columns
        ]
        return pa.RecordBatch.from_arrays(arrays, schema=self.arrow_schema)

