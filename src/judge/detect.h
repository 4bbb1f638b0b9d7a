/* Verdicts: which GPU, link or node is bad, and why.
 *
 * The detector is fed one GPU and one link at a time (from the catalogue
 * writer during a run, or from catread.c when `gpucensus check` reads a
 * catalogue back) and keeps only a compact record of each: identity,
 * link state, conditions, the values it judges (parameters, and each
 * point's median with its quantile summary). gc_detect_finish() then judges
 * every subject against
 *   - its peers of the same SKU and topology in this run: robust z-score
 *     (x - median) / (1.4826 MAD) in the bad direction, with a relative
 *     floor, for parameters and point medians;
 *   - the peers' distributions as a whole: the one-sided Wasserstein-1
 *     distance between the point's quantile function (p5..p95) and the
 *     peers' median quantile function, relative to the peers' median, so
 *     that a bimodal latency shows even when its median does not move;
 *   - a baseline (an earlier catalogue: the same GPU by UUID, else its SKU;
 *     or a per-SKU reference file): relative deviation in the bad direction;
 *   - physical limits: PCIe trained below its maximum width/generation,
 *     fewer active NVLinks than its peers or baseline, clocks held down with
 *     a slowdown reason, ECC errors, achieved/theoretical below a floor,
 *     failed or partial measurements.
 * A group of fewer than rules.min_peers GPUs is judged from the baseline
 * and the limits alone, and its verdicts say so.
 *
 * Both paths see the same numbers (the hook rounds to the 10 significant
 * digits the catalogue keeps), so `check` on a catalogue repeats the
 * verdicts the run wrote into it. */
#ifndef GC_DETECT_H
#define GC_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "census/results.h"
#include "judge/rules.h"

enum { GC_V_OK = 0, GC_V_SUSPECT = 1, GC_V_DEGRADED = 2, GC_V_FAILED = 3 };
const char *gc_verdict_name(int v);

#define GC_DET_NQ 5   /* quantiles kept per point: p1 p5 p50 p95 p99 */

/* One judged value of a GPU or link. */
typedef struct gc_det_value {
    const char *name;    /* parameter name or point key (copied by the detector) */
    const char *unit;
    int better;          /* GC_BETTER_HIGHER / _LOWER */
    double value;
    int has_q;           /* q holds the distribution (points) */
    double count;        /* samples behind q, 0: unknown */
    double q[GC_DET_NQ];
    int shared;          /* measured while another process used the GPU (gpu_shared) */
    int remeasure;       /* the run measured this point again before blaming (confirm.c) */
} gc_det_value;

typedef struct gc_det_cond {
    int valid;
    double sm_clock_mhz;
    long long throttle_reasons, ecc_corrected, ecc_uncorrected;
} gc_det_cond;

/* What a sustained load showed (derive.c's sustain parameters). */
typedef struct gc_det_sustain {
    double clock_ratio;          /* sustained SM clock / maximum, NAN unknown */
    double p5_ratio;             /* p5 / median of the SM clock, NAN unknown */
    double onset_s;              /* first fault slowdown, INFINITY none, NAN unknown */
    long long reasons;           /* slowdown reasons seen */
    double xid_events;           /* NAN unknown */
} gc_det_sustain;

/* A GPU's host copy (an xfer bandwidth point, judged as a link, not as
 * a value) at its largest size: its samples' p5, p50, p95, so that a
 * host link's deviation from a baseline is set against its own spread. */
typedef struct gc_det_xtop {
    char dir[8], mem[12], eng[8];
    double size, p5, p50, p95;
} gc_det_xtop;
enum { GC_DET_XTOP = 12 };
/* Keeps the point (direction, memory, engine, size, p5/p50/p95) in
 * xt[0..*n) where its size is the largest of its kind; a concurrent copy,
 * one without quantiles or past GC_DET_XTOP kinds is left out. */
void gc_det_xtop_add(gc_det_xtop *xt, int *n, const char *dir, const char *mem, const char *eng,
                     int concurrent, double size, double p5, double p50, double p95);

typedef struct gc_det_gpu {
    const char *node;
    int index, rank;
    const char *uuid, *name;
    const char *status;          /* "ok", "partial", "failed" */
    const char *status_reason;
    long long sm_count, l2_bytes, mem_bytes;
    double sm_clock_max_mhz;
    int numa_node;               /* -1 unknown */
    int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;   /* 0 unknown */
    const char *pcie_switch;     /* the PCIe switch above it; NULL or "": none or unknown */
    int nvlink_links;            /* -1 unknown */
    gc_det_cond start, end;
    int throttled_points;        /* points flagged throttled */
    int shared_points, points;   /* points flagged gpu_shared, of all points */
    double hbm_ratio;            /* hbm_achieved_ratio, NAN unknown */
    gc_det_sustain sustain;
    size_t nvalues;
    const gc_det_value *values;
    /* the method version of each benchmark it ran (registry.c); a
     * benchmark it recorded none for is dated by start_time (NULL: unknown,
     * compared with a baseline of any method) */
    int nmethods;
    const gc_method *methods;
    const char *start_time;
    int nxtop;
    gc_det_xtop xtop[GC_DET_XTOP];
} gc_det_gpu;

typedef struct gc_det_end {
    int is_gpu;
    const char *node;
    int gpu_index;               /* -1: host */
    const char *uuid;            /* may be NULL */
    int numa_node;               /* -1 unknown */
} gc_det_end;

typedef struct gc_det_link {
    size_t index;                /* position in the catalogue's links */
    const char *kind, *benchmark, *direction, *memory, *engine, *peer_access;
    int concurrent;
    gc_det_end src, dst;
    double beta_bps, alpha_s;    /* NAN: no model */
    double nominal_bps, lambda;  /* NAN: unknown */
    double top_bps;              /* median bandwidth at the largest size, NAN: none */
    double again_bps;            /* the same, measured again before blaming (confirm.c), NAN: not */
} gc_det_link;

/* A baseline: values per SKU, and per GPU UUID when it is a catalogue. */
typedef struct gc_baseline gc_baseline;
gc_baseline *gc_baseline_new(const char *source);
/* uuid NULL: a SKU reference value (several of the same key: the median is used),
 * valid for any plan. */
int gc_baseline_add(gc_baseline *b, const char *sku, const char *uuid, const char *key,
                    double value);
/* A value as plan measured it (NULL/"": any plan), with the range lo..hi
 * its sources saw (NAN: the median alone), measured with method version
 * `method` of the key's benchmark (gc_det_key_bench; 0: unknown, compared
 * with any). A baseline judges a value only against what the same plan
 * measured with the same method: a parameter such as hbm_bw_bps is the best
 * of the kernels a plan runs, and another plan runs others. */
int gc_baseline_add_method(gc_baseline *b, const char *sku, const char *uuid, const char *plan,
                           const char *key, int method, double median, double lo, double hi);
/* The registry index of the benchmark a judged value comes from (a point
 * key "bench.metric ...", a parameter through gc_bench_of_param, a link
 * "link:KIND BENCH ...:beta_bps"); -1: none known. */
int gc_det_key_bench(const char *key);
/* The method g measured benchmark bi (registry index) with: recorded, else
 * dated by g->start_time; 0 unknown. */
int gc_det_gpu_method(const gc_det_gpu *g, int bi);
void gc_baseline_free(gc_baseline *b);
const char *gc_baseline_source(const gc_baseline *b);
size_t gc_baseline_count(const gc_baseline *b);

/* The note's words on a subject that stays ok because its deviation from
 * the baseline lies within its own samples' spread (a host link read on a
 * noisy host): `check` lists such subjects as "ok (note)". */
#define GC_NOTE_NOISY "baseline within its own spread:"

/* What an ok verdict was noted for (gc_verdict.noted; check --json's
 * "noted": {"kind": ...}): none; its host link's bandwidth deviates from
 * the SKU's baseline within its samples' spread (noisy_host); a GPU whose host link got that note
 * (noisy_host_link). */
enum { GC_NOTED_NONE = 0, GC_NOTED_NOISY_HOST = 1, GC_NOTED_NOISY_HOST_LINK = 2 };
/* the words a GPU's note starts its noisy_host_link part with */
#define GC_NOTE_HOST_LINK "its host link"
const char *gc_noted_name(int kind);   /* "noisy_host", ...; NULL: none */
int gc_noted_of(const char *name);     /* the kind; -1: not one */

typedef struct gc_detect gc_detect;

/* rules and baseline (may be NULL) must outlive the detector. */
gc_detect *gc_detect_new(const gc_rules *rules, const gc_baseline *base);
void gc_detect_free(gc_detect *d);
/* The plan whose measurements are judged (the catalogue's run.plan_name):
 * the baseline's values of that plan judge them. */
void gc_detect_set_plan(gc_detect *d, const char *plan);
/* The next GPU added takes position pos among the GPUs (their verdicts'
 * order), for GPUs added out of order (rank 0 takes records as they
 * arrive); without it GPUs keep the order they were added in. */
void gc_detect_order_next(gc_detect *d, size_t pos);
int gc_detect_add_gpu(gc_detect *d, const gc_det_gpu *g, gc_err *err);
int gc_detect_add_link(gc_detect *d, const gc_det_link *l, gc_err *err);
/* The subject and node the last link added will have in its verdict (the
 * detector's strings: the same pointers its verdict holds); NULL: none. */
void gc_detect_last_link_names(const gc_detect *d, const char **subject, const char **node);
/* The record of an in-memory GPU (its parameters derived), values rounded
 * as the catalogue writes them. sums: each point's summary (as written), or
 * NULL to compute them here. */
/* Sustain fields all unknown; gc_det_sustain_param fills the one a
 * parameter named so gives (catalogue reader and census alike). */
void gc_det_sustain_init(gc_det_sustain *s);
void gc_det_sustain_param(gc_det_sustain *s, const char *name, double value);
int gc_detect_add_census_gpu(gc_detect *d, const gc_gpu *g, const gc_summary *sums,
                             const char *status_name, gc_err *err);
/* Judges everything added (once; later calls return the first's result). */
int gc_detect_finish(gc_detect *d, gc_err *err);
/* The judgement begun, for a caller with other work to do meanwhile: the
 * GPUs' peers go on on a thread of their own (if one starts) until
 * gc_detect_finish, which does the rest on the caller's thread. Nothing
 * may be added after. gc_detect_free without gc_detect_finish is fine. */
int gc_detect_finish_start(gc_detect *d, gc_err *err);
/* Whether judging may start threads (default yes): a process whose MPI
 * gives less than MPI_THREAD_FUNNELED must stay on one thread, and then
 * judges there, to the same verdicts. Process-wide; set before judging. */
void gc_detect_allow_threads(int allowed);
/* Its setting (1 unless told 0): whether the rest of rank 0 may run threads too. */
int gc_detect_threads_allowed(void);

/* The one-sided normal z whose tail, over n comparisons, is rate in all
 * (the run's false-positive rate, Bonferroni; rules fleet). */
double gc_det_z_for(double rate, double n);

/* Shared with catread.c so both paths name things alike. */
int gc_det_better_of_unit(const char *unit);   /* GC_BETTER_*, 0: not judged */
double gc_det_round(double v);   /* to the 10 significant digits the catalogue writes */
/* 1: a context key that holds what was observed (the measured clock, the
 * timer's cost, counters), not what was asked: left out of point keys, so
 * that a key names the kernel, footprint and size alone. */
int gc_det_ctx_observed(const char *key);
/* 1: a value the host or driver sets more than the GPU (launch and block
 * scheduling times, pageable copies, both-ways host copies): another host's
 * baseline does not judge it, and peers make it suspect, not degraded,
 * unless large (rules.host_set_*). key: a point key, parameter or link class. */
int gc_det_host_set(const char *key);
/* "bench.metric k=v ..." (numbers %.10g), the key of a point's values;
 * observed context left out (gc_det_ctx_observed) */
void gc_det_point_key(char *out, size_t cap, const char *bench, const char *metric,
                      const gc_ctx *ctx);
/* "kind benchmark direction memory [engine] [peer_access=..] [concurrent]" */
void gc_det_link_class(const gc_det_link *l, char *out, size_t cap);
/* A link verdict's subject ("CLASS: SRC -> DST") and node (its GPU end's):
 * the catalogue's writer folds a link verdict only where its reader, which
 * calls this too, rebuilds the same subject. */
void gc_det_link_subject(const gc_det_link *l, char *subject, size_t cap, const char **node);

/* ---- results (after finish) ---- */
enum { GC_SUBJ_GPU = 0, GC_SUBJ_LINK = 1, GC_SUBJ_NODE = 2 };

typedef struct gc_reason {
    char rule[24];        /* peers, distribution, baseline, limit_* , status */
    char metric[160];
    double value, reference, deviation;   /* NAN where not applicable */
    char deviation_unit[16];              /* robust_z, relative, wasserstein_rel, ratio, count */
    int severity;
    char detail[256];
    /* A point rule's reasons of one benchmark metric, grouped (one reason
     * per rule and "bench.metric": a GPU 20% slow everywhere has ~650 point
     * reasons on the default plan, ~25 groups): points moved (0 or 1: one
     * reason, not grouped); metric, value, reference, deviation, severity
     * and detail are the worst point's, dev_lo..dev_hi the points' range. */
    int points;
    double dev_lo, dev_hi;
    /* The rule applied again to the point's second measurement (confirm.c),
     * where the rule itself must do it (distribution: against the peers'
     * quantiles it fired on): 0 not done, 1 it fires again, 2 it does not;
     * again: the second measurement's value of the rule (its distance). */
    int again_held;
    double again;
} gc_reason;

/* subject, node, uuid, group and note: kept by the detector that made the
 * verdict (a census of 16,384 GPUs has ~500,000 verdicts: as fixed arrays
 * they took 912 of its ~1.1 KB; node and uuid inline, 112 of 208 bytes,
 * made the detector's passes over them miss in the L3 at 16,384 GPUs),
 * valid while it lives; never NULL ("": none). 88 bytes. */
typedef struct gc_verdict {
    int type;
    int gpu_index;        /* -1 */
    const char *subject;
    const char *node;     /* at most GC_NODE_MAX - 1 bytes */
    const char *uuid;     /* at most 47 bytes */
    long link_index;      /* -1 */
    int level;
    int peers;            /* size of the peer group (the subject included) */
    const char *group;    /* peer group */
    int used_peers;
    unsigned char used_baseline;
    unsigned char noted;  /* GC_NOTED_* */
    const char *note;
    size_t nreasons;
    gc_reason *reasons;
} gc_verdict;

/* One verdict as gc_detect_json writes it, on one line without whitespace
 * (catalogue.json's verdicts with reasons); free() it, NULL: out of memory. */
char *gc_verdict_json_compact(const gc_verdict *v);

/* Groups a GPU verdict's point reasons (peers, distribution, baseline of
 * a point key) per rule and benchmark metric, in place: one reason per
 * group, the worst point's (severity, then |deviation|), at the group's
 * first place, with points and the range of deviations; its detail says
 * how many moved. The verdict's level is unchanged. */
int gc_verdict_group_reasons(gc_verdict *v);

/* Reasons worst first: severity, then status and limits before members,
 * parameters, points and distributions, then the order found. */
int gc_reason_cmp(const gc_reason *a, const gc_reason *b);
const gc_reason *gc_verdict_worst_reason(const gc_verdict *v);   /* NULL: none */

/* A finding the baseline's source made itself about one GPU (the history's
 * drift, history_base.c): added as it is to the verdict of the GPU with
 * that UUID when the baseline judges it. */
int gc_baseline_add_reason(gc_baseline *b, const char *uuid, const gc_reason *r);

size_t gc_detect_count(const gc_detect *d);
const gc_verdict *gc_detect_verdict(const gc_detect *d, size_t i);
/* A verdict as a catalogue holds it (check and report on a compact
 * catalogue repeat the run's verdicts, catread_verdicts.c): copied in; the
 * detector then counts as finished (gc_detect_finish judges nothing). */
int gc_detect_add_verdict(gc_detect *d, const gc_verdict *v, gc_err *err);
/* Once finished: frees what judging needed (the GPUs' values, the links'
 * records); the verdicts stay (gc_detect_json, gc_detect_verdict). The
 * writer's peak is then the verdicts and their text, not both and the values. */
void gc_detect_release(gc_detect *d);
/* Worst level over all subjects. */
int gc_detect_worst(const gc_detect *d);
/* Whether v is of a GPU the run stopped on before it finished (its
 * "incomplete" reason): it could not be judged in full. */
int gc_verdict_incomplete(const gc_verdict *v);
/* How many GPU verdicts are incomplete. */
size_t gc_detect_incomplete(const gc_detect *d);
/* The "verdicts" array as JSON text (malloc'd), lines after the first
 * indented by indent spaces; NULL: out of memory. */
char *gc_detect_json(const gc_detect *d, int indent);

#endif
