#!/usr/bin/python3
"""Two catalogue directories hold the same catalogue apart from timestamps.
usage: same.py DIR_A DIR_B"""
import glob
import json
import os
import sys


def load(d):
    docs = {}
    for p in [os.path.join(d, "catalogue.json")] + sorted(glob.glob(os.path.join(d, "nodes", "*.json"))):
        doc = json.load(open(p))
        doc["run"].pop("end_time", None)
        docs[os.path.relpath(p, d)] = doc
    return docs


a, b = load(sys.argv[1]), load(sys.argv[2])
if a.keys() != b.keys():
    print("FAIL files differ: %s vs %s" % (sorted(a), sorted(b)))
    sys.exit(1)
bad = [k for k in a if a[k] != b[k]]
for k in bad:
    print("FAIL %s differs" % k)
print("%d files compared, %d differ" % (len(a), len(bad)))
sys.exit(1 if bad else 0)
