#!/usr/bin/env python3
"""Writes the fuzz fixtures and seed corpora of Tests/fuzz from the
conformance cases (Tests/conformance), the GitHub example (examples/github)
and the hand-written fixtures in tools/extra_fixtures.json.

    python3 Tests/fuzz/tools/make_corpus.py        # from the repository root

Outputs (all small, all in the repository):
  schemas/NAME.json    {"schema": ..., "inputs": [{"model", "input"}...]}:
                       the fixed schemas of fuzz_map and fuzz_api
  corpus/schema/       schema documents (valid and invalid) for fuzz_schema
  corpus/map/          "FIXTURE MODEL [many]\\n" + JSON text, for fuzz_map
  corpus/api/          short call programs for fuzz_api (opcodes as in fuzz_api.c)

Re-run it after adding conformance cases; it replaces the generated files
and leaves regressions/ alone.
"""
import hashlib
import json
import os
import shutil
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
FUZZ = os.path.join(ROOT, "Tests", "fuzz")
MAX_INPUT = 4096        # bytes of compact JSON per canned input / seed
MAX_INPUTS = 40         # canned inputs per fixture

# fuzz_api.c opcodes (enum order there)
(OP_MAP_CANNED, OP_MAP_TEXT, OP_MAP_MANY, OP_MAP_FRESH, OP_COPY, OP_EQUAL, OP_HASH,
 OP_GET_KEY, OP_GET_BYTES, OP_DICTIONARY, OP_TO_JSON, OP_INCREF, OP_DECREF,
 OP_SCHEMA_REF, OP_SCHEMA_UNREF, OP_ERRORS, OP_EXERCISE, OP_MERGE, OP_UPDATE,
 OP_DIFF) = range(20)


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)


def seed_name(data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha1(data).hexdigest()[:16]


def main():
    fixtures = {}   # name -> {"schema", "inputs"}
    schema_docs = []
    map_seeds = []

    conf = os.path.join(ROOT, "Tests", "conformance")
    for file in sorted(os.listdir(conf)):
        if not file.endswith(".json"):
            continue
        name = file[:-5]
        group = json.load(open(os.path.join(conf, file)))
        if "schema" in group:
            schema_docs.append(group["schema"])
        inputs = []
        for case in group.get("cases", []):
            if "schema" in case:
                schema_docs.append(case["schema"])
                continue  # the fixture is the file's schema
            if "schemaName" in case:
                continue  # mapped with another schema of the file, not the fixture's
            model = case.get("model")
            if model is None:
                continue
            if "inputText" in case:
                map_seeds.append(f"{name} {model}{' many' if case.get('many') else ''}\n{case['inputText']}")
                continue
            if "input" not in case:
                continue
            text = compact(case["input"])
            if len(text) > MAX_INPUT:
                continue
            map_seeds.append(f"{name} {model}{' many' if case.get('many') else ''}\n{text}")
            elements = case["input"] if case.get("many") and isinstance(case["input"], list) else [case["input"]]
            for element in elements:
                if isinstance(element, dict):
                    inputs.append({"model": model, "input": element})
        if "schema" in group:
            fixtures[name] = {"schema": group["schema"], "inputs": inputs[:MAX_INPUTS]}

    gh = os.path.join(ROOT, "examples", "github")
    github_schema = json.load(open(os.path.join(gh, "schema.json")))
    issues = json.load(open(os.path.join(gh, "issues.json")))
    schema_docs.append(github_schema)
    fixtures["example-github"] = {
        "schema": github_schema,
        "inputs": [{"model": "GHIssue", "input": issue} for issue in issues],
    }
    for issue in issues:
        map_seeds.append("example-github GHIssue\n" + compact(issue))
    map_seeds.append("example-github GHIssue many\n" + compact(issues[:2]))

    extra = json.load(open(os.path.join(FUZZ, "tools", "extra_fixtures.json")))
    for name, fixture in extra.items():
        if name.startswith("//"):
            continue
        fixtures[name] = fixture
        schema_docs.append(fixture["schema"])
        for entry in fixture["inputs"]:
            map_seeds.append(f"{name} {entry['model']}\n" + compact(entry["input"]))

    # write
    for sub in ("schemas", "corpus/schema", "corpus/map", "corpus/api"):
        shutil.rmtree(os.path.join(FUZZ, sub), ignore_errors=True)
        os.makedirs(os.path.join(FUZZ, sub))
    for name, fixture in sorted(fixtures.items()):
        lines = ['{"schema": ' + compact(fixture["schema"]) + ',', ' "inputs": [']
        lines += ["  " + compact(entry) + ("," if i + 1 < len(fixture["inputs"]) else "")
                  for i, entry in enumerate(fixture["inputs"])]
        lines += [" ]}"]
        write(os.path.join(FUZZ, "schemas", name + ".json"), "\n".join(lines) + "\n")
    for doc in schema_docs:
        text = compact(doc)
        write(os.path.join(FUZZ, "corpus", "schema", seed_name(text)), text)
    for seed in map_seeds:
        write(os.path.join(FUZZ, "corpus", "map", seed_name(seed)), seed)

    # fuzz_api programs: per fixture, a walk through every call
    names = sorted(fixtures)
    for index, name in enumerate(names):
        program = bytes([
            OP_MAP_CANNED, index, 0, 0,
            OP_MAP_CANNED, index, 1, 1,
            OP_EQUAL, 0, 1,
            OP_COPY, 0, 2,
            OP_EQUAL, 0, 2,
            OP_HASH, 2,
            OP_TO_JSON, 2, 3,
            OP_GET_KEY, 0, 1,
            OP_GET_BYTES, 0, ord("i"), ord("d"), 0,
            OP_DICTIONARY, 3,
            OP_INCREF, 0, OP_INCREF, 0, OP_DECREF, 0,
            OP_MAP_FRESH, index, 4, 0,
            OP_EQUAL, 4, 0,
            OP_SCHEMA_REF, 4,
            OP_DECREF, 4,
            OP_SCHEMA_UNREF, 0, 5,
            OP_EXERCISE, 5,
            OP_MAP_MANY, index, 0, 3,
            OP_MAP_TEXT, index, 0, 6, 2, ord("{"), ord("}"),
            OP_ERRORS,
            OP_MERGE, 0, 1, OP_UPDATE, index, 0, 1, OP_DIFF, 1, 0,
            OP_DECREF, 0, OP_DECREF, 1,
        ])
        write(os.path.join(FUZZ, "corpus", "api", f"walk-{name}"), program)
    # across fixtures: models of two schemas side by side
    for index in range(len(names) - 1):
        program = bytes([OP_MAP_CANNED, index, 0, 0, OP_MAP_CANNED, index + 1, 1, 0,
                         OP_EQUAL, 0, 1, OP_MERGE, 0, 1, OP_MAP_FRESH, index, 2, 0, OP_EQUAL, 0, 2])
        write(os.path.join(FUZZ, "corpus", "api", f"cross-{index:02d}"), program)

    total = 0
    for dirpath, _, files in os.walk(os.path.join(FUZZ)):
        if "regressions" in dirpath:
            continue
        total += sum(os.path.getsize(os.path.join(dirpath, f)) for f in files)
    print(f"{len(fixtures)} fixtures, {len(set(map(compact, schema_docs)))} schema seeds, "
          f"{len(set(map_seeds))} map seeds, {len(names) * 2 - 1} api seeds; Tests/fuzz is {total / 1024:.0f} KiB")


if __name__ == "__main__":
    sys.exit(main())
