/* Published verdict files: see verdict_file.h. Writing and reading sit in
 * one file so that the format is defined once. */
#include "cmd/verdict_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "judge/detect.h"
#include "util/args.h"
#include "util/fsutil.h"
#include "util/quote.h"
#include "util/timeutil.h"

#define FORMAT_VERSION 1

int gc_vfile_path(const char *dir, const char *node, char *out, size_t cap)
{
    if (!gc_name_ok(node))
        return -1;
    int n = snprintf(out, cap, "%s/%s%s", dir, node, GC_VFILE_SUFFIX);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* A value on one line: control characters (a newline would start a new
 * key) become '?'. */
static void one_line(const char *s, char *out, size_t cap)
{
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++)
        out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    out[i] = '\0';
}

int gc_vfile_write(const char *dir, const gc_hnode *v, gc_err *err)
{
    char path[4200], now[32], plan[64], src[256], reason[256];
    if (gc_vfile_path(dir, v->node, path, sizeof path))
        return gc_fail(err, GC_EINVAL, "node name '%s' cannot name a file in %s", v->node, dir);
    if (v->level < GC_V_OK || v->level > GC_V_FAILED)
        return gc_fail(err, GC_EINVAL, "%s: no verdict to publish", v->node);
    gc_iso_time(now, sizeof now, 0);
    one_line(v->plan, plan, sizeof plan);
    one_line(v->source, src, sizeof src);
    one_line(v->reason, reason, sizeof reason);
    gc_afile a;
    int rc = gc_afile_open(&a, path, err);
    if (rc)
        return rc;
    fprintf(a.f,
            "# gpucensus verdict, published by `gpucensus history publish`: do not edit\n"
            "format %d\nnode %s\nverdict %s\ntime %s\nplan %s\nrun %s\npublished %s\nreason %s\n",
            FORMAT_VERSION, v->node, gc_verdict_name(v->level), v->time, plan, src, now, reason);
    if (fflush(a.f) || fchmod(fileno(a.f), 0444)) {
        gc_afile_abort(&a);
        return gc_fail(err, GC_EIO, "%s: could not be written", path);
    }
    return gc_afile_commit(&a, err);
}

/* ---- reading ----------------------------------------------------------- */

enum { K_FORMAT, K_NODE, K_VERDICT, K_TIME, K_PLAN, K_RUN, K_PUBLISHED, K_REASON, K_N };
static const char *const KEYS[K_N] = { "format", "node", "verdict", "time",
                                       "plan", "run", "published", "reason" };

static int level_of(const char *word)
{
    for (int i = GC_V_OK; i <= GC_V_FAILED; i++)
        if (!strcmp(word, gc_verdict_name(i)))
            return i;
    return -1;
}

/* One "key value" line into out; seen[] marks the keys read. */
static int read_line(const char *path, int lineno, char *line, const char *node, int seen[K_N],
                     gc_vfile *out, gc_err *err)
{
    for (const char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return gc_fail(err, GC_ECORRUPT, "%s:%d: a control character (byte 0x%02x)", path, lineno,
                           (unsigned char)*c);
    char *sp = strchr(line, ' ');
    const char *val = sp ? sp + 1 : "";
    if (sp)
        *sp = '\0';
    int k = 0;
    while (k < K_N && strcmp(line, KEYS[k]))
        k++;
    if (k == K_N)
        return gc_fail(err, GC_ECORRUPT, "%s:%d: unknown key '%.32s' (format, node, verdict, time, "
                       "plan, run, published, reason)", path, lineno, line);
    if (seen[k]++)
        return gc_fail(err, GC_ECORRUPT, "%s:%d: %s: given twice", path, lineno, KEYS[k]);
    gc_hnode *v = &out->v;
    switch (k) {
    case K_FORMAT:
        if (strcmp(val, "1"))
            return gc_fail(err, GC_ECORRUPT, "%s:%d: format: '%.16s' (this build reads 1)", path, lineno, val);
        return 0;
    case K_NODE:
        if (strcmp(val, node))
            return gc_fail(err, GC_ECORRUPT, "%s:%d: node: the file is of node '%.63s', not %s", path,
                           lineno, gc_name_ok(val) ? val : "?", node);
        snprintf(v->node, sizeof v->node, "%s", val);
        return 0;
    case K_VERDICT:
        if ((v->level = level_of(val)) < 0)
            return gc_fail(err, GC_ECORRUPT, "%s:%d: verdict: '%.16s' (ok, suspect, degraded or failed)",
                           path, lineno, val);
        return 0;
    case K_TIME:
    case K_PUBLISHED: {
        long long t = gc_iso_parse_s(val);
        if (t <= 0 || strlen(val) >= sizeof v->time)
            return gc_fail(err, GC_ECORRUPT, "%s:%d: %s: '%.32s' is not a UTC time "
                           "(YYYY-MM-DDTHH:MM:SSZ)", path, lineno, KEYS[k], val);
        if (k == K_TIME) {
            snprintf(v->time, sizeof v->time, "%s", val);
            v->t_s = t;
        } else {
            snprintf(out->published, sizeof out->published, "%s", val);
            out->published_s = t;
        }
        return 0;
    }
    case K_PLAN:
        snprintf(v->plan, sizeof v->plan, "%s", val);
        return 0;
    case K_RUN:
        snprintf(v->source, sizeof v->source, "%s", val);
        return 0;
    default:
        snprintf(v->reason, sizeof v->reason, "%s", val);
        return 0;
    }
}

int gc_vfile_parse(const char *path, const char *data, size_t len, const char *node, gc_vfile *out,
                   gc_err *err)
{
    memset(out, 0, sizeof *out);
    out->v.level = -1;
    if (len > GC_VFILE_MAX)
        return gc_fail(err, GC_ECORRUPT, "%s: %zu bytes, more than the %d allowed", path, len, GC_VFILE_MAX);
    if (!len || data[len - 1] != '\n')
        return gc_fail(err, GC_ECORRUPT, "%s: %s", path, len ? "cut short (no newline at its end)" : "empty");
    if (memchr(data, '\0', len))
        return gc_fail(err, GC_ECORRUPT, "%s: a NUL byte", path);
    char text[GC_VFILE_MAX + 1], *save = NULL;
    memcpy(text, data, len - 1);
    text[len - 1] = '\0';
    int seen[K_N] = { 0 }, lineno = 0, rc = 0;
    for (char *line = strtok_r(text, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
        lineno++;   /* strtok_r skips empty lines: the count is of lines read */
        if (line[0] != '#')
            rc = read_line(path, lineno, line, node, seen, out, err);
    }
    for (int k = 0; !rc && k < K_N; k++)
        if (!seen[k])
            rc = gc_fail(err, GC_ECORRUPT, "%s: no '%s' line: not a whole verdict file", path, KEYS[k]);
    return rc;
}

int gc_vfile_read(const char *path, const char *node, gc_vfile *out, gc_err *err)
{
    uint8_t *data;
    size_t len;
    memset(out, 0, sizeof *out);
    out->v.level = -1;
    int rc = gc_read_file(path, GC_VFILE_MAX, &data, &len, err);
    if (rc)
        return rc;
    rc = gc_vfile_parse(path, (const char *)data, len, node, out, err);
    free(data);
    return rc;
}

/* ---- `history publish` ---------------------------------------------------- */

static const char publish_usage[] =
    "history publish DB DIR [--node NODE]...\n"
    "        DIR/NODE.verdict (mode 0444, written atomically) for every node of DB,\n"
    "        or the nodes named: what NHC and the prolog read on compute nodes\n"
    "\n"
    "  --node:  this node only (again for more)\n"
    "exit codes: 0 published; 1 database or file error; 2 bad arguments\n";

static int publish_one(gc_history *h, const char *dir, const char *node, gc_err *err)
{
    gc_hnode v;
    int rc = gc_history_last_node(h, node, &v, err);
    if (!rc)
        rc = gc_vfile_write(dir, &v, err);
    if (!rc) {
        char esc[256];
        gc_term_esc(v.reason, esc, sizeof esc);
        printf("published %s/%s%s: %s at %s%s%s\n", dir, node, GC_VFILE_SUFFIX, gc_verdict_name(v.level),
               v.time, esc[0] ? ": " : "", esc);
    }
    return rc;
}

int gc_vfile_publish_main(int argc, char **argv)
{
    const char *db = NULL, *dir = NULL;
    const char **nodes = calloc((size_t)argc + 1, sizeof *nodes);
    size_t nn = 0;
    if (!nodes)
        return fprintf(stderr, "gpucensus history: out of memory\n"), 1;
    static const gc_opt opts[] = { { "--node", 1 } };
    gc_args a;
    gc_args_init(&a, "gpucensus history publish", publish_usage, argc, argv, opts, 1);
    for (int k; (k = gc_args_next(&a)) != GC_ARG_END;) {
        int rc = k == GC_ARG_HELP ? 0 : k == GC_ARG_BAD ? GC_EXIT_USAGE : -1;
        if (rc < 0 && k == 0 && !gc_name_ok(a.value))
            rc = (fprintf(stderr, "gpucensus history publish: --node: not a node name\n"), GC_EXIT_USAGE);
        else if (rc < 0 && k == GC_ARG_POS && db && dir)
            rc = gc_args_unexpected(&a, a.value);
        if (rc >= 0) {
            free(nodes);
            return rc;
        }
        if (k == 0)
            nodes[nn++] = a.value;
        else if (!db)
            db = a.value;
        else
            dir = a.value;
    }
    if (!db || !dir) {
        free(nodes);
        return gc_args_missing(&a, "DB and DIR");
    }
    gc_err e = { 0 };
    gc_history *h = NULL;
    char (*names)[64] = NULL;
    size_t n = 0;
    int rc = gc_mkdir_p(dir, &e);
    if (!rc)
        rc = gc_history_open(db, 0, GC_HISTORY_TIMEOUT_S, &h, &e);
    if (!rc && !nn)
        rc = gc_history_node_names(h, &names, &n, &e);
    int bad = 0;
    for (size_t i = 0; !rc && i < (nn ? nn : n); i++) {
        gc_err one = { 0 };
        if (publish_one(h, dir, nn ? nodes[i] : names[i], &one)) {
            fprintf(stderr, "gpucensus history publish: %s\n", one.msg);
            bad = 1;
        }
    }
    if (!rc && !nn && !n)
        rc = gc_fail(&e, GC_EINVAL, "%s: no node verdicts to publish", db);
    if (rc)
        fprintf(stderr, "gpucensus history publish: %s\n", e.msg);
    if (h)
        gc_history_close(h);
    free(names);
    free(nodes);
    return rc || bad ? 1 : 0;
}
