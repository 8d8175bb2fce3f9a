"""Calls from a thread with a small stack give the same answers as anywhere.

The engine runs such calls on a helper thread with a large stack (see
docs/schema.md, "Limits and threads"): transformers written in Python are
then called from that helper thread, and errors still reach the caller.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List

import pytest

import strata

DOC: Dict[str, Any] = {
    "strata": 1,
    "models": {
        "Node": {
            "properties": {
                "name": {"type": "string?", "transform": "shout"},
                "child": {"type": "Node?"},
            }
        }
    },
}


def chain(levels: int) -> Dict[str, Any]:
    node: Dict[str, Any] = {"name": "leaf"}
    for _ in range(levels - 1):
        node = {"name": "n", "child": node}
    return node


def on_small_stack(work: Callable[[], Any]) -> Any:
    """Runs `work` on a thread with a 256 KiB stack; returns or raises what it did."""
    outcome: List[Any] = []

    def run() -> None:
        try:
            outcome.append(("value", work()))
        except BaseException as error:  # handed back to the caller
            outcome.append(("error", error))

    previous = threading.stack_size(256 * 1024)
    try:
        thread = threading.Thread(target=run)
        thread.start()
    finally:
        threading.stack_size(previous)
    thread.join()
    kind, value = outcome[0]
    if kind == "error":
        raise value
    return value


@pytest.fixture
def schema() -> strata.Schema:
    return strata.Schema(DOC, transformers={"shout": (str.upper, str.lower)})


def test_deepest_model_maps_and_is_used_on_a_small_stack(schema: strata.Schema) -> None:
    here = schema.map("Node", chain(512))

    def work() -> Any:
        model = schema.map("Node", chain(512))
        copy = model.copy()
        return model == here, copy == model, hash(model) == hash(here), model.to_json(), model.to_dict()

    equal, copy_equal, hash_equal, as_json, as_dict = on_small_stack(work)
    assert equal and copy_equal and hash_equal
    assert as_json == here.to_json()
    assert as_dict == here.to_dict()


def test_errors_reach_the_calling_thread(schema: strata.Schema) -> None:
    def work() -> Any:
        return schema.map("Node", chain(513))

    with pytest.raises(strata.MappingError) as caught:
        on_small_stack(work)
    assert [error["code"] for error in caught.value.errors] == ["depth"]
    assert caught.value.errors[0]["path"] == "/child" * 512


def test_python_transformer_runs_for_a_small_stack_call(schema: strata.Schema) -> None:
    model = on_small_stack(lambda: schema.map("Node", {"name": "ada"}))
    assert model["name"] == "ADA"
    assert model.to_json() == {"name": "ada"}
