#!/usr/bin/env python3
"""Check the DOM of a rendered report (chromium --dump-dom) against its
catalogue: the sections, and the SVG plots and their elements in the
numbers the catalogue implies.

usage: check_dom.py DOM.html CATALOGUE.json VERDICTS.json [--expect-outlier NODE/gpuN:METRIC]
VERDICTS.json: `gpucensus check --json` of the catalogue (its "verdicts")."""
import json
import os
import sys
from html.parser import HTMLParser

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gccat  # noqa: E402  (points from the node files of a compact catalogue)

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], ""

    def cls(self):
        return (self.attrs.get("class") or "").split()

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def find(self, tag, cls=None):
        return [n for n in self.walk() if n.tag == tag and (cls is None or cls in n.cls())]

    def all_text(self):
        return self.text + "".join(c.all_text() for c in self.children)


class Tree(HTMLParser):
    def __init__(self):
        super().__init__()
        self.root = Node("root", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text += data


errors = []


def expect(what, got, want):
    if got != want:
        errors.append(f"{what}: {got}, expected {want}")


def main():
    args = sys.argv[1:]
    outlier = None
    if "--expect-outlier" in args:
        i = args.index("--expect-outlier")
        outlier = args[i + 1]
        del args[i:i + 2]
    dom_path, cat_path, ver_path = args
    t = Tree()
    t.feed(open(dom_path, encoding="utf-8").read())
    root = t.root
    cat = gccat.load(cat_path)
    verdicts = json.load(open(ver_path))["verdicts"]   # check --json: {run, counts, exit_status, verdicts}
    gpus, links, nodes = cat["gpus"], cat["links"], cat["nodes"]
    node_names = [n["name"] for n in nodes]

    def gpus_of(node):
        return [g for g in gpus if g["node"] == node]

    def has_chase(g):
        return any(r["benchmark"] == "chase" and r["metric"] == "latency" and r["status"] == "ok"
                   and r["context"].get("order", "random") == "random" for r in g["results"])

    def link_class(l):
        return (l["kind"], l["benchmark"], l["direction"], l["memory"], l["engine"],
                l["peer_access"], l["concurrent"])

    # sections and drill-down
    for sid in ["cluster", "latency", "transfers", "p2p", "verdicts", "nodes"]:
        if not [n for n in root.walk() if n.attrs.get("id") == sid]:
            errors.append(f"no section #{sid}")
    det = root.find("details", "node")
    expect("details.node (one per node)", len(det), len(nodes))
    expect("details.node ids", sorted(d.attrs.get("id") for d in det),
           sorted("node-" + n for n in node_names))

    svgs = [s for s in root.find("svg") if "plot" in s.cls()]

    def of(kind):
        return [s for s in svgs if kind in s.cls()]

    # latency against footprint: the cluster's, then one per node with a chase
    lat_nodes = [n for n in node_names if any(has_chase(g) for g in gpus_of(n))]
    lat = of("lat")
    expect("svg.lat", len(lat), (1 if lat_nodes else 0) + len(lat_nodes))
    for s in lat:
        expect("plateau lines in a latency plot", len(s.find("line", "plateau")), 3)
    # histograms: L1, L2, DRAM for the cluster and for each node
    hist = of("hist")
    expect("svg.hist", len(hist), 3 * ((1 if lat_nodes else 0) + len(lat_nodes)))
    for s in hist[:3]:
        if not s.find("rect", "bar"):
            errors.append("a cluster histogram without bars")
    for s, n in zip(hist[3:], [n for n in lat_nodes for _ in range(3)]):
        expect(f"{n}: histogram lines (one per GPU)", len(s.find("polyline")) if len(gpus_of(n)) > 1
               else len(s.find("rect", "bar")) > 0, len(gpus_of(n)) if len(gpus_of(n)) > 1 else True)
    # transfers: one plot per link class for the cluster, and per node
    classes = []
    for l in links:
        if link_class(l) not in classes and l["sizes"]:
            classes.append(link_class(l))
    per_node = 0
    for n in node_names:
        cn = []
        for l in links:
            if l["measured_on"]["node"] == n and link_class(l) not in cn and l["sizes"]:
                cn.append(link_class(l))
        per_node += len(cn)
    xfer = of("xfer")
    expect("svg.xfer", len(xfer), len(classes) + per_node)
    for s in xfer:
        if not s.find("polyline", "model"):
            errors.append("a transfer plot without its model line")
        if not s.find("circle", "pt"):
            errors.append("a transfer plot without points")
    # P2P matrix: the cluster's and each node's with P2P links
    p2p_nodes = [n for n in node_names if any(l["benchmark"] == "p2p" and l["src"]["node"] == n
                                              and l["model"] for l in links)]
    p2p = of("p2p")
    expect("svg.p2p", len(p2p), (1 if p2p_nodes else 0) + len(p2p_nodes))
    for s, n in zip(p2p[1:], p2p_nodes):
        k = len(gpus_of(n))
        expect(f"{n}: P2P cells", len(s.find("g", "cell")), k * (k - 1))
    # cluster view: one strip per metric, one point per GPU
    cl = of("cluster")
    if not cl:
        errors.append("no cluster view")
    for s in cl:
        expect("points in a cluster strip", len(s.find("circle", "gpu")), len(gpus))
    if outlier:
        who, metric = outlier.split(":")
        strip = [d for d in root.find("div", "strip") if d.attrs.get("data-metric") == metric]
        if len(strip) != 1:
            errors.append(f"no cluster strip for {metric}")
        else:
            bad = strip[0].find("circle", "v-bad")
            expect(f"{metric}: red points", len(bad), 1)
            labels = [x.all_text() for x in strip[0].find("text", "olabel")]
            if who not in labels:
                errors.append(f"{metric}: outlier {who} not labelled (labels {labels})")
    # verdicts: every subject listed (small census), worst first
    rows = root.find("tr", "verdict")
    expect("verdict rows", len(rows), len(verdicts))
    levels = ["ok", "suspect", "degraded", "failed"]
    got = [levels.index(r.attrs.get("data-level")) for r in rows]
    if got != sorted(got, reverse=True):
        errors.append("verdict rows not worst first")
    # the GPU tables: the cluster's and each node's
    expect("GPU rows", len(root.find("tr", "gpu")),
           (len(gpus) if len(gpus) <= 64 else 0) + len(gpus))
    # the explorer: every GPU in its data, the first page of rows drawn by its script
    data = [n for n in root.walk() if n.attrs.get("id") == "gx-data"]
    if len(data) != 1:
        errors.append("no explorer data (#gx-data)")
    else:
        d = json.loads(data[0].text)
        expect("explorer GPUs", len(d["g"]), len(gpus))
        expect("explorer nodes", d["nodes"], node_names)
        expect("explorer SKUs", sorted(d["skus"]), sorted({g["identity"]["name"] for g in gpus}))
        got = sorted((d["nodes"][g[0]], g[1]) for g in d["g"])
        expect("explorer GPU names", got, sorted((g["node"], g["index"]) for g in gpus))
        vs = {v["subject"]: v["verdict"] for v in verdicts if v.get("type") == "gpu"}
        for g in d["g"]:
            want = vs.get(f"{d['nodes'][g[0]]}/gpu{g[1]}")
            if want is not None:
                expect(f"explorer verdict of {d['nodes'][g[0]]}/gpu{g[1]}",
                       ["ok", "suspect", "degraded", "failed"][g[3]], want)
    expect("explorer rows drawn", len(root.find("tr", "gx")), min(50, len(gpus)))
    if errors:
        print("\n".join("DOM: " + e for e in errors))
        return 1
    print(f"DOM ok: {len(svgs)} plots ({len(lat)} latency, {len(hist)} histograms, {len(xfer)} "
          f"transfer, {len(p2p)} P2P, {len(cl)} cluster), {len(det)} nodes, {len(rows)} verdicts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
