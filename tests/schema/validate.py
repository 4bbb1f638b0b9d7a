#!/usr/bin/python3
"""Validate gpucensus output files against results-schema/ (JSON Schema
draft 2020-12, with Debian's python3-jsonschema).

usage: validate.py FILE_OR_DIR...   (a directory: its catalogue.json and nodes/*.json,
                                     gzipped node files nodes/*.json.gz too)
Exit 0 when every file is valid, 1 otherwise; prints one line per file."""
import glob
import gzip
import json
import os
import sys

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMAS = os.path.join(ROOT, "results-schema")


def load_schemas():
    store = {}
    by_kind = {}
    for name, kind in (("catalogue.schema.json", "catalogue"), ("node.schema.json", "node"),
                       ("baseline.schema.json", "baseline")):
        with open(os.path.join(SCHEMAS, name)) as f:
            s = json.load(f)
        jsonschema.Draft202012Validator.check_schema(s)
        store[s["$id"]] = s
        by_kind[kind] = s
    return store, by_kind


def files_of(args):
    for a in args:
        if os.path.isdir(a):
            yield os.path.join(a, "catalogue.json")
            yield from sorted(glob.glob(os.path.join(a, "nodes", "*.json")) +
                              glob.glob(os.path.join(a, "nodes", "*.json.gz")))
        else:
            yield a


def main(argv):
    store, by_kind = load_schemas()
    bad = 0
    n = 0
    for path in files_of(argv[1:]):
        n += 1
        try:
            with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
                doc = json.load(f)
            schema = by_kind.get(doc.get("kind"))
            if schema is None:
                raise ValueError("unknown kind %r" % doc.get("kind"))
            resolver = jsonschema.RefResolver.from_schema(schema, store=store)
            v = jsonschema.Draft202012Validator(schema, resolver=resolver)
            errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
            if errors:
                bad += 1
                for e in errors[:5]:
                    print("INVALID %s: %s: %s" % (path, "/".join(map(str, e.path)), e.message[:300]))
            else:
                print("valid %s" % path)
        except Exception as e:  # unreadable or not JSON
            bad += 1
            print("INVALID %s: %s" % (path, e))
    if n == 0:
        print("no files to validate")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
