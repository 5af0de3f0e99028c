#!/usr/bin/env python3
"""json_schema.py SCHEMA DOCUMENT: check DOCUMENT against SCHEMA.

The subset of JSON Schema (2020-12) that docs/*.schema.json use: type
(one or a list), const, enum, required, properties, additionalProperties
false, items, minItems, minimum, minLength.  A keyword outside that subset
fails the check rather than being ignored, so the schema cannot grow
past what is checked.  Uses python3-jsonschema instead when it is there.
Exit 0 valid, 1 invalid (each violation printed with its path).
"""
import json
import sys

KNOWN = {"$schema", "$id", "title", "description", "type", "const", "enum",
         "required", "properties", "additionalProperties", "items",
         "minItems", "minimum", "minLength"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def check(schema, value, path, errors):
    unknown = set(schema) - KNOWN
    if unknown:
        errors.append("%s: schema keywords not supported here: %s" % (path, sorted(unknown)))
    types = schema.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        if not any(TYPES[t](value) for t in types):
            errors.append("%s: %r is not of type %s" % (path, value, "/".join(types)))
            return
    if "const" in schema and value != schema["const"]:
        errors.append("%s: %r is not %r" % (path, value, schema["const"]))
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r is not one of %r" % (path, value, schema["enum"]))
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append("%s: lacks %r" % (path, key))
        props = schema.get("properties", {})
        for key, sub in value.items():
            if key in props:
                check(props[key], sub, "%s.%s" % (path, key), errors)
            elif schema.get("additionalProperties", True) is False:
                errors.append("%s: unexpected key %r" % (path, key))
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append("%s: %d items, at least %d" % (path, len(value), schema["minItems"]))
        for i, item in enumerate(value):
            if "items" in schema:
                check(schema["items"], item, "%s[%d]" % (path, i), errors)
    if "minimum" in schema and TYPES["number"](value) and value < schema["minimum"]:
        errors.append("%s: %r < %r" % (path, value, schema["minimum"]))
    if "minLength" in schema and isinstance(value, str) and len(value) < schema["minLength"]:
        errors.append("%s: %r shorter than %d" % (path, value, schema["minLength"]))


def main():
    schema = json.load(open(sys.argv[1]))
    doc = json.load(open(sys.argv[2]))
    errors = []
    check(schema, doc, "$", errors)
    try:
        import jsonschema
        try:
            jsonschema.validate(doc, schema)
        except jsonschema.ValidationError as e:
            errors.append("jsonschema: %s" % e.message)
    except ImportError:
        pass
    for e in errors:
        print("schema: " + e)
    if not errors:
        print("schema: %s valid against %s" % (sys.argv[2], sys.argv[1]))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
