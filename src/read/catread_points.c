/* Points from node files on demand. See catread_points.h. */
#include "read/catread_points.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/input.h"

#include "util/quote.h"
#include "census/results.h"

struct gc_catpoints {
    char dir[4096];             /* the catalogue's directory */
    char node[GC_NODE_MAX];     /* the node file held, "" none */
    json_t *root;
    char start_time[64], plan_sha256[80];   /* this run; "" not known */
};

void gc_catpoints_set_run(gc_catpoints *c, const char *start_time, const char *plan_sha256)
{
    if (!c)
        return;
    snprintf(c->start_time, sizeof c->start_time, "%s", start_time ? start_time : "");
    snprintf(c->plan_sha256, sizeof c->plan_sha256, "%s", plan_sha256 ? plan_sha256 : "");
}

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

typedef struct gz_src {
    gzFile z;
    size_t left;   /* bytes still allowed: a small .gz must not inflate without bound */
} gz_src;

static size_t gz_read(void *buf, size_t n, void *ctx)
{
    gz_src *g = ctx;
    if (n > g->left + 1)
        n = g->left + 1;
    int k = gzread(g->z, buf, n > (1u << 30) ? (1u << 30) : (unsigned)n);
    if (k < 0 || (size_t)k > g->left)
        return (size_t)-1;
    g->left -= (size_t)k;
    return (size_t)k;
}

/* nodes/<node>.json or, absent, nodes/<node>.json.gz (tests/data/fleet
 * keeps node files so): opened inside OUT (no link followed, no FIFO,
 * bounded); NULL with err naming the file */
static json_t *node_load(const char *path, const char *node, gc_err *err)
{
    json_error_t je;
    struct stat st;
    if (lstat(path, &st) == 0 || errno != ENOENT) {
        uint8_t *b = NULL;
        size_t n = 0;
        if (gc_read_file_in(path, 2, GC_NODE_FILE_MAX, &b, &n, err))
            return NULL;
        json_t *root = json_loadb((const char *)b, n, JSON_ALLOW_NUL, &je);
        free(b);
        if (!root)
            gc_fail(err, GC_ECORRUPT, "%s:%d: not valid JSON: %s", path, je.line, je.text);
        return root;
    }
    char gz[4300];
    snprintf(gz, sizeof gz, "%s.gz", path);
    if (lstat(gz, &st) != 0 && errno == ENOENT)
        return gc_fail(err, GC_EIO, "%s: cannot open it: the points of node %s are there (copy "
                       "the node files next to catalogue.json, in nodes/)", path, node), NULL;
    int fd = gc_open_input_in(gz, 2, GC_NODE_FILE_MAX, err);
    gz_src src = { fd >= 0 ? gzdopen(fd, "rb") : NULL, GC_NODE_FILE_MAX };
    if (!src.z) {
        if (fd >= 0) {
            close(fd);
            gc_fail(err, GC_ENOMEM, "%s: out of memory", gz);
        }
        return NULL;
    }
    json_t *root = json_load_callback(gz_read, &src, JSON_ALLOW_NUL, &je);
    gzclose(src.z);
    if (!root)
        gc_fail(err, GC_ECORRUPT, "%s:%d: not valid JSON (or more than %zu bytes inflated): %s", gz,
                je.line, (size_t)GC_NODE_FILE_MAX, je.text);
    return root;
}

/* "" when the node file's run is this run (or this run is not known), else
 * what differs */
static const char *other_run(const gc_catpoints *c, json_t *root)
{
    if (!c->start_time[0] && !c->plan_sha256[0])
        return "";
    json_t *run = json_object_get(root, "run");
    const char *st = json_string_value(json_object_get(run, "start_time"));
    const char *sha = json_string_value(json_object_get(run, "plan_sha256"));
    if (c->start_time[0] && (!st || strcmp(st, c->start_time)))
        return "'run.start_time' is not the catalogue's: a node file of another run";
    if (c->plan_sha256[0] && (!sha || strcmp(sha, c->plan_sha256)))
        return "'run.plan_sha256' is not the catalogue's: a node file of another plan";
    return "";
}

/* The node file of node, loaded and checked (kind, version, node, this
 * run, arrays). */
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
    json_t *root = node_load(path, node, err);
    if (!root)
        return NULL;
    json_t *k = json_object_get(root, "kind"), *v = json_object_get(root, "schema_version"),
           *n = json_object_get(root, "node");
    const char *other = other_run(c, root);
    const char *bad = !json_is_string(k) || strcmp(json_string_value(k), "node")
                          ? "'kind' must be \"node\""
                      : !json_is_string(v) || (strncmp(json_string_value(v), "2.", 2) &&
                                               strncmp(json_string_value(v), "3.", 2))
                          ? "'schema_version' must be \"2.x\" or \"3.x\" (the catalogue's)"
                      : !json_is_string(n) || strcmp(json_string_value(n), node)
                          ? "'node' must name the node the catalogue names"
                      : *other ? other
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
