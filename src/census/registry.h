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
    int method;                    /* its method version (registry.c says when it changes) */
    const gc_param_def *params;
    size_t nparams;
} gc_bench_def;

extern const gc_bench_def gc_bench_defs[];
extern const size_t gc_bench_ndefs;

const gc_bench_def *gc_bench_find(const char *name);
const gc_param_def *gc_bench_param(const gc_bench_def *b, const char *name);

/* Method versions (registry.c): the version this build measures a
 * benchmark with (0: not a benchmark of this build). */
int gc_bench_method(const char *bench);
/* The version a run that recorded none used (shards, records and
 * catalogues written before versions were recorded): the newest change
 * dated at or before its start time (ISO 8601 UTC; "" or unparsable: 1).
 * A build older than a change but run after its date reads as the newer
 * method: dates are all such data has. */
int gc_bench_method_at(const char *bench, const char *start_time);
/* The benchmark a derived parameter (derive.c) comes from, so that it is
 * compared only with values of the same method; NULL: none known. */
const char *gc_bench_of_param(const char *param);

#endif
