"""Reading a gpucensus catalogue from Python, whatever its layout.

Schema 3.x: as 2.x, with each GPU's parameters as one object (units
once, in "parameter_units"), its models as values (names in "models"."tables"),
the links as one table and the verdicts folded; load() expands it to the 2.0
layout (save() writes that layout back: 2.0, which gpucensus reads).

Schema 2.x (compact): catalogue.json holds no per-point results and
no link size tables; each GPU's points and the size tables of the links its
node's GPUs measured are in OUT/nodes/<node>.json. Schema 1.x: both inline.

    import gccat                      # sys.path: the repository's tools/
    cat = gccat.load(OUT)             # OUT or OUT/catalogue.json; points attached:
                                      # every gpus[].results and links[].sizes as in 1.x
                                      # (and parameters' sources, models' validation rows)
    cat = gccat.load(OUT, points=False)   # catalogue.json alone (no node file read)
    gccat.results(cat, g)             # g's points (attached, inline, or read now)
    gccat.save(cat, NEW_OUT, OUT)     # a doctored catalogue (its points edited in
                                      # gpus[].results) written back in its own layout

A node file may be gzipped (nodes/<node>.json.gz, as tests/data/fleet keeps
them). A missing node file is an error naming it (FileNotFoundError), raised
only when points are asked for."""
import copy
import gzip
import json
import os

LINK_KEY = ("kind", "benchmark", "direction", "memory", "engine", "peer_access", "concurrent")


def catalogue_path(path):
    return os.path.join(path, "catalogue.json") if os.path.isdir(path) else path


def compact(cat):
    """True for the schema-2 layout (points in the node files; schema 3 is
    expanded to it by load)."""
    return str(cat.get("schema_version", "1.0")).startswith(("2.", "3."))


def _end(t, e):
    """A schema-3 link end: r (rank r's GPU), -r-1 (the host next to it) or in full."""
    if isinstance(e, dict):
        return e
    host = e < 0
    node, index, rank, uuid, numa = t[-e - 1 if host else e]
    return {"type": "host" if host else "gpu", "node": node, "gpu_index": None if host else index,
            "uuid": None if host else uuid, "numa_node": numa}


def _link_subject(l):
    def name(e):
        if e["type"] == "gpu":
            return "%s/gpu%d" % (e["node"], e["gpu_index"])
        if e.get("numa_node") is not None:
            return "%s/host(numa%d)" % (e["node"], e["numa_node"])
        return "%s/host" % e["node"]
    eng, peer = l.get("engine") or "", l.get("peer_access") or ""
    cls = "%s %s %s %s%s%s%s%s%s" % (l["kind"], l["benchmark"], l["direction"], l["memory"],
                                     " " if eng else "", eng, " peer_access=" if peer else "", peer,
                                     " concurrent" if l["concurrent"] else "")
    node = l["src"]["node"] if l["src"]["type"] == "gpu" else l["dst"]["node"]
    return "%s: %s -> %s" % (cls[:100], name(l["src"])[:70], name(l["dst"])[:70]), node


def expand(cat):
    """A schema-3 catalogue (parameters as one object, models as values,
    links as one table, verdicts folded) as the 2.0 layout, in place."""
    if not str(cat.get("schema_version", "")).startswith("3."):
        return cat
    units = cat.pop("parameter_units", {})
    cat.pop("peer_notes", None)   # once per run (src/analyze/peer_notes.c); 2.0 has no place for it
    tables = cat["models"].pop("tables", {})
    regimes = tables.get("regimes", ["all", "compute", "memory", "latency"])
    for g in cat["gpus"]:
        ps = []
        for name, v in g["parameters"].items():
            if isinstance(v, dict):
                ps.append({"name": name, "value": v["value"], "unit": v["unit"]})
            else:
                ps.append({"name": name, "value": v, "unit": units.get(name)})
        g["parameters"] = ps
        m = g.get("models")
        if m:
            out = {"description_origin": m["description_origin"], "launch_floor": tables.get("launch_floor")}
            for k in ("mwp_cwp", "littles_law"):
                x, t = m[k], tables[k]
                out[k] = {"reference": t["reference"],
                          "parameters": [{"name": n, "value": v, "unit": u}
                                         for (n, u), v in zip(t["parameters"], x["parameters"])],
                          "lambda": x["lambda"], "lambda_kernels": x["lambda_kernels"],
                          "errors": {e: {r: {"n": s[0], "mape": s[1], "max_ape": s[2]}
                                         for r, s in zip(regimes, x["errors"][e])}
                                     for e in ("raw", "calibrated")}}
            out["better_model"] = m.get("better_model")
            g["models"] = out
    L = cat["links"]
    t, classes = L["gpus"], L["classes"]
    links = []
    for row in L["rows"]:
        r = dict(zip(L["columns"], row))
        c = classes[r["class"]]
        l = dict(zip(("kind", "benchmark", "direction", "memory", "engine", "peer_access", "concurrent"), c))
        l["src"], l["dst"] = _end(t, r["src"]), _end(t, r["dst"])
        by = r["measured_on"]
        l["measured_on"] = by if isinstance(by, dict) else {"node": t[by][0], "gpu_index": t[by][1], "rank": t[by][2]}
        l["bandwidth_top_p50_bps"] = r["bandwidth_top_p50_bps"]
        m = r["model"]
        if m is not None:
            mm = dict(zip(("alpha_s", "beta_bps", "r2", "max_rel_residual", "size_min_bytes", "size_max_bytes"), m))
            if len(m) > 6:
                mm["segments"] = [dict(zip(("alpha_s", "beta_bps", "size_min_bytes", "size_max_bytes"), s))
                                  for s in m[6]]
            m = mm
        l["model"] = m
        ch = r["latency_chase"]
        l["latency_chase_ns"] = ch[3] if ch else None
        l["latency_chase"] = dict(zip(("footprint_bytes", "count", "p5_ns", "p50_ns", "p95_ns", "p50_cycles"), ch)) if ch else None
        for k in ("nominal_bps", "nominal_basis", "lambda", "share"):
            l[k] = r[k]
        if r.get("remeasured_bandwidth_bps") is not None:
            l["remeasured_bandwidth_bps"] = r["remeasured_bandwidth_bps"]
        links.append(l)
    cat["links"] = links
    V = cat["verdicts"]
    groups = V.get("peer_groups", [])
    names = ["ok", "suspect", "degraded", "failed"]
    vs = []
    for row in V["rows"]:
        if isinstance(row, dict):
            vs.append(row)
            continue
        typ = row[0]
        if typ == 0:
            _, node, gi, uuid, lvl, grp, peers, basis = row
            v = {"subject": "%s/gpu%d" % (node, gi), "type": "gpu", "node": node, "gpu_index": gi,
                 "uuid": uuid, "link": None}
        elif typ == 1:
            _, li, lvl, grp, peers, basis = row
            subject, node = _link_subject(links[li])
            v = {"subject": subject, "type": "link", "node": node, "gpu_index": None, "uuid": None, "link": li}
        else:
            _, node, lvl, peers = row
            v = {"subject": node, "type": "node", "node": node, "gpu_index": None, "uuid": None, "link": None}
        v["verdict"] = names[lvl]
        if typ == 2:
            v["peer_group"], v["peers"], v["basis"] = "node", peers, ["members"]
        else:
            v["peer_group"], v["peers"] = groups[grp], peers
            v["basis"] = (["peers"] if basis & 1 else []) + (["baseline"] if basis & 2 else []) + ["limits"]
        v["reasons"] = []
        vs.append(v)
    cat["verdicts"] = vs
    cat["_schema_read"] = cat["schema_version"]   # 3.0, or 3.1 (reasons grouped: reason.points)
    cat["schema_version"] = "2.0"
    return cat


def node_file(cat, node):
    return os.path.join(cat["_dir"], "nodes", node + ".json")


def _node(cat, node):
    cache = cat.setdefault("_nodes", {})
    if node not in cache:
        path = node_file(cat, node)
        if os.path.exists(path):
            with open(path) as f:
                cache[node] = json.load(f)
        elif os.path.exists(path + ".gz"):   # tests/data/fleet keeps them gzipped
            with gzip.open(path + ".gz", "rt") as f:
                cache[node] = json.load(f)
        else:
            raise FileNotFoundError("%s: no such node file: the points of node %s are there" % (path, node))
    return cache[node]


def link_key(l):
    ends = tuple((l[e].get("type"), l[e].get("node"), l[e].get("gpu_index")) for e in ("src", "dst"))
    by = l.get("measured_on") or {}
    return tuple(l.get(k) for k in LINK_KEY) + ends + ((by.get("node"), by.get("gpu_index")),)


def node_gpu(cat, g):
    """GPU g (a member of cat["gpus"]) as its node file has it: with its
    points, its parameters' sources and its models' validation rows."""
    for x in _node(cat, g["node"])["gpus"]:
        if x["index"] == g["index"]:
            return x
    raise KeyError("%s: no GPU %s/gpu%d" % (node_file(cat, g["node"]), g["node"], g["index"]))


def results(cat, g):
    """The points of GPU g (a member of cat["gpus"])."""
    if "results" in g:
        return g["results"]
    if not g.get("points"):
        return []
    return node_gpu(cat, g)["results"]


def sizes(cat, l):
    """The per-size table of link l (a member of cat["links"])."""
    if "sizes" in l:
        return l["sizes"]
    key = link_key(l)
    for x in _node(cat, l["measured_on"]["node"]).get("links", []):
        if link_key(x) == key:
            return x.get("sizes", [])
    return []


def load(path, points=True):
    """The catalogue at path (OUT or its catalogue.json); points=True attaches
    every GPU's results, its parameters' sources and its models' validation
    rows, and every link's sizes (from the node files for a compact
    catalogue), so that code written for 1.x reads either."""
    p = catalogue_path(path)
    with open(p) as f:
        cat = expand(json.load(f))
    cat["_dir"] = os.path.dirname(os.path.abspath(p))
    if points and compact(cat):
        for g in cat["gpus"]:
            x = node_gpu(cat, g)
            g["results"] = x["results"]
            g["parameters"] = x["parameters"]   # with their sources
            if "models" in x:
                g["models"] = x["models"]       # with the validation rows
        for l in cat["links"]:
            l["sizes"] = sizes(cat, l)
        cat.pop("_nodes", None)   # attached: the node trees are no longer needed
    return cat


def plain(cat):
    """cat without the loader's own members (to dump or compare)."""
    return {k: v for k, v in cat.items() if not k.startswith("_")}


def save(cat, out, src=None):
    """Writes cat to out/ (catalogue.json and, for a compact catalogue,
    nodes/<node>.json): a compact catalogue's points and link sizes go back
    into its node files (copied from src/nodes/, the catalogue's own
    directory by default), each GPU's results replaced by cat's."""
    os.makedirs(os.path.join(out, "nodes"), exist_ok=True)
    c = copy.deepcopy(plain(cat))
    if compact(c):
        src = src or cat["_dir"]
        by_node = {}
        for g in c["gpus"]:
            by_node.setdefault(g["node"], {})[g["index"]] = g.pop("results", None)
            g["points"] = len(by_node[g["node"]][g["index"]] or [])
            for p in g["parameters"]:
                p.pop("source", None)
            g.get("models", {}).pop("validation", None)
        for l in c["links"]:
            l.pop("sizes", None)
        for node, res in by_node.items():
            path = os.path.join(src, "nodes", node + ".json")
            if not os.path.exists(path) and os.path.exists(path + ".gz"):   # tests/data/fleet's are gzipped
                with gzip.open(path + ".gz", "rt") as f:
                    nf = json.load(f)
            else:
                with open(path) as f:
                    nf = json.load(f)
            for x in nf["gpus"]:
                if res.get(x["index"]) is not None:
                    x["results"] = res[x["index"]]
            with open(os.path.join(out, "nodes", node + ".json"), "w") as f:
                json.dump(nf, f)
    with open(os.path.join(out, "catalogue.json"), "w") as f:
        json.dump(c, f, indent=1)
    return os.path.join(out, "catalogue.json")


def top_bandwidth(l):
    """bandwidth_p50_bps at the largest size of a link with its sizes."""
    s = [x for x in l.get("sizes") or [] if x.get("size_bytes")]
    return max(s, key=lambda x: x["size_bytes"])["bandwidth_p50_bps"] if s else None


def to_compact(cat, out, old_nodes=None):
    """A catalogue of schema 1.x (points inline) written to out/ in the
    compact layout (2.0): catalogue.json without the points and size tables,
    nodes/<node>.json with them. old_nodes: the old run's nodes/ directory
    (its GPUs keep their conditions and histograms); without it the node
    files hold the catalogue's points (summaries only). The verdicts are
    kept as they are."""
    c = copy.deepcopy(plain(cat))
    assert not compact(c), "already compact"
    c["schema_version"] = "2.0"
    nodes = {}
    for g in c["gpus"]:
        nodes.setdefault(g["node"], {"gpus": [], "links": []})["gpus"].append(copy.deepcopy(g))
        g["points"] = len(g.pop("results", []))
    for l in c["links"]:
        l["bandwidth_top_p50_bps"] = top_bandwidth(l)
        nodes.setdefault(l["measured_on"]["node"], {"gpus": [], "links": []})["links"].append(copy.deepcopy(l))
        l.pop("sizes", None)
    os.makedirs(os.path.join(out, "nodes"), exist_ok=True)
    for name, n in nodes.items():
        nf = {"schema_version": "2.0", "kind": "node", "run": c["run"], "node": name, "gpus": n["gpus"],
              "links": n["links"]}
        old = os.path.join(old_nodes, name + ".json") if old_nodes else None
        if old and os.path.exists(old):
            with open(old) as f:
                nf["gpus"] = json.load(f)["gpus"]
        elif old and os.path.exists(old + ".gz"):
            with gzip.open(old + ".gz", "rt") as f:
                nf["gpus"] = json.load(f)["gpus"]
        with open(os.path.join(out, "nodes", name + ".json"), "w") as f:
            json.dump(nf, f)
    with open(os.path.join(out, "catalogue.json"), "w") as f:
        json.dump(c, f, indent=1)
    return os.path.join(out, "catalogue.json")


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 4 or sys.argv[1] != "compact":
        sys.exit("usage: gccat.py compact OLD_OUT NEW_OUT   (a schema-1 catalogue and its node "
                 "files to the compact layout; OLD_OUT is left as it is)")
    old = load(sys.argv[2], points=False)
    print(to_compact(old, sys.argv[3], os.path.join(old["_dir"], "nodes")))
