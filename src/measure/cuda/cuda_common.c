/* Shared helpers of the cuda drivers: budgets, cached buffers, points. */
#include "measure/cuda/cuda.h"

#include "census/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gc_cuda_begin(gc_cuda *c, const gc_task *t)
{
    c->flags = 0;
    c->stop_s = 0;
    double now = gc_now_s();
    double b = t->item->spec ? t->item->spec->budget_s : 0;
    c->budget_s = b > 0 ? b : 0;
    if (b > 0)
        c->stop_s = now + b;
    if (t->deadline_s > 0 && (c->stop_s == 0 || t->deadline_s < c->stop_s))
        c->stop_s = t->deadline_s;
}

int gc_cuda_over(gc_cuda *c)
{
    if (c->stop_s > 0 && gc_now_s() > c->stop_s) {
        c->flags |= GC_FLAG_BUDGET_HIT;
        return 1;
    }
    return 0;
}

int gc_cuda_over_min(gc_cuda *c, uint32_t done, uint32_t min_samples)
{
    if (!gc_cuda_over(c))
        return 0;
    return done >= min_samples || c->budget_s <= 0 || gc_now_s() >= c->stop_s + c->budget_s;
}

void gc_cuda_unmeasured(gc_cuda *c, double t0)
{
    if (c->stop_s > 0)
        c->stop_s += gc_now_s() - t0;
}

int gc_cuda_big(gc_cuda *c, size_t bytes, gc_err *err)
{
    if (c->big && c->big_bytes >= bytes)
        return 0;
    char msg[256] = "";
    gck_free(c->big);
    c->big = NULL;
    c->big_bytes = 0;
    c->chain_valid = 0;
    bytes = (bytes + (64u << 20) - 1) & ~(size_t)((64u << 20) - 1);
    if (gck_malloc(&c->big, bytes, msg, sizeof msg))
        return gc_fail(err, GC_EDEVICE, "allocating %zu bytes on the GPU: %s", bytes, msg);
    c->big_bytes = bytes;
    if (gck_fill(c->big, bytes, msg, sizeof msg))
        return gc_fail(err, GC_EDEVICE, "%s", msg);
    return 0;
}

double *gc_cuda_host(gc_cuda *c, size_t n, gc_err *err)
{
    if (n > c->host_cap) {
        double *p = realloc(c->host, n * sizeof *p);
        if (!p) {
            gc_fail(err, GC_ENOMEM, "out of host memory");
            return NULL;
        }
        c->host = p;
        c->host_cap = n;
    }
    return c->host;
}

gc_point *gc_cuda_point(gc_cuda *c, const gc_task *t, gc_gpu *g, const char *metric, gc_err *err)
{
    const gc_item *it = t->item;
    gc_point *p = NULL;
    gc_metric_add_point(&p, g, it->id, it->spec->name, it->spec->label, &it->params, metric,
                        c->sub_bits, err);
    return p;
}

void gc_cuda_record(gc_point *p, double v)
{
    double x = v * p->scale;
    if (!(x > 0))   /* negative (noise after the timer cost) or NaN */
        x = 0;
    gc_hist_record(&p->hist, (uint64_t)llround(x));
}

double gc_cuda_num(const gc_task *t, const char *key)
{
    const gc_param_def *d = t->item->spec->def ? gc_bench_param(t->item->spec->def, key) : NULL;
    return gc_ctx_num(&t->item->params, key, d ? d->dflt_num : 0);
}

const char *gc_cuda_str(const gc_task *t, const char *key)
{
    const gc_param_def *d = t->item->spec->def ? gc_bench_param(t->item->spec->def, key) : NULL;
    return gc_ctx_str(&t->item->params, key, d && d->dflt_str ? d->dflt_str : "");
}

uint32_t gc_cuda_samples(const gc_task *t, uint32_t dflt)
{
    uint32_t s = t->item->spec->samples;
    return s ? s : dflt;
}

uint32_t gc_cuda_launches(const gc_task *t)
{
    uint32_t r = t->item->spec->repetitions;
    return r ? r : 1;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

double gc_cuda_median_u32(const uint32_t *v, size_t n)
{
    if (!n)
        return 0;
    uint32_t *t = malloc(n * sizeof *t);
    if (!t)
        return v[0];
    memcpy(t, v, n * sizeof *t);
    qsort(t, n, sizeof *t, cmp_u32);
    double m = n % 2 ? t[n / 2] : 0.5 * ((double)t[n / 2 - 1] + t[n / 2]);
    free(t);
    return m;
}

void gc_cuda_flag_points(gc_cuda *c, gc_gpu *g, size_t from)
{
    for (size_t i = from; i < g->npoints; i++)
        g->points[i].flags |= c->flags;
}

void gc_cuda_clock_seen(gc_cuda *c, double mhz, double *lo, double *hi)
{
    if (!(mhz > 0))
        return;
    if (*lo == 0 || mhz < *lo)
        *lo = mhz;
    if (mhz > *hi)
        *hi = mhz;
    if (*lo > 0 && (*hi - *lo) / *lo > 0.02)
        c->flags |= GC_FLAG_CLOCKS_MOVED;
}
