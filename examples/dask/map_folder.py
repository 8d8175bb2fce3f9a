#!/usr/bin/env python3
"""Maps a folder of JSON-lines files in parallel with dask.distributed.

    python3 examples/dask/map_folder.py INPUT_DIR OUTPUT_DIR
        [--schema examples/dask/schema.json] [--model Issue]
        [--transformers issue_transforms] [--format parquet|jsonl]
        [--chunk-bytes N] [--workers 2] [--scheduler ADDRESS]

One task (one partition) per ``*.jsonl`` file of INPUT_DIR, or with
--chunk-bytes one per chunk of N bytes of a file (line_ranges.py). Each task
maps its lines with ``Schema.map_lines(..., on_error="yield")``, in constant
memory, writes the canonical dictionaries to OUTPUT_DIR/NAME.parquet (pyarrow,
one Arrow schema for every file: canonical_arrow.py) or OUTPUT_DIR/NAME.jsonl
(NAME.part00001.parquet ... for chunks), and hands back its counts and its
bad lines. The client gathers those into OUTPUT_DIR/errors.jsonl (one line
per error: file, line, code, path, message) and prints a summary. Exit
status 1 when a line failed.

The Schema travels to the workers pickled: its document plus its transformers
by reference (issue_transforms.split_labels), loaded once per worker process.
Without --scheduler a LocalCluster of --workers processes (one thread each)
runs here; the workers inherit STRATA_LIBRARY and get this folder on their
PYTHONPATH, so they import strata's library and the transformers.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence

import strata

HERE = Path(__file__).resolve().parent
#: Canonical dictionaries per Parquet row group (and per write of a JSON-lines file).
BATCH = 10_000


@dataclass
class PartResult:
    """What one partition hands back: its file and byte range, how many
    records it wrote where, and every error of its bad lines (line numbers
    within the file)."""

    file: str
    start: int
    end: int
    lines: int
    records: int
    output: str
    errors: List[Dict[str, Any]] = field(default_factory=list)
    worker_pid: int = 0


def _batches(
    schema: strata.Schema, model: str, name: str, source: Any, errors: List[Dict[str, Any]]
) -> Iterator[List[Dict[str, Any]]]:
    """The canonical dictionaries of the lines of ``source`` in lists of up to
    BATCH; each error of a bad line goes to ``errors`` with the file's name and
    the line (within ``source``)."""
    batch: List[Dict[str, Any]] = []
    for result in schema.map_lines(model, source, on_error="yield"):
        if isinstance(result, strata.LineError):
            for error in result.errors:
                errors.append(
                    {
                        "file": name,
                        "line": result.line,
                        "code": error["code"],
                        "path": error["path"],
                        "message": error["message"],
                    }
                )
            continue
        batch.append(result.to_dict())
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def map_part(
    path: str,
    start: int,
    end: int,
    output_name: str,
    schema: strata.Schema,
    model: str,
    output_dir: str,
    output_format: str,
) -> Dict[str, Any]:
    """One partition: maps the lines of the JSON-lines file ``path`` that
    start in bytes [start, end) (line_ranges.py) and writes their records to
    ``output_dir/output_name`` + ".parquet" or ".jsonl". Runs on a worker;
    gives the fields of a PartResult as plain data (a script's classes do not
    travel), with line numbers counted from ``start``'s line."""
    from line_ranges import RangeReader

    source = Path(path)
    errors: List[Dict[str, Any]] = []
    records = 0
    with open(source, "rb") as file:
        reader = RangeReader(file, start, end)
        if output_format == "parquet":
            import pyarrow.parquet as pq

            from canonical_arrow import CanonicalTable

            table = CanonicalTable(schema, model)
            target = Path(output_dir) / (output_name + ".parquet")
            with pq.ParquetWriter(target, table.arrow_schema) as writer:
                for batch in _batches(schema, model, source.name, reader, errors):
                    writer.write_batch(table.batch(batch))
                    records += len(batch)
        else:
            target = Path(output_dir) / (output_name + ".jsonl")
            with open(target, "w", encoding="utf-8") as out:
                for batch in _batches(schema, model, source.name, reader, errors):
                    out.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in batch)
                    records += len(batch)
    return {
        "file": source.name,
        "start": start,
        "end": end,
        "lines": reader.lines,
        "records": records,
        "output": str(target),
        "errors": errors,
        "worker_pid": os.getpid(),
    }


@dataclass
class Summary:
    """The whole run: one PartResult per partition, in file name and byte
    order."""

    parts: List[PartResult]

    @property
    def files(self) -> List[str]:
        return sorted({part.file for part in self.parts})

    @property
    def records(self) -> int:
        return sum(part.records for part in self.parts)

    @property
    def errors(self) -> List[Dict[str, Any]]:
        return [error for part in self.parts for error in part.errors]


def map_folder(
    client: Any,
    schema: strata.Schema,
    model: str,
    input_dir: Path,
    output_dir: Path,
    output_format: str = "parquet",
    chunk_bytes: int = 0,
) -> Summary:
    """Maps every ``*.jsonl`` file of ``input_dir`` on the cluster of
    ``client`` (a ``distributed.Client``): one task per file, or with
    ``chunk_bytes`` one per chunk of that many bytes (NAME.part00001 ...).
    Writes ``output_dir/errors.jsonl``."""
    from line_ranges import split

    if output_format not in ("parquet", "jsonl"):
        raise ValueError(f"the output format is parquet or jsonl, not {output_format!r}")
    output_dir.mkdir(parents=True, exist_ok=True)
    tasks = []
    for path in sorted(Path(input_dir).glob("*.jsonl")):
        ranges = split(path.stat().st_size, chunk_bytes)
        for index, (start, end) in enumerate(ranges):
            name = path.stem if len(ranges) == 1 else f"{path.stem}.part{index:05d}"
            tasks.append((str(path), start, end, name))
    futures = [
        client.submit(
            map_part, *task, schema=schema, model=model, output_dir=str(output_dir),
            output_format=output_format, pure=False,
        )
        for task in tasks
    ]
    parts = [PartResult(**result) for result in client.gather(futures)]
    # Line numbers within a part -> within its file: add the lines of the
    # parts of the same file before it.
    before: Dict[str, int] = {}
    for part in parts:
        offset = before.get(part.file, 0)
        for error in part.errors:
            error["line"] += offset
        before[part.file] = offset + part.lines
    summary = Summary(parts)
    with open(output_dir / "errors.jsonl", "w", encoding="utf-8") as out:
        out.writelines(json.dumps(error, ensure_ascii=False) + "\n" for error in summary.errors)
    return summary


def local_cluster(workers: int) -> Any:
    """A LocalCluster of ``workers`` processes with one thread each and no
    dashboard, whose workers find libstrata and this folder's modules."""
    from distributed import LocalCluster

    # Worker processes inherit this environment when they start: the library
    # this process loaded, this folder (canonical_arrow, issue_transforms) and
    # the folder strata itself was imported from.
    os.environ.setdefault("STRATA_LIBRARY", strata.library_path)
    parts = [part for part in os.environ.get("PYTHONPATH", "").split(os.pathsep) if part]
    for folder in (str(Path(strata.__file__).resolve().parent.parent), str(HERE)):
        if folder not in parts:
            parts.insert(0, folder)
    os.environ["PYTHONPATH"] = os.pathsep.join(parts)
    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=40,  # logging.ERROR
    )


def load_schema(schema_path: Path, transformers_module: Optional[str]) -> strata.Schema:
    """The schema, with the TRANSFORMERS of ``transformers_module`` (a module
    name, imported from this folder or the path) registered."""
    transformers = None
    if transformers_module:
        if str(HERE) not in sys.path:
            sys.path.insert(0, str(HERE))
        transformers = importlib.import_module(transformers_module).TRANSFORMERS
    return strata.Schema.from_file(schema_path, transformers=transformers)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input_dir", type=Path, help="a folder of *.jsonl files")
    parser.add_argument("output_dir", type=Path, help="where NAME.parquet / NAME.jsonl and errors.jsonl go")
    parser.add_argument("--schema", type=Path, default=HERE / "schema.json")
    parser.add_argument("--model", default="Issue")
    parser.add_argument("--transformers", default="issue_transforms", help="a module with TRANSFORMERS ('' for none)")
    parser.add_argument("--format", choices=("parquet", "jsonl"), default="parquet")
    parser.add_argument(
        "--chunk-bytes", type=int, default=0, help="one partition per chunk of this many bytes (0: per file)"
    )
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    parser.add_argument("--scheduler", help="the address of a running scheduler instead of a LocalCluster")
    args = parser.parse_args(argv)

    from distributed import Client

    schema = load_schema(args.schema, args.transformers or None)
    cluster = None if args.scheduler else local_cluster(args.workers)
    try:
        with Client(args.scheduler or cluster) as client:
            summary = map_folder(
                client, schema, args.model, args.input_dir, args.output_dir, args.format, args.chunk_bytes
            )
    finally:
        if cluster is not None:
            cluster.close()
    for part in summary.parts:
        print(f"{part.file}: {part.records} records, {len(part.errors)} errors -> {Path(part.output).name}")
    for error in summary.errors:
        print(f"{error['file']}:{error['line']}: {error['code']} at {error['path'] or '/'}: {error['message']}")
    print(f"{len(summary.files)} files, {summary.records} records, {len(summary.errors)} errors")
    return 1 if summary.errors else 0


if __name__ == "__main__":
    sys.exit(main())
