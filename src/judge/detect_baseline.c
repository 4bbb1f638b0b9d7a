/* The baseline the detector compares with: values per SKU (or GPU), plan and
 * method, sealed into medians per key with the range the sources saw, and
 * the reference lookups the rules make. See detect.h; the records:
 * detect.c; the order of judging: detect_finish.c.
 *
 * Layer 0 of detect, a bottom file (detect_int.h): it calls no other file
 * of the module. */
#include "judge/detect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census/registry.h"
#include "judge/detect_int.h"
#include "util/stats.h"
#include "util/grow.h"

gc_baseline *gc_baseline_new(const char *source)
{
    gc_baseline *b = calloc(1, sizeof *b);
    if (b)
        snprintf(b->source, sizeof b->source, "%s", source ? source : "");
    return b;
}

const char *gc_baseline_source(const gc_baseline *b) { return b->source; }
size_t gc_baseline_count(const gc_baseline *b) { return b->n; }

int gc_baseline_add(gc_baseline *b, const char *sku, const char *uuid, const char *key,
                    double value)
{
    return gc_baseline_add_method(b, sku, uuid, NULL, key, 0, value, value, value);
}

int gc_det_key_bench(const char *key)
{
    char name[GC_KEY_MAX];
    const char *b = NULL;
    size_t n = 0;
    if (!strncmp(key, "link:", 5)) {   /* link:KIND BENCH DIR ...:beta_bps */
        const char *s = strchr(key + 5, ' ');
        b = s ? s + 1 : NULL;
        n = b ? strcspn(b, " :") : 0;
    } else if ((n = strcspn(key, ". ")) && key[n] == '.') {   /* bench.metric k=v ... */
        b = key;
    } else {
        b = gc_bench_of_param(key);
        n = b ? strlen(b) : 0;
    }
    if (!b || !n || n >= sizeof name)
        return -1;
    memcpy(name, b, n);
    name[n] = '\0';
    const gc_bench_def *d = gc_bench_find(name);
    return d ? (int)(d - gc_bench_defs) : -1;
}

int gc_det_gpu_method(const gc_det_gpu *g, int bi)
{
    if (bi < 0 || (size_t)bi >= gc_bench_ndefs)
        return 0;
    const char *name = gc_bench_defs[bi].name;
    int m = 0;
    for (int k = 0; k < g->nmethods && !m; k++)
        if (!strcmp(g->methods[k].bench, name))
            m = g->methods[k].version;
    if (!m && g->start_time)
        m = gc_bench_method_at(name, g->start_time);
    return m > 0 && m < 65536 ? m : 0;
}

int det_gpu_method(const grec *g, int bi)
{
    return bi >= 0 && bi < GC_DET_NBENCH ? g->method[bi] : 0;
}

#define METHOD_SCAN 64   /* method versions a baseline keeps apart (a bit each in mmask) */

int gc_baseline_add_method(gc_baseline *b, const char *sku, const char *uuid, const char *plan,
                           const char *key, int method, double median, double lo, double hi)
{
    if (!isfinite(median))
        return 0;
    if (method < 0 || method >= METHOD_SCAN)
        method = 0;
    char k[600];
    /* which methods this key has values of */
    snprintf(k, sizeof k, "%s\x1f%s\x1f%s\x1f%s", uuid ? "uuid" : "sku", uuid ? uuid : sku ? sku : "",
             plan ? plan : "", key);
    long mid = gc_strtab_id(&b->keys, k, 1);
    size_t had = b->capmask;
    if (mid < 0 || gc_grow((void **)&b->mmask, &b->capmask, (size_t)mid + 1, sizeof *b->mmask))
        return GC_ENOMEM;
    memset(b->mmask + had, 0, (b->capmask - had) * sizeof *b->mmask);
    b->mmask[mid] |= 1ull << method;
    snprintf(k, sizeof k, "%s\x1f%s\x1f%s\x1f%s\x1f%d", uuid ? "uuid" : "sku",
             uuid ? uuid : sku ? sku : "", plan ? plan : "", key, method);
    long id = gc_strtab_id(&b->keys, k, 1);
    if (id < 0)
        return GC_ENOMEM;
    if (gc_grow((void **)&b->e, &b->cap, b->n + 1, sizeof *b->e))
        return GC_ENOMEM;
    b->e[b->n++] = (bentry){ (uint32_t)id, median, isfinite(lo) ? fmin(lo, median) : median,
                             isfinite(hi) ? fmax(hi, median) : median };
    b->sorted = 0;
    /* which SKUs and GPUs it knows, and of which plans (ids without entries: no value) */
    snprintf(k, sizeof k, "has\x1f%s", uuid ? uuid : sku ? sku : "");
    if (gc_strtab_id(&b->keys, k, 1) < 0)
        return GC_ENOMEM;
    snprintf(k, sizeof k, "has\x1f%s\x1f%s", uuid ? uuid : sku ? sku : "", plan ? plan : "");
    return gc_strtab_id(&b->keys, k, 1) < 0 ? GC_ENOMEM : 0;
}

int gc_baseline_add_reason(gc_baseline *b, const char *uuid, const gc_reason *r)
{
    if (gc_grow((void **)&b->found, &b->capfound, b->nfound + 1, sizeof *b->found))
        return GC_ENOMEM;
    struct bfinding *f = &b->found[b->nfound++];
    snprintf(f->uuid, sizeof f->uuid, "%s", uuid);
    f->r = *r;
    return 0;
}

/* The baseline has values for this SKU or this GPU. */
int det_baseline_knows(gc_baseline *b, const char *sku, const char *uuid)
{
    char k[300];
    snprintf(k, sizeof k, "has\x1f%s", sku);
    if (gc_strtab_id(&b->keys, k, 0) >= 0)
        return 1;
    snprintf(k, sizeof k, "has\x1f%s", uuid && *uuid ? uuid : "\x1f");
    return gc_strtab_id(&b->keys, k, 0) >= 0;
}

int det_baseline_knows_plan(gc_baseline *b, const char *sku, const char *uuid, const char *plan)
{
    const char *who[2] = { uuid && *uuid ? uuid : "\x1f", sku };
    const char *plans[2] = { plan ? plan : "", "" };
    char k[400];
    for (int w = 0; w < 2; w++)
        for (int p = 0; p < 2; p++) {
            snprintf(k, sizeof k, "has\x1f%s\x1f%s", who[w], plans[p]);
            if (gc_strtab_id(&b->keys, k, 0) >= 0)
                return 1;
        }
    return 0;
}

void gc_baseline_free(gc_baseline *b)
{
    if (!b)
        return;
    gc_strtab_free(&b->keys);
    free(b->e);
    free(b->val);
    free(b->lo);
    free(b->hi);
    free(b->found);
    free(b->mmask);
    free(b);
}

static int by_key(const void *a, const void *b)
{
    uint32_t x = ((const bentry *)a)->key, y = ((const bentry *)b)->key;
    return (x > y) - (x < y);
}

/* Medians per key (a catalogue baseline has one value per GPU per key),
 * and the range of what the sources saw. */
int det_baseline_seal(gc_baseline *b)
{
    if (b->sorted)
        return 0;
    free(b->val), free(b->lo), free(b->hi);
    size_t nk = b->keys.n ? b->keys.n : 1;
    b->val = malloc(nk * sizeof *b->val);
    b->lo = malloc(nk * sizeof *b->lo);
    b->hi = malloc(nk * sizeof *b->hi);
    double *tmp = malloc((b->n ? b->n : 1) * sizeof *tmp);
    if (!b->val || !b->lo || !b->hi || !tmp) {
        free(tmp);
        return GC_ENOMEM;
    }
    for (size_t i = 0; i < b->keys.n; i++)
        b->val[i] = b->lo[i] = b->hi[i] = NAN;
    if (b->n)   /* an empty baseline (every row of a history out of range) has no array */
        qsort(b->e, b->n, sizeof *b->e, by_key);
    for (size_t i = 0; i < b->n;) {
        size_t j = i;
        double lo = INFINITY, hi = -INFINITY;
        while (j < b->n && b->e[j].key == b->e[i].key) {
            tmp[j - i] = b->e[j].value;
            if (b->e[j].lo < b->e[j].value)   /* a range the file gives */
                lo = fmin(lo, b->e[j].lo);
            if (b->e[j].hi > b->e[j].value)
                hi = fmax(hi, b->e[j].hi);
            j++;
        }
        /* several values (GPUs of a catalogue, runs of a history): their
         * robust band, median +- 2 x 1.4826 MAD, so that one bad run among
         * good ones does not widen what counts as healthy */
        double med = gc_median(tmp, j - i);
        for (size_t k = 0; k < j - i; k++)
            tmp[k] = fabs(tmp[k] - med);
        double band = 2 * 1.4826 * gc_median(tmp, j - i);
        b->val[b->e[i].key] = med;
        b->lo[b->e[i].key] = fmin(lo, med - band);
        b->hi[b->e[i].key] = fmax(hi, med + band);
        i = j;
    }
    free(tmp);
    b->sorted = 1;
    return 0;
}

static long ref_id(gc_baseline *b, int w, const char *sku, const char *uuid, const char *plan,
                   const char *key, int method)
{
    char k[600];
    snprintf(k, sizeof k, "%s\x1f%s\x1f%s\x1f%s\x1f%d", w ? "sku" : "uuid", w ? sku : uuid, plan, key,
             method);
    long id = gc_strtab_id(&b->keys, k, 0);
    return id >= 0 && (size_t)id < b->keys.n && isfinite(b->val[id]) ? id : -1;
}

static uint64_t methods_of(gc_baseline *b, int w, const char *sku, const char *uuid, const char *plan,
                           const char *key)
{
    char k[600];
    snprintf(k, sizeof k, "%s\x1f%s\x1f%s\x1f%s", w ? "sku" : "uuid", w ? sku : uuid, plan, key);
    long id = gc_strtab_id(&b->keys, k, 0);
    return id >= 0 && (size_t)id < b->capmask ? b->mmask[id] : 0;
}

/* reference value: the GPU's own (by UUID) first, then its SKU's; of the
 * same plan first, then a value the file gives for any plan; of the wanted
 * method, or of none recorded (0) */
double det_baseline_ref_method(gc_baseline *b, const char *sku, const char *uuid, const char *plan,
                               const char *key, int want, int *other, int *own, double *lo,
                               double *hi)
{
    const char *plans[2] = { plan ? plan : "", "" };
    *own = 0;
    if (other)
        *other = 0;
    for (int p = 0; p < 2; p++)
        for (int w = 0; w < 2; w++) {
            if (w == 0 && !(uuid && *uuid))
                continue;
            /* want > 0: that method, then a value of none recorded (0);
             * want 0 (the run's method unknown): any */
            uint64_t mask = methods_of(b, w, sku, uuid, plans[p], key);
            if (!mask)
                continue;
            uint64_t ok = want > 0 ? mask & ((1ull << want) | 1ull) : mask;
            if (!ok) {
                if (other && !*other)
                    *other = __builtin_ctzll(mask & ~1ull);   /* the lowest other method */
                continue;
            }
            int m = want > 0 && (ok >> want & 1) ? want : __builtin_ctzll(ok);
            long id = ref_id(b, w, sku, uuid, plans[p], key, m);
            if (id >= 0) {
                *own = !w;
                if (lo)
                    *lo = b->lo[id];
                if (hi)
                    *hi = b->hi[id];
                return b->val[id];
            }
        }
    return NAN;
}

double det_baseline_ref(gc_baseline *b, const char *sku, const char *uuid, const char *plan,
                        const char *key, int *own, double *lo, double *hi)
{
    return det_baseline_ref_method(b, sku, uuid, plan, key, 0, NULL, own, lo, hi);
}
