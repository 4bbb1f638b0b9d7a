/* Points from node files on demand. See catread_points.h. */
#include "read/catread_points.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/quote.h"
#include "census/results.h"

struct gc_catpoints {
    char dir[4096];             /* the catalogue's directory */
    char node[GC_NODE_MAX];     /* the node file held, "" none */
    json_t *root;
};

gc_catpoints *gc_catpoints_new(const char *cat_path)
{
    gc_catpoints *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    const char *slash = strrchr(cat_path, '/');
    if (!slash)
        snprintf(c->dir, sizeof c->dir, ".");
    else
        snprintf(c->dir, sizeof c->dir, "%.*s", (int)((slash - cat_path) ? (slash - cat_path) : 1),
                 cat_path);
    return c;
}

void gc_catpoints_free(gc_catpoints *c)
{
    if (!c)
        return;
    json_decref(c->root);
    free(c);
}

void gc_catpoints_path(const gc_catpoints *c, const char *node, char *out, size_t cap)
{
    snprintf(out, cap, "%s/nodes/%s.json", c->dir, node);
}

static size_t gz_read(void *buf, size_t n, void *z)
{
    int k = gzread((gzFile)z, buf, n > (1u << 30) ? (1u << 30) : (unsigned)n);
    return k < 0 ? (size_t)-1 : (size_t)k;
}

/* The node file of node (nodes/<node>.json, or .json.gz), loaded and checked (kind, version, node, arrays). */
static json_t *node_root(gc_catpoints *c, const char *node, gc_err *err)
{
    if (c->root && !strcmp(c->node, node))
        return c->root;
    json_decref(c->root);
    c->root = NULL;
    c->node[0] = '\0';
    char path[4200];
    gc_catpoints_path(c, node, path, sizeof path);
    if (!gc_name_ok(node))
        return gc_fail(err, GC_ECORRUPT, "%s: not a node name a catalogue may name", path), NULL;
    json_error_t je;
    json_t *root = json_load_file(path, JSON_ALLOW_NUL, &je);
    FILE *f = root ? NULL : fopen(path, "r");
    if (!root && !f) {
        /* gzipped (tests/data/fleet keeps node files so) */
        char gz[4300];
        snprintf(gz, sizeof gz, "%s.gz", path);
        gzFile z = gzopen(gz, "rb");
        if (z) {
            root = json_load_callback(gz_read, z, JSON_ALLOW_NUL, &je);
            gzclose(z);
            if (!root)
                return gc_fail(err, GC_ECORRUPT, "%s:%d: not valid JSON: %s", gz, je.line, je.text),
                       NULL;
        }
    }
    if (!root) {
        if (!f)
            gc_fail(err, GC_EIO, "%s: cannot open it: the points of node %s are there (copy the "
                    "node files next to catalogue.json, in nodes/)", path, node);
        else
            gc_fail(err, GC_ECORRUPT, "%s:%d: not valid JSON: %s", path, je.line, je.text);
        if (f)
            fclose(f);
        return NULL;
    }
    json_t *k = json_object_get(root, "kind"), *v = json_object_get(root, "schema_version"),
           *n = json_object_get(root, "node");
    const char *bad = !json_is_string(k) || strcmp(json_string_value(k), "node")
                          ? "'kind' must be \"node\""
                      : !json_is_string(v) || (strncmp(json_string_value(v), "2.", 2) &&
                                               strncmp(json_string_value(v), "3.", 2))
                          ? "'schema_version' must be \"2.x\" or \"3.x\" (the catalogue's)"
                      : !json_is_string(n) || strcmp(json_string_value(n), node)
                          ? "'node' must name the node the catalogue names"
                      : !json_is_array(json_object_get(root, "gpus")) ? "'gpus' must be an array"
                      : !json_is_array(json_object_get(root, "links")) ? "'links' must be an array"
                                                                          : NULL;
    if (bad) {
        json_decref(root);
        return gc_fail(err, GC_ECORRUPT, "%s: %s", path, bad), NULL;
    }
    c->root = root;
    snprintf(c->node, sizeof c->node, "%s", node);
    return root;
}

json_t *gc_catpoints_gpu(gc_catpoints *c, const char *node, int index, gc_err *err)
{
    json_t *root = node_root(c, node, err);
    if (!root)
        return NULL;
    char path[4200];
    gc_catpoints_path(c, node, path, sizeof path);
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(root, "gpus"), i, g) {
        json_t *x = json_object_get(g, "index");
        if (!json_is_integer(x) || json_integer_value(x) != index)
            continue;
        json_t *res = json_object_get(g, "results");
        if (!json_is_array(res))
            return gc_fail(err, GC_ECORRUPT, "%s: gpus[%zu].results must be an array", path, i), NULL;
        return res;
    }
    return gc_fail(err, GC_ECORRUPT, "%s: no GPU of index %d (the catalogue names %s/gpu%d)", path,
                   index, node, index),
           NULL;
}

json_t *gc_catpoints_links(gc_catpoints *c, const char *node, gc_err *err)
{
    json_t *root = node_root(c, node, err);
    return root ? json_object_get(root, "links") : NULL;
}
