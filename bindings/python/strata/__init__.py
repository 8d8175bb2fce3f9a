"""Strata: a model layer for JSON APIs.

Declare models once in a schema; Strata maps JSON onto them, checks every
value, gives each model's canonical dictionary and serializes it back::

    import strata

    schema = strata.Schema.from_file("schema.json")
    issue = schema.map("Issue", '{"number": 1347, "title": "Found a bug"}')
    issue["title"]        # 'Found a bug'
    issue.to_dict()       # canonical values
    issue.to_json()       # back to the API's JSON

This package is a thin ctypes layer over libstrata, which does all the work.
The library is found through the ``STRATA_LIBRARY`` environment variable (a
file path), next to this package (where ``pip install`` puts it), or in the
checkout's ``build/`` folder.
"""

from __future__ import annotations

from . import _native
from ._errors import BatchError, LineError, MappingError, SchemaError, StrataError
from ._graph import Batch, BatchFetch, Context, Fetch, ImportResult, Page, Record
from ._http import Request, httpx_async_client, httpx_client, requests_client, urllib_client
from ._handles import JSONInput
from ._model import Model
from ._response import Response
from ._schema import Schema, compare

__all__ = [
    "Schema",
    "Model",
    "Response",
    "Context",
    "Record",
    "ImportResult",
    "Page",
    "Batch",
    "BatchFetch",
    "BatchError",
    "Fetch",
    "Request",
    "urllib_client",
    "requests_client",
    "httpx_client",
    "httpx_async_client",
    "StrataError",
    "SchemaError",
    "MappingError",
    "LineError",
    "JSONInput",
    "compare",
    "library_version",
    "library_path",
    "__version__",
]

#: The path of the libstrata that was loaded.
library_path: str = str(_native.library_path)


def library_version() -> str:
    """The loaded libstrata's version, "MAJOR.MINOR.PATCH"."""
    return _native.text(_native.lib.strata_version())


#: The package's version, which is the library's: STRATA_VERSION of
#: include/strata.h, written into strata/_version.py when the wheel is built;
#: in a checkout read from the header itself.
__version__: str = _native.package_version()
