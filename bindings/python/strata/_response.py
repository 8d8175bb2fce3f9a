"""Response: what Schema.map_response returns, and the options of a response."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Mapping, Optional

from ._model import Model

__all__ = ["Response", "response_options"]


class Response:
    """What :meth:`Schema.map_response` returns: ``records``, the models found
    at the root (in order; empty for a root that is ``None`` or ``[]``), and
    ``metadata``, the metadata model or ``None``. ``len(r)`` and ``iter(r)``
    are those of the records."""

    __slots__ = ("_records", "_metadata")

    _records: List[Model]
    _metadata: Optional[Model]

    def __init__(self, records: List[Model], metadata: Optional[Model] = None) -> None:
        self._records = list(records)
        self._metadata = metadata

    @property
    def records(self) -> List[Model]:
        """The records, in the response's order."""
        return self._records

    @property
    def metadata(self) -> Optional[Model]:
        """The metadata model, or ``None`` (none asked for, or the response leaves it out)."""
        return self._metadata

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator[Model]:
        return iter(self._records)

    def __getitem__(self, index: int) -> Model:
        return self._records[index]

    def __repr__(self) -> str:
        head = f"<strata.Response {len(self._records)} record{'' if len(self._records) == 1 else 's'}"
        if self._records:
            head += f" of {self._records[0].model}"
        if self._metadata is not None:
            head += f" metadata={self._metadata!r}"
        return head + ">"


def response_options(root: Optional[str], meta: Optional[Mapping[str, str]]) -> Dict[str, Any]:
    """The options object of strata_map_response and strata_context_import
    for ``root`` and ``meta`` (``TypeError`` for a root that is no str or
    None, a meta that is no mapping or None); empty when both are None."""
    options: Dict[str, Any] = {}
    if root is not None:
        if not isinstance(root, str):
            raise TypeError(f"strata: root must be a str or None, not {type(root).__name__}")
        options["root"] = root
    if meta is not None:
        if not isinstance(meta, Mapping):
            raise TypeError(
                'strata: meta must be a mapping {"path": ..., "model": ...} or None, '
                f"not {type(meta).__name__}"
            )
        options["meta"] = dict(meta)
    return options
