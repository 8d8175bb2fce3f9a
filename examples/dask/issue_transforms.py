"""The host transformers of examples/dask/schema.json.

They live at the top level of a module, so a pickled Schema names them by
reference (``issue_transforms.split_labels``) and each Dask worker imports
them: this folder must be importable there (map_folder.py puts it on the
workers' PYTHONPATH when it starts the cluster itself).
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple


def split_labels(value: Any) -> List[str]:
    """The export's labels, "bug, docs", as a list: ["bug", "docs"]."""
    if not isinstance(value, str):
        raise TypeError(f"labels must be a comma-separated string, not {type(value).__name__}")
    return [label.strip() for label in value.split(",") if label.strip()]


def join_labels(value: List[str]) -> str:
    """The reverse: ["bug", "docs"] -> "bug, docs"."""
    return ", ".join(value)


#: name -> (forward, reverse), as strata.Schema(transformers=...) takes them.
TRANSFORMERS: Dict[str, Tuple[Any, Any]] = {"label-list": (split_labels, join_labels)}
