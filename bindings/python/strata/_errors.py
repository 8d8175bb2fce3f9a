"""The exceptions of strata."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

__all__ = ["StrataError", "SchemaError", "MappingError", "LineError", "BatchError"]

ErrorEntry = Dict[str, str]

#: How many errors str() of an exception lists before "... and N more".
SHOWN_ERRORS = 5


class StrataError(Exception):
    """Base of every strata exception.

    ``errors`` is the list of every error of the failed call, each a dict with
    the keys ``path`` (a JSON Pointer into the input), ``model``,
    ``property``, ``code`` and ``message``.
    """

    errors: List[ErrorEntry]

    def __init__(self, errors: Sequence[ErrorEntry], summary: Optional[str] = None) -> None:
        self.errors = [dict(entry) for entry in errors]
        self.summary = summary
        super().__init__(self._describe())

    @property
    def code(self) -> str:
        """The code of the first error ("" if there is none)."""
        return self.errors[0].get("code", "") if self.errors else ""

    def _describe(self) -> str:
        count = len(self.errors)
        head = "1 error" if count == 1 else f"{count} errors"
        if self.summary:
            head = f"{self.summary}: {head}"
        if not self.errors:
            return head
        lines = [head + ":"]
        lines.extend("  " + format_error(entry) for entry in self.errors[:SHOWN_ERRORS])
        if count > SHOWN_ERRORS:
            lines.append(f"  ... and {count - SHOWN_ERRORS} more")
        return "\n".join(lines)

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (self.errors, self.summary))


class SchemaError(StrataError):
    """A schema could not be loaded: every problem of the document."""


class MappingError(StrataError):
    """Input could not be mapped onto a model: every error of the input."""


class LineError:
    """A line of JSON lines that did not map, as :meth:`Schema.map_lines`
    yields it with ``on_error="yield"``: ``line`` (1-based; blank lines
    count) and ``errors``, every error of that line, each a dict like
    :attr:`StrataError.errors` with ``"line"`` too and a ``path`` into that
    line's value."""

    __slots__ = ("line", "errors")

    def __init__(self, line: int, errors: Sequence[Dict[str, object]]) -> None:
        self.line = line
        self.errors = [dict(entry) for entry in errors]

    def exception(self) -> "MappingError":
        """The :class:`MappingError` that ``on_error="raise"`` raises for this line."""
        return MappingError(self.errors, f"line {self.line}")  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LineError):
            return NotImplemented
        return self.line == other.line and self.errors == other.errors

    def __repr__(self) -> str:
        return f"LineError(line={self.line}, errors={self.errors!r})"

    def __str__(self) -> str:
        return str(self.exception().args[0])


def format_error(entry: ErrorEntry) -> str:
    """One error on one line: ``/labels/0/id [Label.id] type: message``."""
    where = entry.get("path") or "(root)"
    model = entry.get("model", "")
    prop = entry.get("property", "")
    if model and prop:
        owner = f" [{model}.{prop}]"
    elif model or prop:
        owner = f" [{model or prop}]"
    else:
        owner = ""
    code = entry.get("code", "")
    message = entry.get("message", "")
    return f"{where}{owner} {code}: {message}" if code else f"{where}{owner} {message}"


class BatchError(Exception):
    """Fetches of a batch failed (``Context.batch``): ``failures`` holds each
    failed fetch's URL and its exception (a :class:`StrataError`, or the
    client's own), in the order the fetches were added; the pages of the
    others, and the failed ones' pages before their error, are imported."""

    failures: "List[Tuple[str, BaseException]]"

    def __init__(self, failures: "Sequence[Tuple[str, BaseException]]", total: int) -> None:
        self.failures = list(failures)
        lines = [f"{len(self.failures)} of {total} fetches failed:"]
        lines.extend(f"  {url}: {type(error).__name__}: {error}".split("\n")[0] for url, error in self.failures)
        super().__init__("\n".join(lines))
