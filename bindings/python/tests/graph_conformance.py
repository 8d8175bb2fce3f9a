"""The conformance keys of the object graph (Tests/conformance/README.md,
"Graph"), for test_conformance.py: a context per case, steps run in order."""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import subprocess
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest

import strata
from jsoncompare import errors_difference, json_difference

GRAPH_RESULT_KEYS = ("graph",)


def _injectors(spec: Optional[Dict[str, Any]]) -> Dict[str, Callable[[Any, Any], Any]]:
    """``{"Model": {"member": name}}``: the key is the input object's member."""
    out: Dict[str, Callable[[Any, Any], Any]] = {}
    for model, rule in (spec or {}).items():
        member = rule["member"]
        out[model] = lambda value, parent, member=member: value.get(member)
    return out


# the read blocks (``with ctx.reading()``) a case's "read" steps hold open, by context
_read_blocks: Dict[int, List[Any]] = {}


def _step(step: Dict[str, Any], context: strata.Context, label: str) -> None:
    if "read" in step:
        blocks = _read_blocks.setdefault(id(context), [])
        if step["read"] == "begin":
            block = context.reading()
            block.__enter__()
            blocks.append(block)
        else:
            blocks.pop().__exit__(None, None, None)
    elif "import" in step:
        options = step.get("options", {})
        orphans = options.get("delete_orphans")
        rule: Optional[Dict[str, Any]] = None
        if orphans is not None:
            rule = dict(orphans)
            keep = step.get("keep")
            if keep is not None:
                rule["keep"] = lambda record, keep=keep: record.get(keep["property"]) == keep["equals"]
        data = step.get("input")
        # a str input would be read as JSON text: encode every input as text
        result = context.import_(
            step["import"], json.dumps(data), root=options.get("root"), meta=options.get("meta"), delete_orphans=rule
        )
        if "records" in step:
            keys = [record.key for record in result]
            problem = json_difference(step["records"], keys)
            if problem:
                pytest.fail(f"{label}: records {keys!r}, expected {step['records']!r}")
        for name in ("created", "updated", "unchanged", "deleted"):
            if name in step and getattr(result, name) != step[name]:
                pytest.fail(f"{label}: {name} {getattr(result, name)!r}, expected {step[name]!r}")
        if "warnings" in step:
            paths = [warning["path"] for warning in result.warnings]
            if paths != step["warnings"]:
                pytest.fail(f"{label}: warnings {result.warnings!r}, expected {step['warnings']!r}")
        if "metadata" in step:
            actual = None if result.metadata is None else result.metadata.to_dict()
            problem = json_difference(step["metadata"], actual)
            if problem:
                pytest.fail(f"{label}: metadata {actual!r} {problem}")
    elif "delete" in step:
        record = context.get(step["delete"], step.get("key"))
        if record is None:
            raise strata.MappingError(
                [{"path": "", "model": "", "property": "", "code": "argument", "message": "no such record"}],
                "nothing to delete",
            )
        context.delete(record)
    elif "fetchHeaders" in step:
        headers = [list(pair) for pair in context.fetch_headers(step["fetchHeaders"])]
        if headers != step["headers"]:
            pytest.fail(f"{label}: fetch headers {headers!r}, expected {step['headers']!r}")
    elif "fetchPage" in step:
        page = context.fetch_page(step["fetchPage"], step["url"], step["status"], [tuple(pair) for pair in step["headers"]],
                                  step["body"].encode(), cache=step.get("cache", True))
        got = {"records": [record.key for record in page], "next": page.next, "cached": page.cached}
        want = {key: step[key] for key in got if key in step}
        if {key: got[key] for key in want} != want:
            pytest.fail(f"{label}: page {got!r}, expected {want!r}")
    elif "get" in step:
        record = context.get(step["get"], step.get("key"))
        if "stub" in step and (record is None or record.is_stub != step["stub"]):
            pytest.fail(f"{label}: is_stub of {record!r} is not {step['stub']}")
        if "dictionary" in step:
            actual = None if record is None else record.to_dict(nested=False)
            problem = json_difference(step["dictionary"], actual)
            if problem:
                pytest.fail(f"{label}: {actual!r} {problem}")
    elif "nested" in step:
        record = context.get(step["nested"], step.get("key"))
        actual = None if record is None else record.to_dict(depth=step.get("depth"))
        problem = json_difference(step.get("dictionary"), actual)
        if problem:
            pytest.fail(f"{label}: nested {actual!r} {problem}")
    elif "query" in step:
        records = context.query(
            step["query"], step.get("where"), order_by=step.get("order_by"), limit=step.get("limit"),
            offset=step.get("offset", 0), stubs=step.get("stubs", True),
        )
        keys = [record.key for record in records]
        if keys != step.get("records"):
            pytest.fail(f"{label}: query gave {keys!r}, expected {step.get('records')!r}")
        if "limit" not in step and "offset" not in step and "where" in step:
            counted = context.count(step["query"], where=step["where"], stubs=step.get("stubs", True))
            if counted != len(keys):
                pytest.fail(f"{label}: count(where=) {counted}, the query gave {len(keys)}")
    elif "count" in step:
        stubs = step.get("stubs", True)
        counted = context.count(step["count"], stubs=stubs)
        if counted != step["is"] or len(context.all(step["count"], stubs=stubs)) != counted:
            pytest.fail(f"{label}: count {counted}, expected {step['is']}")
    elif "sql" in step:
        if context.path is not None and context.path.startswith("postgresql://"):
            return  # the steps' SQL is SQLite's; test_graph_postgres.py reads PostgreSQL's tables
        assert context.path is not None, f"{label}: an sql step needs a case with \"file\": true"
        with closing(sqlite3.connect(f"file:{context.path}?mode=ro", uri=True)) as db:
            rows = [[{"blob": cell.hex()} if isinstance(cell, bytes) else cell for cell in row]
                    for row in db.execute(step["sql"])]
        if rows != step["rows"]:
            pytest.fail(f"{label}: {step['sql']} gave {rows!r}, expected {step['rows']!r}")
    elif "expect" in step:
        for model, expected in step["expect"].items():
            actual = [record.to_dict(nested=False) for record in context.all(model)]
            problem = json_difference(expected, actual)
            if problem:
                pytest.fail(f"{label}: {model} {problem}\nexpected: {expected!r}\nactual:   {actual!r}")
    else:
        pytest.fail(f"{label}: unknown step {step!r}")


def run_graph_case(case: Dict[str, Any], schema_doc: Any) -> bool:
    """Runs a ``graph`` case; True if it was one. A case on a file runs
    twice, the second time with contexts that keep no record in their cache
    between calls. With a PostgreSQL server (``STRATA_TEST_POSTGRES_URL``,
    which scripts/test sets), every case runs once more on a graph of its
    own there (a schema of the database, dropped after)."""
    if "graph" not in case:
        return False
    _run_graph_steps(case, schema_doc, None)
    if case.get("file"):
        _run_graph_steps(case, schema_doc, 0)
    if POSTGRES_URL and "skip" not in case.get("postgres", {}):
        _run_graph_steps(case, schema_doc, None, postgres=True)
    return True


# the PostgreSQL server the graph cases run on too (scripts/pg-server)
POSTGRES_URL = os.environ.get("STRATA_TEST_POSTGRES_URL")
_postgres_graphs = itertools.count()


def _postgres_graph() -> str:
    """The URL of a new, empty graph on the test server: a schema of its own."""
    return f"{POSTGRES_URL}?schema=conformance_{os.getpid()}_{next(_postgres_graphs)}"


def _drop_postgres_graph(url: str) -> None:
    base, _, schema = url.partition("?schema=")
    subprocess.run(
        ["psql", base, "-q", "-v", "ON_ERROR_STOP=1", "-c", f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'],
        check=True, capture_output=True,
    )


def _open(schema: strata.Schema, path: Optional[str], cache: Optional[int]) -> strata.Context:
    context = schema.context(path)
    if cache is not None:  # a context that caches nothing also reads through a memory map
        context.cache_limit = cache
        context.memory_map = 1 << 24
    return context


def _run_graph_steps(case: Dict[str, Any], schema_doc: Any, cache: Optional[int], postgres: bool = False) -> None:
    schema = strata.Schema(schema_doc, key_injectors=_injectors(case.get("keyInjectors")))
    if postgres:
        url = _postgres_graph()
        try:
            _run_steps_at(case, schema, url, cache, " (PostgreSQL)")
        finally:
            _drop_postgres_graph(url)
        return
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "graph.db") if case.get("file") else None
        _run_steps_at(case, schema, path, cache, "")


def _run_steps_at(case: Dict[str, Any], schema: strata.Schema, path: Optional[str], cache: Optional[int],
                  where: str) -> None:
    context = _open(schema, path, cache)
    # a second context on the same file, opened when a step first names it
    other: Optional[strata.Context] = None
    try:
        for position, step in enumerate(case["graph"]):
            label = f"step {position}" if cache is None else f"step {position} (caching nothing)"
            label += where
            if step.get("other") and other is None:
                other = _open(schema, path, cache)
            target = other if step.get("other") else context
            assert target is not None
            if step.get("reopen"):
                _read_blocks.clear()
                context.close()
                if other is not None:
                    other.close()
                    other = None
                context = _open(schema, path, cache)
            elif "errors" in step:
                with pytest.raises(strata.MappingError) as failure:
                    _step(step, target, label)
                problem = errors_difference(step["errors"], failure.value.errors)
                if problem:
                    pytest.fail(f"{label}: errors differ:\n{problem}")
            else:
                try:
                    _step(step, target, label)
                except strata.StrataError as exc:
                    pytest.fail(f"{label} failed:\n{exc}")
            # the graph's invariants hold after every step, failed or not
            try:
                context.check()
            except strata.StrataError as exc:
                pytest.fail(f"{label}: graph invariants broken:\n{exc}")
    finally:
        _read_blocks.clear()
        context.close()
        if other is not None:
            other.close()
