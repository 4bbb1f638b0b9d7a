/* The points a benchmark produces: one row per (benchmark, metric) with its
 * unit and the scale its histogram records (integers value_in_unit x
 * scale). Both backends add their points through this table, so a
 * metric's name, unit and scale are written once and every later stage
 * stays backend-blind (docs/metrics.md describes each row). */
#ifndef GC_METRICS_H
#define GC_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "census/results.h"
#include "util/err.h"

typedef struct gc_metric_def {
    const char *bench;             /* registry name (gc_bench_defs) */
    const char *metric, *unit;
    double scale;
} gc_metric_def;

extern const gc_metric_def gc_metric_defs[];
extern const size_t gc_metric_ndefs;

/* The row of (bench, metric); NULL: none. */
const gc_metric_def *gc_metric_find(const char *bench, const char *metric);

/* gc_gpu_add_point with the unit and scale of (bench, metric): *out is the
 * new point. bench is the registry name, label the plan's label of the
 * benchmark (the point's bench). GC_EINVAL: no such row (a backend's bug);
 * GC_ENOMEM. */
int gc_metric_add_point(gc_point **out, gc_gpu *g, uint32_t item_id, const char *bench,
                        const char *label, const gc_ctx *ctx, const char *metric,
                        uint32_t sub_bits, gc_err *err);

#endif
