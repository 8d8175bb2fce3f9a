"""Graph contexts: uniqued records on SQLite (docs/graph.md).

A thin layer over the "Graph contexts" functions of strata.h: the engine
finds records by key, links relationships and their inverses, deletes
orphans and keeps the file; this module turns handles into Python objects.
"""

from __future__ import annotations

import json
import os
import re
from contextlib import contextmanager
from ctypes import byref, c_size_t
from typing import (
    TYPE_CHECKING,
    Any,
    AsyncIterator,
    Callable,
    Dict,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from ._errors import BatchError, MappingError, StrataError
from ._http import Headers, Request, as_client, header_pairs, is_async_client
from ._handles import JSONInput, adopt_array, adopt_response, encode, json_handle, last_errors, model_name, take_json
from ._model import Model, adopt_model, model_adopter
from ._native import KEEP_FN, STRATA_OK, json_p, lib, model_p, strata_error_t
from ._response import response_options

if TYPE_CHECKING:  # for annotations only: _schema sits above this module
    from ._schema import Schema

__all__ = ["Context", "Record", "ImportResult"]


class Record(Model):
    """A record of a graph context: a read-only model whose relationships
    lead to records. ``post["author"]`` is the author's :class:`Record` (or
    ``None``), ``user["posts"]`` the list of Records, as they are now;
    other properties read as on a :class:`Model`. ``to_dict()`` and
    ``to_json()`` nest relationships, writing a record met again on a cycle
    as its key; ``repr``, ``==`` and ``hash`` use the record's own values,
    relationships as keys. ``copy()`` gives an ordinary, changeable Model."""

    __slots__ = ("_context",)

    _context: "Context"

    @property
    def key(self) -> Any:
        """The record's key: its key property's value, a list for a composite key."""
        return take_json(lib.strata_record_key(self._handle))

    @property
    def context(self) -> "Context":
        """The context the record belongs to."""
        return self._context

    def __getitem__(self, prop: str) -> Any:
        kind = self._context._relationship(self.model, prop)
        if kind == 0:
            return super().__getitem__(prop)
        if prop not in self:
            raise KeyError(prop)
        records = self._context._related(self, prop)
        if kind == 1:
            return records[0] if records else None
        return records if super().__getitem__(prop) is not None else None

    def get(self, prop: str, default: Any = None) -> Any:
        try:
            return self[prop]
        except KeyError:
            if not isinstance(prop, str) or self._context._relationship(self.model, prop) < 0:
                raise
            if prop in self:
                raise
            return default

    @property
    def is_stub(self) -> bool:
        """True for a stub: a record known by its key only (a bare key in an
        input made it), not yet filled by an object. As this handle saw it:
        ``ctx.get`` the record again to see a later fill."""
        return bool(lib.strata_record_is_stub(self._handle))

    def to_dict(self, nested: bool = True, depth: Optional[int] = None) -> Dict[str, Any]:
        """The canonical dictionary; relationships nested (``nested=False``:
        as keys). ``depth=N`` nests the related records of the first N levels
        and writes those below as keys (``depth=0`` is ``nested=False``):
        a record's nested dictionary can otherwise hold its whole connected
        graph."""
        if not nested:
            return super().to_dict()
        if depth is not None:
            if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
                raise ValueError(f"strata: depth must be an int >= 0, not {depth!r}")
            error = strata_error_t()
            handle = lib.strata_context_dictionary_depth(
                self._context._live(), self._handle, min(depth, 1 << 30), byref(error)
            )
            if not handle:
                raise MappingError(last_errors(error), f"cannot write {self!r}")
            limited: Dict[str, Any] = take_json(handle)
            return limited
        result: Dict[str, Any] = self._context._call_json(lib.strata_context_dictionary, self)
        return result

    def to_json(self) -> Any:
        """The record serialized back to JSON, relationships nested."""
        return self._context._call_json(lib.strata_context_to_json, self)

    def copy(self) -> Model:
        """An ordinary Model with the record's values (relationships as keys)."""
        handle = lib.strata_model_copy(self._handle)
        if not handle:
            raise MemoryError("strata: cannot copy the record")
        return adopt_model(handle, self._schema)

    def __repr__(self) -> str:
        return f"<strata.Record {self.model} {self.key!r}>"


class ImportResult(List[Record]):
    """The top-level records of an import, in input order, with what it did
    (model name -> count): ``created``; ``updated``, the records that existed
    and whose values changed (given in the input, or through an inverse);
    ``unchanged``, those the input gave as objects and left as they were (an
    app redraws only ``updated``); ``deleted``; ``warnings`` (records
    given no key: dicts with path, model, message); and ``metadata``, the
    response's paging metadata as :meth:`Schema.map_response` maps it (a
    :class:`Model`, or None when none is declared or the response leaves it
    out)."""

    created: Dict[str, int]
    updated: Dict[str, int]
    unchanged: Dict[str, int]
    deleted: Dict[str, int]
    warnings: List[Dict[str, str]]
    metadata: Optional[Model]

    def __repr__(self) -> str:
        return (
            f"<strata.ImportResult {len(self)} records created={self.created} "
            f"updated={self.updated} unchanged={self.unchanged} deleted={self.deleted} "
            f"warnings={len(self.warnings)}"
            + (f" metadata={self.metadata!r}" if self.metadata is not None else "")
            + ">"
        )


def _counted(result: ImportResult, report: Dict[str, Any], metadata: Optional[Model]) -> None:
    """Sets what an import did on ``result``, from the engine's report."""
    result.metadata = metadata
    result.created = report.get("created", {})
    result.updated = report.get("updated", {})
    result.unchanged = report.get("unchanged", {})
    result.deleted = report.get("deleted", {})
    result.warnings = report.get("warnings", [])


class Page(ImportResult):
    """One page of a fetch (:meth:`Context.fetch`): an :class:`ImportResult`
    (its records, in order, and what the import did; ``metadata`` None for a
    cached page) with ``url`` and ``status``, ``next`` (the next page's URL,
    or None for the last) and ``cached`` (True when the page was not
    imported again: a 304, the body of last time, or page 0 of
    ``fetch_first``)."""

    url: Optional[str]
    status: Optional[int]
    next: Optional[str]
    cached: bool

    def __repr__(self) -> str:
        return (
            f"<strata.Page {self.url or 'fetch_first'} {len(self)} records"
            + (" cached" if self.cached else f" created={self.created} updated={self.updated}")
            + f" next={self.next!r}>"
        )


def _page(records: List[Record], url: Optional[str], status: Optional[int], next_url: Optional[str], cached: bool,
          report: Dict[str, Any], metadata: Optional[Model]) -> Page:
    page = Page(records)
    page.url, page.status, page.next, page.cached = url, status, next_url, cached
    _counted(page, report, metadata)
    return page


class Fetch:
    """The pages of :meth:`Context.fetch`, one request each, made when the
    loop asks for the page: ``for page in ctx.fetch(...)`` with a client,
    ``async for`` with an async one. Breaking out of the loop stops it
    (MMRecord's ``requestNextPage = NO``)."""

    def __init__(self, context: "Context", model: str, url: str, client: Any, pages: Optional[int],
                 fetch_first: Optional[Mapping[str, Any]], cache: bool, root: Optional[str], meta: Any) -> None:
        if pages is not None and pages < 0:
            raise ValueError("strata: pages must be None or a number of pages >= 0")
        self._context, self._model, self._url, self._client = context, model, url, client
        self._pages, self._first, self._cache, self._root, self._meta = pages, fetch_first, cache, root, meta

    def _first_page(self) -> Optional[Page]:
        if self._first is None:
            return None
        query = dict(self._first)
        records = self._context.query(self._model, query.pop("where", None), **query)
        return _page(records, None, None, self._url, True, {}, None)

    def _request(self, url: str) -> Request:
        return Request(url, dict(self._context.fetch_headers(url)) if self._cache else {})

    def _take(self, url: str, response: Any) -> Page:
        try:
            status, headers, body = response
        except (TypeError, ValueError):
            raise TypeError(f"strata: a fetch client must return (status, headers, body), not {response!r}") from None
        return self._context.fetch_page(self._model, url, status, headers, body, cache=self._cache, root=self._root,
                                        meta=self._meta)

    def __iter__(self) -> Iterator[Page]:
        if is_async_client(self._client):
            raise TypeError("strata: an async client's pages are read with async for")
        client = as_client(self._client)
        first = self._first_page()
        if first is not None:
            yield first
        url: Optional[str] = self._url
        done = 0
        while url is not None and (self._pages is None or done < self._pages):
            page = self._take(url, client(self._request(url)))
            done += 1
            yield page
            url = page.next

    def __aiter__(self) -> AsyncIterator[Page]:
        return self._async_pages()

    async def _async_pages(self) -> AsyncIterator[Page]:
        client = as_client(self._client)
        first = self._first_page()
        if first is not None:
            yield first
        url: Optional[str] = self._url
        done = 0
        while url is not None and (self._pages is None or done < self._pages):
            answer = client(self._request(url))
            response = await answer if hasattr(answer, "__await__") else answer
            page = self._take(url, response)
            done += 1
            yield page
            url = page.next


class BatchFetch:
    """One fetch of a batch (:meth:`Batch.fetch`): after the batch, its
    ``pages`` (those taken, in order) and its ``error`` (None, or the
    exception that stopped it)."""

    def __init__(self, model: str, url: str, options: Dict[str, Any]) -> None:
        self.model, self.url, self.options = model, url, options
        self.pages: List[Page] = []
        self.error: Optional[BaseException] = None

    def __repr__(self) -> str:
        state = "failed" if self.error is not None else f"{len(self.pages)} pages"
        return f"<strata.BatchFetch {self.model} {self.url} {state}>"


class Batch:
    """Several fetches run together (:meth:`Context.batch`): added in the
    ``with`` block, run when it ends (on threads, or as asyncio tasks with an
    async client), each page imported in its own transaction; then one
    completion: ``fetches`` with their pages, and a :class:`BatchError` with
    every failure when any failed."""

    def __init__(self, context: "Context", client: Any, workers: int) -> None:
        if workers < 1:
            raise ValueError("strata: a batch needs at least one worker")
        self._context, self._client, self._workers = context, client, workers
        self.fetches: List[BatchFetch] = []

    def fetch(self, model: str, url: str, **options: Any) -> BatchFetch:
        """Adds a fetch (the options of :meth:`Context.fetch`: ``pages``,
        ``fetch_first``, ``cache``, ``root``, ``meta``)."""
        if "client" in options:
            raise TypeError("strata: the batch's client fetches every page: give it to ctx.batch(client=...)")
        added = BatchFetch(model, url, options)
        self.fetches.append(added)
        return added

    @property
    def pages(self) -> List[Page]:
        """Every page taken, fetch by fetch."""
        return [page for fetch in self.fetches for page in fetch.pages]

    def _completed(self) -> None:
        failures = [(fetch.url, fetch.error) for fetch in self.fetches if fetch.error is not None]
        if failures:
            raise BatchError(failures, len(self.fetches))

    def _run(self, fetch: BatchFetch) -> None:
        try:
            for page in self._context.fetch(fetch.model, fetch.url, client=self._client, **fetch.options):
                fetch.pages.append(page)
        except Exception as error:  # collected: the other fetches go on
            fetch.error = error

    def __enter__(self) -> "Batch":
        if is_async_client(self._client):
            raise TypeError("strata: a batch with an async client runs with async with")
        return self

    def __exit__(self, kind: Any, value: Any, trace: Any) -> None:
        if kind is not None:
            return  # the block failed: nothing is fetched
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=self._workers) as pool:
            list(pool.map(self._run, self.fetches))
        self._completed()

    async def __aenter__(self) -> "Batch":
        return self

    async def __aexit__(self, kind: Any, value: Any, trace: Any) -> None:
        if kind is not None:
            return
        import asyncio

        async def run(fetch: BatchFetch) -> None:
            try:
                async for page in self._context.fetch(fetch.model, fetch.url, client=self._client, **fetch.options):
                    fetch.pages.append(page)
            except Exception as error:  # collected: the other fetches go on
                fetch.error = error

        await asyncio.gather(*(run(fetch) for fetch in self.fetches))
        self._completed()


# the password of a URL's user part (postgresql://user:password@host/db)
_PASSWORD = re.compile(r"^([a-z]+://[^/?@:]*:)[^/?@]*@")

class Context:
    """A graph context (``schema.context(path=None)``): the records of the
    schema's models, uniqued by ``primaryKey``, in memory, in an SQLite
    file or in a PostgreSQL database (a ``postgresql://`` URL). A ``with``
    context manager that closes it. May be shared between threads (the
    engine locks)."""

    __slots__ = ("_handle", "_schema", "_path", "_relations", "__weakref__")

    def __init__(self, schema: "Schema", path: Optional[Union[str, "os.PathLike[str]"]] = None) -> None:
        self._schema = schema
        self._path = None if path is None else os.fspath(path)
        raw = None if self._path is None else os.fsencode(self._path)
        if raw is not None and b"\0" in raw:
            raise ValueError(f"strata: a path cannot contain NUL: {path!r}")
        self._relations: Dict[Any, int] = {}
        error = strata_error_t()
        handle = lib.strata_context_open(schema._handle, raw, byref(error))
        if not handle:
            raise StrataError(last_errors(error), f"cannot open a graph context on {self._shown}")
        self._handle: Optional[int] = handle

    @property
    def schema(self) -> "Schema":
        """The schema."""
        return self._schema

    @property
    def path(self) -> Optional[str]:
        """The SQLite file or the PostgreSQL URL, or None for a context in memory."""
        return self._path

    @property
    def _shown(self) -> str:
        """Where the context is, as messages say it: a URL's password hidden."""
        if self._path is None:
            return "memory"
        return _PASSWORD.sub(r"\1***@", self._path)

    @property
    def closed(self) -> bool:
        """True once closed."""
        return self._handle is None

    def close(self) -> None:
        """Closes the context (and its file). Records already read stay readable
        as models; their relationships can no longer be followed."""
        handle, self._handle = self._handle, None
        if handle is not None:
            lib.strata_context_close(handle)
            lib.strata_context_decref(handle)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else self._shown
        return f"<strata.Context {state}>"

    def _live(self) -> int:
        if self._handle is None:
            raise ValueError("strata: the context is closed")
        return self._handle

    # -- importing

    def import_(
        self,
        model: str,
        data: JSONInput,
        *,
        root: Optional[str] = None,
        meta: Optional[Mapping[str, str]] = None,
        delete_orphans: Optional[Mapping[str, Any]] = None,
    ) -> ImportResult:
        """Imports the records of ``model`` in ``data`` (a dict, a list, or JSON
        text as ``str``/``bytes``) in one transaction, and returns the
        top-level records in input order. ``root`` overrides the model's
        ``root``; ``meta`` (``{"path": key path, "model": model name}``) its
        ``meta``: the response's metadata is the result's ``metadata``, from
        the same parse. ``delete_orphans={"model": "Tweet", "where": {"feed":
        "home"}, "keep": fn}`` deletes the records of that model in scope that
        the response did not contain, unless ``keep(record)`` is true;
        ``"scope": "top"`` counts only the response's top-level records as
        contained (MMRecord's rule; ``"all"``, the default, counts nested
        ones too). An unknown member is a :class:`StrataError` (``argument``).

        Raises :class:`MappingError` with every error of the input (paths into
        ``data``); then nothing changed."""
        name = model_name(model)
        options = response_options(root, meta)
        keep_fn: Optional[Callable[[Record], Any]] = None
        if delete_orphans is not None:
            if not isinstance(delete_orphans, Mapping):
                raise TypeError('strata: delete_orphans must be {"model": name, "where": {...}, "keep": fn}')
            # every member but keep goes to the engine, which refuses unknown
            # ones with the error C and the command line give
            rule = {key: value for key, value in delete_orphans.items() if key != "keep"}
            where = rule.get("where")
            if isinstance(where, Mapping):
                rule["where"] = {
                    key: (value.key if isinstance(value, Record) else value) for key, value in where.items()
                }
            options["delete_orphans"] = rule
            keep_fn = delete_orphans.get("keep")
            if keep_fn is not None and not callable(keep_fn):
                raise TypeError("strata: delete_orphans['keep'] must be a callable(record) -> bool")
        failures: List[BaseException] = []

        def keep(handle: Optional[int], payload: Optional[int]) -> int:
            if keep_fn is None or not handle:
                return 0
            try:
                lib.strata_model_incref(handle)
                return 1 if keep_fn(adopt(handle)) else 0
            except BaseException as exc:  # re-raised after the import; the record is kept
                failures.append(exc)
                return 1

        adopt = _record_adopter(self)
        callback = KEEP_FN(keep) if keep_fn is not None else KEEP_FN()
        buffer = encode(data)
        options_handle = json_handle(options, f"cannot import {model!r}") if options else None
        error = strata_error_t()
        count = c_size_t(0)
        report = json_p()
        metadata = model_p()
        try:
            array = lib.strata_context_import_responseb(
                self._live(), name, buffer, len(buffer), options_handle, callback, None, byref(count),
                byref(metadata), byref(report), byref(error),
            )
        finally:
            if options_handle is not None:
                lib.strata_json_decref(options_handle)
        if not array:
            raise MappingError(last_errors(error), f"cannot import {model!r}")
        try:
            records, meta_model = adopt_response(
                array, count.value, adopt, metadata.value, model_adopter(self._schema)
            )
        except BaseException:
            if report.value:
                lib.strata_json_decref(report.value)
            raise
        result = ImportResult(records)
        _counted(result, take_json(report.value) if report.value else {}, meta_model)
        if failures:
            raise failures[0]
        return result

    # -- fetching pages

    def fetch(
        self,
        model: str,
        url: str,
        *,
        client: Any = None,
        pages: Optional[int] = None,
        fetch_first: Optional[Mapping[str, Any]] = None,
        cache: bool = True,
        root: Optional[str] = None,
        meta: Any = None,
    ) -> Fetch:
        """The pages of ``model``'s records from ``url`` on (docs/graph.md,
        "Fetching pages"): each page requested with ``client`` (a callable
        ``client(request) -> (status, headers, body)``, an ``httpx.Client``,
        ``httpx.AsyncClient`` or ``requests.Session``; ``urllib.request`` when
        None), imported, and the next one found by the model's ``paging``.
        Stops after the last page, after ``pages`` pages, or when the loop
        stops. ``fetch_first`` (``{"where": ..., "order_by": ..., "limit":
        ...}``, as :meth:`query` takes them) gives page 0 from the graph
        before any request. With ``cache``, a page the server answers with
        304, or with the body of last time, gives the records of last time
        without an import. A status other than 2xx raises
        :class:`MappingError` (code ``http``); an exception of the client is
        raised as it is; either way nothing of that page is imported."""
        return Fetch(self, model, url, client, pages, fetch_first, cache, root, meta)

    def batch(self, *, client: Any = None, workers: int = 4) -> Batch:
        """Several fetches as one (MMRecord's batches): ``with ctx.batch() as
        batch:`` adds them (``batch.fetch(model, url, pages=...)``), and the
        end of the block runs them together with ``client`` (on up to
        ``workers`` threads; ``async with`` for an async client), each page
        imported in its own transaction. Then ``batch.fetches`` hold their
        pages, and :class:`BatchError` lists every fetch that failed."""
        return Batch(self, client, workers)

    def fetch_headers(self, url: str) -> List[Tuple[str, str]]:
        """The headers to send with a GET of ``url``: ``If-None-Match`` and
        ``If-Modified-Since`` from the page of last time, when the graph keeps it."""
        error = strata_error_t()
        handle = lib.strata_context_fetch_headers(self._live(), url.encode(), byref(error))
        if not handle:
            raise StrataError(last_errors(error), f"cannot prepare a request of {url}")
        return [(name, value) for name, value in take_json(handle)]

    def fetch_page(
        self,
        model: str,
        url: str,
        status: int,
        headers: Headers,
        body: bytes,
        *,
        cache: bool = True,
        root: Optional[str] = None,
        meta: Any = None,
    ) -> Page:
        """Takes the response to a GET of ``url`` made by the host: imports
        its records (a 2xx status), answers a 304 or an unchanged body with
        the records of last time (with ``cache``), and says which page is
        next. A status other than 2xx raises :class:`MappingError` (``http``)."""
        name = model_name(model)
        options = response_options(root, meta)
        options_handle = json_handle(options, f"cannot import {model!r}") if options else None
        headers_handle = json_handle(json.dumps(header_pairs(headers)), f"cannot import {model!r}")
        data = bytes(body)
        error = strata_error_t()
        count = c_size_t(0)
        report = json_p()
        metadata = model_p()
        try:
            array = lib.strata_context_fetch_page(
                self._live(), name, url.encode(), int(status), headers_handle, data, len(data), options_handle,
                1 if cache else 0, byref(count), byref(metadata), byref(report), byref(error),
            )
        finally:
            lib.strata_json_decref(headers_handle)
            if options_handle is not None:
                lib.strata_json_decref(options_handle)
        if not array:
            raise MappingError(last_errors(error), f"cannot take the page {url}")
        try:
            records, meta_model = adopt_response(
                array, count.value, _record_adopter(self), metadata.value, model_adopter(self._schema)
            )
        except BaseException:
            if report.value:
                lib.strata_json_decref(report.value)
            raise
        made = take_json(report.value) if report.value else {}
        return _page(records, url, int(status), made.get("next"), bool(made.get("cached")), made, meta_model)

    # -- reading

    def get(self, model: str, key: Any) -> Optional[Record]:
        """The record of ``model`` under ``key`` (a list for a composite key; a
        Record or its key for a relationship key), or None. A key of the wrong
        type raises :class:`MappingError` (code ``type``)."""
        name = model_name(model)
        if isinstance(key, Record):
            key = key.key
        for part in key if type(key) is list else (key,):
            if isinstance(part, int) and not isinstance(part, bool) and not -(2**63) <= part < 2**63:
                raise MappingError(
                    [{"path": "", "model": name.decode(), "property": "", "code": "type",
                      "message": f"the key {part} is outside the 64-bit integers a key can be"}],
                    f"cannot get {model!r}",
                )
        # a str key is a JSON string, not JSON text
        error = strata_error_t()
        if type(key) is int:
            text = str(key).encode()  # checked above: within 64 bits
        elif type(key) is str and key.isascii():
            text = _json_string(key).encode()
        else:
            text = json.dumps(key).encode("utf-8", "surrogatepass")
        key_handle = lib.strata_json_loadb(text, len(text), byref(error))
        if not key_handle:
            raise MappingError(last_errors(error), f"cannot get {model!r}")
        try:
            handle = lib.strata_context_get(self._live(), name, key_handle, byref(error))
        finally:
            lib.strata_json_decref(key_handle)
        if not handle:
            if int(error.code) != STRATA_OK:
                raise MappingError(last_errors(error), f"cannot get {model!r}")
            return None
        return _record(self, handle)

    def all(self, model: str, *, stubs: bool = True) -> List[Record]:
        """Every record of ``model`` (and its subtypes), in key order;
        ``stubs=False`` leaves out the records known by their key only
        (:attr:`Record.is_stub`)."""
        name = model_name(model)
        error = strata_error_t()
        count = c_size_t(0)
        array = lib.strata_context_all_flags(self._live(), name, 0 if stubs else 1, byref(count), byref(error))
        if not array:
            raise MappingError(last_errors(error), f"cannot list {model!r}")
        return adopt_array(array, count.value, _record_adopter(self))

    def count(self, model: str, *, where: Optional[Dict[str, Any]] = None, stubs: bool = True) -> int:
        """The number of records of ``model`` (and its subtypes), of those
        that meet ``where`` when given (as :meth:`query` reads it);
        ``stubs=False`` does not count the records known by their key only."""
        name = model_name(model)
        error = strata_error_t()
        if where is None:
            value = int(lib.strata_context_count_flags(self._live(), name, 0 if stubs else 1, byref(error)))
        else:
            query = _query_handle({"where": where, "stubs": stubs}, f"cannot count {model!r}")
            try:
                value = int(lib.strata_context_query_count(self._live(), name, query, byref(error)))
            finally:
                lib.strata_json_decref(query)
        if value < 0:
            raise MappingError(last_errors(error), f"cannot count {model!r}")
        return value

    def query(
        self,
        model: str,
        where: Optional[Dict[str, Any]] = None,
        *,
        order_by: Union[str, Sequence[str], None] = None,
        limit: Optional[int] = None,
        offset: int = 0,
        stubs: bool = True,
    ) -> List[Record]:
        """The records of ``model`` (and its subtypes) that meet ``where``, in
        the order of ``order_by`` (names or key paths through to-one
        relationships, ``"-"`` first for descending; ties by key), ``offset``
        of them skipped and at most ``limit`` kept (docs/graph.md, "Queries").

        ``where`` maps property names and key paths (``"user.name"``; through
        a to-many relationship: any of its records) to a value or an operator
        dict (``{">=": 10}``; ``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``,
        ``in``, ``prefix``, ``contains``, ``null``), and takes ``"and"``,
        ``"or"`` (lists) and ``"not"``. An unknown property raises
        :class:`MappingError` with code ``property``; a value of the wrong
        type, code ``type``."""
        name = model_name(model)
        spec: Dict[str, Any] = {"offset": offset, "stubs": stubs}
        if where is not None:
            spec["where"] = where
        if order_by is not None:
            spec["order_by"] = order_by if isinstance(order_by, str) else list(order_by)
        if limit is not None:
            spec["limit"] = limit
        query = _query_handle(spec, f"cannot query {model!r}")
        error = strata_error_t()
        count = c_size_t(0)
        try:
            array = lib.strata_context_query(self._live(), name, query, byref(count), byref(error))
        finally:
            lib.strata_json_decref(query)
        if not array:
            raise MappingError(last_errors(error), f"cannot query {model!r}")
        return adopt_array(array, count.value, _record_adopter(self))

    def delete(self, record: Record) -> None:
        """Deletes ``record``: the relationships that held it, and their
        inverses, let go of it."""
        if not isinstance(record, Record):
            raise TypeError(f"strata: delete() takes a Record, not {type(record).__name__}")
        error = strata_error_t()
        if lib.strata_context_delete(self._live(), record._handle, byref(error)) != 0:
            raise MappingError(last_errors(error), f"cannot delete {record!r}")

    @property
    def cache_limit(self) -> int:
        """How many records the cache of a file context may hold between
        calls (docs/graph.md, "The cache"); after a call that leaves more,
        the records used least recently are dropped (down to half the
        limit) and read again when asked for. Settable; 0 drops every
        record after each call."""
        return self._cache_info()[0]

    @cache_limit.setter
    def cache_limit(self, records: int) -> None:
        if isinstance(records, bool) or not isinstance(records, int):
            raise TypeError(f"strata: cache_limit is an int, not {type(records).__name__}")
        if records < 0:
            raise ValueError("strata: cache_limit cannot be negative")
        error = strata_error_t()
        if lib.strata_context_set_cache_limit(self._live(), records, byref(error)) != 0:
            raise StrataError(last_errors(error), "cannot set the cache limit")

    @property
    def memory_map(self) -> int:
        """How many bytes of its SQLite file the context reads through a
        memory map (SQLite's ``mmap_size``; 0, the default, reads pages with
        ``pread``). Settable: cold reads of a large file get faster, and an
        I/O error of the disk, or the file cut short by a program that does
        not lock it as SQLite does, then stops the process with SIGBUS
        instead of raising (docs/graph.md, "Reading through a memory map").
        SQLite caps what is asked at the limit it was built with; a context
        in memory or on PostgreSQL maps nothing (0)."""
        error = strata_error_t()
        size = c_size_t(0)
        if lib.strata_context_memory_map(self._live(), byref(size), byref(error)) != 0:
            raise StrataError(last_errors(error), "cannot read the memory map's size")
        return size.value

    @memory_map.setter
    def memory_map(self, size: int) -> None:
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"strata: memory_map is an int, not {type(size).__name__}")
        if size < 0:
            raise ValueError("strata: memory_map cannot be negative")
        error = strata_error_t()
        if lib.strata_context_set_memory_map(self._live(), size, byref(error)) != 0:
            raise StrataError(last_errors(error), "cannot set the memory map")

    @property
    def cached(self) -> int:
        """The number of records (read or written) the context holds in memory now."""
        return self._cache_info()[1]

    @contextmanager
    def reading(self) -> Iterator["Context"]:
        """A read block (docs/graph.md, "Read blocks"): inside ``with
        ctx.reading():`` every call of the context reads one snapshot of its
        file, whatever other connections commit meanwhile, and records the
        cache holds are served without asking the file whether another
        connection wrote it. Blocks nest; an import or delete inside one
        ends its snapshot, and the block's next read takes a new one."""
        error = strata_error_t()
        if lib.strata_context_begin_read(self._live(), byref(error)) != 0:
            raise StrataError(last_errors(error), "cannot open a read block")
        try:
            yield self
        finally:
            end = strata_error_t()
            if self._handle and lib.strata_context_end_read(self._handle, byref(end)) != 0:
                raise StrataError(last_errors(end), "cannot end the read block")

    def _cache_info(self) -> Tuple[int, int]:
        limit = c_size_t()
        held = c_size_t()
        error = strata_error_t()
        if lib.strata_context_cache_info(self._live(), byref(limit), byref(held), byref(error)) != 0:
            raise StrataError(last_errors(error), "cannot read the cache")
        return int(limit.value), int(held.value)

    def check(self) -> None:
        """Checks the graph's invariants (docs/graph.md, "Checking a graph"):
        every record maps under its schema, every link and inverse holds both
        ways, a file holds exactly what memory does. Raises
        :class:`StrataError` (code ``io``) listing what is broken."""
        error = strata_error_t()
        if lib.strata_context_check(self._live(), byref(error)) != 0:
            raise StrataError(last_errors(error), "the graph's invariants are broken")

    def __iter__(self) -> Iterator[str]:
        """The names of the schema's models."""
        return iter(self._schema.models)

    # -- helpers for Record

    def _relationship(self, model: str, prop: str) -> int:
        cache_key = (model, prop)
        kind = self._relations.get(cache_key)
        if kind is None:
            raw = prop.encode("utf-8") if isinstance(prop, str) else b""
            kind = int(lib.strata_schema_relationship(self._schema._handle, model.encode("utf-8"), raw, None))
            kind = kind if kind >= 0 else 0
            self._relations[cache_key] = kind
        return kind

    def _related(self, record: Record, prop: str) -> List[Record]:
        error = strata_error_t()
        count = c_size_t(0)
        array = lib.strata_context_related(self._live(), record._handle, prop.encode("utf-8"), byref(count), byref(error))
        if not array:
            raise MappingError(last_errors(error), f"cannot follow {prop!r} of {record!r}")
        return adopt_array(array, count.value, _record_adopter(self))

    def _call_json(self, function: Any, record: Record) -> Any:
        error = strata_error_t()
        handle = function(self._live(), record._handle, byref(error))
        if not handle:
            raise MappingError(last_errors(error), f"cannot write {record!r}")
        return take_json(handle)


def _record(context: Context, handle: int) -> Record:
    """A new record reference of ``context`` wrapped in a :class:`Record`,
    which then owns it."""
    record: Record = object.__new__(Record)
    record._schema = context._schema
    record._name = None
    record._context = context
    record._handle = handle  # last: the wrapper owns the handle once made
    return record


def _record_adopter(context: Context) -> Callable[[int], Record]:
    """The function that wraps a new record reference of ``context`` in a
    :class:`Record` (as ``model_adopter`` does a Model)."""
    return lambda handle: _record(context, handle)


# JSON text of an ASCII str (json's own C encoder)
_json_string: Callable[[str], str] = json.encoder.encode_basestring_ascii


def _plain(value: Any) -> Any:
    """A query value as JSON: a Record stands for its key."""
    if isinstance(value, Record):
        return value.key
    if isinstance(value, dict):
        return {key: _plain(member) for key, member in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(member) for member in value]
    return value


def _query_handle(spec: Dict[str, Any], what: str) -> Any:
    """The query object as a jansson handle (a new reference)."""
    try:
        text = json.dumps(_plain(spec))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"strata: {what}: the query is not JSON ({exc})") from None
    return json_handle(text, what)
