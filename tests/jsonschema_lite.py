"""A JSON Schema checker for the vectors' schema files, for the keywords they use (draft
2020-12 meaning): type, enum, const, properties, required, additionalProperties, items,
minItems, maxItems, minimum, pattern, anyOf, oneOf, $ref to #/$defs. One checker for every
vectors folder (statements/, transcripts/). No new dependency; an unknown
keyword is an error, so a schema cannot silently ask for more than is checked."""
from __future__ import annotations

import re
from typing import Any

KNOWN = {"$schema", "$id", "$defs", "$ref", "title", "description", "type", "enum", "const", "properties",
         "required", "additionalProperties", "items", "minItems", "maxItems", "minimum", "pattern", "anyOf",
         "oneOf"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[name])


def errors(value: Any, schema: dict, root: dict | None = None, path: str = "$") -> list[str]:
    """Every way ``value`` breaks ``schema`` (empty: it conforms)."""
    root = schema if root is None else root
    unknown = set(schema) - KNOWN
    if unknown:
        return [f"{path}: schema keyword(s) {sorted(unknown)} not supported by this checker"]
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/$defs/"), ref
        return errors(value, root["$defs"][ref[len("#/$defs/"):]], root, path)
    out: list[str] = []
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(value, t) for t in names):
            return [f"{path}: expected {'/'.join(names)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r:.60} is not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: expected {schema['const']!r}, got {value!r:.60}")
    if "minimum" in schema and _is(value, "number") and value < schema["minimum"]:
        out.append(f"{path}: {value} < {schema['minimum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        out.append(f"{path}: {value!r:.60} does not match {schema['pattern']}")
    if "anyOf" in schema:
        if all(errors(value, s, root, path) for s in schema["anyOf"]):
            out.append(f"{path}: matches none of anyOf")
    if "oneOf" in schema:
        fits = [errors(value, s, root, path) for s in schema["oneOf"]]
        if sum(not f for f in fits) != 1:
            best = min(fits, key=len)
            out.append(f"{path}: fits {sum(not f for f in fits)} of the oneOf schemas, not 1"
                       + (f" ({best[0]})" if best else ""))
    if isinstance(value, dict):
        for k in schema.get("required", []):
            if k not in value:
                out.append(f"{path}: missing {k!r}")
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                out += errors(v, props[k], root, f"{path}.{k}")
            elif schema.get("additionalProperties") is False:
                out.append(f"{path}: unexpected {k!r}")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += errors(v, schema["additionalProperties"], root, f"{path}.{k}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            out.append(f"{path}: {len(value)} items, expected at least {schema['minItems']}")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(f"{path}: {len(value)} items, expected at most {schema['maxItems']}")
        if "items" in schema:
            for i, v in enumerate(value):
                out += errors(v, schema["items"], root, f"{path}[{i}]")
    return out


def keywords(schema: Any) -> set[str]:
    """Every keyword a schema uses (property and definition names aside), to check a schema
    asks for nothing this checker does not know (``keywords(s) <= KNOWN``)."""
    if isinstance(schema, dict):
        out = set(schema) - {"properties", "$defs"}
        for k, v in schema.items():
            if k in ("properties", "$defs"):
                for sub in v.values():
                    out |= keywords(sub)
            elif isinstance(v, (dict, list)):
                out |= keywords(v)
        return out
    if isinstance(schema, list):
        return set().union(*(keywords(s) for s in schema)) if schema else set()
    return set()
