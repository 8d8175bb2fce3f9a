"""Every handle the package receives is released: RSS stays flat over many models."""

from __future__ import annotations

import gc
import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict

import pytest

import strata

ROUNDS = 4
PER_ROUND = 5_000  # 20,000 models over the measured rounds
#: Allowed growth of RSS over the measured rounds. A leak of one model per
#: iteration (a few hundred bytes at least, with its values) would be several MB.
SLACK = 3 * 1024 * 1024


def rss() -> int:
    """The process's resident set size in bytes."""
    statm = Path("/proc/self/statm")
    if statm.exists():
        pages = int(statm.read_text().split()[1])
        return pages * resource.getpagesize()
    # No /proc (macOS): the peak RSS is the best we have.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def grows(work: Callable[[], None]) -> int:
    """RSS growth over ROUNDS rounds of ``work``, after a warm-up round."""
    work()
    gc.collect()
    before = rss()
    for _ in range(ROUNDS):
        work()
        gc.collect()
    return rss() - before


ISSUE = {
    "url": "https://example.com/issues/1",
    "number": 1,
    "title": "A title that is long enough to be a real allocation of its own" * 2,
    "state": "closed",
    "user": {"login": "octocat", "id": 1},
    "assignee": {"id": 2, "login": "hubot"},
    "labels": [{"name": "bug", "color": "f00"}, {"name": "ui", "color": "0f0"}],
    "body": None,
}
ISSUE_TEXT = json.dumps(ISSUE).encode()


def test_map_and_free(schema: strata.Schema) -> None:
    def work() -> None:
        for _ in range(PER_ROUND):
            m = schema.map("Issue", ISSUE_TEXT)
            m.to_dict()
            m.to_json()
            m["labels"]
            m.get("body")
            "title" in m
            hash(m)
            m.copy()
            repr(m)

    growth = grows(work)
    assert growth < SLACK, f"RSS grew by {growth / 1e6:.1f} MB over {ROUNDS * PER_ROUND} models"


def test_map_many_and_free(schema: strata.Schema) -> None:
    batch = json.dumps([ISSUE] * 100).encode()

    def work() -> None:
        for _ in range(PER_ROUND // 100):
            models = schema.map_many("Issue", batch)
            assert len(models) == 100
            del models

    growth = grows(work)
    assert growth < SLACK, f"RSS grew by {growth / 1e6:.1f} MB over {ROUNDS * PER_ROUND} models"


def test_errors_and_free(schema: strata.Schema) -> None:
    bad = json.dumps(dict(ISSUE, number="x", title=5, labels=[{"name": 1}] * 10)).encode()

    def work() -> None:
        for _ in range(PER_ROUND // 2):
            with pytest.raises(strata.MappingError):
                schema.map("Issue", bad)
            with pytest.raises(strata.MappingError):
                schema.map_many("Issue", b"[" + bad + b"]")

    growth = grows(work)
    assert growth < SLACK, f"RSS grew by {growth / 1e6:.1f} MB over {ROUNDS * PER_ROUND} failed calls"


def test_schemas_free(schema_doc: Dict[str, Any]) -> None:
    text = json.dumps(schema_doc)

    def work() -> None:
        for _ in range(500):
            s = strata.Schema(text)
            s.map("Issue", ISSUE_TEXT)
            del s

    growth = grows(work)
    assert growth < SLACK, f"RSS grew by {growth / 1e6:.1f} MB over {ROUNDS * 500} schemas"


def test_models_in_cycles_are_freed(schema: strata.Schema) -> None:
    class Holder:
        model: strata.Model
        other: Any

    def work() -> None:
        for _ in range(PER_ROUND):
            a, b = Holder(), Holder()
            a.model, b.model = schema.map("Issue", ISSUE_TEXT), schema.map("Issue", ISSUE_TEXT)
            a.other, b.other = b, a  # only the cycle collector frees these

    growth = grows(work)
    assert growth < SLACK, f"RSS grew by {growth / 1e6:.1f} MB over {ROUNDS * PER_ROUND} cycles"


def test_models_alive_at_exit_are_released_quietly(schema_doc: Dict[str, Any], tmp_path: Path) -> None:
    # Models still referenced by module globals, a cycle and a schema dropped
    # first: the interpreter's shutdown releases them with no error printed.
    script = tmp_path / "exit.py"
    script.write_text(
        "import strata\n"
        f"schema = strata.Schema({json.dumps(json.dumps(schema_doc))})\n"
        f"models = schema.map_many('Issue', b'[' + {ISSUE_TEXT!r} + b']')\n"
        f"one = schema.map('Issue', {ISSUE_TEXT!r})\n"
        "cycle = [one.copy()]\n"
        "cycle.append(cycle)\n"
        "del schema\n"
        "print(len(models), one['number'])\n"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(strata.__file__).resolve().parent.parent))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "1 1\n"
    assert done.stderr == ""
