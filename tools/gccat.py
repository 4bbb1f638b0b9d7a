"""Reading a gpucensus catalogue from Python, whatever its layout.

Schema 2.x (compact, issue 16): catalogue.json holds no per-point results and
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

A node file may be gzipped (nodes/<node>.json.gz, as results/fleet keeps
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
    """True for the schema-2 layout (points in the node files)."""
    return str(cat.get("schema_version", "1.0")).startswith("2.")


def node_file(cat, node):
    return os.path.join(cat["_dir"], "nodes", node + ".json")


def _node(cat, node):
    cache = cat.setdefault("_nodes", {})
    if node not in cache:
        path = node_file(cat, node)
        if os.path.exists(path):
            with open(path) as f:
                cache[node] = json.load(f)
        elif os.path.exists(path + ".gz"):   # results/fleet keeps them gzipped
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
        cat = json.load(f)
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
            if not os.path.exists(path) and os.path.exists(path + ".gz"):   # results/fleet's are gzipped
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
