"""Strict comparison of JSON values as Python data.

``==`` in Python says ``3 == 3.0`` and ``True == 1``; JSON, and the
conformance cases, tell them apart. ``json_equal`` compares types strictly:
bool, int, float, str, None, list and dict must match in kind and value.
Object key order does not matter (JSON objects are unordered).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple


def json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "real"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def json_difference(expected: Any, actual: Any, path: str = "") -> Optional[str]:
    """None if equal, else a description of the first difference."""
    kind = json_kind(expected)
    if kind != json_kind(actual):
        return f"at {path or '(root)'}: expected {kind} {expected!r}, got {json_kind(actual)} {actual!r}"
    if kind == "array":
        if len(expected) != len(actual):
            return f"at {path or '(root)'}: expected {len(expected)} elements, got {len(actual)}: {actual!r}"
        for index, (exp, act) in enumerate(zip(expected, actual)):
            found = json_difference(exp, act, f"{path}/{index}")
            if found:
                return found
        return None
    if kind == "object":
        if set(expected) != set(actual):
            missing = sorted(set(expected) - set(actual))
            extra = sorted(set(actual) - set(expected))
            return f"at {path or '(root)'}: keys differ: missing {missing}, unexpected {extra}; got {actual!r}"
        for key in expected:
            found = json_difference(expected[key], actual[key], f"{path}/{escape(key)}")
            if found:
                return found
        return None
    if expected != actual:
        return f"at {path or '(root)'}: expected {expected!r}, got {actual!r}"
    return None


def json_equal(expected: Any, actual: Any) -> bool:
    return json_difference(expected, actual) is None


def escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


ERROR_SORT_FIELDS = ("path", "code", "model", "property")


def _sort_key(entry: Dict[str, Any]) -> Tuple[str, ...]:
    return tuple(str(entry.get(field, "")) for field in ERROR_SORT_FIELDS)


def error_matches(expected: Dict[str, Any], actual: Dict[str, Any]) -> bool:
    """An expected entry matches: path and code always; model, property when given;
    message as a substring when given."""
    for field in ("path", "code"):
        if expected.get(field) != actual.get(field):
            return False
    for field in ("model", "property"):
        if field in expected and expected[field] != actual.get(field):
            return False
    if "message" in expected and expected["message"] not in actual.get("message", ""):
        return False
    return True


def errors_difference(
    expected: Sequence[Dict[str, Any]], actual: Sequence[Dict[str, Any]]
) -> Optional[str]:
    """Compares error lists as multisets (sorted by path, code, model, property,
    then entry by entry). None if they match, else a description."""
    exp = sorted(expected, key=_sort_key)
    act = sorted(actual, key=_sort_key)
    if len(exp) == len(act) and all(error_matches(e, a) for e, a in zip(exp, act)):
        return None
    # Entries that leave out model/property may sort differently from the
    # actual ones; accept any one-to-one matching before calling it a failure.
    if len(exp) == len(act) <= 12 and _match(exp, list(act)):
        return None
    lines = [f"expected {len(exp)} errors, got {len(act)}", "expected:"]
    lines += [f"  {e}" for e in exp]
    lines.append("actual:")
    lines += [f"  {a}" for a in act]
    return "\n".join(lines)


def _match(expected: List[Dict[str, Any]], pool: List[Dict[str, Any]]) -> bool:
    if not expected:
        return not pool
    first, rest = expected[0], expected[1:]
    for index, candidate in enumerate(pool):
        if error_matches(first, candidate) and _match(rest, pool[:index] + pool[index + 1 :]):
            return True
    return False
