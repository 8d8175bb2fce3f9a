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
  corpus/bytes_diff/   fixture, model and call bytes + a conformance input as
                       text, or + an input index and a mutation program
                       (opcodes as in fuzz_bytes_diff.c), for fuzz_bytes_diff
  corpus/bytes_parse/  model/call byte + JSON text, for fuzz_bytes_parse

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


def in_range(value):
    """True when every number in `value` is one jansson reads (64-bit integers, finite reals)."""
    if isinstance(value, dict):
        return all(in_range(v) for v in value.values())
    if isinstance(value, list):
        return all(in_range(v) for v in value)
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return -2**63 <= value < 2**63
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    return True


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
                # text that jansson reads as it is also serves as a canned input
                try:
                    value = json.loads(case["inputText"])
                except ValueError:
                    continue
                if case.get("many") or not isinstance(value, dict) or not in_range(value):
                    continue
                if len(compact(value)) <= MAX_INPUT:
                    inputs.append({"model": model, "input": value})
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
    for sub in ("schemas", "corpus/schema", "corpus/map", "corpus/api", "corpus/bytes_diff", "corpus/bytes_parse"):
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

    write_bytes_seeds(fixtures, map_seeds)

    total = 0
    for dirpath, _, files in os.walk(os.path.join(FUZZ)):
        if "regressions" in dirpath:
            continue
        total += sum(os.path.getsize(os.path.join(dirpath, f)) for f in files)
    print(f"{len(fixtures)} fixtures, {len(set(map(compact, schema_docs)))} schema seeds, "
          f"{len(set(map_seeds))} map seeds, {len(names) * 2 - 1} api seeds; Tests/fuzz is {total / 1024:.0f} KiB")


# fuzz_bytes_diff.c: mutation opcodes (enum op order there) and call numbers
(BD_DROP_KEY, BD_CHANGE_TYPE, BD_NEST, BD_DUP_KEY, BD_BIG_NUMBER, BD_BAD_STRING,
 BD_TRUNCATE, BD_ADD_KEY) = range(8)
BD_RAW = 0x80
BD_EXERCISE = 0x40
BD_MAP, BD_MANY, BD_RESPONSE = 0, 1, 2

# fuzz_bytes_parse.c: models (byte 0, bits 0-2) and calls (bits 3-4)
BP_ANY, BP_RAW, BP_LOOSE, BP_STRICT, BP_LISTED = range(5)
BP_TEXTS = [
    '{"id":1,"name":"a","score":1.5,"flag":true,"when":"2024-01-02T03:04:05Z","data":{"x":[1,2,{"y":null}]},'
    '"user":{"login":"octocat","id":9},"child":{"id":2,"items":[{"id":3}]},"tags":["a",null],"counts":{"a":1},'
    '"extra":{"kept":[true,false,null,"s",1e5]}}',
    '{"id":18446744073709551616}', '{"score":1e400}', '{"data":1e400}', '{"data":18446744073709551616}',
    '{"unmapped":1e400,"id":1}', '{"unmapped":[99999999999999999999]}', '{"name":"<FF>"}',
    '{"name":"a\\u0000b"}', '{"name":"\\ud800"}', '{"id":1,"id":"two"}', '{"id":1,"name":"x",}',
    '{"a":' * 40 + '1' + '}' * 40, '[' * 600 + ']' * 600, '{"x":{"y":{"z":"deep"}}}',
    '{"b":[1,"2",[3],{"4":5}],"a":null}', '  \n\t{"id":1}  ', '{"id":1} x', '{"id":1', '"just a string"',
    '[{"id":1,"name":"a"},{"id":2,"name":"b","when":"2020-02-29T00:00:00+01:00"}]',
    '{"items":[{"id":1,"tags":["x"]},{"id":2}],"meta":{}}', '{"id":1,"name":"n","kind":"c"}',
    '{"id":1,"name":"n","surprise":0}', '',
]


def write_bytes_seeds(fixtures, map_seeds):
    """Seeds of fuzz_bytes_diff and fuzz_bytes_parse."""
    names = sorted(fixtures)
    index = {name: i for i, name in enumerate(names)}
    models = {name: sorted(fixtures[name]["schema"].get("models", {})) for name in names}
    seeds = []
    for seed in map_seeds:
        header, _, body = seed.partition("\n")
        parts = header.split(" ")
        if parts[0] not in index or len(parts) < 2:
            continue
        model = models[parts[0]].index(parts[1]) if parts[1] in models[parts[0]] else 0
        call = BD_MANY if parts[-1] == "many" else BD_MAP
        seeds.append(bytes([index[parts[0]], model, BD_RAW | call]) + body.encode("utf-8"))
    programs = [b"", bytes([BD_DROP_KEY, 0]), bytes([BD_CHANGE_TYPE, 5]), bytes([BD_NEST, 60]),
                bytes([BD_NEST, 250]), bytes([BD_DUP_KEY, 8]), bytes([BD_BIG_NUMBER, 0]),
                bytes([BD_BIG_NUMBER, 48]), bytes([BD_BAD_STRING, 1]), bytes([BD_TRUNCATE, 128]),
                bytes([BD_ADD_KEY, 3, BD_BIG_NUMBER, 49])]
    for name in names:
        if not fixtures[name]["inputs"]:
            continue
        model = models[name].index(fixtures[name]["inputs"][0]["model"]) if models[name] else 0
        for k, program in enumerate(programs):
            call = (BD_MAP, BD_MANY | 4, BD_RESPONSE)[k % 3] | (BD_EXERCISE if k % 2 == 0 else 0)
            seeds.append(bytes([index[name], model, call, k]) + program)
    for seed in seeds:
        write(os.path.join(FUZZ, "corpus", "bytes_diff", seed_name(seed)), seed)
    for k, text in enumerate(BP_TEXTS):
        data = text.encode("utf-8").replace(b"<FF>", b"\xff")  # invalid UTF-8
        for model in (BP_ANY, BP_RAW, BP_LOOSE, BP_STRICT, BP_LISTED):
            call = (0, 1, 2)[(k + model) % 3]
            seed = bytes([model | call << 3]) + data
            write(os.path.join(FUZZ, "corpus", "bytes_parse", seed_name(seed)), seed)


if __name__ == "__main__":
    sys.exit(main())
