"""The HTTP side of fetching pages (docs/graph.md, "Fetching pages"): the
request a fetch hands to the host's client, and ready clients over
``urllib.request`` (the standard library, the default), ``requests`` and
``httpx`` (sync and async). The engine makes no request itself: a client is
any callable ``client(request) -> (status, headers, body)``."""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any, Awaitable, Callable, List, Mapping, Optional, Sequence, Tuple, Union

#: Response headers: pairs in order (a name may repeat), or a mapping.
Headers = Union[Sequence[Tuple[str, str]], Mapping[str, str]]
#: What a client returns: the status, the headers and the body's bytes.
Response = Tuple[int, Headers, bytes]


class Request:
    """A GET of ``url`` with ``headers`` (``If-None-Match`` and
    ``If-Modified-Since`` when the graph keeps the page of last time)."""

    __slots__ = ("url", "headers", "method")

    def __init__(self, url: str, headers: Optional[Mapping[str, str]] = None) -> None:
        self.url = url
        self.headers = dict(headers or {})
        self.method = "GET"

    def __repr__(self) -> str:
        return f"<strata.Request GET {self.url}>"


#: A client: a callable that makes the request and returns the response.
Client = Callable[[Request], Response]
#: An async client: a coroutine function that does the same.
AsyncClient = Callable[[Request], Awaitable[Response]]


def urllib_client(timeout: Optional[float] = 30.0) -> Client:
    """A client over ``urllib.request`` (the default): any status comes back
    as a response (a 304 or a 500 too); a connection that fails raises
    ``urllib.error.URLError``."""

    def fetch(request: Request) -> Response:
        ask = urllib.request.Request(request.url, headers=request.headers, method=request.method)
        try:
            with urllib.request.urlopen(ask, timeout=timeout) as answer:
                return answer.status, list(answer.headers.items()), answer.read()
        except urllib.error.HTTPError as failure:  # a status urllib does not take for success
            body = failure.read() if failure.fp is not None else b""
            return failure.code, list(failure.headers.items()) if failure.headers else [], body

    return fetch


def requests_client(session: Any = None, timeout: Optional[float] = 30.0) -> Client:
    """A client over ``requests`` (a ``requests.Session``, or a new one)."""
    import requests  # type: ignore[import-untyped,unused-ignore]  # optional: only for this client

    use = session if session is not None else requests.Session()

    def fetch(request: Request) -> Response:
        answer = use.get(request.url, headers=request.headers, timeout=timeout)
        return answer.status_code, list(answer.headers.items()), answer.content

    return fetch


def httpx_client(client: Any = None) -> Client:
    """A client over ``httpx`` (an ``httpx.Client``, or a new one)."""
    import httpx  # type: ignore[import-not-found,unused-ignore]  # optional: only for this client

    use = client if client is not None else httpx.Client()

    def fetch(request: Request) -> Response:
        answer = use.get(request.url, headers=request.headers)
        return answer.status_code, list(answer.headers.multi_items()), answer.content

    return fetch


def httpx_async_client(client: Any) -> AsyncClient:
    """An async client over an ``httpx.AsyncClient``."""

    async def fetch(request: Request) -> Response:
        answer = await client.get(request.url, headers=request.headers)
        return answer.status_code, list(answer.headers.multi_items()), answer.content

    return fetch


def header_pairs(headers: Headers) -> List[Tuple[str, str]]:
    """Response headers as [name, value] pairs, in order."""
    if isinstance(headers, Mapping):
        return [(str(name), str(value)) for name, value in headers.items()]
    return [(str(name), str(value)) for name, value in headers]


def is_async_client(client: Any) -> bool:
    """True for an async client: a coroutine function or an ``httpx.AsyncClient``."""
    import inspect

    if client is None:
        return False
    if type(client).__module__.split(".")[0] == "httpx" and type(client).__name__ == "AsyncClient":
        return True
    return inspect.iscoroutinefunction(client) or inspect.iscoroutinefunction(getattr(client, "__call__", None))


def as_client(client: Any) -> Callable[[Request], Any]:
    """``client`` as a callable of a request: None is ``urllib_client()``; an
    ``httpx.Client``, ``httpx.AsyncClient`` or ``requests.Session`` gets its adapter."""
    if client is None:
        return urllib_client()
    kind = (type(client).__module__.split(".")[0], type(client).__name__)
    if kind == ("httpx", "AsyncClient"):
        return httpx_async_client(client)
    if kind == ("httpx", "Client"):
        return httpx_client(client)
    if kind == ("requests", "Session"):
        return requests_client(client)
    if callable(client):
        return client  # type: ignore[no-any-return]
    raise TypeError(f"strata: a fetch client must be a callable(request) -> (status, headers, body), not {client!r}")
