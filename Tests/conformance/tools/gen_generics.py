#!/usr/bin/env python3
"""Writes Tests/conformance/generics.json: generic models (docs/generics.md).

    python3 Tests/conformance/tools/gen_generics.py
"""
import json
schema = {"strata": 1, "version": 1,
 "instances": ["Listing<Tweet>", "Page<Pair<int, Tweet>>", "Page<int>", "Message<User>", "Keyed<Tweet>"],
 "models": {
  "User": {"primaryKey": "id", "properties": {"id": {"type": "int", "required": True}, "login": {"type": "string"}}},
  "Tweet": {"primaryKey": "id", "keys": "snake_case", "properties": {
      "id": {"type": "int", "required": True}, "text": {"type": "string"},
      "author": {"type": "User?", "json": "user"}}},
  "Page<T>": {"keys": "snake_case", "properties": {
      "items": {"type": "[T]", "default": []},
      "nextCursor": {"type": "string?"},
      "first": {"type": "T?"},
      "byKey": {"type": "{T}?"}}},
  "SearchPage<T>": {"extends": "Page<T>", "properties": {"query": {"type": "string", "required": True}}},
  "Pair<A, B>": {"properties": {"a": {"type": "A"}, "b": {"type": "B"}, "swapped": {"type": "Pair<B, A>?"}}},
  "Keyed<T>": {"keys": "snake_case", "properties": {"items": {"type": "[T]", "merge": "union"}, "nextCursor": {"type": "string?"}}},
  "Box<T>": {"properties": {"value": {"type": "T?"}}},
  "Message<T>": {"subtypes": {"key": "kind", "map": {"text": "TextMessage<T>", "share": "ShareMessage<T>"}},
      "properties": {"id": {"type": "int", "required": True}, "from": {"type": "T?"}}},
  "TextMessage<T>": {"extends": "Message<T>", "properties": {"body": {"type": "string"}}},
  "ShareMessage<T>": {"extends": "Message<T>", "properties": {"shared": {"type": "Tweet"}}},
  "Listing<T>": {"extends": "Box<T>", "root": "data", "meta": {"path": "paging", "model": "Page<T>"}, "properties": {}},
  "Timeline": {"properties": {
      "tweets": {"type": "Page<Tweet>"},
      "search": {"type": "SearchPage< Tweet >?"},
      "maybe": {"type": "Box<Tweet?>"},
      "pair": {"type": "Pair<int, [Tweet]>?"}}}
 }}
t1 = {"id": 1, "text": "hello", "user": {"id": 7, "login": "ann"}}
t1d = {"id": 1, "text": "hello", "author": {"id": 7, "login": "ann"}}
t2 = {"id": 2, "text": "bye"}
t2d = {"id": 2, "text": "bye"}
cases = [
 {"name": "instance-as-property-type", "model": "Timeline",
  "input": {"tweets": {"items": [t1, t2], "next_cursor": "abc"}, "maybe": {"value": None}},
  "dictionary": {"tweets": {"items": [t1d, t2d], "nextCursor": "abc"}, "maybe": {"value": None}},
  "json": {"tweets": {"items": [t1, t2], "next_cursor": "abc"}, "maybe": {"value": None}}},
 {"name": "instance-as-top-level-model", "model": "Page<Tweet>",
  "input": {"items": [t2], "first": t1, "by_key": {"x": t2}},
  "dictionary": {"items": [t2d], "first": t1d, "byKey": {"x": t2d}},
  "json": {"items": [t2], "first": t1, "by_key": {"x": t2}}},
 {"name": "instance-name-spacing-is-free", "model": "Page< Tweet >",
  "input": {"items": []}, "dictionary": {"items": []}},
 {"name": "default-of-instance", "model": "Page<Tweet>", "input": {},
  "dictionary": {"items": []}, "json": {"items": []}},
 {"name": "scalar-argument", "model": "Page<int>", "input": {"items": [1, 2], "first": 3},
  "dictionary": {"items": [1, 2], "first": 3}},
 {"name": "scalar-argument-type-error", "model": "Page<int>", "input": {"items": [1, "2"]},
  "errors": [{"path": "/items/1", "model": "Page<int>", "property": "items", "code": "type"}]},
 {"name": "nested-instances", "model": "Page<Pair<int, Tweet>>",
  "input": {"items": [{"a": 1, "b": t2, "swapped": {"a": t2, "b": 2}}]},
  "dictionary": {"items": [{"a": 1, "b": t2d, "swapped": {"a": t2d, "b": 2}}]}},
 {"name": "errors-name-the-instance", "model": "Timeline",
  "input": {"tweets": {"items": [{"id": "x"}], "next_cursor": 5},
            "pair": {"a": "one", "b": [], "swapped": {"a": [{"text": "no id"}], "b": 2}}},
  "errors": [
    {"path": "/tweets/items/0/id", "model": "Tweet", "property": "id", "code": "type"},
    {"path": "/tweets/next_cursor", "model": "Page<Tweet>", "property": "nextCursor", "code": "type"},
    {"path": "/pair/a", "model": "Pair<int, [Tweet]>", "property": "a", "code": "type"},
    {"path": "/pair/swapped/a/0/id", "model": "Tweet", "property": "id", "code": "missing"}]},
 {"name": "optional-argument-in-optional-place", "model": "Box<Tweet?>",
  "input": {"value": None}, "dictionary": {"value": None}},
 {"name": "extends-of-generic", "model": "SearchPage<Tweet>",
  "input": {"query": "q", "items": [t2]}, "dictionary": {"items": [t2d], "query": "q"}},
 {"name": "extends-of-generic-required", "model": "SearchPage<Tweet>", "input": {"items": []},
  "errors": [{"path": "/query", "model": "SearchPage<Tweet>", "property": "query", "code": "missing"}]},
 {"name": "subtypes-of-generic", "model": "Message<User>",
  "input": {"kind": "text", "id": 1, "from": {"id": 7}, "body": "hi"},
  "dictionary": {"$type": "TextMessage<User>", "id": 1, "from": {"id": 7}, "body": "hi"},
  "json": {"kind": "text", "id": 1, "from": {"id": 7}, "body": "hi"}},
 {"name": "subtypes-of-generic-other", "model": "Message<User>",
  "input": {"kind": "share", "id": 2, "shared": t2},
  "dictionary": {"$type": "ShareMessage<User>", "id": 2, "shared": t2d}},
 {"name": "subtype-error-names-the-instance", "model": "Message<User>",
  "input": {"kind": "share", "id": 2, "shared": {"id": "x"}},
  "errors": [{"path": "/shared/id", "model": "Tweet", "property": "id", "code": "type"}]},
 {"name": "uninstantiated-generic-is-an-argument-error", "model": "Page<User>", "input": {},
  "errors": [{"path": "", "model": "", "property": "", "code": "argument", "message": "instances are made when the schema loads"}]},
 {"name": "generic-model-itself-is-not-mappable", "model": "Page<T>", "input": {},
  "errors": [{"path": "", "code": "argument"}]},
 {"name": "archive-of-instance", "model": "Page<Tweet>", "input": {"items": [t2], "next_cursor": "c"},
  "archive": {"strata-archive": 1, "version": 1, "model": "Page<Tweet>", "values": {"items": [t2d], "nextCursor": "c"}}},
 {"name": "archive-of-subtype-instance", "model": "Message<User>", "input": {"kind": "text", "id": 1, "body": "b"},
  "archive": {"strata-archive": 1, "version": 1, "model": "TextMessage<User>", "values": {"$type": "TextMessage<User>", "id": 1, "body": "b"}}},
 {"name": "merge-of-instances-unions-by-key", "model": "Keyed<Tweet>",
  "input": {"items": [t1, t2], "next_cursor": "a"},
  "mergeWith": {"items": [{"id": 2, "text": "edited"}, {"id": 3, "text": "new"}], "next_cursor": "b"},
  "dictionary": {"items": [t1d, {"id": 2, "text": "edited"}, {"id": 3, "text": "new"}], "nextCursor": "b"}},
 {"name": "diff-of-instances", "model": "Page<Tweet>",
  "diffFrom": {"items": [t2], "next_cursor": "a"}, "input": {"items": [t2], "next_cursor": "b"},
  "diff": [{"op": "replace", "path": "/nextCursor", "value": "b"}]},
]
cases += [
 {"name": "response-of-a-generic-with-declared-root-and-meta", "model": "Listing<Tweet>",
  "input": {"data": [{"value": t2}, {"value": None}], "paging": {"next_cursor": "x"}}, "response": {},
  "records": [{"value": t2d}, {"value": None}], "metadata": {"items": [], "nextCursor": "x"}},
 {"name": "response-errors-name-instances", "model": "Listing<Tweet>",
  "input": {"data": [{"value": {"id": "x"}}], "paging": {"next_cursor": 1}}, "response": {},
  "errors": [{"path": "/data/0/value/id", "model": "Tweet", "property": "id", "code": "type"},
             {"path": "/paging/next_cursor", "model": "Page<Tweet>", "property": "nextCursor", "code": "type"}]},
 {"name": "response-option-meta-names-an-instance", "model": "Tweet",
  "input": {"statuses": [t2], "search": {"items": [t1], "next_cursor": None}},
  "response": {"root": "statuses", "meta": {"path": "search", "model": "Page< Tweet >"}},
  "records": [t2d], "metadata": {"items": [t1d], "nextCursor": None}},
]
def bad(name, models, errors, extra=None):
    s = {"strata": 1, "models": models}
    if extra: s.update(extra)
    cases.append({"name": name, "schema": s, "schemaErrors": errors})
T = {"properties": {"id": {"type": "int"}}}
P = {"properties": {"items": {"type": "[T]"}}}
bad("arity-too-many", {"Tweet": T, "Page<T>": P, "Feed": {"properties": {"p": {"type": "Page<Tweet, Tweet>"}}}},
    [{"path": "/models/Feed/properties/p/type", "model": "Feed", "property": "p", "code": "schema", "message": "takes 1 type argument, not 2"}])
bad("generic-without-arguments", {"Tweet": T, "Page<T>": P, "Feed": {"properties": {"p": {"type": "[Page]"}}}},
    [{"path": "/models/Feed/properties/p/type", "model": "Feed", "property": "p", "code": "schema", "message": "is a generic model"}])
bad("arguments-to-a-plain-model", {"Tweet": T, "Feed": {"properties": {"p": {"type": "Tweet<int>"}}}},
    [{"path": "/models/Feed/properties/p/type", "model": "Feed", "property": "p", "code": "schema", "message": "not a generic model"}])
bad("unknown-parameter", {"Tweet": T, "Page<T>": {"properties": {"items": {"type": "[U]"}}}},
    [{"path": "/models/Page<T>/properties/items/type", "model": "Page<T>", "property": "items", "code": "schema", "message": "unknown type 'U'"}])
bad("unknown-argument", {"Tweet": T, "Page<T>": P, "Feed": {"properties": {"p": {"type": "Page<Twet>"}}}},
    [{"path": "/models/Feed/properties/p/type", "model": "Feed", "property": "p", "code": "schema", "message": "unknown type 'Twet'"}])
bad("expands-forever", {"Node<T>": {"properties": {"value": {"type": "T"}, "next": {"type": "Node<[T]>?"}}},
                        "Root": {"properties": {"n": {"type": "Node<int>"}}}},
    [{"path": "/models/Node<T>/properties/next/type", "model": "Node<int>", "property": "next", "code": "schema", "message": "would expand forever"}])
bad("bad-generic-name", {"Page<[T]>": P}, [{"path": "/models/Page<[T]>", "code": "schema", "message": "a generic model is named"}])
bad("empty-parameters", {"Page<>": P}, [{"path": "/models/Page<>", "code": "schema"}])
bad("parameter-named-like-a-model", {"Tweet": T, "Page<Tweet>": {"properties": {"items": {"type": "[Tweet]"}}}},
    [{"path": "/models/Page<Tweet>", "model": "Page<Tweet>", "code": "schema", "message": "already the name of a type"}])
bad("declared-twice", {"Page<T>": P, "Page<A, B>": P},
    [{"path": "/models/Page<A, B>", "code": "schema", "message": "declared twice"}])
bad("errors-inside-an-instance-point-into-the-generic", {"Tweet": T, "Page<T>": {"properties": {"items": {"type": "[T]", "validate": {"nope": 1}}}},
                        "Feed": {"properties": {"p": {"type": "Page<Tweet>"}}}},
    [{"path": "/models/Page<T>/properties/items/validate/nope", "model": "Page<Tweet>", "property": "items", "code": "schema"}])
bad("instances-must-be-a-list", {"Tweet": T, "Page<T>": P}, [{"path": "/instances", "code": "schema"}], {"instances": "Page<Tweet>"})
bad("instance-of-a-plain-model", {"Tweet": T, "Page<T>": P}, [{"path": "/instances/0", "code": "schema", "message": "not a generic model"}], {"instances": ["Tweet<int>"]})
bad("instance-arity", {"Tweet": T, "Page<T>": P}, [{"path": "/instances/0", "code": "schema", "message": "takes 1 type argument"}], {"instances": ["Page<Tweet, int>"]})
bad("only-generic-models", {"Page<T>": P}, [{"path": "/models", "code": "schema", "message": "only generic models"}])
cases.append({"name": "only-generic-models-with-instances", "schema": {"strata": 1, "models": {"Page<T>": P}, "instances": ["Page<int>"]},
  "model": "Page<int>", "input": {"items": [1]}, "dictionary": {"items": [1]}})
old_doc = {"strata": 1, "models": {"Tweet": T, "Page<T>": P, "Feed": {"properties": {"p": {"type": "Page<Tweet>"}}}}}
new_doc = {"strata": 1, "models": {"Tweet": T, "Page<T>": {"properties": {"items": {"type": "[T]"}, "cursor": {"type": "string", "required": True}}},
                                   "Feed": {"properties": {"p": {"type": "Page<Tweet>"}}}}}
cases.append({"name": "compatibility-points-into-the-generic-model", "schema": new_doc, "compareWith": old_doc,
  "changes": [{"path": "/models/Page<T>/properties/cursor", "model": "Page<Tweet>", "property": "cursor", "change": "required-added", "breaking": True}]})
doc = {"description": "Generic models: Page<T> declared once, used as Page<Tweet> wherever a type or a model name goes (docs/schema.md, Generic models).",
       "schema": schema, "cases": cases}
import os
json.dump(doc, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'generics.json'), 'w'), indent=1)
print('wrote generics.json')
print(len(cases))
