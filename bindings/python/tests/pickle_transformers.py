"""Transformers and a merger at the top level of an importable module, as a
pickled Schema needs them (test_pickle.py, test_dask_example.py)."""

from __future__ import annotations

from typing import Any, List


def csv_in(value: Any) -> List[str]:
    """"a,b" -> ["a", "b"]."""
    return [part for part in str(value).split(",") if part]


def csv_out(value: List[str]) -> str:
    """["a", "b"] -> "a,b"."""
    return ",".join(value)


def shout(value: Any) -> str:
    """A one-way transformer: the text in capitals."""
    return str(value).upper()


def longest(current: Any, incoming: Any) -> Any:
    """A merger: keeps the longer text."""
    if current is None or len(str(incoming)) > len(str(current)):
        return incoming
    return current


class Steps:
    """Transformers as static methods, found by their qualified name."""

    @staticmethod
    def stars(value: Any) -> str:
        return "*" + str(value) + "*"
