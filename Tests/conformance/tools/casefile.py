"""Writes a conformance case file (see ../README.md) in the layout of the
hand-written ones: one property per line in the schema, one key per line in
each case, one error per line. Used by gen_dates.py and gen_array_keypaths.py."""
import json


def dump(value):
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def write(path, description, schema, cases):
    lines = ["{", f'  "description": {dump(description)},', '  "schema": {',
             f'    "strata": {schema["strata"]},', '    "models": {']
    models = list(schema["models"].items())
    for mi, (name, model) in enumerate(models):
        lines.append(f'      {dump(name)}: {{')
        extra = [k for k in model if k != "properties"]
        for k in extra:
            lines.append(f'        {dump(k)}: {dump(model[k])},')
        lines.append('        "properties": {')
        props = list(model["properties"].items())
        for pi, (pname, body) in enumerate(props):
            lines.append(f'          {dump(pname)}: {dump(body)}' + ("," if pi < len(props) - 1 else ""))
        lines.append("        }")
        lines.append("      }" + ("," if mi < len(models) - 1 else ""))
    lines += ["    }", "  },", '  "cases": [']
    for ci, c in enumerate(cases):
        lines.append("    {")
        keys = list(c)
        for ki, k in enumerate(keys):
            comma = "," if ki < len(keys) - 1 else ""
            v = c[k]
            if k in ("errors", "schemaErrors") and len(v) > 1:
                lines.append(f'      {dump(k)}: [')
                for ei, e in enumerate(v):
                    lines.append(f'        {dump(e)}' + ("," if ei < len(v) - 1 else ""))
                lines.append("      ]" + comma)
            else:
                lines.append(f'      {dump(k)}: {dump(v)}{comma}')
        lines.append("    }" + ("," if ci < len(cases) - 1 else ""))
    lines += ["  ]", "}", ""]
    text = "\n".join(lines)
    json.loads(text)
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    with open(path, "w") as f:
        f.write(text)
    print(f"{path}: {len(cases)} cases")
