#!/usr/bin/python3
"""Check a catalogue against the work list `gpucensus plan` printed.

usage: check.py OUT PLAN_LISTING [--failed RANK ...]
Every rank's GPU must be in the catalogue under the node and index the
listing gives; ranks not named --failed must be ok with items_done ==
items_total == their task count, and hold exactly one or more ok results
for each item they initiate. Ranks named --failed (lost or dead) must be 'incomplete'.
When the run measured slow network pairs again (points with context
net_check), a rank may have done more items than the plan lists: the
re-measures; then items_done == items_total >= the task count."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gccat  # noqa: E402  (a catalogue with its points, whatever its layout)


def parse_listing(path):
    ranks = {}
    cur = None
    for line in open(path):
        m = re.match(r"rank (\d+) \(node (\S+), gpu (\d+)\): (\d+) tasks", line)
        if m:
            cur = int(m.group(1))
            ranks[cur] = dict(node=m.group(2), index=int(m.group(3)), tasks=int(m.group(4)),
                              initiated=set())
            continue
        m = re.match(r"\s+\S+\s+step \d+\s+item (\d+)\s.*?(<-)?( rank \d+)?$", line)
        if m and cur is not None and not m.group(2):
            ranks[cur]["initiated"].add(int(m.group(1)))
    return ranks


def main(argv):
    out, listing = argv[1], argv[2]
    failed = {int(x) for x in argv[4:]} if len(argv) > 3 and argv[3] == "--failed" else set()
    want = parse_listing(listing)
    cat = gccat.load(out)
    errors = []
    if cat["run"]["backend"] != "sim":
        errors.append("backend is not sim")
    if cat["run"]["ranks"] != len(want):
        errors.append("run.ranks %d, expected %d" % (cat["run"]["ranks"], len(want)))
    gpus = {g["rank"]: g for g in cat["gpus"]}
    if len(cat["gpus"]) != len(want) or set(gpus) != set(want):
        errors.append("GPUs of ranks %s, expected %s" % (sorted(gpus), sorted(want)))
    remeasured = any("net_check" in res["context"] for g in cat["gpus"] for res in g["results"])
    nodes = {w["node"] for w in want.values()}
    if {n["name"] for n in cat["nodes"]} != nodes or cat["run"]["nodes"] != len(nodes):
        errors.append("nodes %s, expected %s" % ([n["name"] for n in cat["nodes"]], sorted(nodes)))
    for r, w in sorted(want.items()):
        g = gpus.get(r)
        if g is None:
            continue
        if (g["node"], g["index"]) != (w["node"], w["index"]):
            errors.append("rank %d is %s/%d, expected %s/%d" % (r, g["node"], g["index"], w["node"], w["index"]))
        if r in failed:
            if g["status"] != "incomplete" or not g["status_reason"]:
                errors.append("rank %d: status %s, expected incomplete with a reason" % (r, g["status"]))
            continue
        if g["status"] != "ok":
            errors.append("rank %d: status %s (%s)" % (r, g["status"], g["status_reason"]))
        if not (g["items_total"] == g["items_done"] and
                (g["items_total"] == w["tasks"] or (remeasured and g["items_total"] > w["tasks"]))):
            errors.append("rank %d: items %d/%d, plan gives %d" % (r, g["items_done"], g["items_total"], w["tasks"]))
        items = {}
        for res in g["results"]:
            items.setdefault(res["item"], []).append(res)
            if res["status"] != "ok" or res["summary"]["count"] < 1:
                errors.append("rank %d item %d %s: status %s count %d" % (
                    r, res["item"], res["metric"], res["status"], res["summary"]["count"]))
        if set(items) != w["initiated"]:
            errors.append("rank %d: results for items %s, expected %s" % (r, sorted(items), sorted(w["initiated"])))
        if not g["identity"]["name"].endswith("(sim)"):
            errors.append("rank %d: sim GPU name %r does not say sim" % (r, g["identity"]["name"]))
    for e in errors:
        print("FAIL", e)
    print("%d GPUs checked, %d errors" % (len(want), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
