#!/usr/bin/env python3
"""Writes ../array-keypaths.json: `json` key paths through an array,
`members[].name` (one `name[]` segment followed by at least one key): the
array at the prefix, and from each of its elements the value at the rest of
the path, mapped as the property's `[T]`. Run:
python3 Tests/conformance/tools/gen_array_keypaths.py
"""
import os

from casefile import write

SCHEMA = {
    "strata": 1,
    "models": {
        "Team": {"properties": {
            "names": {"type": "[string]", "json": "members[].name"},
            "ids": {"type": "[int]", "json": "members[].id"},
        }},
        "Sparse": {"properties": {
            "names": {"type": "[string?]", "json": "members[].name"},
            "ids": {"type": "[int?]", "json": "members[].id"},
        }},
        "Nullable": {"properties": {
            "names": {"type": "[string]?", "json": "members[].name"},
        }},
        "Required": {"properties": {
            "names": {"type": "[string]", "json": "members[].name", "required": True},
        }},
        "Org": {"properties": {
            "name": {"type": "string", "json": "org.name"},
            "cities": {"type": "[string?]", "json": "org.sites[].address.city"},
        }},
        "Roster": {"properties": {
            "users": {"type": "[User]", "json": "members[].user"},
        }},
        "User": {"properties": {
            "login": {"type": "string"},
            "id": {"type": "int"},
        }},
        "Outer": {"properties": {
            "members": {"type": "[User]"},
            "logins": {"type": "[string]", "json": "members[].login"},
        }},
        "Posts": {"properties": {
            "tags": {"type": "[[string]]", "json": "posts[].tags"},
            "counts": {"type": "[int]", "json": "posts[].stats.count", "transform": "string-number"},
            "times": {"type": "[date]", "json": "posts[].at", "format": "unix"},
        }},
        "Checked": {"properties": {
            "logins": {"type": "[string]", "json": "members[].login", "validate": {"pattern": "^[a-z]+$"}},
            "few": {"type": "[int]", "json": "few[].n", "validate": {"maxLength": 2}},
        }},
        "Pointer": {"properties": {
            "name": {"type": "string", "json": "/members[]/name"},
        }},
        "Strict": {"unknownKeys": "reject", "properties": {
            "names": {"type": "[string]", "json": "members[].name"},
        }},
    },
}

cases = []


def case(name, model, input, dictionary=None, json_=None, errors=None, same=False):
    c = {"name": name, "model": model, "input": input}
    if errors is not None:
        c["errors"] = errors
    else:
        c["dictionary"] = dictionary
        c["json"] = input if same else json_
    cases.append(c)


def err(path, model, prop, code):
    return {"path": path, "model": model, "property": prop, "code": code}


def serr(model, prop, key):
    return {"path": f"/models/{model}/properties/{prop}/{key}", "model": model, "property": prop,
            "code": "schema"}


def schema_case(name, models, errors):
    cases.append({"name": name, "schema": {"strata": 1, "models": models}, "schemaErrors": errors})


case("two-properties-pluck-one-array-into-the-same-elements", "Team",
     {"members": [{"name": "ann", "id": 1, "role": "owner"}, {"name": "bob", "id": 2}]},
     {"names": ["ann", "bob"], "ids": [1, 2]},
     {"members": [{"name": "ann", "id": 1}, {"name": "bob", "id": 2}]})
case("one-property-both-ways", "Nullable", {"members": [{"name": "ann", "id": 1}, {"name": "bob"}]},
     {"names": ["ann", "bob"]}, {"members": [{"name": "ann"}, {"name": "bob"}]})
case("empty-array-gives-empty-arrays", "Team", {"members": []}, {"names": [], "ids": []}, same=True)
case("missing-prefix-leaves-the-property-absent", "Team", {"other": [{"name": "ann"}]}, {}, {})
case("missing-keys-in-elements-are-null-placeholders", "Sparse",
     {"members": [{"name": "ann"}, {"id": 2}, {"name": None, "id": 3}, {}]},
     {"names": ["ann", None, None, None], "ids": [None, 2, 3, None]},
     {"members": [{"name": "ann", "id": None}, {"name": None, "id": 2}, {"name": None, "id": 3},
                  {"name": None, "id": None}]})
case("missing-key-in-an-element-needs-a-nullable-element-type", "Team",
     {"members": [{"name": "ann", "id": 1}, {"id": 2}, {"name": "cy"}]},
     errors=[err("/members/1/name", "Team", "names", "null"), err("/members/2/id", "Team", "ids", "null")])
case("null-value-in-an-element-needs-a-nullable-element-type", "Team",
     {"members": [{"name": None, "id": 1}]}, errors=[err("/members/0/name", "Team", "names", "null")])
case("non-array-at-the-prefix-is-a-type-error", "Team", {"members": {"name": "ann", "id": 1}},
     errors=[err("/members", "Team", "names", "type"), err("/members", "Team", "ids", "type")])
case("string-at-the-prefix-is-a-type-error", "Nullable", {"members": "ann"},
     errors=[err("/members", "Nullable", "names", "type")])
case("null-at-the-prefix-of-a-non-nullable-array-is-null", "Team", {"members": None},
     errors=[err("/members", "Team", "names", "null"), err("/members", "Team", "ids", "null")])
case("null-at-the-prefix-of-a-nullable-array", "Nullable", {"members": None}, {"names": None}, same=True)
case("non-object-element-is-a-path-error", "Team",
     {"members": [{"name": "ann", "id": 1}, 5, {"name": "cy", "id": 3}, ["x"]]},
     errors=[err("/members/1", "Team", "names", "path"), err("/members/1", "Team", "ids", "path"),
             err("/members/3", "Team", "names", "path"), err("/members/3", "Team", "ids", "path")])
case("null-element-is-a-null-placeholder", "Sparse", {"members": [{"name": "ann", "id": 1}, None]},
     {"names": ["ann", None], "ids": [1, None]},
     {"members": [{"name": "ann", "id": 1}, {"name": None, "id": None}]})
case("bad-element-value-points-into-the-input", "Team",
     {"members": [{"name": "ann", "id": 1}, {"name": "bob", "id": 2}, {"name": 3, "id": "3"}]},
     errors=[err("/members/2/name", "Team", "names", "type"), err("/members/2/id", "Team", "ids", "type")])
case("nested-prefix-both-ways", "Org",
     {"org": {"name": "acme", "sites": [{"address": {"city": "Paris", "zip": "75001"}}, {"address": {"city": "Oslo"}}]}},
     {"name": "acme", "cities": ["Paris", "Oslo"]},
     {"org": {"name": "acme", "sites": [{"address": {"city": "Paris"}}, {"address": {"city": "Oslo"}}]}})
case("through-null-in-an-element-is-a-null-placeholder", "Org",
     {"org": {"sites": [{"address": {"city": "Paris"}}, {"address": None}, {}]}},
     {"cities": ["Paris", None, None]},
     {"org": {"sites": [{"address": {"city": "Paris"}}, {"address": {"city": None}}, {"address": {"city": None}}]}})
case("through-non-object-in-an-element-is-a-path-error", "Org",
     {"org": {"sites": [{"address": "Paris"}, {"address": {"city": "Oslo"}}, {"address": [1]}]}},
     errors=[err("/org/sites/0/address", "Org", "cities", "path"),
             err("/org/sites/2/address", "Org", "cities", "path")])
case("prefix-through-non-object-is-a-path-error", "Org", {"org": 5},
     errors=[err("/org", "Org", "name", "path"), err("/org", "Org", "cities", "path")])
case("prefix-through-null-is-null", "Org", {"org": None},
     errors=[err("/org", "Org", "name", "null"), err("/org", "Org", "cities", "null")])
case("missing-intermediate-of-the-prefix-leaves-absent", "Org", {"org": {"name": "acme"}}, {"name": "acme"},
     same=True)
case("model-elements-both-ways", "Roster",
     {"members": [{"user": {"login": "ann", "id": 1}, "role": "owner"}, {"user": {"login": "bob", "id": 2}}]},
     {"users": [{"login": "ann", "id": 1}, {"login": "bob", "id": 2}]},
     {"members": [{"user": {"login": "ann", "id": 1}}, {"user": {"login": "bob", "id": 2}}]})
case("errors-inside-model-elements-point-into-the-input", "Roster",
     {"members": [{"user": {"login": "ann", "id": 1}}, {"user": {"login": 5, "id": "2"}}, {"user": "cy"}]},
     errors=[err("/members/1/user/login", "User", "login", "type"), err("/members/1/user/id", "User", "id", "type"),
             err("/members/2/user", "Roster", "users", "type")])
case("missing-model-element-needs-a-nullable-element-type", "Roster",
     {"members": [{"user": {"login": "ann"}}, {"role": "guest"}]},
     errors=[err("/members/1/user", "Roster", "users", "null")])
case("required-prefix-missing-is-missing", "Required", {"team": []},
     errors=[err("/members", "Required", "names", "missing")])
case("required-with-an-empty-array", "Required", {"members": []}, {"names": []}, same=True)
case("outer-array-and-plucked-values-share-the-elements", "Outer",
     {"members": [{"login": "ann", "id": 1}, {"login": "bob", "id": 2}]},
     {"members": [{"login": "ann", "id": 1}, {"login": "bob", "id": 2}], "logins": ["ann", "bob"]},
     same=True)
case("plucked-arrays-transforms-and-dates", "Posts",
     {"posts": [{"tags": ["a", "b"], "stats": {"count": "12"}, "at": 0},
                {"tags": [], "stats": {"count": "3"}, "at": 1372783200.5}]},
     {"tags": [["a", "b"], []], "counts": [12, 3], "times": ["1970-01-01T00:00:00Z", "2013-07-02T16:40:00.5Z"]},
     same=True)
case("type-and-date-errors-at-the-element-paths", "Posts",
     {"posts": [{"tags": ["a", 1], "stats": {"count": "1"}, "at": "0"},
                {"tags": "a", "stats": {"count": "4"}, "at": -1e20}]},
     errors=[err("/posts/0/tags/1", "Posts", "tags", "type"), err("/posts/1/tags", "Posts", "tags", "type"),
             err("/posts/0/at", "Posts", "times", "type"), err("/posts/1/at", "Posts", "times", "format")])
case("transform-error-at-the-element-path", "Posts",
     {"posts": [{"tags": [], "stats": {"count": "x"}, "at": 0}, {"tags": [], "stats": {"count": "4"}, "at": 0},
                {"tags": [], "stats": {"count": "y"}, "at": 0}]},
     errors=[err("/posts/0/stats/count", "Posts", "counts", "format"),
             err("/posts/2/stats/count", "Posts", "counts", "format")])
case("validation-of-each-plucked-value", "Checked",
     {"members": [{"login": "ann"}, {"login": "Bob"}, {"login": "cy"}, {"login": "d-d"}]},
     errors=[err("/members/1/login", "Checked", "logins", "validation"),
             err("/members/3/login", "Checked", "logins", "validation")])
case("validation-of-the-plucked-array-at-the-prefix", "Checked", {"few": [{"n": 1}, {"n": 2}, {"n": 3}]},
     errors=[err("/few", "Checked", "few", "validation")])
case("json-pointer-brackets-are-a-plain-key", "Pointer", {"members[]": {"name": "ann"}}, {"name": "ann"},
     same=True)
case("json-pointer-brackets-do-not-read-the-array", "Pointer", {"members": [{"name": "ann"}]}, {}, {})
case("the-prefix-key-counts-as-mapped-for-unknown-keys", "Strict",
     {"members": [{"name": "ann", "role": "owner"}], "extra": 1},
     errors=[{"path": "/extra", "model": "Strict", "code": "unknown_key"}])

schema_case("schema-two-array-segments", {"M": {"properties": {
    "a": {"type": "[string]", "json": "orgs[].members[].name"},
    "b": {"type": "[[string]]", "json": "orgs[].members[]"},
}}}, [serr("M", "a", "json"), serr("M", "b", "json")])
schema_case("schema-array-segment-at-the-end", {"M": {"properties": {
    "a": {"type": "[string]", "json": "members[]"},
    "b": {"type": "[string]", "json": "members[]."},
    "c": {"type": "[string]", "json": "[].name"},
    "d": {"type": "[string]", "json": "members[].name"},
}}}, [serr("M", "a", "json"), serr("M", "b", "json"), serr("M", "c", "json")])
schema_case("schema-plucked-type-must-be-an-array", {"M": {"properties": {
    "a": {"type": "string", "json": "members[].name"},
    "b": {"type": "{string}", "json": "members[].name"},
    "c": {"type": "json", "json": "members[].name"},
    "d": {"type": "[string]?", "json": "members[].login"},
}}}, [serr("M", "a", "type"), serr("M", "b", "type"), serr("M", "c", "type")])
schema_case("schema-two-properties-pluck-the-same-path", {"M": {"properties": {
    "a": {"type": "[string]", "json": "members[].name"},
    "b": {"type": "[string?]", "json": "members[].name"},
    "c": {"type": "[string]", "json": "members[].login"},
}}}, [serr("M", "b", "json")])

DESCRIPTION = (
    "`json` key paths through an array: `members[].name` reads the array at `members` and, from each element, "
    "the value at `name`, mapped as the property's `[T]` (`[T]?` too). Along the prefix the key path rules hold "
    "(missing: absent or `missing` when required, null: null, a non-object: `path` at it); a non-array at the "
    "prefix is a `type` error at the prefix. In each element, a missing key or a path through null is a null "
    "placeholder (the element type must allow null, else a `null` error where the key would be), a null "
    "element too; a non-object element is a `path` error at the element, a non-object further in at that "
    "value. Errors of plucked values (type, format, validation, errors inside models) point into the input "
    "(`/members/2/id`); a rule on the array itself (maxLength) at the prefix. Serialization writes element i "
    "of the value at `members/i/name`, creating the array and its objects as needed, so properties that pluck "
    "one array fill the same element objects (in property order) and an outer `members` property is filled "
    "in; a null array is written as null at the prefix. Schema errors: two `[]` segments, `[]` without keys "
    "after it or without a name before it, a type that is not an array (reported at `type`), two properties "
    "on one path. In a JSON Pointer `[]` is part of a plain key. Generated by tools/gen_array_keypaths.py."
)

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    write(os.path.join(here, "..", "array-keypaths.json"), DESCRIPTION, SCHEMA, cases)
