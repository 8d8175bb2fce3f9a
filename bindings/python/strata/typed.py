"""The runtime of generated typed classes (``strata codegen python``).

A generated class is a read-only view over a :class:`strata.Model` or a
graph :class:`strata.Record`: its attributes read the model's canonical
values through the engine and convert them (``date`` -> aware
:class:`datetime.datetime`, nested models -> the generated classes, lists and
dictionaries element by element). On a record, a relationship attribute is
the related record's view (to-one) or a list of them (to-many), as the
record leads to them now. Mapping,
validation, merging and diffs are the engine's; nothing here maps JSON.
"""

from __future__ import annotations

import datetime
import json
import threading
from typing import Any, ClassVar, Dict, List, Optional, Tuple, Type, TypeVar, Union

from ._graph import Record
from ._handles import JSONInput
from ._model import Model
from ._schema import Schema

__all__ = ["JSONValue", "TypedModel", "TypedSchema"]

#: A ``json`` property's value: any JSON value as Python data.
JSONValue = Union[None, bool, int, float, str, List[Any], Dict[str, Any]]

T = TypeVar("T", bound="TypedModel")

_ABSENT = object()


class TypedSchema:
    """The schema behind one generated module, loaded on first use from the
    embedded document (or given with :meth:`bind`), and the module's classes
    by model name."""

    def __init__(self, document: Optional[str]) -> None:
        self._document = document
        self._schema: Optional[Schema] = None
        self._lock = threading.Lock()
        self.classes: Dict[str, Type[TypedModel]] = {}

    def bind(self, schema: Schema) -> None:
        """Use ``schema`` for this module's classes (one with host transformers, say)."""
        if not isinstance(schema, Schema):
            raise TypeError(f"strata: bind takes a Schema, not {type(schema).__name__}")
        missing = [name for name in self.classes if name not in schema.models]
        if missing:
            raise ValueError(f"strata: the schema has no model {missing[0]!r} of these classes")
        with self._lock:
            self._schema = schema

    @property
    def schema(self) -> Schema:
        """The schema (loading the embedded document the first time)."""
        with self._lock:
            if self._schema is None:
                if self._document is None:
                    raise RuntimeError("strata: this module was generated without its schema: call bind(schema) first")
                self._schema = Schema(self._document)
            return self._schema

    def wrap(self, model: Model) -> "TypedModel":
        """The generated class's view of ``model``."""
        cls = self.classes.get(model.model)
        if cls is None:
            raise TypeError(f"strata: no generated class for model {model.model!r}")
        return cls(model)

    def convert(self, descriptor: Tuple[Any, ...], value: Any) -> Any:
        """A canonical value as the attribute's Python type."""
        if value is None:
            return None
        kind = descriptor[0]
        if kind == "plain":
            return value
        if kind == "date":
            return _instant(value)
        if kind == "model":
            if isinstance(value, Model):
                # a record's relationship leads to the related record: its view
                return self.wrap(value)
            name = value.get("$type", descriptor[1]) if isinstance(value, dict) else descriptor[1]
            archive = {"strata-archive": 1, "version": self.schema.version, "model": name, "values": value}
            return self.wrap(self.schema.unarchive(archive))
        if kind == "list":
            return [self.convert(descriptor[1], element) for element in value]
        if kind == "dict":
            return {key: self.convert(descriptor[1], element) for key, element in value.items()}
        raise ValueError(f"strata: unknown type descriptor {descriptor!r}")


def _instant(text: Any) -> datetime.datetime:
    """An RFC 3339 canonical date as an aware datetime (microseconds kept)."""
    if not isinstance(text, str):
        raise TypeError(f"strata: a canonical date is a string, not {type(text).__name__}")
    body = text.replace("Z", "+00:00").replace("z", "+00:00")
    dot = body.find(".")
    if dot >= 0:
        end = dot + 1
        while end < len(body) and body[end].isdigit():
            end += 1
        digits = body[dot + 1 : end][:6].ljust(6, "0")
        body = body[:dot] + "." + digits + body[end:]
    return datetime.datetime.fromisoformat(body)


class TypedModel:
    """The base of generated classes: a view over one :class:`strata.Model`."""

    __strata_model__: ClassVar[str]
    __strata_schema__: ClassVar[TypedSchema]
    __slots__ = ("_model",)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("__strata_model__")
        if isinstance(name, str):
            cls.__strata_schema__.classes[name] = cls

    def __init__(self, model: Model) -> None:
        if not isinstance(model, Model):
            raise TypeError(f"strata: {type(self).__name__} wraps a strata.Model, not {type(model).__name__}")
        expected = type(self).__dict__.get("__strata_model__")
        if expected is not None and model.model != expected:
            raise TypeError(f"strata: {type(self).__name__} wraps a model {expected!r}, not {model.model!r}")
        self._model = model

    @classmethod
    def from_json(cls: Type[T], data: JSONInput) -> T:
        """Maps JSON (str, bytes or Python data) onto this model; raises
        :class:`strata.MappingError` with every error. A class cluster gives
        the chosen subtype's class."""
        return cls.from_model(cls.__strata_schema__.schema.map(cls.__strata_model__, data))

    @classmethod
    def from_model(cls: Type[T], model: Model) -> T:
        """The view of ``model`` (its own model's class: a subtype's, say)."""
        view = cls.__strata_schema__.wrap(model)
        if not isinstance(view, cls):
            raise TypeError(f"strata: a {model.model!r} model is no {cls.__name__}")
        return view

    @classmethod
    def from_dict(cls: Type[T], values: Dict[str, Any]) -> T:
        """A model from its canonical dictionary (what :meth:`to_dict` gives)."""
        schema = cls.__strata_schema__.schema
        name = values.get("$type", cls.__strata_model__)
        archive = {"strata-archive": 1, "version": schema.version, "model": name, "values": values}
        return cls.from_model(schema.unarchive(archive))

    @property
    def model(self) -> Model:
        """The engine's model this view reads."""
        return self._model

    def _read(self, name: str, descriptor: Tuple[Any, ...], required: bool) -> Any:
        value = self._model.get(name, _ABSENT)
        if value is _ABSENT:
            if required:
                raise AttributeError(f"{self._model.model}.{name} is absent")
            return None
        return self.__strata_schema__.convert(descriptor, value)

    def to_dict(self) -> Dict[str, Any]:
        """The canonical dictionary."""
        return self._model.to_dict()

    def to_json(self) -> Any:
        """The model serialized back to the API's JSON, as Python data."""
        return self._model.to_json()

    def merge(self: T, other: T) -> None:
        """Merges ``other`` into this model, per property policy (engine's ``merge``)."""
        self._model.merge(other.model)

    def update(self, data: JSONInput) -> None:
        """Applies a partial JSON update, all or nothing (engine's ``update``)."""
        self._model.update(data)

    def diff(self: T, other: T) -> List[Dict[str, Any]]:
        """The RFC 6902 patch from this model to ``other``."""
        return self._model.diff(other.model)

    def patch(self: T, ops: JSONInput) -> T:
        """A new model: this one with the RFC 6902 patch ``ops`` applied."""
        return type(self).from_model(self._model.patch(ops))

    def copy(self: T) -> T:
        """A deep copy."""
        return type(self).from_model(self._model.copy())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TypedModel):
            return NotImplemented
        return type(self) is type(other) and self._model == other._model

    def __hash__(self) -> int:
        return hash(self._model)

    def _own_values(self) -> Dict[str, Any]:
        """The canonical dictionary; a record's relationships as keys (its
        nested dictionary would write the whole connected graph)."""
        if isinstance(self._model, Record):
            return self._model.to_dict(nested=False)
        return self._model.to_dict()

    def __repr__(self) -> str:
        fields = ", ".join(f"{key}={value!r}" for key, value in self._own_values().items() if key != "$type")
        return f"{type(self).__name__}({fields})"

    def __str__(self) -> str:
        return json.dumps(self._own_values(), ensure_ascii=False)
