"""Model: one model instance, a wrapper of a ``strata_model_t *``."""

from __future__ import annotations

import ctypes
import datetime
from ctypes import byref, c_int64
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional

from ._errors import MappingError, StrataError
from ._handles import JSONInput, dumps, encode, json_handle, last_errors, take_json
from ._native import STRATA_OK, lib, strata_error_t, text

if TYPE_CHECKING:  # for annotations only: _schema sits above this module
    from ._schema import Schema

__all__ = ["Model", "adopt_model", "model_adopter"]

_REPR_ITEMS = 3
_REPR_VALUE_WIDTH = 40


class Model:
    """One model instance: a set of property values, made by :meth:`Schema.map`.

    ``m["title"]`` is a property's canonical value as Python data (``None`` for
    a property set to null); ``KeyError`` for a property that is absent or not
    in the model. ``m.get("title")`` gives ``None`` (or a default) for an absent
    property and raises ``KeyError`` for a name the model does not have. ``"title" in m`` tells whether a property holds a value or
    null. ``m.to_dict()`` is the canonical dictionary, ``m.to_json()`` the
    model serialized back to JSON.
    """

    __slots__ = ("_handle", "_schema", "_name", "__weakref__")

    _handle: int
    _schema: Schema
    _name: Optional[str]

    # Held by the class, so that a model collected while the interpreter shuts
    # down still finds it. A model is released by __del__ rather than a
    # weakref.finalize, which is dearer per model (Benchmarks/README.md,
    # "Choices the figures made"), and map_many makes thousands at a time.
    _release = staticmethod(lib.strata_model_decref)

    def __init__(self) -> None:
        raise TypeError(
            "strata.Model objects are made by Schema.map(), Schema.map_many() and Schema.map_response()"
        )

    def __del__(self) -> None:
        try:
            handle = self._handle
        except AttributeError:  # never adopted a handle (Model() raised)
            return
        self._release(handle)

    @property
    def model(self) -> str:
        """The name of the model's model type."""
        if self._name is None:
            self._name = text(lib.strata_model_name(self._handle))
        return self._name

    @property
    def schema(self) -> Schema:
        """The schema the model belongs to."""
        return self._schema

    def _get(self, prop: object) -> Optional[int]:
        """A new json_t reference to the value of ``prop``, or None when it is
        absent. ``KeyError`` naming the model and ``prop`` when the model has
        no such property (a typo never passes as an absent value)."""
        if not isinstance(prop, str):
            raise self._no_property(prop)
        raw = prop.encode("utf-8")
        if b"\0" in raw:
            raise self._no_property(prop)
        error = strata_error_t()
        handle: Optional[int] = lib.strata_model_get(self._handle, raw, byref(error))
        if handle is None and error.code != STRATA_OK:
            # the engine's message names the model and the property, with a
            # "did you mean" for a near name
            raise KeyError(error.message.decode("utf-8", "replace"))
        return handle

    def _no_property(self, prop: object) -> KeyError:
        return KeyError(f"model {self.model!r} has no property {prop!r}")

    def __getitem__(self, prop: str) -> Any:
        """The canonical value of ``prop`` (``None`` when null). ``KeyError``
        when it is absent, or when the model has no such property (then the
        message names the model and the property)."""
        handle = self._get(prop)
        if handle is None:
            raise KeyError(prop)
        return take_json(handle)

    def date(self, prop: str) -> Optional[datetime.datetime]:
        """The instant a ``date`` property holds, as an aware UTC ``datetime``
        (microsecond precision; ``m[prop]`` keeps the canonical RFC 3339 string
        with every digit). ``None`` when the property is absent or null;
        ``KeyError`` when ``prop`` is not a date property of the model."""
        if not isinstance(prop, str):
            raise TypeError(f"strata: a property name must be a str, not {type(prop).__name__}")
        seconds = c_int64()
        nanoseconds = ctypes.c_int32()
        error = strata_error_t()
        status = lib.strata_model_get_date(
            self._handle, prop.encode("utf-8"), byref(seconds), byref(nanoseconds), byref(error)
        )
        if status < 0:
            raise KeyError(prop)
        if status == 0:
            return None
        epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        return epoch + datetime.timedelta(seconds=seconds.value, microseconds=nanoseconds.value // 1000)

    def get(self, prop: str, default: Any = None) -> Any:
        """The value of ``prop`` (``None`` when null), or ``default`` when it is
        absent. ``KeyError`` naming the model and ``prop`` when the model has
        no such property: a misspelt name is an error, not an absent value."""
        handle = self._get(prop)
        if handle is None:
            return default
        return take_json(handle)

    def __contains__(self, prop: object) -> bool:
        if not isinstance(prop, str):
            return False
        raw = prop.encode("utf-8")
        if b"\0" in raw:
            return False
        error = strata_error_t()
        return int(lib.strata_model_has(self._handle, raw, byref(error))) == 1

    def __iter__(self) -> Iterator[str]:
        """The names of the properties that hold a value or null, in schema order."""
        return iter(self.to_dict())

    def to_dict(self) -> Dict[str, Any]:
        """The canonical dictionary: property name -> canonical value, absent left out."""
        error = strata_error_t()
        handle = lib.strata_model_dictionary(self._handle, byref(error))
        if handle is None:
            raise StrataError(last_errors(error), "strata_model_dictionary failed")
        result: Dict[str, Any] = take_json(handle)
        return result

    def to_json(self) -> Any:
        """The model serialized back to JSON, as Python data."""
        error = strata_error_t()
        handle = lib.strata_model_to_json(self._handle, byref(error))
        if handle is None:
            raise StrataError(last_errors(error), "strata_model_to_json failed")
        return take_json(handle)

    def merge(self, other: "Model") -> None:
        """Merges ``other`` into this model, in place, by each property's
        ``merge`` policy (replace, keep, merge, append, union, max, min or a
        registered merger). ``other`` must be of this model or one related by
        ``extends``. All or nothing: on error this model is unchanged.
        (The hash follows the values: don't change a model kept in a set.)"""
        if not isinstance(other, Model):
            raise TypeError(f"strata: can only merge a Model, not {type(other).__name__}")
        error = strata_error_t()
        if lib.strata_model_merge(self._handle, other._handle, byref(error)) != 0:
            raise MappingError(last_errors(error), f"cannot merge into {self.model!r}")

    def update(self, data: Any) -> None:
        """Updates this model, in place, from API data (a dict, ``str`` or
        ``bytes``): JSON Merge Patch lifted to models. Keys present are mapped,
        validated and merged by policy; keys not present are untouched; ``None``
        clears. All or nothing: on error nothing changes and every error is raised."""
        buffer = encode(data)
        error = strata_error_t()
        if lib.strata_model_updateb(self._handle, buffer, len(buffer), byref(error)) != 0:
            raise MappingError(last_errors(error), f"cannot update {self.model!r}")

    # -- diff and patch, archives ------------------------------------------

    def diff(self, other: "Model") -> List[Dict[str, Any]]:
        """The changes from this model to ``other`` (of the same model and
        schema) as an RFC 6902 JSON Patch over the canonical dictionaries:
        ``m.patch(m.diff(other)) == other``. Raises :class:`MappingError`
        (code ``argument``) for models of different schemas or models."""
        other = _same_kind(other)
        error = strata_error_t()
        handle = lib.strata_model_diff(self._handle, other._handle, byref(error))
        if not handle:
            raise MappingError(last_errors(error), f"cannot diff {self.model!r}")
        result: List[Dict[str, Any]] = take_json(handle)
        return result

    def merge_diff(self, other: "Model") -> Dict[str, Any]:
        """The changes from this model to ``other`` as a merge patch (RFC 7396,
        lifted: ``None`` sets a property to null): ``m.merge_patch(m.merge_diff(other))
        == other``. A property this model holds and ``other`` lacks cannot be
        said in a merge patch: :class:`MappingError` names it (use :meth:`diff`)."""
        other = _same_kind(other)
        error = strata_error_t()
        handle = lib.strata_model_diff_merge(self._handle, other._handle, byref(error))
        if not handle:
            raise MappingError(last_errors(error), f"cannot merge-diff {self.model!r}")
        result: Dict[str, Any] = take_json(handle)
        return result

    def patch(self, ops: JSONInput) -> "Model":
        """A new model: this one with the RFC 6902 JSON Patch ``ops`` (a list of
        operations, or its JSON text) applied to its canonical dictionary.
        Raises :class:`MappingError`: ``argument`` errors for a failing
        operation (paths into the patch, ``/2/path``), mapping errors for an
        invalid result (paths into the patched dictionary)."""
        return self._patched(lib.strata_model_patch, ops, "patch")

    def merge_patch(self, patch: JSONInput) -> "Model":
        """A new model: this one with the lifted merge patch ``patch`` (a dict,
        or its JSON text; ``None`` sets null) applied to its canonical dictionary."""
        return self._patched(lib.strata_model_merge_patch, patch, "merge-patch")

    def _patched(self, function: Any, patch: JSONInput, what: str) -> "Model":
        patch_handle = json_handle(patch, f"cannot {what} {self.model!r}")
        try:
            error = strata_error_t()
            handle = function(self._handle, patch_handle, byref(error))
        finally:
            lib.strata_json_decref(patch_handle)
        if not handle:
            raise MappingError(last_errors(error), f"cannot {what} {self.model!r}")
        return adopt_model(handle, self._schema)

    def archive(self) -> str:
        """A self-describing archive of the model as JSON text:
        ``{"strata-archive": 1, "version": V, "model": "Name", "values": {...}}``,
        the values being the canonical dictionary with ``$type``, ``$unknown``
        and the properties ``json: false`` hides. ``schema.unarchive()`` restores it."""
        error = strata_error_t()
        handle = lib.strata_model_archive(self._handle, byref(error))
        if not handle:
            raise StrataError(last_errors(error), "strata_model_archive failed")
        try:
            return dumps(handle)
        finally:
            lib.strata_json_decref(handle)

    def copy(self) -> "Model":
        """A deep copy that shares no mutable state with this model."""
        handle = lib.strata_model_copy(self._handle)
        if handle is None:
            raise MemoryError("strata: strata_model_copy() returned NULL")
        return adopt_model(handle, self._schema)

    def __copy__(self) -> "Model":
        return self.copy()

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Model":
        return self.copy()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Model):
            return NotImplemented
        return bool(lib.strata_model_equal(self._handle, other._handle))

    def __hash__(self) -> int:
        return int(lib.strata_model_hash(self._handle))

    def __repr__(self) -> str:
        try:
            values = self.to_dict()
        except Exception:  # a repr never raises
            return f"<strata.Model {self.model} at {self._handle:#x}>"
        shown = _repr_keys(values)
        parts = [f"{key}={_short(values[key])}" for key in shown]
        if len(values) > len(shown):
            parts.append("...")
        return "<strata.Model " + " ".join([self.model, *parts]) + ">"

    def __reduce__(self) -> Any:
        raise TypeError(
            "strata.Model objects cannot be pickled; pickle m.to_json() and map it again"
        )


#: Property names that usually identify a model; repr shows them first.
_IDENTIFYING = ("id", "number", "name", "title", "login", "key", "slug", "uuid")


def _repr_keys(values: Dict[str, Any]) -> List[str]:
    """The few properties repr shows: scalars, identifying names first, else schema order."""
    scalars = [key for key, value in values.items() if not isinstance(value, (dict, list))]
    first = [key for key in scalars if key.lower() in _IDENTIFYING]
    rest = [key for key in scalars if key.lower() not in _IDENTIFYING]
    return (first + rest)[:_REPR_ITEMS]


def _short(value: Any) -> str:
    """A short repr of a canonical value for Model.__repr__."""
    if isinstance(value, str) and len(value) > _REPR_VALUE_WIDTH:
        return repr(value[: _REPR_VALUE_WIDTH - 3] + "...")
    return repr(value)


def _same_kind(other: Any) -> "Model":
    if not isinstance(other, Model):
        raise TypeError(f"strata: can only diff against a Model, not {type(other).__name__}")
    return other


def model_adopter(schema: Schema) -> Callable[[int], Model]:
    """The function that wraps a new model reference of ``schema`` in a
    :class:`Model`, which then owns it (the ``wrap`` of
    :func:`~strata._handles.adopt_array`: a plain function, as map_many and
    map_lines call it for every model)."""
    make = object.__new__

    def adopt(handle: int) -> Model:
        model: Model = make(Model)
        model._schema = schema
        model._name = None
        model._handle = handle  # last: the wrapper owns the handle once made
        return model

    return adopt


def adopt_model(handle: int, schema: Schema) -> Model:
    """Wraps one new model reference of ``schema``; the wrapper releases it."""
    return model_adopter(schema)(handle)
