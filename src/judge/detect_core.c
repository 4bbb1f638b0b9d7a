/* The helpers the files of detect share (see detect.h for the rules): a
 * key's first value in a GPU's record, its unit and how a value of it
 * reads, whether the host sets it; the ids of GPUs and nodes the judgement
 * keys; whether it may start threads.
 *
 * Layer 0 of detect, a bottom file (detect_int.h): it calls no other file
 * of the module, so the files above that share these never call each
 * other in a circle. */
#include "judge/detect.h"

#include <math.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "judge/detect_int.h"

/* ----------------------------------------------------------------------- */

size_t det_first_key_at(const val *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].key < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const char *det_unit_of(const gc_detect *d, uint32_t key)
{
    return key < d->nunit && d->unit[key] ? d->unit[key] : "";
}

void det_fmt_val(char *out, size_t cap, double v, const char *unit)
{
    if (unit && !strcmp(unit, "bytes_per_s"))
        snprintf(out, cap, "%.4g GB/s", v / 1e9);
    else
        snprintf(out, cap, "%.6g%s%s", v, unit && *unit ? " " : "", unit ? unit : "");
}

void gc_det_xtop_add(gc_det_xtop *xt, int *n, const char *dir, const char *mem, const char *eng,
                     int concurrent, double size, double p5, double p50, double p95)
{
    if (concurrent || !dir || !mem || !(p50 > 0) || !isfinite(p5) || !isfinite(p95) || !(size > 0))
        return;
    const char *e = eng && eng[0] ? eng : "ce";
    int i = 0;
    while (i < *n && (strcmp(xt[i].dir, dir) || strcmp(xt[i].mem, mem) || strcmp(xt[i].eng, e)))
        i++;
    if (i == *n) {
        if (*n >= GC_DET_XTOP)
            return;
        (*n)++;
        memset(&xt[i], 0, sizeof xt[i]);
        snprintf(xt[i].dir, sizeof xt[i].dir, "%s", dir);
        snprintf(xt[i].mem, sizeof xt[i].mem, "%s", mem);
        snprintf(xt[i].eng, sizeof xt[i].eng, "%s", e);
    } else if (!(size > xt[i].size)) {
        return;
    }
    xt[i].size = size, xt[i].p5 = p5, xt[i].p50 = p50, xt[i].p95 = p95;
}

int gc_det_host_set(const char *key)
{
    return !strncmp(key, "launch", 6) || strstr(key, "pageable") != NULL ||
           (!strncmp(key, "pcie xfer bidir", 15));
}

/* ----------------------------------------------------------------------- */

/* "node\x1fINDEX", as the GPUs' ids are keyed (two a link: no printf) */
void det_gpu_key(char *k, size_t cap, const char *node, int index)
{
    size_t n = strnlen(node ? node : "", cap - 14);
    memcpy(k, node ? node : "", n);
    k[n++] = '\x1f';
    char t[12], *p = t + sizeof t;
    unsigned u = index < 0 ? 0u - (unsigned)index : (unsigned)index;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (index < 0)
        *--p = '-';
    memcpy(k + n, p, (size_t)(t + sizeof t - p));
    k[n + (size_t)(t + sizeof t - p)] = '\0';
}

long det_gpu_of(strtab *ids, const gc_det_end *e)
{
    if (!e->is_gpu)
        return -1;
    char k[GC_NODE_MAX + 16];
    det_gpu_key(k, sizeof k, e->node, e->gpu_index);
    return gc_strtab_id(ids, k, 0);
}

int det_node_id(gc_detect *d, const char *node, uint32_t *id)
{
    *id = DET_NO_NODE;
    if (!node || !node[0])
        return 0;
    long k = gc_strtab_id(&d->nodes, node, 1);
    if (k < 0)
        return GC_ENOMEM;
    *id = (uint32_t)k;
    return 0;
}

/* ----------------------------------------------------------------------- */

static int threads_allowed = 1;

void gc_detect_allow_threads(int allowed)
{
    threads_allowed = allowed != 0;
}

int gc_detect_threads_allowed(void)
{
    return threads_allowed;
}

int det_threads_allowed(void)
{
    return threads_allowed;
}
