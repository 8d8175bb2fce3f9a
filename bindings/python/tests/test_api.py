"""Unit tests of the strata Python API."""

from __future__ import annotations

import copy
import gc
import json
import pickle
import re
import threading
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import strata
from jsoncompare import json_difference, json_equal

ERROR_KEYS = {"path", "model", "property", "code", "message"}


def codes(exc: strata.StrataError) -> List[Tuple[str, str]]:
    return sorted((e["path"], e["code"]) for e in exc.errors)


# --------------------------------------------------------------------------
# Package


def header_version() -> str:
    """STRATA_VERSION of include/strata.h: the one home of the version."""
    header = Path(__file__).resolve().parents[3] / "include" / "strata.h"
    match = re.search(r'^#define STRATA_VERSION "([^"]+)"', header.read_text(), re.MULTILINE)
    assert match, f"no STRATA_VERSION in {header}"
    return match.group(1)


def test_exports_and_versions() -> None:
    # The package's version is the library's, and both are the header's.
    assert strata.__version__ == header_version()
    assert strata.library_version() == strata.__version__
    assert Path(strata.library_path).is_file()
    for name in strata.__all__:
        assert hasattr(strata, name), name


def test_exception_hierarchy() -> None:
    assert issubclass(strata.StrataError, Exception)
    assert issubclass(strata.SchemaError, strata.StrataError)
    assert issubclass(strata.MappingError, strata.StrataError)
    assert not issubclass(strata.SchemaError, strata.MappingError)


# --------------------------------------------------------------------------
# Schema


def test_schema_from_dict(schema: strata.Schema) -> None:
    assert schema.version == 3
    assert schema.models == ["User", "Label", "Issue"]
    assert isinstance(schema.version, int)
    schema.models.append("mutating the copy does nothing")
    assert schema.models == ["User", "Label", "Issue"]


def test_schema_from_str_and_bytes(schema_doc: Dict[str, Any]) -> None:
    text = json.dumps(schema_doc)
    for doc in (text, text.encode(), bytearray(text.encode()), memoryview(text.encode())):
        loaded = strata.Schema(doc)
        assert loaded.version == 3
        assert loaded.models == ["User", "Label", "Issue"]


def test_schema_without_version() -> None:
    loaded = strata.Schema({"strata": 1, "models": {"A": {"properties": {}}}})
    assert loaded.version == 0
    assert loaded.models == ["A"]


def test_schema_repr(schema: strata.Schema) -> None:
    text = repr(schema)
    assert text.startswith("<strata.Schema")
    assert "version=3" in text
    assert "Issue" in text and "User" in text


def test_schema_from_file(tmp_path: Path, schema_doc: Dict[str, Any]) -> None:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema_doc), encoding="utf-8")
    for arg in (path, str(path)):
        loaded = strata.Schema.from_file(arg)
        assert loaded.models == ["User", "Label", "Issue"]
        assert loaded.version == 3


def test_schema_from_file_unicode_path(tmp_path: Path, schema_doc: Dict[str, Any]) -> None:
    path = tmp_path / "schéma ✓.json"
    path.write_text(json.dumps(schema_doc), encoding="utf-8")
    assert strata.Schema.from_file(path).version == 3


def test_schema_from_missing_file(tmp_path: Path) -> None:
    with pytest.raises(strata.SchemaError) as info:
        strata.Schema.from_file(tmp_path / "nope.json")
    assert info.value.errors[0]["code"] == "io"


def test_schema_from_file_with_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"strata": 1, "models": ', encoding="utf-8")
    with pytest.raises(strata.SchemaError) as info:
        strata.Schema.from_file(path)
    assert info.value.errors[0]["code"] == "syntax"


def test_schema_path_is_not_a_document(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="from_file"):
        strata.Schema(tmp_path / "schema.json")  # type: ignore[arg-type]


def test_schema_syntax_error() -> None:
    with pytest.raises(strata.SchemaError) as info:
        strata.Schema('{"strata": 1,')
    assert info.value.errors[0]["code"] == "syntax"


def test_schema_errors_name_model_and_property() -> None:
    doc = {
        "strata": 1,
        "models": {
            "A": {
                "properties": {
                    "x": {"type": "nope"},
                    "y": {"type": "[alsoNope]"},
                }
            }
        },
    }
    with pytest.raises(strata.SchemaError) as info:
        strata.Schema(doc)
    errors = info.value.errors
    assert len(errors) == 2, errors
    for entry in errors:
        assert set(entry) == ERROR_KEYS
        assert entry["code"] == "schema"
        assert entry["model"] == "A"
    assert sorted(e["property"] for e in errors) == ["x", "y"]
    assert sorted(e["path"] for e in errors) == [
        "/models/A/properties/x/type",
        "/models/A/properties/y/type",
    ]
    assert "2 errors" in str(info.value)


def test_schema_error_unknown_top_level_key() -> None:
    with pytest.raises(strata.SchemaError) as info:
        strata.Schema({"strata": 1, "models": {"A": {"properties": {}}}, "modles": {}})
    assert info.value.errors[0]["code"] == "schema"


def test_transformers_none_or_empty(schema_doc: Dict[str, Any]) -> None:
    assert strata.Schema(schema_doc, transformers=None).version == 3
    assert strata.Schema(schema_doc, transformers={}).version == 3
    assert strata.Schema(schema_doc, {}).version == 3


def test_transformers_must_be_a_mapping(schema_doc: Dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        strata.Schema(schema_doc, transformers=[str.upper])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        strata.Schema(schema_doc, transformers={"x": 5})


# --------------------------------------------------------------------------
# Mapping and reading values


def test_map_dict_str_bytes_agree(schema: strata.Schema, issue_input: Dict[str, Any]) -> None:
    from_dict = schema.map("Issue", issue_input)
    text = json.dumps(issue_input)
    from_str = schema.map("Issue", text)
    from_bytes = schema.map("Issue", text.encode())
    assert from_dict == from_str == from_bytes
    assert json_equal(from_dict.to_dict(), from_bytes.to_dict())


def test_values(schema: strata.Schema, issue_input: Dict[str, Any]) -> None:
    m = schema.map("Issue", issue_input)
    assert m.model == "Issue"
    assert m.schema is schema
    assert json_equal(1347, m["number"])
    assert m["title"] == "Found a bug"
    assert m["URL"] == "https://api.github.com/repos/x/y/issues/1347"
    assert m["state"] == "OPEN"  # enum: the model-side value
    assert m["reporterLogin"] == "octocat"  # key path user.login
    assert json_equal({"id": 7, "login": "hubot"}, m["assignee"])
    assert json_equal([{"name": "bug", "color": "f29513"}], m["labels"])
    assert json_equal(3, m["commentCount"])
    assert json_equal(2.0, m["score"])  # double: 2 becomes 2.0
    assert m["locked"] is False
    assert m["body"] is None
    assert "localNote" not in m  # json: false


def test_to_dict(schema: strata.Schema, issue_input: Dict[str, Any]) -> None:
    expected = {
        "URL": "https://api.github.com/repos/x/y/issues/1347",
        "number": 1347,
        "title": "Found a bug",
        "state": "OPEN",
        "reporterLogin": "octocat",
        "assignee": {"id": 7, "login": "hubot"},
        "labels": [{"name": "bug", "color": "f29513"}],
        "commentCount": 3,
        "score": 2.0,
        "locked": False,
        "body": None,
    }
    actual = schema.map("Issue", issue_input).to_dict()
    assert json_difference(expected, actual) is None, json_difference(expected, actual)
    assert list(actual) == list(expected)  # schema order


def test_to_json(schema: strata.Schema, issue_input: Dict[str, Any]) -> None:
    expected = {
        "url": "https://api.github.com/repos/x/y/issues/1347",
        "number": 1347,
        "title": "Found a bug",
        "state": "open",
        "user": {"login": "octocat"},
        "assignee": {"id": 7, "login": "hubot"},
        "labels": [{"name": "bug", "color": "f29513"}],
        "comments": 3,
        "score": 2.0,
        "locked": False,
        "body": None,
    }
    actual = schema.map("Issue", issue_input).to_json()
    assert json_difference(expected, actual) is None, json_difference(expected, actual)


def test_default_value(schema: strata.Schema) -> None:
    m = schema.map("Issue", {"number": 1})
    assert "labels" in m
    assert m["labels"] == []
    assert m.to_dict() == {"number": 1, "labels": []}


def test_absent_vs_null(schema: strata.Schema) -> None:
    absent = schema.map("Issue", {"number": 1})
    null = schema.map("Issue", {"number": 1, "body": None})

    assert "body" not in absent
    with pytest.raises(KeyError):
        absent["body"]
    assert absent.get("body") is None
    assert absent.get("body", "default") == "default"
    assert "body" not in absent.to_dict()
    assert "body" not in absent.to_json()

    assert "body" in null
    assert null["body"] is None
    assert null.get("body", "default") is None
    assert null.to_dict()["body"] is None
    assert "body" in null.to_json() and null.to_json()["body"] is None

    assert absent != null


def test_unknown_property(schema: strata.Schema, issue_input: Dict[str, Any]) -> None:
    m = schema.map("Issue", issue_input)
    with pytest.raises(KeyError):
        m["nope"]
    with pytest.raises(KeyError):
        m["unmapped"]  # an input key, not a property
    with pytest.raises(KeyError):
        m[0]  # type: ignore[index]
    with pytest.raises(KeyError):
        m["num\0ber"]
    assert "nope" not in m
    assert 0 not in m


def test_unknown_property_names_model_and_property(schema: strata.Schema) -> None:
    m = schema.map("Issue", {"number": 1})
    # get() gives None only for a property that exists and is absent: a typo raises.
    assert m.get("body") is None
    for call in (lambda: m.get("nope"), lambda: m.get("nope", 42), lambda: m["nope"]):
        with pytest.raises(KeyError) as raised:
            call()
        assert "'Issue'" in str(raised.value) and "'nope'" in str(raised.value)
    with pytest.raises(KeyError):
        m.get("num\0ber")
    with pytest.raises(KeyError):
        m.get(0)  # type: ignore[arg-type]
    # An absent property raises a plain KeyError of its name, as a dict does.
    with pytest.raises(KeyError) as raised:
        m["body"]
    assert raised.value.args == ("body",)


def test_iteration(schema: strata.Schema, issue_input: Dict[str, Any]) -> None:
    m = schema.map("Issue", issue_input)
    assert list(m) == list(m.to_dict())
    assert list(schema.map("Issue", {"number": 5})) == ["number", "labels"]


def test_unicode_round_trip(schema: strata.Schema) -> None:
    title = "Héllo ✓ 𝄞 \"quoted\" \\ end\n\t"
    m = schema.map("Issue", {"number": 1, "title": title})
    assert m["title"] == title
    assert m.to_json()["title"] == title
    assert schema.map("Issue", json.dumps({"number": 1, "title": title})) == m


def test_nul_in_strings(schema: strata.Schema) -> None:
    # "\u0000" is valid JSON; the string keeps its NUL through the library.
    m = schema.map("Issue", {"number": 1, "title": "a\u0000b"})
    assert m["title"] == "a\u0000b"
    assert m.to_json()["title"] == "a\u0000b"


def test_big_integers(schema: strata.Schema) -> None:
    big = 2**63 - 1
    m = schema.map("Issue", {"number": big})
    assert m["number"] == big
    with pytest.raises(strata.MappingError):
        schema.map("Issue", {"number": 2**63})


def test_int_is_not_real(schema: strata.Schema) -> None:
    with pytest.raises(strata.MappingError) as info:
        schema.map("Issue", {"number": 3.0})
    assert codes(info.value) == [("/number", "type")]
    with pytest.raises(strata.MappingError):
        schema.map("Issue", '{"number": 3.5}')


def test_model_constructor_is_private() -> None:
    with pytest.raises(TypeError):
        strata.Model()


def test_model_cannot_be_pickled(schema: strata.Schema) -> None:
    with pytest.raises(TypeError):
        pickle.dumps(schema.map("Issue", {"number": 1}))


def test_model_outlives_its_schema(schema_doc: Dict[str, Any]) -> None:
    def make() -> strata.Model:
        return strata.Schema(schema_doc).map("Issue", {"number": 9, "title": "t"})

    m = make()
    gc.collect()
    assert m["title"] == "t"
    assert m.schema.models == ["User", "Label", "Issue"]
    assert m.copy() == m


# --------------------------------------------------------------------------
# Errors


def test_mapping_errors(schema: strata.Schema) -> None:
    bad = {
        "number": "1347",
        "title": 5,
        "url": "not a url",
        "state": "reopened",
        "labels": [{"name": 1}, None],
        "locked": None,
    }
    with pytest.raises(strata.MappingError) as info:
        schema.map("Issue", bad)
    exc = info.value
    assert codes(exc) == [
        ("/labels/0/name", "type"),
        ("/labels/1", "null"),
        ("/locked", "null"),
        ("/number", "type"),
        ("/state", "enum"),
        ("/title", "type"),
        ("/url", "format"),
    ]
    for entry in exc.errors:
        assert set(entry) == ERROR_KEYS
        assert all(isinstance(v, str) for v in entry.values())
        assert entry["message"]
    by_path = {e["path"]: e for e in exc.errors}
    assert by_path["/labels/0/name"]["model"] == "Label"
    assert by_path["/labels/0/name"]["property"] == "name"
    assert by_path["/number"]["model"] == "Issue"
    assert by_path["/number"]["property"] == "number"
    assert by_path["/url"]["property"] == "URL"
    text = str(exc)
    assert "7 errors" in text
    assert "... and 2 more" in text
    assert text.count("\n") == 6  # a summary line, five errors, the rest counted


def test_missing_required(schema: strata.Schema) -> None:
    with pytest.raises(strata.MappingError) as info:
        schema.map("Issue", {"title": "x"})
    assert codes(info.value) == [("/number", "missing")]
    assert info.value.code == "missing"
    assert "/number" in str(info.value)


def test_path_error(schema: strata.Schema) -> None:
    with pytest.raises(strata.MappingError) as info:
        schema.map("Issue", {"number": 1, "user": "octocat"})
    assert codes(info.value) == [("/user", "path")]


def test_null_through_key_path(schema: strata.Schema) -> None:
    # user.login through a null user is null: an error, as reporterLogin is not string?
    with pytest.raises(strata.MappingError) as info:
        schema.map("Issue", {"number": 1, "user": None})
    assert codes(info.value) == [("/user", "null")]
    assert info.value.errors[0]["property"] == "reporterLogin"


def test_top_level_type_error(schema: strata.Schema) -> None:
    for data in ([1, 2], "[1, 2]", "5", 5, "\"text\"", True):
        with pytest.raises(strata.MappingError) as info:
            schema.map("Issue", data)
        assert codes(info.value) == [("", "type")], data
    with pytest.raises(strata.MappingError) as info:
        schema.map("Issue", None)
    assert [e["path"] for e in info.value.errors] == [""]


def test_unknown_model(schema: strata.Schema) -> None:
    with pytest.raises(strata.MappingError) as info:
        schema.map("Nope", {"number": 1})
    assert info.value.errors[0]["code"] == "argument"
    with pytest.raises(strata.MappingError) as info:
        schema.map_many("Nope", [])
    assert info.value.errors[0]["code"] == "argument"
    with pytest.raises(strata.MappingError) as info:
        schema.map("Iss\0ue", {"number": 1})
    assert info.value.errors[0]["code"] == "argument"
    with pytest.raises(TypeError):
        schema.map(None, {"number": 1})  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ['{"number": 1', "{number: 1}", "", "   ", '{"a": 1} x', "\xff"])
def test_malformed_json_text(schema: strata.Schema, text: str) -> None:
    for data in (text, text.encode("utf-8", "surrogatepass")):
        with pytest.raises(strata.MappingError) as info:
            schema.map("Issue", data)
        assert [e["code"] for e in info.value.errors] == ["syntax"], info.value.errors
    with pytest.raises(strata.MappingError) as info:
        schema.map_many("Issue", text)
    assert [e["code"] for e in info.value.errors] == ["syntax"]


def test_invalid_utf8(schema: strata.Schema) -> None:
    with pytest.raises(strata.MappingError) as info:
        schema.map("Issue", b'{"number": 1, "title": "\xff"}')
    assert info.value.errors[0]["code"] == "syntax"


def test_python_data_that_is_not_json(schema: strata.Schema) -> None:
    # a value JSON cannot hold is a type error at its path (test_input_edges.py has more)
    with pytest.raises(strata.MappingError) as info:
        schema.map("Issue", {"number": 1, "score": float("nan")})
    assert info.value.errors[0]["code"] == "type" and info.value.errors[0]["path"] == "/score"
    with pytest.raises(TypeError):
        schema.map("Issue", {"number": 1, "when": object()})


def test_too_deep(schema: strata.Schema) -> None:
    deep = "[" * 600 + "]" * 600
    with pytest.raises(strata.MappingError) as info:
        schema.map("Issue", '{"number": 1, "labels": ' + deep + "}")
    assert info.value.errors  # depth or syntax; it must not crash


def test_errors_cleared_between_calls(schema: strata.Schema) -> None:
    with pytest.raises(strata.MappingError):
        schema.map("Issue", {})
    ok = schema.map("Issue", {"number": 2})
    assert ok["number"] == 2
    with pytest.raises(strata.MappingError) as info:
        schema.map("Issue", {"number": "x"})
    assert codes(info.value) == [("/number", "type")]


def test_errors_are_per_thread(schema: strata.Schema) -> None:
    failures: List[str] = []

    def work(field: str) -> None:
        for _ in range(200):
            try:
                schema.map("Issue", {"number": 1, field: 12})
                failures.append(f"{field}: no error")
            except strata.MappingError as exc:
                if codes(exc) != [(f"/{field}", "type")]:
                    failures.append(f"{field}: {exc.errors}")
            schema.map("Issue", {"number": 1})

    threads = [threading.Thread(target=work, args=(f,)) for f in ("title", "body", "url", "locked")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_exception_pickles() -> None:
    exc = strata.MappingError([{"path": "/a", "model": "M", "property": "a", "code": "type", "message": "m"}])
    again = pickle.loads(pickle.dumps(exc))
    assert type(again) is strata.MappingError
    assert again.errors == exc.errors
    assert str(again) == str(exc)


# --------------------------------------------------------------------------
# map_many


def test_map_many(schema: strata.Schema) -> None:
    data = [{"number": n, "title": f"t{n}"} for n in range(5)]
    for arg in (data, json.dumps(data), json.dumps(data).encode()):
        models = schema.map_many("Issue", arg)
        assert isinstance(models, list)
        assert [m["number"] for m in models] == list(range(5))
        assert all(isinstance(m, strata.Model) and m.model == "Issue" for m in models)
    assert schema.map_many("Issue", []) == []
    assert schema.map_many("Issue", "[]") == []


def test_map_many_errors_name_their_element(schema: strata.Schema) -> None:
    data = [{"number": 1}, {"title": "no number"}, {"number": 3, "title": 7}]
    with pytest.raises(strata.MappingError) as info:
        schema.map_many("Issue", data)
    assert codes(info.value) == [("/1/number", "missing"), ("/2/title", "type")]


def test_map_many_needs_an_array(schema: strata.Schema) -> None:
    with pytest.raises(strata.MappingError) as info:
        schema.map_many("Issue", {"number": 1})
    assert codes(info.value) == [("", "type")]


# --------------------------------------------------------------------------
# Equality, hashing, copies, repr


def test_equality(schema: strata.Schema, issue_input: Dict[str, Any]) -> None:
    a = schema.map("Issue", issue_input)
    b = schema.map("Issue", json.dumps(issue_input))
    c = schema.map("Issue", dict(issue_input, title="Another"))
    assert a == b and not (a != b)
    assert a != c and not (a == c)
    assert a == a
    assert a.__eq__(1) is NotImplemented
    assert a != 1 and a != issue_input and a != None  # noqa: E711
    user = schema.map("User", {"id": 1347})
    assert a != user


def test_equality_different_models_same_values(schema: strata.Schema) -> None:
    label = schema.map("Label", {"name": "x"})
    doc = {"strata": 1, "models": {"Tag": {"properties": {"name": {"type": "string"}}}}}
    tag = strata.Schema(doc).map("Tag", {"name": "x"})
    assert label != tag


def test_hash(schema: strata.Schema, issue_input: Dict[str, Any]) -> None:
    a = schema.map("Issue", issue_input)
    b = schema.map("Issue", json.dumps(issue_input))
    assert hash(a) == hash(b)
    assert isinstance(hash(a), int)
    models = {a, b, schema.map("Issue", {"number": 1}), schema.map("Issue", {"number": 1})}
    assert len(models) == 2
    assert {a: "x"}[b] == "x"


def test_copy(schema: strata.Schema, issue_input: Dict[str, Any]) -> None:
    m = schema.map("Issue", issue_input)
    for c in (m.copy(), copy.copy(m), copy.deepcopy(m), copy.deepcopy([m])[0]):
        assert isinstance(c, strata.Model)
        assert c is not m
        assert c == m
        assert hash(c) == hash(m)
        assert c.model == "Issue"
        assert c.schema is m.schema
        assert json_equal(m.to_dict(), c.to_dict())
        assert json_equal(m.to_json(), c.to_json())
    c = m.copy()
    del m
    gc.collect()
    assert c["title"] == "Found a bug"


def test_repr(schema: strata.Schema, issue_input: Dict[str, Any]) -> None:
    del issue_input["url"]
    m = schema.map("Issue", issue_input)
    text = repr(m)
    assert text.startswith("<strata.Model Issue ")
    assert text.endswith(">")
    assert "number=1347" in text
    assert "title='Found a bug'" in text
    assert text == "<strata.Model Issue number=1347 title='Found a bug' state='OPEN' ...>"
    assert len(text) < 120
    long = schema.map("Issue", {"number": 1, "title": "x" * 500})
    assert len(repr(long)) < 120
    small = schema.map("User", {"id": 1})
    assert repr(small) == "<strata.Model User id=1>"


# --------------------------------------------------------------------------
# Library loading and declarations


def test_every_header_function_is_declared() -> None:
    import re

    from strata import _native

    header = Path(__file__).resolve().parents[3] / "include" / "strata.h"
    if not header.is_file():
        pytest.skip("include/strata.h not found")
    code = re.sub(r"/\*.*?\*/", " ", header.read_text(), flags=re.S)  # drop comments
    names = set(re.findall(r"\b(strata_\w+)\s*\(", code))
    assert len(names) >= 29, sorted(names)
    for name in sorted(names):
        func = getattr(_native.lib, name)
        assert func.argtypes is not None, name


def test_error_struct_mirrors_header() -> None:
    import ctypes

    from strata._native import strata_error_t

    assert strata_error_t.code_name.size == 16
    assert strata_error_t.path.size == 256
    assert strata_error_t.model.size == 80
    assert strata_error_t.property.size == 80
    assert strata_error_t.message.size == 256
    assert strata_error_t.count.offset == ctypes.sizeof(ctypes.c_size_t)
    assert ctypes.sizeof(strata_error_t) % ctypes.alignment(ctypes.c_size_t) == 0
    if ctypes.sizeof(ctypes.c_size_t) == 8:  # LP64: the offsets C's offsetof() gives
        offsets = {name: getattr(strata_error_t, name).offset for name, *_ in strata_error_t._fields_}
        assert offsets == {
            "code": 0,
            "count": 8,
            "code_name": 16,
            "path": 32,
            "model": 288,
            "property": 368,
            "message": 448,
        }
        assert ctypes.sizeof(strata_error_t) == 704


def test_error_struct_is_filled(schema: strata.Schema) -> None:
    import ctypes

    from strata import _native

    error = _native.strata_error_t()
    text = b'{"number": "x", "title": 5}'
    assert not _native.lib.strata_mapb(schema._handle, b"Issue", text, len(text), ctypes.byref(error))
    assert error.code == _native.STRATA_ERROR_TYPE
    assert error.count == 2
    assert error.code_name == b"type"
    assert error.path in (b"/number", b"/title")
    assert error.model == b"Issue"
    assert error.message


def test_library_not_found(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from strata import _native

    monkeypatch.setenv("STRATA_LIBRARY", str(tmp_path / "missing.so"))
    with pytest.raises(ImportError, match="STRATA_LIBRARY"):
        _native.find_library()
    monkeypatch.delenv("STRATA_LIBRARY")
    monkeypatch.setattr(_native, "candidate_paths", lambda: [tmp_path / "libstrata.so"])
    with pytest.raises(ImportError, match="cannot find"):
        _native.find_library()
    (tmp_path / "libstrata.so").write_bytes(b"")
    assert _native.find_library() == tmp_path / "libstrata.so"


def test_import_error_message(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = dict(os.environ, STRATA_LIBRARY=str(tmp_path / "nope.so"))
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    result = subprocess.run(
        [sys.executable, "-c", "import strata"], env=env, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "ImportError" in result.stderr
    assert "STRATA_LIBRARY" in result.stderr


def test_candidate_paths() -> None:
    from strata import _native

    package = Path(_native.__file__).resolve().parent
    paths = _native.candidate_paths()
    assert paths[0] == package / _native.LIBRARY_NAME
    assert paths[1] == package.parent.parent.parent / "build" / _native.LIBRARY_NAME
