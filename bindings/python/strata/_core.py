"""Schema and Model: thin wrappers over libstrata handles."""

from __future__ import annotations

import ctypes
import datetime
import io
import json
import math
import os
import pickle
import stat
import weakref
from ctypes import byref, c_int64, c_size_t
from typing import (
    Any,
    Dict,
    Iterator,
    List,
    Mapping,
    Optional,
    Tuple,
    Union,
)

from typing import TYPE_CHECKING

from . import _native, _pickling
from ._errors import ErrorEntry, LineError, MappingError, SchemaError, StrataError
from ._native import lib, strata_error_t
from ._transformers import new_builder

if TYPE_CHECKING:
    from ._graph import Context

__all__ = ["Schema", "Model", "Response", "JSONInput", "compare"]

#: What map() and Schema() accept: JSON text (str or bytes) or Python data
#: that the json module can encode (dicts, lists, ...).
JSONInput = Union[
    str, bytes, bytearray, memoryview, Dict[str, Any], List[Any], Tuple[Any, ...], int, float, bool, None
]

_REPR_ITEMS = 3
_REPR_VALUE_WIDTH = 40


def _encode(data: Any) -> bytes:
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
    except (ValueError, UnicodeEncodeError) as exc:
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
            text = str(key).encode("utf-8", "backslashreplace").decode("utf-8")
            step = text.replace("~", "~0").replace("/", "~1")
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


_LINES_CHUNK = 1 << 16
# The read buffer of a binary file's lines (see _line_chunks): 64 KiB, not
# the C functions' 256 KiB, because each buffer's models are made at once and
# released in their turn (with 256 KiB, map_lines on the issues bench took
# 180-220 ms instead of 153: the release ran out of the core's cache).
_LINES_BUFFER = 1 << 16


def _line_chunks(source: Any) -> Iterator[Union[bytes, memoryview]]:
    """The bytes of a map_lines source, in chunks (generator; closes the
    files it opens). A binary file's chunks are views of one buffer, each
    valid until the next."""
    if isinstance(source, str):
        source = source.encode("utf-8", "surrogatepass")
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        for start in range(0, len(data), _LINES_CHUNK):
            yield data[start : start + _LINES_CHUNK]
        return
    if isinstance(source, os.PathLike):
        with open(source, "rb") as file:
            yield from _line_chunks(file)
        return
    if isinstance(source, io.TextIOBase):
        # A text file translates newlines (a lone \r, JSON whitespace, would
        # end a line): read its bytes instead when nothing is decoded ahead.
        raw = getattr(source, "buffer", None)
        try:
            untouched = raw is not None and source.tell() == raw.tell()
        except (OSError, ValueError, AttributeError):
            untouched = False
        if untouched:
            yield from _line_chunks(raw)
            return
    readinto = getattr(source, "readinto", None)
    if callable(readinto) and not isinstance(source, io.TextIOBase):
        # One buffer for the whole file (a new bytes object per read makes
        # the allocator consolidate its free lists every time). Each chunk
        # ends at the last newline read: the unfinished line moves to the
        # front and the next read lands after it, so the engine parses every
        # line shorter than the buffer in place (as strata_map_lines_file).
        buffer = bytearray(_LINES_BUFFER)
        view = memoryview(buffer)
        held = 0
        while True:
            size = readinto(view[held:])
            if not size:
                if held:
                    yield view[:held]
                return
            filled = held + size
            end = buffer.rfind(b"\n", held, filled) + 1
            if end == 0:
                if filled < len(buffer):
                    held = filled
                    continue
                end = filled  # a line longer than the buffer: the engine gathers it
            yield view[:end]
            held = filled - end
            if held:
                buffer[:held] = buffer[end:filled]
        return
    read = getattr(source, "read", None)
    if callable(read):
        while True:
            chunk = read(_LINES_CHUNK)
            if not chunk:
                return
            yield chunk.encode("utf-8", "surrogatepass") if isinstance(chunk, str) else bytes(chunk)
    try:
        lines = iter(source)
    except TypeError:
        raise TypeError(
            "strata: map_lines takes a file, a path, JSON lines text or an iterable of lines, "
            f"not {type(source).__name__}"
        ) from None
    for line in lines:
        if isinstance(line, str):
            line = line.encode("utf-8", "surrogatepass")
        elif isinstance(line, (bytearray, memoryview)):
            line = bytes(line)
        elif not isinstance(line, bytes):
            raise TypeError(f"strata: a line must be str or bytes, not {type(line).__name__}")
        yield line if line.endswith(b"\n") else line + b"\n"


def _argument_error(message: str, path: str = "") -> ErrorEntry:
    return {"path": path, "model": "", "property": "", "code": "argument", "message": message}


class Schema:
    """A loaded, checked, immutable schema.

    ``Schema(doc)`` loads the schema document ``doc``: a dict, or its JSON
    text as ``str`` or ``bytes``. ``Schema.from_file(path)`` reads it from a
    file. Both raise :class:`SchemaError` with every problem of the document.

    A schema pickles as its document plus its transformers and mergers by
    reference (module and qualified name), and is loaded once per process
    that unpickles it (strata/_pickling.py): it can travel to Dask or Spark
    workers.
    """

    __slots__ = (
        "_handle",
        "_finalizer",
        "_version",
        "_models",
        "_document",
        "_callables",
        "_injectors",
        "__weakref__",
    )

    _handle: int
    _finalizer: weakref.finalize[Any, Any]
    _version: int
    _models: List[str]
    # What pickling needs (strata/_pickling.py): the document's JSON text (None
    # when a file could not be read back), and the transformers and mergers.
    _document: Optional[bytes]
    _callables: Tuple[Optional[Dict[str, Any]], Optional[Dict[str, Any]]]

    def __init__(
        self,
        doc: Union[str, bytes, bytearray, memoryview, Mapping[str, Any]],
        transformers: Optional[Mapping[str, Any]] = None,
        mergers: Optional[Mapping[str, Any]] = None,
        key_injectors: Optional[Mapping[str, Any]] = None,
    ) -> None:
        _check_transformers(transformers)
        if isinstance(doc, os.PathLike):
            raise TypeError("strata: Schema() takes a document; use Schema.from_file(path) for a file")
        if isinstance(doc, Mapping) and not isinstance(doc, dict):
            doc = dict(doc)
        buffer = _encode(doc)
        error = strata_error_t()
        if transformers or mergers or key_injectors:
            builder = new_builder(transformers or {}, mergers, key_injectors)
            try:
                handle = lib.strata_schema_builder_loadb(builder, buffer, len(buffer), byref(error))
            finally:
                lib.strata_schema_builder_free(builder)
        else:
            handle = lib.strata_schema_loadb(buffer, len(buffer), byref(error))
        if not handle:
            raise SchemaError(_native.last_errors(error), "invalid schema")
        self._adopt(handle)
        self._keep_for_pickling(buffer, transformers, mergers)
        self._injectors = bool(key_injectors)

    @classmethod
    def from_file(
        cls,
        path: Union[str, "os.PathLike[str]", "os.PathLike[bytes]", bytes],
        transformers: Optional[Mapping[str, Any]] = None,
        mergers: Optional[Mapping[str, Any]] = None,
    ) -> "Schema":
        """Loads the schema document in the file at ``path``."""
        _check_transformers(transformers)
        raw = os.fsencode(path)
        if b"\0" in raw:
            raise ValueError(f"strata: a path cannot contain NUL: {path!r}")
        error = strata_error_t()
        if transformers or mergers:
            builder = new_builder(transformers or {}, mergers)
            try:
                handle = lib.strata_schema_builder_load_file(builder, raw, byref(error))
            finally:
                lib.strata_schema_builder_free(builder)
        else:
            handle = lib.strata_schema_load_file(raw, byref(error))
        if not handle:
            raise SchemaError(
                _native.last_errors(error), f"cannot load schema {os.fsdecode(raw)!r}"
            )
        schema = cls.__new__(cls)
        schema._adopt(handle)
        # The document, for pickling: read back right after loading (schemas
        # are small), from a regular file only: a pipe cannot be read twice.
        document: Optional[bytes] = None
        try:
            if stat.S_ISREG(os.stat(raw).st_mode):
                with open(raw, "rb") as file:
                    document = file.read()
        except OSError:
            pass
        schema._keep_for_pickling(document, transformers, mergers)
        return schema

    def _keep_for_pickling(
        self,
        document: Optional[bytes],
        transformers: Optional[Mapping[str, Any]],
        mergers: Optional[Mapping[str, Any]],
    ) -> None:
        self._document = document
        self._callables = (
            dict(transformers) if transformers else None,
            dict(mergers) if mergers else None,
        )

    def _adopt(self, handle: int) -> None:
        self._handle = handle
        self._finalizer = weakref.finalize(self, lib.strata_schema_decref, handle)
        self._version = int(lib.strata_schema_version(handle))
        count = int(lib.strata_schema_model_count(handle))
        self._models = [
            _native.text(lib.strata_schema_model_name(handle, index)) for index in range(count)
        ]

    @property
    def version(self) -> int:
        """The schema's ``version`` (0 when the document declares none)."""
        return self._version

    @property
    def models(self) -> List[str]:
        """The names of the schema's models, in the document's order."""
        return list(self._models)

    def json_schema(self, model: str, *, canonical: bool = False) -> Dict[str, Any]:
        """The JSON Schema (draft 2020-12) of model ``model``: of the JSON the
        API sends (what :meth:`map` accepts), or with ``canonical=True`` of the
        canonical dictionary (what :meth:`Model.to_dict` gives). Every model
        reached is a ``$defs`` entry. Raises :class:`StrataError` (code
        ``argument``) for an unknown model. Limits: docs/tools.md."""
        name = self._model_name(model)
        error = strata_error_t()
        handle = lib.strata_schema_json_schema(self._handle, name, 1 if canonical else 0, byref(error))
        if not handle:
            raise StrataError(_native.last_errors(error), f"no JSON Schema for {model!r}")
        result: Dict[str, Any] = _native.take_json(handle)
        return result

    def diagram(self, format: str = "mermaid") -> str:
        """A class diagram of the models as text: ``"mermaid"`` (a Mermaid
        ``classDiagram``) or ``"dot"`` (Graphviz). Raises :class:`StrataError`
        (code ``argument``) for another format."""
        if not isinstance(format, str):
            raise TypeError(f"strata: a diagram format must be a str, not {type(format).__name__}")
        error = strata_error_t()
        raw = lib.strata_schema_diagram(self._handle, format.encode("utf-8"), byref(error))
        if not raw:
            raise StrataError(_native.last_errors(error), f"no {format!r} diagram")
        try:
            return ctypes.string_at(raw).decode("utf-8")
        finally:
            lib.strata_free(ctypes.c_void_p(raw))

    def map(self, model: str, data: JSONInput) -> "Model":
        """Maps ``data`` onto a new model named ``model``.

        ``data`` is JSON text (``str``/``bytes``) or Python data (a dict).
        Raises :class:`MappingError` with every error of the input.
        """
        name = self._model_name(model)
        buffer = _encode(data)
        error = strata_error_t()
        handle = lib.strata_mapb(self._handle, name, buffer, len(buffer), byref(error))
        if not handle:
            raise MappingError(_native.last_errors(error), f"cannot map {model!r}")
        return Model._adopt(handle, self)

    def map_many(self, model: str, data: JSONInput) -> List["Model"]:
        """Maps every element of the JSON array ``data`` onto a model named ``model``.

        Raises :class:`MappingError` with every error of every element
        (paths name the element: ``/3/title``); then no model is made.
        """
        name = self._model_name(model)
        buffer = _encode(data)
        error = strata_error_t()
        count = c_size_t(0)
        array = lib.strata_map_manyb(
            self._handle, name, buffer, len(buffer), byref(count), byref(error)
        )
        if not array:
            raise MappingError(_native.last_errors(error), f"cannot map {model!r} (many)")
        try:
            handles = array[: count.value]
            models = []
            for index, handle in enumerate(handles):
                try:
                    models.append(Model._adopt(handle, self))
                except BaseException:
                    for rest in handles[index:]:
                        lib.strata_model_decref(rest)
                    raise
            return models
        finally:
            lib.strata_free(ctypes.cast(array, ctypes.c_void_p))

    def map_lines(
        self,
        model: str,
        source: Any,
        *,
        on_error: str = "raise",
        max_line_length: Optional[int] = None,
    ) -> Iterator[Union["Model", LineError]]:
        """Maps JSON lines onto models named ``model``, one line at a time
        (docs/lines.md): a generator of one :class:`Model` per line.

        ``source`` is a file object (binary or text, read in pieces,
        never whole), a path (``os.PathLike``, e.g. ``pathlib.Path``), JSON
        lines text (``str`` or ``bytes``, as :meth:`map` takes text), or any
        other iterable of lines (``str`` or ``bytes``; a file's lines). Lines
        end at ``"\\n"`` (a trailing ``"\\r"`` is removed); blank lines are
        skipped but counted; line numbers start at 1.

        A bad line (not JSON, or not mapping) raises :class:`MappingError`
        with ``on_error="raise"`` (the default), after the models of the lines
        before it; its errors carry ``"line"``. With ``on_error="yield"`` it
        yields a :class:`LineError` in its place and goes on, so one bad line
        never stops a long file. Lines longer than ``max_line_length`` bytes
        (default 64 MiB) are errors, skipped without being kept in memory.
        """
        if on_error not in ("raise", "yield"):
            raise ValueError(f'strata: on_error must be "raise" or "yield", not {on_error!r}')
        if max_line_length is not None and (
            not isinstance(max_line_length, int) or max_line_length < 1
        ):
            raise ValueError("strata: max_line_length must be a positive int or None")
        name = self._model_name(model)
        error = strata_error_t()
        handle = lib.strata_lines_new(self._handle, name, max_line_length or 0, byref(error))
        if not handle:
            raise MappingError(_native.last_errors(error), f"cannot map lines of {model!r}")
        return self._lines(handle, _line_chunks(source), on_error == "raise")

    def _lines(
        self, handle: int, chunks: Iterator[Union[bytes, memoryview]], raising: bool
    ) -> Iterator[Union["Model", LineError]]:
        # One C call per chunk hands back the chunk's lines in an array (a
        # callback per line would cost more than the line); the Models are
        # made at once, as map_many makes them, so each handle has an owner.
        schema = self
        make = object.__new__
        count = c_size_t()
        bad = ctypes.c_void_p()
        error = strata_error_t()
        feed = lib.strata_lines_feed_array
        try:
            finished = False
            while not finished:
                chunk = next(chunks, None)
                if chunk is None:
                    finished = True
                    array = feed(handle, None, 0, 1, byref(count), byref(bad), byref(error))
                else:
                    size = len(chunk)
                    # a view of the read buffer (never empty) goes by address:
                    # an array type per chunk size would be made, and cached
                    # by ctypes, for every size met
                    data = byref(ctypes.c_char.from_buffer(chunk)) if type(chunk) is memoryview else chunk
                    array = feed(handle, data, size, 0, byref(count), byref(bad), byref(error))
                if not array:
                    raise MappingError(_native.last_errors(error), "cannot map lines")
                try:
                    handles = array[: count.value]
                finally:
                    lib.strata_free(ctypes.cast(array, ctypes.c_void_p))
                items: List["Model"] = []
                for model in handles:
                    if model is None:
                        continue
                    wrapper = make(Model)
                    wrapper._handle = model
                    wrapper._schema = schema
                    wrapper._name = None
                    items.append(wrapper)
                if not bad.value:
                    yield from items
                    continue
                # bad lines: a LineError in each NULL entry's place
                failures = iter(_native.take_errors(bad.value))
                bad.value = None
                models = iter(items)
                for model in handles:
                    if model is not None:
                        yield next(models)
                        continue
                    errors = next(failures, [])
                    failure = LineError(int(errors[0].get("line", 0)) if errors else 0, errors)
                    if raising:
                        # the lines after it are dropped with their Models
                        raise failure.exception()
                    yield failure
        finally:
            lib.strata_lines_free(handle)
            close = getattr(chunks, "close", None)
            if close is not None:
                close()

    def map_response(
        self,
        model: str,
        data: JSONInput,
        *,
        root: Optional[str] = None,
        meta: Optional[Mapping[str, str]] = None,
    ) -> "Response":
        """Maps an API response: the records of ``model`` at its root, and the
        paging metadata (docs/responses.md).

        The root is the model's ``root`` in the schema, or ``root`` here (a key
        path or JSON Pointer; ``""`` for the whole response). An array there
        gives one record per element, an object one record, ``None``/``[]``
        none. ``meta`` is ``{"path": key path, "model": model name}`` and
        overrides the schema's ``meta``; metadata that the response leaves out
        is ``None``. ``data`` is JSON text (``str``/``bytes``) or Python data.

        Raises :class:`MappingError` with every error of the records and the
        metadata, paths pointing into the whole response (``/statuses/7/id``);
        a missing root is a ``missing`` error, never an empty result.
        """
        name = self._model_name(model)
        if root is not None and not isinstance(root, str):
            raise TypeError(f"strata: root must be a str or None, not {type(root).__name__}")
        if meta is not None and not isinstance(meta, Mapping):
            raise TypeError(
                'strata: meta must be a mapping {"path": ..., "model": ...} or None, '
                f"not {type(meta).__name__}"
            )
        options: Dict[str, Any] = {}
        if root is not None:
            options["root"] = root
        if meta is not None:
            options["meta"] = dict(meta)
        buffer = _encode(data)
        options_handle = _json_handle(options, f"cannot map a response of {model!r}") if options else None
        error = strata_error_t()
        count = c_size_t(0)
        metadata = _native.model_p()
        try:
            array = lib.strata_map_responseb(
                self._handle,
                name,
                buffer,
                len(buffer),
                options_handle,
                byref(count),
                byref(metadata),
                byref(error),
            )
        finally:
            if options_handle is not None:
                lib.strata_json_decref(options_handle)
        if not array:
            raise MappingError(_native.last_errors(error), f"cannot map a response of {model!r}")
        meta_model = Model._adopt(metadata.value, self) if metadata.value else None
        try:
            handles = array[: count.value]
            records = []
            for index, handle in enumerate(handles):
                try:
                    records.append(Model._adopt(handle, self))
                except BaseException:
                    for rest in handles[index:]:
                        lib.strata_model_decref(rest)
                    raise
            return Response(records, meta_model)
        finally:
            lib.strata_free(ctypes.cast(array, ctypes.c_void_p))

    def context(self, path: Optional[Union[str, "os.PathLike[str]"]] = None) -> "Context":
        """Opens a graph context on this schema (docs/graph.md): in memory
        (``path`` None) or on the SQLite file at ``path``. Also a ``with``
        context manager that closes it."""
        from ._graph import Context

        return Context(self, path)

    def unarchive(self, blob: JSONInput) -> "Model":
        """Restores a model from an archive (JSON text as ``str``/``bytes``, or a
        dict). An archive of an older schema version is brought up to date by
        the schema's ``migrations``; one from a newer version, or an older one
        with no migration path, raises :class:`MappingError` (code ``argument``)
        saying why. Errors of the values point under ``/values``."""
        buffer = _encode(blob)
        error = strata_error_t()
        handle = lib.strata_unarchiveb(self._handle, buffer, len(buffer), byref(error))
        if not handle:
            raise MappingError(_native.last_errors(error), "cannot unarchive")
        return Model._adopt(handle, self)

    def _model_name(self, model: str) -> bytes:
        if not isinstance(model, str):
            raise TypeError(f"strata: a model name must be a str, not {type(model).__name__}")
        raw = model.encode("utf-8")
        if b"\0" in raw:
            raise MappingError(
                [_argument_error(f"no model named {model!r} (a name cannot contain NUL)")],
                f"cannot map {model!r}",
            )
        return raw

    def __repr__(self) -> str:
        names = self._models
        shown = ", ".join(names[:6]) + (f", ... ({len(names)} models)" if len(names) > 6 else "")
        return f"<strata.Schema version={self._version} models=[{shown}]>"

    def __copy__(self) -> "Schema":
        return self  # immutable

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Schema":
        return self

    def __reduce__(self) -> Any:
        """Pickles as the schema document plus the transformers and mergers by
        reference (module and qualified name); unpickling loads the schema
        once per process (strata/_pickling.py). A lambda or a local function
        raises ``pickle.PicklingError`` naming it."""
        document: Optional[bytes] = getattr(self, "_document", None)
        if document is None:
            raise pickle.PicklingError(
                "strata: cannot pickle the Schema: it was loaded from a file that could not be read "
                "again (a pipe?); load it with Schema(text) to pickle it"
            )
        if getattr(self, "_injectors", False):
            raise pickle.PicklingError(
                "strata: a Schema with key injectors does not pickle; make it again where it is needed"
            )
        transformers, mergers = getattr(self, "_callables", (None, None))
        return (_pickling.restore, (document, _pickling.references(transformers, mergers)))


def _check_transformers(transformers: Optional[Mapping[str, Any]]) -> None:
    if transformers is None:
        return
    if not isinstance(transformers, Mapping):
        raise TypeError(
            "strata: transformers must be a mapping of name -> transformer, "
            f"not {type(transformers).__name__}"
        )



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
    # weakref.finalize: that costs a tenth as much, and map_many makes
    # thousands of models at a time.
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

    @classmethod
    def _adopt(cls, handle: int, schema: Schema) -> "Model":
        """Wraps a new model reference; the wrapper releases it."""
        model = cls.__new__(cls)
        model._handle = handle
        model._schema = schema
        model._name = None
        return model

    @property
    def model(self) -> str:
        """The name of the model's model type."""
        if self._name is None:
            self._name = _native.text(lib.strata_model_name(self._handle))
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
        if handle is None and error.code != _native.STRATA_OK:
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
        return _native.take_json(handle)

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
        return _native.take_json(handle)

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
            raise StrataError(_native.last_errors(error), "strata_model_dictionary failed")
        result: Dict[str, Any] = _native.take_json(handle)
        return result

    def to_json(self) -> Any:
        """The model serialized back to JSON, as Python data."""
        error = strata_error_t()
        handle = lib.strata_model_to_json(self._handle, byref(error))
        if handle is None:
            raise StrataError(_native.last_errors(error), "strata_model_to_json failed")
        return _native.take_json(handle)

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
            raise MappingError(_native.last_errors(error), f"cannot merge into {self.model!r}")

    def update(self, data: Any) -> None:
        """Updates this model, in place, from API data (a dict, ``str`` or
        ``bytes``): JSON Merge Patch lifted to models. Keys present are mapped,
        validated and merged by policy; keys not present are untouched; ``None``
        clears. All or nothing: on error nothing changes and every error is raised."""
        buffer = _encode(data)
        error = strata_error_t()
        if lib.strata_model_updateb(self._handle, buffer, len(buffer), byref(error)) != 0:
            raise MappingError(_native.last_errors(error), f"cannot update {self.model!r}")

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
            raise MappingError(_native.last_errors(error), f"cannot diff {self.model!r}")
        result: List[Dict[str, Any]] = _native.take_json(handle)
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
            raise MappingError(_native.last_errors(error), f"cannot merge-diff {self.model!r}")
        result: Dict[str, Any] = _native.take_json(handle)
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
        json_handle = _json_handle(patch, f"cannot {what} {self.model!r}")
        try:
            error = strata_error_t()
            handle = function(self._handle, json_handle, byref(error))
        finally:
            lib.strata_json_decref(json_handle)
        if not handle:
            raise MappingError(_native.last_errors(error), f"cannot {what} {self.model!r}")
        return Model._adopt(handle, self._schema)

    def archive(self) -> str:
        """A self-describing archive of the model as JSON text:
        ``{"strata-archive": 1, "version": V, "model": "Name", "values": {...}}``,
        the values being the canonical dictionary with ``$type``, ``$unknown``
        and the properties ``json: false`` hides. ``schema.unarchive()`` restores it."""
        error = strata_error_t()
        handle = lib.strata_model_archive(self._handle, byref(error))
        if not handle:
            raise StrataError(_native.last_errors(error), "strata_model_archive failed")
        try:
            return _native.dumps(handle)
        finally:
            lib.strata_json_decref(handle)

    def copy(self) -> "Model":
        """A deep copy that shares no mutable state with this model."""
        handle = lib.strata_model_copy(self._handle)
        if handle is None:
            raise MemoryError("strata: strata_model_copy() returned NULL")
        return Model._adopt(handle, self._schema)

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


class Response:
    """What :meth:`Schema.map_response` returns: ``records``, the models found
    at the root (in order; empty for a root that is ``None`` or ``[]``), and
    ``metadata``, the metadata model or ``None``. ``len(r)`` and ``iter(r)``
    are those of the records."""

    __slots__ = ("_records", "_metadata")

    _records: List["Model"]
    _metadata: Optional["Model"]

    def __init__(self, records: List["Model"], metadata: Optional["Model"] = None) -> None:
        self._records = list(records)
        self._metadata = metadata

    @property
    def records(self) -> List["Model"]:
        """The records, in the response's order."""
        return self._records

    @property
    def metadata(self) -> Optional["Model"]:
        """The metadata model, or ``None`` (none asked for, or the response leaves it out)."""
        return self._metadata

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator["Model"]:
        return iter(self._records)

    def __getitem__(self, index: int) -> "Model":
        return self._records[index]

    def __repr__(self) -> str:
        head = f"<strata.Response {len(self._records)} record{'' if len(self._records) == 1 else 's'}"
        if self._records:
            head += f" of {self._records[0].model}"
        if self._metadata is not None:
            head += f" metadata={self._metadata!r}"
        return head + ">"


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


def _json_handle(data: JSONInput, summary: str) -> int:
    """A new json_t reference holding ``data`` (Python data or JSON text)."""
    buffer = _encode(data)
    error = strata_error_t()
    handle = lib.strata_json_loadb(buffer, len(buffer), byref(error))
    if not handle:
        raise MappingError(_native.last_errors(error), summary)
    return int(handle)


def compare(old: Any, new: Any) -> List[Dict[str, Any]]:
    """The changes from schema ``old`` to schema ``new`` (each a :class:`Schema`
    or a schema document) that matter to data written under ``old``: a list of
    dicts with ``path``, ``model``, ``property``, ``change`` (``model-removed``,
    ``property-removed``, ``type-narrowed``, ``type-widened``,
    ``required-added``, ``json-key-changed``, ``enum-value-removed``,
    ``property-added``, ``model-added``), ``message`` and ``breaking`` (True
    when old archives or old JSON could no longer be read)."""
    old_schema = old if isinstance(old, Schema) else Schema(old)
    new_schema = new if isinstance(new, Schema) else Schema(new)
    error = strata_error_t()
    handle = lib.strata_schema_compare(old_schema._handle, new_schema._handle, byref(error))
    if not handle:
        raise StrataError(_native.last_errors(error), "cannot compare the schemas")
    result: List[Dict[str, Any]] = _native.take_json(handle)
    return result
