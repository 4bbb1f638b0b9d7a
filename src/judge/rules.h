/* Detection rules: the thresholds detect.c judges with, from a libconfig
 * file (configs/rules.cfg documents every setting and its default). A
 * missing setting keeps its default; an unknown one, a wrong type or a
 * value out of range is an error "FILE:LINE: KEY: what is wrong". */
#ifndef GC_RULES_H
#define GC_RULES_H

#include <stddef.h>

#include "util/err.h"

#define GC_RULES_MAX_PARAMS 64
#define GC_RULES_MAX_SKIP 16

enum { GC_BETTER_HIGHER = 1, GC_BETTER_LOWER = -1 };

typedef struct gc_rule_param {
    char name[48];      /* a GPU parameter (derive.c), e.g. hbm_bw_bps */
    int better;         /* GC_BETTER_HIGHER or GC_BETTER_LOWER */
} gc_rule_param;

typedef struct gc_rules {
    char file[256];
    /* peers: same SKU and topology in this run, median and MAD */
    int min_peers;                 /* group size below which peers are not used */
    double z_suspect, z_degraded;  /* robust z = (x - median) / (1.4826 MAD) */
    double rel_suspect, rel_degraded;   /* and |x - median| / median at least */
    double sigma_floor_rel;        /* 1.4826 MAD is at least this x |median| */
    /* links with a host end: judged by host (their node), not link by link */
    double host_sigma_floor_rel;   /* the hosts' spread is at least this x |median| */
    double z_host;                 /* z threshold over the hosts' sigma (raised by the run's hosts) */
    int judge_points;              /* every point's median, not only parameters */
    size_t nskip;                  /* benchmarks whose points are judged as links */
    char skip_bench[GC_RULES_MAX_SKIP][32];
    size_t nparams;
    gc_rule_param params[GC_RULES_MAX_PARAMS];
    /* distribution: one-sided Wasserstein-1 between quantile functions */
    int dist_enabled;
    double dist_rel_suspect, dist_rel_degraded, dist_z, dist_sigma_floor;
    double dist_min_samples_rel;   /* points with fewer samples than this x the peers' median: not judged */
    double dist_min_samples;       /* nor points with fewer samples than this (p95 of a few samples) */
    /* baseline: relative deviation in the bad direction */
    double base_rel_suspect, base_rel_degraded;
    /* physical limits */
    double hbm_ratio_floor;        /* hbm_achieved_ratio below: degraded */
    double clock_floor;            /* sm clock / max below, with a slowdown reason: degraded */
    long long throttle_bad_mask;   /* NVML clocks-event reasons that count */
    long long ecc_corrected_suspect;  /* corrected errors above: suspect */
    double pcie_lambda_floor, nvlink_lambda_floor;  /* link beta / nominal below: suspect */
    /* history (check --baseline DB): each GPU against its own past */
    int hist_runs;                 /* its last N good runs of the same plan */
    int hist_drift_min_runs;       /* a slope needs this many runs (the current one included) */
    double hist_drift_min_days;    /* spread over at least this many days */
    double hist_drift_rel_per_month;  /* Theil-Sen slope / median in the bad direction: suspect */
    double hist_drift_z;           /* and slope x span >= z x the residuals' robust sigma */
    double sustain_p5_floor;       /* SM clock p5 / median under sustained load below: suspect */
    /* fleet: what a whole run's comparisons may cost (detect_temper.c) */
    double fleet_fp_rate;          /* healthy fleets with a false suspect/degraded, per run */
    double host_set_rel_degraded;  /* a host-set value degrades only confirmed and this far off */
} gc_rules;

void gc_rules_default(gc_rules *r);
/* Defaults, then the file's settings. GC_EIO: unreadable; GC_EINVAL: bad. */
int gc_rules_load(const char *path, gc_rules *r, gc_err *err);
int gc_rules_load_mem(const char *name, const char *text, size_t len, gc_rules *r, gc_err *err);
/* GC_BETTER_* of a parameter named in the rules, 0: not judged. */
int gc_rules_param(const gc_rules *r, const char *name);
int gc_rules_skips(const gc_rules *r, const char *bench);

#endif
