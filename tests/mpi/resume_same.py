"""resume_same.py RESUMED WHOLE: a resumed run is whole and measured each
item once (net checks aside: they run when the timing makes a pair slow).
Every GPU is ok with items_done == items_total; no result
(item, metric, partner) appears twice in the catalogue or in a node file;
the set of results and the set of links equal the uninterrupted run's.
Prints the counts; exit 1 with the differences."""
import gzip, json, os, sys

import gccat


def link_key(l):
    end = lambda e: (e["type"], e["node"], e["gpu_index"])
    return (l["kind"], l["benchmark"], l["direction"], l["memory"], l["engine"], l["concurrent"],
            end(l["src"]), end(l["dst"]))


def results(gpus, where, errors):
    keys = {}
    for g in gpus:
        for r in g.get("results", []):
            # the item, and for a pair or net task its partner, name a result
            # (the rest of the context holds measured annotations: spread, clocks)
            c = r["context"]
            if "net_check" in c:
                continue   # measured when a net pair is slow: as the run's timing has it
            k = (g["node"], g["index"], r["item"], r["metric"], c.get("peer_rank"), c.get("peer_gpu"),
                 c.get("confirm"))
            keys[k] = keys.get(k, 0) + 1
    dup = [k for k, n in keys.items() if n > 1]
    if dup:
        errors.append("%s: %d results twice or more, e.g. %s" % (where, len(dup), dup[:2]))
    return set(keys)


def node_files(d, errors):
    out = set()
    for f in sorted(os.listdir(os.path.join(d, "nodes"))):
        p = os.path.join(d, "nodes", f)
        n = json.load(gzip.open(p) if f.endswith(".gz") else open(p))
        out |= results(n["gpus"], "nodes/" + f, errors)
    return out


def main(resumed, whole):
    errors = []
    a, b = gccat.load(resumed + "/catalogue.json"), gccat.load(whole + "/catalogue.json")
    for g in a["gpus"]:
        if g["status"] != "ok" or g["items_done"] != g["items_total"]:
            errors.append("%s/gpu%d: %s, %d of %d items: %s" % (g["node"], g["index"], g["status"],
                          g["items_done"], g["items_total"], g["status_reason"]))
            errors += ["  item %d: %s" % (r["item"], r.get("error", "?")) for r in g["results"]
                       if r["status"] != "ok"][:4]
    ra, rb = results(a["gpus"], "catalogue", errors), results(b["gpus"], "whole catalogue", errors)
    if ra != rb:
        errors.append("results differ: only resumed %s, only whole %s" % (sorted(ra - rb)[:3], sorted(rb - ra)[:3]))
    na = node_files(resumed, errors)
    if na != rb:
        errors.append("node files' results differ from the whole run's: %s" % sorted(na ^ rb)[:3])
    la, lb = {link_key(l) for l in a["links"]}, {link_key(l) for l in b["links"]}
    # every link of the uninterrupted run; more only of the network, where a
    # net check (a slow pair's sides against a good node) measured one
    if lb - la or any(k[0] != "network" for k in la - lb):
        errors.append("links: %d vs %d; missing %s, extra %s" % (len(la), len(lb), sorted(lb - la)[:3],
                      sorted(la - lb)[:3]))
    for e in errors:
        print("resume_same:", e)
    print("resumed: %d GPUs, %d results, %d links (whole run: %d, %d)" % (len(a["gpus"]), len(ra), len(la),
          len(rb), len(lb)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
