#!/usr/bin/env python3
"""Maps GitHub issues with Strata and prints what came out.

Usage:
    python3 bindings/python/examples/github_issues.py [SCHEMA [ISSUES]]

SCHEMA defaults to examples/github/schema.json and ISSUES to
examples/github/issues.json, both relative to the repository root. The
library is found as the strata package finds it (STRATA_LIBRARY, next to the
package, or the checkout's build/ folder).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, List, Optional

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent.parent
sys.path.insert(0, str(HERE.parent))  # run from a checkout without installing

import strata  # noqa: E402


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    schema_path = Path(args[0]) if len(args) > 0 else REPO_ROOT / "examples/github/schema.json"
    issues_path = Path(args[1]) if len(args) > 1 else REPO_ROOT / "examples/github/issues.json"

    try:
        schema = strata.Schema.from_file(schema_path)
    except strata.SchemaError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"loaded {schema!r} from {schema_path}")

    # The issue model: GHIssue if the schema has it, else its last model.
    model = "GHIssue" if "GHIssue" in schema.models else schema.models[-1]

    # 1. Map the whole response, an array of issues: str/bytes go straight to
    #    the library, which parses them.
    try:
        issues = schema.map_many(model, issues_path.read_bytes())
    except strata.MappingError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"\nmapped {len(issues)} {model} models from {issues_path}")
    for issue in issues:
        print(f"\n{issue!r}")
        print(pretty(issue.to_dict()))

    # 2. Back to the API's JSON: values under their JSON keys and key paths.
    if issues:
        print("\nthe first issue serialized back to JSON (to_json()):")
        print(pretty(issues[0].to_json()))

    # 3. A bad input: every error is reported, each naming where it is.
    raw = json.loads(issues_path.read_text(encoding="utf-8"))
    bad = dict(raw[0]) if isinstance(raw, list) and raw else {}
    bad.pop("number", None)  # a required key goes missing
    bad["title"] = 1347  # a number where a string belongs
    bad["labels"] = [{"name": "bug", "color": 7}]  # a bad value inside a nested model
    bad["url"] = "not a url"
    try:
        schema.map(model, bad)
    except strata.MappingError as exc:
        print("\nmapping a bad issue fails with every error of the input:")
        print(exc)
        print("\nexc.errors, for programs:")
        print(pretty(exc.errors))
    else:
        print("\n(the bad issue mapped without errors)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
