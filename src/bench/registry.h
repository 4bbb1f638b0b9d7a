/* The benchmarks gpucensus knows: names, sweep parameters with their ranges,
 * default phase. The plan validator checks plans against this table and
 * both backends dispatch on the benchmark name. */
#ifndef GC_REGISTRY_H
#define GC_REGISTRY_H

#include <stddef.h>

/* When a work item may run relative to the other GPUs of its node. */
typedef enum gc_phase {
    GC_PHASE_GPU = 0,        /* on-device only: all GPUs of a node at once */
    GC_PHASE_ISOLATED = 1,   /* one GPU of a node at a time (host links) */
    GC_PHASE_CONCURRENT = 2, /* all GPUs of a node at once, on purpose */
    GC_PHASE_PAIR = 3,       /* two GPUs of a node, one pair at a time */
    GC_PHASE_NET = 4,        /* pairs of ranks on different nodes */
    GC_NPHASES = 5
} gc_phase;

const char *gc_phase_name(gc_phase p);
int gc_phase_parse(const char *s, gc_phase *out);

typedef struct gc_param_def {
    const char *name;
    int is_str;
    int is_int;                    /* numeric and whole numbers only (plans round ranges) */
    double min, max;               /* numeric range, inclusive */
    const char *const *choices;    /* string choices, NULL-terminated */
    double dflt_num;               /* used when a plan gives no sweep */
    const char *dflt_str;
} gc_param_def;

typedef struct gc_bench_def {
    const char *name;
    const char *summary;
    gc_phase phase;                /* default; plans may override */
    const gc_param_def *params;
    size_t nparams;
} gc_bench_def;

extern const gc_bench_def gc_bench_defs[];
extern const size_t gc_bench_ndefs;

const gc_bench_def *gc_bench_find(const char *name);
const gc_param_def *gc_bench_param(const gc_bench_def *b, const char *name);

#endif
