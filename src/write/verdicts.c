/* See verdicts.h. */
#include "write/verdicts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/catalogue.h"
#include "judge/detect.h"
#include "judge/rules.h"

struct gc_verdicts {
    gc_rules rules;
    gc_detect *d;
    int failed;
    gc_err err;
};

gc_verdicts *gc_verdicts_new(void)
{
    gc_verdicts *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    gc_rules_default(&v->rules);
    if (!(v->d = gc_detect_new(&v->rules, NULL))) {
        free(v);
        return NULL;
    }
    return v;
}

void gc_verdicts_free(gc_verdicts *v)
{
    if (v) {
        gc_detect_free(v->d);
        free(v);
    }
}

void gc_verdicts_gpu(gc_verdicts *v, const gc_gpu *g, const gc_summary *sums)
{
    if (v && !v->failed &&
        gc_detect_add_census_gpu(v->d, g, sums, gc_gpu_status_name(g->status), &v->err))
        v->failed = 1;
}

void gc_verdicts_gpu_at(gc_verdicts *v, const gc_gpu *g, const gc_summary *sums, size_t pos)
{
    if (v && !v->failed) {
        gc_detect_order_next(v->d, pos);
        gc_verdicts_gpu(v, g, sums);
    }
}

static void end_of(const gc_link_view_end *e, gc_det_end *o)
{
    o->is_gpu = e->is_gpu;
    o->node = e->node;
    o->gpu_index = e->gpu_index;
    o->uuid = e->uuid;
    o->numa_node = e->numa_node;
}

/* A link as the catalogue writes it (numbers rounded as written), to the
 * detector, as check's reader gives it from the file. */
void gc_verdicts_link(gc_verdicts *v, const gc_link_view *x)
{
    if (!v || v->failed)
        return;
    gc_det_link l = {
        .index = x->index, .kind = x->kind, .benchmark = x->benchmark, .direction = x->direction,
        .memory = x->memory, .engine = x->engine, .peer_access = x->peer_access,
        .concurrent = x->concurrent, .beta_bps = gc_det_round(x->beta_bps),
        .alpha_s = gc_det_round(x->alpha_s), .nominal_bps = gc_det_round(x->nominal_bps),
        .lambda = gc_det_round(x->lambda), .top_bps = gc_det_round(x->top_bps),
        .again_bps = gc_det_round(x->again_bps),
    };
    end_of(&x->src, &l.src);
    end_of(&x->dst, &l.dst);
    if (gc_detect_add_link(v->d, &l, &v->err))
        v->failed = 1;
}

void gc_verdicts_last_link(const gc_verdicts *v, const char **subject, const char **node)
{
    *subject = *node = NULL;
    if (v && !v->failed)
        gc_detect_last_link_names(v->d, subject, node);
}

void gc_verdicts_judge_start(gc_verdicts *v)
{
    if (v && !v->failed && gc_detect_finish_start(v->d, &v->err))
        v->failed = 1;   /* said when the verdicts are asked for (gc_verdicts_judge) */
}

const gc_detect *gc_verdicts_judge(gc_verdicts *v)
{
    int rc = v && !v->failed ? gc_detect_finish(v->d, &v->err) : 0;
    if (v && !v->failed && !rc) {
        gc_detect_release(v->d);   /* judged: only the verdicts are read from here */
        return v->d;
    }
    if (v)
        fprintf(stderr, "gpucensus: verdicts left out of the catalogue: %s\n",
                v->err.msg[0] ? v->err.msg : "out of memory");
    return NULL;
}

char *gc_verdicts_finish(gc_verdicts *v, int depth)
{
    char *out = NULL;
    if (v && !v->failed && !gc_detect_finish(v->d, &v->err) &&
        (gc_detect_release(v->d), !(out = gc_detect_json(v->d, depth))))
        gc_fail(&v->err, GC_ENOMEM, "out of memory");
    if (v && !out)
        fprintf(stderr, "gpucensus: verdicts left out of the catalogue: %s\n",
                v->err.msg[0] ? v->err.msg : "out of memory");
    gc_verdicts_free(v);
    return out ? out : strdup("[]");
}
