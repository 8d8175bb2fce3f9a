"""Schema: a loaded, checked, immutable schema, and compare()."""

from __future__ import annotations

import os
import pickle
import stat
import weakref
from ctypes import byref, c_size_t
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple, Union

from ._errors import LineError, MappingError, SchemaError, StrataError
from ._graph import Context
from ._handles import (
    JSONInput,
    adopt_array,
    adopt_response,
    encode,
    json_handle,
    last_errors,
    model_name,
    take_json,
    take_string,
)
from ._lines import LineIterator, line_chunks, map_chunks
from ._model import Model, adopt_model, model_adopter
from ._native import lib, model_p, strata_error_t, text
from ._pickling import references, restore, set_loader
from ._response import Response, response_options
from ._transformers import new_builder

__all__ = ["Schema", "compare"]


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
        buffer = encode(doc)
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
            raise SchemaError(last_errors(error), "invalid schema")
        self._adopt(handle)
        self._keep_for_pickling(buffer, transformers, mergers)
        self._injectors = bool(key_injectors)

    @classmethod
    def from_file(
        cls,
        path: Union[str, "os.PathLike[str]", "os.PathLike[bytes]", bytes],
        transformers: Optional[Mapping[str, Any]] = None,
        mergers: Optional[Mapping[str, Any]] = None,
    ) -> Schema:
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
                last_errors(error), f"cannot load schema {os.fsdecode(raw)!r}"
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
            text(lib.strata_schema_model_name(handle, index)) for index in range(count)
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
        name = model_name(model)
        error = strata_error_t()
        handle = lib.strata_schema_json_schema(self._handle, name, 1 if canonical else 0, byref(error))
        if not handle:
            raise StrataError(last_errors(error), f"no JSON Schema for {model!r}")
        result: Dict[str, Any] = take_json(handle)
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
            raise StrataError(last_errors(error), f"no {format!r} diagram")
        return take_string(raw)

    def map(self, model: str, data: JSONInput) -> Model:
        """Maps ``data`` onto a new model named ``model``.

        ``data`` is JSON text (``str``/``bytes``) or Python data (a dict).
        Raises :class:`MappingError` with every error of the input.
        """
        name = model_name(model)
        buffer = encode(data)
        error = strata_error_t()
        handle = lib.strata_mapb(self._handle, name, buffer, len(buffer), byref(error))
        if not handle:
            raise MappingError(last_errors(error), f"cannot map {model!r}")
        return adopt_model(handle, self)

    def map_many(self, model: str, data: JSONInput) -> List[Model]:
        """Maps every element of the JSON array ``data`` onto a model named ``model``.

        Raises :class:`MappingError` with every error of every element
        (paths name the element: ``/3/title``); then no model is made.
        Text of 512 KiB or more is read on several cores at once, with the
        same answer (``STRATA_THREADS=1`` keeps it on one; docs/parsing.md).
        """
        name = model_name(model)
        buffer = encode(data)
        error = strata_error_t()
        count = c_size_t(0)
        array = lib.strata_map_manyb(
            self._handle, name, buffer, len(buffer), byref(count), byref(error)
        )
        if not array:
            raise MappingError(last_errors(error), f"cannot map {model!r} (many)")
        return adopt_array(array, count.value, model_adopter(self))

    def map_lines(
        self,
        model: str,
        source: Any,
        *,
        on_error: str = "raise",
        max_line_length: Optional[int] = None,
    ) -> Iterator[Union[Model, LineError]]:
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
        name = model_name(model)
        error = strata_error_t()
        handle = lib.strata_lines_new(self._handle, name, max_line_length or 0, byref(error))
        if not handle:
            raise MappingError(last_errors(error), f"cannot map lines of {model!r}")
        return LineIterator(handle, map_chunks(handle, line_chunks(source), on_error == "raise", model_adopter(self)))

    def map_response(
        self,
        model: str,
        data: JSONInput,
        *,
        root: Optional[str] = None,
        meta: Optional[Mapping[str, str]] = None,
    ) -> Response:
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
        name = model_name(model)
        options = response_options(root, meta)
        buffer = encode(data)
        options_handle = json_handle(options, f"cannot map a response of {model!r}") if options else None
        error = strata_error_t()
        count = c_size_t(0)
        metadata = model_p()
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
            raise MappingError(last_errors(error), f"cannot map a response of {model!r}")
        adopt = model_adopter(self)
        records, meta_model = adopt_response(array, count.value, adopt, metadata.value, adopt)
        return Response(records, meta_model)

    def context(self, path: Optional[Union[str, "os.PathLike[str]"]] = None) -> Context:
        """Opens a graph context on this schema (docs/graph.md): in memory
        (``path`` None), on a PostgreSQL database when ``path`` is a URL
        (``"postgresql://user@host:5432/db?schema=strata"``), or on the SQLite
        file at ``path``. Also a ``with`` context manager that closes it."""
        return Context(self, path)

    def unarchive(self, blob: JSONInput) -> Model:
        """Restores a model from an archive (JSON text as ``str``/``bytes``, or a
        dict). An archive of an older schema version is brought up to date by
        the schema's ``migrations``; one from a newer version, or an older one
        with no migration path, raises :class:`MappingError` (code ``argument``)
        saying why. Errors of the values point under ``/values``."""
        buffer = encode(blob)
        error = strata_error_t()
        handle = lib.strata_unarchiveb(self._handle, buffer, len(buffer), byref(error))
        if not handle:
            raise MappingError(last_errors(error), "cannot unarchive")
        return adopt_model(handle, self)

    def __repr__(self) -> str:
        names = self._models
        shown = ", ".join(names[:6]) + (f", ... ({len(names)} models)" if len(names) > 6 else "")
        return f"<strata.Schema version={self._version} models=[{shown}]>"

    def __copy__(self) -> Schema:
        return self  # immutable

    def __deepcopy__(self, memo: Dict[int, Any]) -> Schema:
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
        return (restore, (document, references(transformers, mergers)))


def _check_transformers(transformers: Optional[Mapping[str, Any]]) -> None:
    if transformers is None:
        return
    if not isinstance(transformers, Mapping):
        raise TypeError(
            "strata: transformers must be a mapping of name -> transformer, "
            f"not {type(transformers).__name__}"
        )


set_loader(Schema)


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
        raise StrataError(last_errors(error), "cannot compare the schemas")
    result: List[Dict[str, Any]] = take_json(handle)
    return result
