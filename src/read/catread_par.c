/* The GPUs of a catalogue parsed by threads: only check's catalogue walk
 * (catread_walk.c, above) comes here; each GPU is read with catread.c's
 * decoders and a schema-3 one expanded by catread_v3.c (both below). */
#include "read/catread_int.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- GPUs of a catalogue in parallel (check) ---------------------------
 *
 * Parsing is nearly all of check's time (jansson builds every GPU's tree),
 * so the GPUs of the catalogue are cut into their JSON texts by a quick
 * scan, parsed and read by threads a batch at a time, and given to the
 * detector in their order: the same records, errors and verdicts as one
 * at a time. Anything the scan does not follow is left to the sequential
 * reader, which reports it. */

#define PAR_MAX_THREADS 16

/* End (one past) of the object starting at b[i], or 0. */
static size_t object_end(const char *b, size_t len, size_t i)
{
    if (i >= len || b[i] != '{')
        return 0;
    int depth = 0;
    for (; i < len; i++) {
        char c = b[i];
        if (c == '"') {
            for (i++; i < len && b[i] != '"'; i++)
                if (b[i] == '\\')
                    i++;
            if (i >= len)
                return 0;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth == 0)
                return i + 1;
        }
    }
    return 0;
}

typedef struct pjob {
    size_t start, end, index;
    json_t *v;
    gc_det_gpu g;
    gbuf b;
    int rc;
    gc_err err;
    rd r;
} pjob;

typedef struct pbatch {
    pjob *jobs;
    size_t n, next;
    const gc_rules *rules;
    pthread_mutex_t mu;
} pbatch;

static void pjob_run(pjob *j, const gc_rules *rules)
{
    json_error_t je;
    j->v = json_loadb(j->r.buf + j->start, j->end - j->start, 0, &je);
    j->r.err = &j->err;
    if (!j->v) {
        j->r.pos = j->start + (je.position > 0 ? (size_t)je.position : 0);
        j->rc = gc_fail(&j->err, GC_ECORRUPT, "%s:%d: not valid JSON: %s", j->r.file,
                        cr_line_of(&j->r, j->r.pos), je.text);
        return;
    }
    j->r.pos = j->start;
    snprintf(j->r.where, sizeof j->r.where, "gpus[%zu]", j->index % 100000000u);
    j->rc = j->r.major == 3 ? cr3_gpu_expand(&j->r, j->v) : 0;
    if (!j->rc)
        j->rc = cr_gpu_of(&j->r, j->v, rules, 0, &j->g, &j->b);
}

static void *pworker(void *arg)
{
    pbatch *pb = arg;
    for (;;) {
        pthread_mutex_lock(&pb->mu);
        size_t i = pb->next++;
        pthread_mutex_unlock(&pb->mu);
        if (i >= pb->n)
            return NULL;
        pjob_run(&pb->jobs[i], pb->rules);
    }
}

static int par_threads(void)
{
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    return n < 1 ? 1 : n > PAR_MAX_THREADS ? PAR_MAX_THREADS : n;
}

/* The GPUs array from *p (after its '['), while the scan can follow it;
 * leaves *p at the first element it did not take (or past the ']'), *n
 * counting the elements taken, *closed set when the array ended. */
int cr_par_gpus(rd *r, size_t *p, sink *s, size_t *n, int *closed)
{
    int nt = par_threads();
    size_t batch = (size_t)nt * 8;
    pjob *jobs = calloc(batch, sizeof *jobs);
    if (!jobs)
        return gc_fail(r->err, GC_ENOMEM, "out of memory");
    int rc = 0;
    *closed = 0;
    json_object_seed(0);   /* before threads create objects */
    while (!rc && !*closed) {
        size_t k = 0, q = *p;
        while (k < batch) {
            q = cr_skip_ws(r, q);
            size_t e = object_end(r->buf, r->len, q);
            if (!e)
                break;
            jobs[k] = (pjob){ .start = q, .end = e, .index = *n + k, .r = *r };
            k++;
            q = cr_skip_ws(r, e);
            if (q < r->len && r->buf[q] == ',') {
                q++;
                continue;
            }
            if (q < r->len && r->buf[q] == ']')
                *closed = 1;
            break;
        }
        if (!k)
            break;
        pbatch pb = { .jobs = jobs, .n = k, .rules = s->rules };
        pthread_mutex_init(&pb.mu, NULL);
        pthread_t tid[PAR_MAX_THREADS];
        int started = 0;
        for (int t = 0; t < nt && (size_t)t < k; t++)
            started += pthread_create(&tid[started], NULL, pworker, &pb) == 0;
        for (int t = 0; t < started; t++)
            pthread_join(tid[t], NULL);
        pthread_mutex_destroy(&pb.mu);
        for (size_t i = 0; i < k; i++) {
            pjob *j = &jobs[i];
            if (!started)
                pjob_run(j, s->rules);
            if (!rc && j->rc) {
                rc = j->rc;
                *r->err = j->err;
            }
            if (!rc)
                rc = gc_detect_add_gpu(s->d, &j->g, r->err);
            if (!rc && s->info)
                s->info->gpus++;
            json_decref(j->v);
            free(j->b.v);
            free(j->b.keys);
        }
        if (!rc) {
            *n += k;
            *p = *closed ? cr_skip_ws(r, q) + 1 : q;
        }
    }
    free(jobs);
    return rc;
}
