"""Schema.map_lines beyond the conformance cases: the sources it reads in
chunks (a line spanning reads, lines longer than the read buffer,
unbuffered and text files, objects with only read()) and what
on_error="raise" yields before it raises."""

from __future__ import annotations

import gc
import io
from pathlib import Path
from typing import Any, List

import pytest

import strata

SCHEMA = strata.Schema(
    {
        "strata": 1,
        "models": {
            "Issue": {
                "properties": {
                    "number": {"type": "int", "required": True},
                    "title": {"type": "string"},
                }
            }
        },
    }
)

# a title longer than the 64 KiB the binding reads at a time
LONG = "x" * 200_000
TEXT = "".join(
    [
        '{"number": 1, "title": "one"}\n',
        '{"number": 2, "title": "%s"}\n' % LONG,
        "\n",
        '{"number": 4}\n',
    ]
)
EXPECTED = [(1, "one"), (2, LONG), (4, None)]


def numbers_and_titles(items: List[Any]) -> List[Any]:
    return [(item.to_dict()["number"], item.to_dict().get("title")) for item in items]


class ReadOnly:
    """An object with only read(): neither a file nor readinto()."""

    def __init__(self, data: bytes) -> None:
        self.stream = io.BytesIO(data)

    def read(self, size: int) -> bytes:
        return self.stream.read(min(size, 1000))


def test_every_kind_of_file_gives_the_same_models(tmp_path: Path) -> None:
    path = tmp_path / "issues.jsonl"
    path.write_text(TEXT, encoding="utf-8")
    with open(path, "rb") as buffered, open(path, "rb", buffering=0) as raw, open(
        path, encoding="utf-8"
    ) as text:
        for source in (buffered, raw, text, io.BytesIO(TEXT.encode()), ReadOnly(TEXT.encode()), path):
            assert numbers_and_titles(list(SCHEMA.map_lines("Issue", source))) == EXPECTED, source


def test_lines_longer_than_the_read_buffer(tmp_path: Path) -> None:
    # A binary file is read into one 64 KiB buffer, the unfinished line
    # moved to its front after each read: lines past that size (and past the
    # C functions' 256 KiB, around and at it), a line past the limit, and a
    # last line without its newline.
    sizes = [1, 300_000, 2, 262_100, 262_144, 700_000, 3, 140_000, 5]
    lines = ['{"number": %d, "title": "%s"}' % (n, "t" * size) for n, size in enumerate(sizes, 1)]
    path = tmp_path / "long.jsonl"
    path.write_bytes("\n".join(lines).encode())
    for buffering in (-1, 0):
        with open(path, "rb", buffering=buffering) as file:
            got = list(SCHEMA.map_lines("Issue", file, on_error="yield", max_line_length=600_000))
        assert [type(item).__name__ for item in got] == ["Model"] * 5 + ["LineError"] + ["Model"] * 3
        models = [item for item in got if isinstance(item, strata.Model)]
        assert [(m.to_dict()["number"], len(m.to_dict()["title"])) for m in models] == [
            (n, size) for n, size in enumerate(sizes, 1) if n != 6
        ]
        assert got[5].line == 6


def test_reading_a_file_makes_no_ctypes_type_per_chunk(tmp_path: Path) -> None:
    # Each buffer goes to C up to its last newline, so the chunks' sizes
    # vary; an array type per size would be made and cached for good.
    import ctypes

    path = tmp_path / "varied.jsonl"
    path.write_text(
        "".join('{"number": %d, "title": "%s"}\n' % (n, "v" * (n * 37 % 5000)) for n in range(3000)),
        encoding="utf-8",
    )
    with open(path, "rb") as file:
        assert sum(1 for _ in SCHEMA.map_lines("Issue", file)) == 3000
    before = len(ctypes.Array.__subclasses__())
    with open(path, "rb") as file:
        assert sum(1 for _ in SCHEMA.map_lines("Issue", file)) == 3000
    assert len(ctypes.Array.__subclasses__()) == before


def test_raise_yields_the_models_before_the_bad_line() -> None:
    # the bad line (4) shares its chunk with lines 1-3, and a later chunk holds more lines
    data = b'{"number": 1}\n{"number": 2}\n\n{"title": "no number"}\n{"number": 5}\n' + b" " * 70_000 + b"\n"
    got: List[Any] = []
    with pytest.raises(strata.MappingError) as info:
        for model in SCHEMA.map_lines("Issue", io.BytesIO(data)):
            got.append(model.to_dict()["number"])
    assert got == [1, 2]
    assert [entry["line"] for entry in info.value.errors] == [4]
    assert info.value.errors[0]["path"] == "/number"
    # with on_error="yield" the file goes on past it
    items = list(SCHEMA.map_lines("Issue", io.BytesIO(data), on_error="yield"))
    assert isinstance(items[2], strata.LineError) and items[2].line == 4
    assert [item.to_dict()["number"] for item in items if isinstance(item, strata.Model)] == [1, 2, 5]


def test_an_abandoned_generator_releases_its_lines() -> None:
    data = b'{"number": 1}\n' * 5000
    lines = SCHEMA.map_lines("Issue", io.BytesIO(data))
    first = next(lines)
    lines.close()  # the models of the chunk not yet yielded go with it
    del lines
    gc.collect()
    assert first.to_dict() == {"number": 1}


def test_several_bad_lines_in_one_chunk_keep_their_order() -> None:
    data = b'{"number": 1}\n[\n{"number": "two"}\n{"number": 4}\n{\n'
    items = list(SCHEMA.map_lines("Issue", data, on_error="yield"))
    kinds = [item.line if isinstance(item, strata.LineError) else item.to_dict()["number"] for item in items]
    assert kinds == [1, 2, 3, 4, 5]
    assert [type(item).__name__ for item in items] == ["Model", "LineError", "LineError", "Model", "LineError"]
    assert [item.errors[0]["code"] for item in items if isinstance(item, strata.LineError)] == [
        "syntax",
        "type",
        "syntax",
    ]


def test_a_map_lines_never_iterated_frees_its_mapper(monkeypatch: pytest.MonkeyPatch) -> None:
    # a generator that never started never runs its finally: the iterator
    # map_lines returns frees the C mapper itself when it goes
    import gc

    from strata import _native

    freed: List[int] = []
    real = _native.lib.strata_lines_free

    def counting(handle: int) -> None:
        freed.append(handle)
        real(handle)

    monkeypatch.setattr(_native.lib, "strata_lines_free", counting)
    lines = SCHEMA.map_lines("Issue", b'{"number": 1}\n')
    del lines
    gc.collect()
    assert len(freed) == 1
    started = SCHEMA.map_lines("Issue", b'{"number": 1}\n{"number": 2}\n')
    assert next(started)["number"] == 1
    started.close()
    gc.collect()
    assert len(freed) == 2  # closed half way: freed once, by the lines' own finally
    assert [m["number"] for m in SCHEMA.map_lines("Issue", b'{"number": 3}\n')] == [3]
    gc.collect()
    assert len(freed) == 3
