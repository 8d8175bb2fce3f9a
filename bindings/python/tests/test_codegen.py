"""Typed classes: `strata codegen python` / `strata.codegen.python`, their
runtime (views over strata.Model), and `mypy --strict` on generated code."""

from __future__ import annotations

import datetime
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import strata
import strata.codegen

ROOT = Path(__file__).resolve().parents[3]
GITHUB = ROOT / "examples" / "github"
CLI = ROOT / "build" / "strata"

CHAT = {
    "strata": 1,
    "models": {
        "Message": {
            "subtypes": {"key": "type", "map": {"text": "TextMessage", "picture": "PictureMessage"}},
            "properties": {
                "id": {"type": "int", "required": True},
                "sent": {"type": "date?"},
                "status": {"type": "string", "enum": {"ok": "delivered", "ko": "failed"}, "default": "delivered"},
                "from": {"type": "string"},
            },
        },
        "TextMessage": {"extends": "Message", "properties": {"body": {"type": "string", "required": True}}},
        "PictureMessage": {"extends": "Message", "properties": {"imageURL": {"type": "url", "json": "image_url"}}},
        "Thread": {
            "properties": {
                "messages": {"type": "[Message]", "default": []},
                "byUser": {"type": "{[int]}?"},
                "extra": {"type": "json"},
                "first": {"type": "Message?"},
            }
        },
    },
}


def load(source: str, tmp_path: Path, name: str) -> ModuleType:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def github(tmp_path: Path) -> ModuleType:
    return load(strata.codegen.python(strata.Schema.from_file(str(GITHUB / "schema.json"))), tmp_path, "gh_models")


@pytest.fixture()
def chat(tmp_path: Path) -> ModuleType:
    return load(strata.codegen.python(strata.Schema(CHAT)), tmp_path, "chat_models")


def test_attributes_are_typed_views_of_the_models_values(github: ModuleType) -> None:
    text = (GITHUB / "issue.json").read_text()
    issue = github.GHIssue.from_json(text)
    model = strata.Schema.from_file(str(GITHUB / "schema.json")).map("GHIssue", text)
    assert issue.title == model["title"] and issue.number == model["number"]
    assert isinstance(issue.createdAt, datetime.datetime) and issue.createdAt.tzinfo is not None
    assert issue.createdAt == model.date("createdAt")
    assert isinstance(issue.user, github.GHUser) and issue.user.login == model["user"]["login"]
    assert [label.name for label in issue.labels] == [label["name"] for label in model["labels"]]
    assert all(isinstance(label, github.GHLabel) for label in issue.labels)
    assert issue.to_dict() == model.to_dict() and issue.to_json() == model.to_json()
    assert issue.model.to_dict() == model.to_dict()
    assert repr(issue).startswith("GHIssue(") and "title=" in repr(issue)


def test_equality_copy_merge_update_diff_patch(github: ModuleType) -> None:
    a = github.GHIssue.from_json((GITHUB / "issue.json").read_text())
    b = github.GHIssue.from_json((GITHUB / "issue-closed.json").read_text())
    assert a == a.copy() and a != b and hash(a) == hash(a.copy())
    patch = a.diff(b)
    assert a.patch(patch) == b
    c = a.copy()
    c.update({"title": "Renamed"})
    assert c.title == "Renamed" and a.title != "Renamed"
    with pytest.raises(strata.StrataError):
        c.update({"title": 5, "number": 9})
    assert c.title == "Renamed" and c.number == a.number  # all or nothing
    d = a.copy()
    d.merge(b)
    assert d.state == "closed"
    assert github.GHIssue.from_dict(a.to_dict()) == a


def test_subtypes_are_subclasses_and_enums_literals(chat: ModuleType) -> None:
    message = chat.Message.from_json({"type": "text", "id": 1, "body": "hi", "sent": "2024-05-01T09:30:00.123456789Z"})
    assert type(message) is chat.TextMessage and isinstance(message, chat.Message)
    assert message.body == "hi" and message.status == "delivered"
    assert message.sent == datetime.datetime(2024, 5, 1, 9, 30, 0, 123456, tzinfo=datetime.timezone.utc)
    thread = chat.Thread.from_json(
        {"messages": [{"type": "picture", "id": 2, "image_url": "https://x/y.png"}], "byUser": {"ann": [1, 2]}, "extra": [1, {"a": None}]}
    )
    assert [type(m) for m in thread.messages] == [chat.PictureMessage]
    assert thread.messages[0].imageURL == "https://x/y.png"
    assert thread.byUser == {"ann": [1, 2]} and thread.extra == [1, {"a": None}]
    assert thread.first is None  # optional and absent
    assert getattr(thread.messages[0], "from_") is None  # a Python keyword gets a trailing _
    picture = chat.Message.from_json({"type": "picture", "id": 3}).model
    with pytest.raises(TypeError, match="is no TextMessage"):
        chat.TextMessage.from_model(picture)
    source = strata.codegen.python(strata.Schema(CHAT))
    assert 'def status(self) -> Literal["delivered", "failed"]:' in source
    assert "class TextMessage(Message):" in source
    assert "def byUser(self) -> dict[str, list[int]] | None:" in source


def test_absent_required_values_raise_attribute_error_naming_them(chat: ModuleType) -> None:
    message = chat.Message.from_json({"type": "text", "id": 1, "body": "x"})
    message.update({"status": None})  # clears a defaulted property
    with pytest.raises(AttributeError, match=r"TextMessage\.status is absent"):
        message.status


def test_bind_uses_a_schema_with_host_transformers(tmp_path: Path) -> None:
    doc = {"strata": 1, "models": {"Box": {"properties": {"size": {"type": "int", "transform": "double"}}}}}
    module = load(strata.codegen.python(strata.Schema(doc, transformers={"double": (lambda v: v * 2, lambda v: v // 2)})), tmp_path, "box_models")
    with pytest.raises(strata.StrataError):
        module.Box.from_json({"size": 2})  # the embedded document alone lacks the transformer
    module.bind(strata.Schema(doc, transformers={"double": (lambda v: v * 2, lambda v: v // 2)}))
    assert module.Box.from_json({"size": 2}).size == 4


@pytest.mark.skipif(not CLI.exists(), reason="build/strata is built by scripts/build")
def test_cli_writes_the_same_module(tmp_path: Path) -> None:
    out = tmp_path / "models.py"
    done = subprocess.run([str(CLI), "codegen", "python", str(GITHUB / "schema.json"), "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    from_file = strata.Schema.from_file(str(GITHUB / "schema.json"))
    assert out.read_text() == strata.codegen.python(from_file)
    bad = subprocess.run([str(CLI), "codegen", "ruby", str(GITHUB / "schema.json")], capture_output=True, text=True)
    assert bad.returncode == 64


def mypy(tmp_path: Path, *files: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="scripts/bootstrap installs mypy")
    env = dict(os.environ, MYPYPATH=str(ROOT / "bindings" / "python"))
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / ".mypy"), *files],
        capture_output=True, text=True, cwd=tmp_path, env=env,
    )


GOOD = """
import datetime
from gh_models import GHIssue, GHLabel, GHUser
from chat_models import Message, TextMessage, Thread

issue = GHIssue.from_json('{"id": 1, "number": 2, "title": "t"}')
title: str = issue.title
labels: list[GHLabel] = issue.labels
user: GHUser | None = issue.user
created: datetime.datetime | None = issue.createdAt
patch: list[dict[str, object]] = issue.diff(GHIssue.from_json('{"id": 1, "number": 3, "title": "t"}'))
thread = Thread.from_json({"messages": []})
first: Message | None = thread.first
for message in thread.messages:
    if isinstance(message, TextMessage):
        body: str = message.body
"""

RECORDS = """
from typing import Optional
import strata
from blog_models import BlogPost, BlogUser

ctx = BlogPost.__strata_schema__.schema.context()
ctx.import_("BlogPost", [{"id": 1, "title": "t", "author": {"id": 7, "name": "Ann"}}])
record = ctx.get("BlogPost", 1)
assert record is not None
post = BlogPost.from_model(record)
author: Optional[BlogUser] = post.author
assert author is not None
posts: Optional[list[BlogPost]] = author.posts
assert posts is not None
title: Optional[str] = posts[0].title
"""

BAD = """
from gh_models import GHIssue

issue = GHIssue.from_json('{"id": 1, "number": 2, "title": "t"}')
count: int = issue.title
issue.title = "new"
issue.nosuch
"""


BLOG = {
    "strata": 1,
    "models": {
        "BlogUser": {
            "primaryKey": "id",
            "properties": {
                "id": {"type": "int"},
                "name": {"type": "string"},
                "posts": {"type": "[BlogPost]", "inverse": "author", "json": False},
            },
        },
        "BlogPost": {
            "primaryKey": "id",
            "properties": {"id": {"type": "int"}, "title": {"type": "string"}, "author": {"type": "BlogUser?"}},
        },
    },
}


def test_typed_classes_work_on_graph_records(tmp_path: Path) -> None:
    module = load(strata.codegen.python(strata.Schema(BLOG)), tmp_path, "blog_models")
    schema = module.BlogPost.__strata_schema__.schema
    with schema.context() as ctx:
        ctx.import_("BlogPost", [{"id": 1, "title": "one", "author": {"id": 7, "name": "Ann"}}, {"id": 2, "author": 7}])
        post = module.BlogPost.from_model(ctx.get("BlogPost", 1))
        author = post.author
        assert isinstance(author, module.BlogUser) and author.name == "Ann"
        assert [p.id for p in author.posts] == [1, 2] and all(isinstance(p, module.BlogPost) for p in author.posts)
        assert author.posts[0] == post
        assert repr(post) == "BlogPost(id=1, title='one', author=7)"  # relationships as keys, not the graph
        assert module.BlogPost.from_model(ctx.get("BlogPost", 2)).title is None
    (tmp_path / "records.py").write_text(RECORDS)
    checked = mypy(tmp_path, "blog_models.py", "records.py")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_generated_modules_pass_mypy_strict_and_catch_misuse(tmp_path: Path) -> None:
    (tmp_path / "gh_models.py").write_text(strata.codegen.python(strata.Schema.from_file(str(GITHUB / "schema.json"))))
    (tmp_path / "chat_models.py").write_text(strata.codegen.python(strata.Schema(CHAT)))
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "bad.py").write_text(BAD)
    good = mypy(tmp_path, "gh_models.py", "chat_models.py", "good.py")
    assert good.returncode == 0, good.stdout + good.stderr
    bad = mypy(tmp_path, "bad.py")
    assert bad.returncode == 1
    assert 'bad.py:5: error: Incompatible types in assignment (expression has type "str", variable has type "int")' in bad.stdout
    assert 'bad.py:6: error: Property "title" defined in "GHIssue" is read-only' in bad.stdout
    assert 'bad.py:7: error: "GHIssue" has no attribute "nosuch"' in bad.stdout
