"""Python data JSON cannot hold, keys out of range, orphan rules of the wrong
type and text files of JSON lines: each a StrataError that names where, never
an exception from the binding's insides."""

from __future__ import annotations

from pathlib import Path

import pytest

import strata

SCHEMA = strata.Schema(
    {
        "strata": 1,
        "models": {
            "Tweet": {
                "primaryKey": "id",
                "properties": {"id": {"type": "int"}, "lang": {"type": "string"}, "ratio": {"type": "double?"}},
            }
        },
    }
)


@pytest.mark.parametrize(
    "data, path",
    [
        ({"id": 1, "lang": "\udc00"}, "/lang"),
        ({"id": 1, "ratio": float("nan")}, "/ratio"),
        ({"id": 1, "ratio": float("-inf")}, "/ratio"),
        ({"id": 1, "lang": {"a/\udc00": 1}}, "/lang/a~1\\udc00"),
    ],
)
def test_python_data_json_cannot_hold_is_a_type_error_at_its_path(data: dict, path: str) -> None:
    with pytest.raises(strata.MappingError) as failure:
        SCHEMA.map("Tweet", data)
    assert failure.value.errors[0]["code"] == "type" and failure.value.errors[0]["path"] == path
    with SCHEMA.context() as ctx:
        with pytest.raises(strata.MappingError) as failure:
            ctx.import_("Tweet", [data])
        assert failure.value.errors[0]["path"] == "/0" + path
        assert ctx.count("Tweet") == 0


def test_text_with_a_lone_surrogate_is_a_syntax_error_naming_the_line() -> None:
    with pytest.raises(strata.MappingError) as failure:
        SCHEMA.map("Tweet", '{"id": 1, "lang": "\udc00"}')
    assert failure.value.errors[0]["code"] == "syntax"
    with pytest.raises(strata.StrataError) as lines:
        list(SCHEMA.map_lines("Tweet", '{"id": 1, "lang": "x"}\n{"id": 2, "lang": "\udc00"}\n'))
    assert lines.value.errors[0]["code"] == "syntax" and lines.value.errors[0]["line"] == 2


def test_a_key_outside_64_bits_is_a_type_error() -> None:
    with SCHEMA.context() as ctx:
        for key in (2**63, -(2**63) - 1):
            with pytest.raises(strata.MappingError) as failure:
                ctx.get("Tweet", key)
            assert failure.value.errors[0]["code"] == "type"
        assert ctx.get("Tweet", 2**63 - 1) is None


def test_an_orphan_rule_value_of_the_wrong_type_is_a_type_error() -> None:
    with SCHEMA.context() as ctx:
        ctx.import_("Tweet", [{"id": 1, "lang": "zh"}])
        with pytest.raises(strata.MappingError) as failure:
            ctx.import_("Tweet", [{"id": 2, "lang": "en"}], delete_orphans={"model": "Tweet", "where": {"lang": 5}})
        error = failure.value.errors[0]
        assert error["code"] == "type" and error["path"] == "/delete_orphans/where/lang"
        assert ctx.count("Tweet") == 1


def test_a_text_file_of_json_lines_keeps_a_lone_carriage_return(tmp_path: Path) -> None:
    path = tmp_path / "tweets.jsonl"
    path.write_bytes(b'{"id": 1,\r "lang": "x"}\n{"id": 2, "lang": "y"}\r\n')
    with open(path) as text:  # universal newlines would end a line at the lone \r
        assert [model["id"] for model in SCHEMA.map_lines("Tweet", text)] == [1, 2]
    with open(path, "rb") as binary:
        assert [model["id"] for model in SCHEMA.map_lines("Tweet", binary)] == [1, 2]
