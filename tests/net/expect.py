"""What check must say of a test bed's census (tests/net): one node (or
none) the slow side of its network links, at a level or worse, and nothing
else blamed: every other node, every GPU and every link not of that node ok.
Usage: expect.py CHECK.json SLOW|none LEVEL [OUT] (suspect: suspect or
degraded). Prints the verdicts that are not ok; exits 1 with the reason
otherwise, and then OUT's network links' bandwidths."""
import json
import sys

import gccat


def links(out):
    cat = gccat.load(out, points=False)
    for l in cat["links"]:
        if l["kind"] == "network":
            print("  %s -> %s: %.2f MB/s at the largest size" % (
                l["src"]["node"], l["dst"]["node"], (l["bandwidth_top_p50_bps"] or 0) / 1e6),
                file=sys.stderr)

RANK = {"ok": 0, "suspect": 1, "degraded": 2, "failed": 3}


def main():
    verdicts = json.load(open(sys.argv[1]))["verdicts"]   # check --json: {run, counts, exit_status, verdicts}
    slow, level = sys.argv[2], sys.argv[3]
    bad = []
    for v in verdicts:
        if v["verdict"] != "ok":
            rules = sorted({r["rule"] for r in v.get("reasons", [])})
            print("  %-9s %s: %s" % (v["verdict"], v["subject"], ",".join(rules)))
    for v in verdicts:
        lv = RANK.get(v["verdict"], 3)
        if v["type"] == "node" and v["node"] == slow:
            rules = {r["rule"] for r in v.get("reasons", [])}
            if lv < RANK[level] or lv > RANK["degraded"] or "net_side" not in rules:
                bad.append("%s: %s %s, expected %s or worse as the slow side (net_side)"
                           % (v["subject"], v["verdict"], sorted(rules), level))
        elif v["type"] == "link" and slow != "none" and lv and \
                slow in (v["subject"].split(": ", 1)[-1].replace(" -> ", "/").split("/")):
            if lv > RANK["degraded"]:
                bad.append("%s: %s (a slow link is not failed)" % (v["subject"], v["verdict"]))
        elif lv:
            bad.append("%s (%s): %s, expected ok" % (v["subject"], v["type"], v["verdict"]))
    nodes = {v["node"] for v in verdicts if v["type"] == "node"}
    if slow != "none" and slow not in nodes:
        bad.append("no verdict for node %s" % slow)
    for b in bad:
        print("FAIL: " + b, file=sys.stderr)
    if bad and len(sys.argv) > 4:
        links(sys.argv[4])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
