#!/usr/bin/env python3
"""Validate JSON documents against one of cordon's JSON Schemas (draft
2020-12, doc/schema/), with the jsonschema module (Debian's
python3-jsonschema).

    schema_check.py SCHEMA [--def NAME] [--lines] FILE...

Each FILE is one JSON document, or with --lines a JSON Lines file (every
non-empty line one document; an empty file is an error: nothing was
checked).  --def NAME validates against the schema's $defs/NAME instead
of the whole schema; a "$ref" to another file ("error.schema.json")
names a schema beside SCHEMA.  For each document valid, prints "ok" and, when the
schema's top level is a oneOf of $refs, the name of the $def it matched
("ok shim_path"), so that a test can see which kinds of records it
checked.  Exit status: 0 every document is valid, 1 some is not (each
error printed), 2 the schema or a file cannot be read.
"""
import json
import os
import sys

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError:
    print("schema_check: no python3 jsonschema module "
          "(Debian: python3-jsonschema; make deps installs it)")
    sys.exit(2)


def siblings(path):
    """The schemas beside @path, by file name: what a "$ref":
    "error.schema.json" names (the error document every --json command
    may print instead of its own)."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012
    except ImportError:  # jsonschema before 4.18: the files, by URI
        return folder
    res = []
    for f in sorted(os.listdir(folder)):
        if f.endswith(".schema.json"):
            with open(os.path.join(folder, f), encoding="utf-8") as fh:
                res.append((f, Resource.from_contents(
                    json.load(fh), default_specification=DRAFT202012)))
    return Registry().with_resources(res)


def validator_for(schema, name, registry):
    """A validator of the schema, or of its $defs/NAME (its refs resolve
    in the same document, or in a sibling schema)."""
    if name is not None:
        if name not in schema.get("$defs", {}):
            raise KeyError(f"no $defs/{name} in the schema")
        schema = {k: v for k, v in schema.items()
                  if k in ("$schema", "$id", "$defs")}
        schema["$ref"] = f"#/$defs/{name}"
    if isinstance(registry, str):
        resolver = jsonschema.RefResolver(
            base_uri="file://" + registry + "/", referrer=schema)
        return Draft202012Validator(schema, resolver=resolver)
    return Draft202012Validator(schema, registry=registry)


def kinds_of(schema):
    """The $defs names of a top-level oneOf of plain $refs, else []."""
    refs = [b.get("$ref", "") for b in schema.get("oneOf", [])]
    if not refs or not all(r.startswith("#/$defs/") for r in refs):
        return []
    return [r[len("#/$defs/"):] for r in refs]


def documents(path, lines):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not lines:
        yield path, json.loads(text)
        return
    n = 0
    for i, line in enumerate(text.split("\n"), 1):
        if line.strip():
            n += 1
            yield f"{path}:{i}", json.loads(line)
    if n == 0:
        raise ValueError(f"{path}: no record to check")


def main(argv):
    args, name, lines = [], None, False
    it = iter(argv)
    for a in it:
        if a == "--def":
            name = next(it)
        elif a == "--lines":
            lines = True
        else:
            args.append(a)
    if len(args) < 2:
        print(__doc__.strip().split("\n\n")[1])
        return 2
    try:
        with open(args[0], encoding="utf-8") as f:
            schema = json.load(f)
        Draft202012Validator.check_schema(schema)
        registry = siblings(args[0])
        whole = validator_for(schema, name, registry)
        kinds = {} if name else {k: validator_for(schema, k, registry)
                                 for k in kinds_of(schema)}
    except (OSError, ValueError, KeyError,
            jsonschema.exceptions.SchemaError) as e:
        print(f"schema_check: {args[0]}: {e}")
        return 2
    bad = 0
    for path in args[1:]:
        try:
            for where, doc in documents(path, lines):
                errors = sorted(whole.iter_errors(doc), key=str)
                if errors:
                    bad += 1
                    for e in errors:
                        loc = "/".join(str(p) for p in e.absolute_path)
                        print(f"invalid: {where}: at /{loc}: {e.message}")
                    continue
                kind = [k for k, v in kinds.items() if v.is_valid(doc)]
                print("ok" + ("".join(" " + k for k in kind)))
        except (OSError, ValueError) as e:
            print(f"schema_check: {path}: {e}")
            return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
