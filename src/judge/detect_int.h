/* Private to the detect module (detect*.c): the records, the string table
 * and the baseline they share, and the functions one file calls in another.
 * Not part of the public API (detect.h).
 *
 * The files are layers; each calls only files of the layers below it, so
 * none calls another in a circle (the helpers they share live in the
 * lowest), bottom up:
 *   0  detect_core.c      keys, the ids of GPUs and nodes, threads
 *      detect_verdict.c   the detector's strings, verdicts, reasons, JSON
 *      detect_baseline.c  the baseline: sealed medians and references
 *   1  detect_topo.c      the common end above the GPUs (NUMA node, switch)
 *      detect_temper.c    what a verdict may claim; the run's z
 *      detect_peers.c     a GPU's peers and distributions
 *   2  detect_rules.c     a GPU's baseline and limits; the nodes
 *      detect_links.c     the links: their names and rules
 *   3  detect.c           the records: made, added, released, freed
 *   4  detect_finish.c    the order of judging
 * The declarations below go by layer, bottom up. */
#ifndef GC_DETECT_INT_H
#define GC_DETECT_INT_H

#include "judge/detect.h"
#include "util/grow.h"
#include "util/strtab.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* ---- string interning (strtab.c) -------------------------------------- */

typedef gc_strtab strtab;

/* ---- layer 0: the baseline (detect_baseline.c) ------------------------ */

typedef struct bentry {
    uint32_t key;      /* strtab id of "sku\x1fNAME\x1fPLAN\x1fkey" or "uuid\x1fUUID\x1fPLAN\x1fkey" */
    double value, lo, hi;   /* lo..hi: the healthy range the source saw (lo = hi = value: one value) */
} bentry;

struct gc_baseline {
    char source[256];
    strtab keys;
    size_t n, cap;
    bentry *e;
    int sorted;
    double *val;       /* per key id: median, after gc_baseline_seal */
    double *lo, *hi;   /* per key id: the range of the source values */
    uint64_t *mmask;   /* per key id of "WHO\x1fPLAN\x1fkey" (no method): bit m, a value of method m */
    size_t capmask;
    struct bfinding { char uuid[48]; gc_reason r; } *found;   /* gc_baseline_add_reason */
    size_t nfound, capfound;
};

/* Medians per key and their sources' range, once before judging (detect_baseline.c). */
int det_baseline_seal(gc_baseline *b);
int det_baseline_knows(gc_baseline *b, const char *sku, const char *uuid);
/* The baseline has values of this plan (or plan-independent ones) for this SKU or GPU. */
int det_baseline_knows_plan(gc_baseline *b, const char *sku, const char *uuid, const char *plan);
/* Reference of key as the same plan measured it (the GPU's own by UUID,
 * then its SKU's; then a plan-independent value): the median, NAN none;
 * lo/hi (may be NULL) the range its source saw; own: 1 from this GPU. */
double det_baseline_ref(gc_baseline *b, const char *sku, const char *uuid, const char *plan,
                        const char *key, int *own, double *lo, double *hi);
/* The same, of method `want` (0: any) only; *other (may be NULL): the
 * method of a value left out for being of another one (0: none). */
double det_baseline_ref_method(gc_baseline *b, const char *sku, const char *uuid, const char *plan,
                               const char *key, int want, int *other, int *own, double *lo,
                               double *hi);
struct grec;
/* The method of benchmark bi (gc_det_key_bench) g was measured with, 0 unknown. */
int det_gpu_method(const struct grec *g, int bi);

/* ---- records ---------------------------------------------------------- */

#define GC_DET_NBENCH 24   /* >= gc_bench_ndefs (registry.c) */

/* One judged value, 36 bytes: a census of 16,384 GPUs judges ~27 million
 * of them (1650 per GPU on the default plan), so they are kept as floats
 * (rounded first as the catalogue writes them, so that `check` reading the
 * catalogue stores the same floats and repeats the run's verdicts). */
typedef struct val {
    uint32_t key;
    int8_t better, has_q, shared;
    float v, count;
    float q[GC_DET_NQ];
} val;

typedef struct grec {
    char node[GC_NODE_MAX], uuid[48], name[96], status[16], reason[160];
    int index, rank;
    long long sm_count, l2_bytes, mem_bytes;
    double sm_clock_max_mhz, hbm_ratio;
    int numa_node, pcie_gen, pcie_width, pcie_max_gen, pcie_max_width, nvlink_links;
    char pcie_switch[24];   /* "": none or unknown */
    uint16_t method[GC_DET_NBENCH];   /* by registry index: its method version, 0 unknown */
    gc_det_cond start, end;
    int throttled_points, shared_points, points;
    gc_det_xtop xt[GC_DET_XTOP];   /* its host copies at their largest size */
    int nxt;
    gc_det_sustain sustain;
    size_t nv, nrv;
    val *v;
    int keys_rising;   /* v's keys strictly increasing (as added): the peers read it by chunks */
    val *rv;           /* re-measurements (confirm.c), by the same keys */
    uint32_t group;
    size_t order;      /* 1 + position given by gc_detect_order_next, 0: as added */
} grec;

/* l's strings are the detector's (vstr), never NULL: 192 bytes a link,
 * 491,520 links at 16,384 GPUs */
typedef struct lrec {
    gc_det_link l;
    const char *cls;       /* its class as verdicts name it (gc_det_link_class), interned */
    const char *subject;   /* its verdict's subject, the detector's own: made as it is added */
} lrec;

/* Per link, what the passes after judging read: 12 bytes, not the link's
 * 192-byte record and 88-byte verdict (at 16,384 GPUs 94 and 43 MB,
 * which the last-level cache does not hold from one pass to the next:
 * each pass over them misses on every line). Made by det_judge_links. */
typedef struct det_lside {
    uint32_t src_node, dst_node;   /* id in gc_detect.nodes, DET_NO_NODE: none */
    int8_t fam;                    /* det_link_family */
    int8_t host_dir;               /* det_link_host_dir */
    uint8_t network;               /* kind "network" */
    uint8_t level;                 /* its verdict's level, once judged and tempered */
} det_lside;
#define DET_NO_NODE UINT32_MAX

/* The peers of every group of GPUs (order: the GPUs by group), run by
 * peers_main (detect_finish.c) on a thread of their own. */
typedef struct peers_job {
    struct gc_detect *d;
    const uint32_t *order;
    int rc;
} peers_job;

/* gc_detect_finish_start's state for gc_detect_finish. */
enum { FIN_NONE, FIN_STARTED, FIN_DONE };
typedef struct det_fin {
    int state;         /* FIN_* */
    int rc;            /* the start's (err made), then the judgement's */
    strtab ids;        /* GPU key "node\x1fINDEX" -> position */
    uint32_t *order;   /* the GPUs by group */
    long *lsrc, *ldst; /* per link its ends' GPU positions, -1: host */
    peers_job pj;
    pthread_t peers;
    int threaded;      /* pj runs on peers (else on the caller's thread, in gc_detect_finish) */
} det_fin;

struct gc_detect {
    const gc_rules *r;
    gc_baseline *base;
    strtab keys, groups;
    char **unit;       /* per key id */
    uint32_t *seen;    /* per key id: 1 + the last GPU that had it */
    size_t nunit;
    size_t ng, capg, nl, capl;
    grec *g;
    gc_blocks vals;    /* the GPUs' values (grec.v): 16 MiB blocks on huge pages */
    lrec *l;
    size_t nv, capv;
    gc_verdict *v;
    int finished;      /* judged, or being judged: nothing more is added */
    det_fin fin;
    size_t next_order; /* gc_detect_order_next: 1 + the next GPU's position */
    int ordered;       /* some GPU came with a position */
    char plan[64];     /* the plan that measured what is judged ("": unknown) */
    double z_fleet;    /* the z that a per-run false-positive rate allows over all comparisons */
    strtab vstr;       /* the verdicts' subjects, groups and notes; the links' strings */
    const char *link_last[10];   /* gc_detect_add_link: each field's last string (interned) */
    gc_blocks strs;    /* det_vstr_own's strings: 1 MiB blocks */
    /* A point's key by what it depends on (bench, metric, the context it
     * names), so a census formats each plan point's key once, not once per
     * GPU: sig id -> the key's id in vstr. */
    strtab sigs;
    uint32_t *sig_key;
    size_t nsig_key;
    /* while gc_detect_finish runs: the nodes (ids in order of first
     * appearance: the GPUs', then the links' ends), each GPU's node and
     * each link's side */
    strtab nodes;
    uint32_t *gnode;
    det_lside *ls;
    /* per node id (nnet_slow of them): the slow side of its network links
     * (gc_net_slow_ends, det_judge_links), never good with another node */
    uint8_t *net_slow;
    size_t nnet_slow;
};

#define CPY(dst, src) snprintf(dst, sizeof dst, "%s", (src) ? (src) : "")

/* ---- layer 0: keys, ids, threads (detect_core.c) ---------------------- */

/* The first of v[0..n) (keys rising) whose key is k or more (n: none). */
size_t det_first_key_at(const val *v, size_t n, size_t k);
/* A key's unit ("": none) */
const char *det_unit_of(const gc_detect *d, uint32_t key);
/* "%.4g GB/s" of bytes_per_s, else "%.6g UNIT" */
void det_fmt_val(char *out, size_t cap, double v, const char *unit);
/* "node\x1fINDEX" (cap >= 14), the key of a GPU's id in det_fin.ids */
void det_gpu_key(char *k, size_t cap, const char *node, int index);
/* The grec index of a link's GPU end, -1: none. */
long det_gpu_of(strtab *ids, const gc_det_end *e);
/* A node's id in d->nodes, added at first sight (DET_NO_NODE: none). */
int det_node_id(gc_detect *d, const char *node, uint32_t *id);
/* gc_detect_allow_threads's setting. */
int det_threads_allowed(void);

/* ---- layer 0: verdict building (detect_verdict.c) --------------------- */

gc_verdict *det_new_verdict(gc_detect *d, int type);
/* s kept by the detector (interned), cut to cap - 1 bytes as the fixed
 * arrays of the verdicts once were; NULL: out of memory. */
const char *det_vstr(gc_detect *d, const char *s, size_t cap);
/* s copied (not interned: a link's subject is its own, one of 491,520 at
 * 16,384 GPUs, and hashing them bought nothing), kept while the detector
 * lives; NULL: out of memory. */
const char *det_vstr_own(gc_detect *d, const char *s);
/* A note's bytes with its NUL: room for a "not compared" clause per benchmark
 * of another method (~70 bytes each) beside the counts. */
#define GC_NOTE_CAP 1600
/* Sets a verdict's subject (cut at 255 bytes), group (255) or note (GC_NOTE_CAP - 1). */
int det_set_subject(gc_detect *d, gc_verdict *v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int det_set_group(gc_detect *d, gc_verdict *v, const char *s);
int det_set_note(gc_detect *d, gc_verdict *v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Appends to the note, "; " between. */
int det_add_note(gc_detect *d, gc_verdict *v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* from's reasons appended to to's, in their order, to's level raised to
 * from's; from left without reasons. */
int det_move_reasons(gc_verdict *to, gc_verdict *from);
/* A GPU the run stopped on before it finished: none of its reasons is
 * worse than suspect (it was not measured as the plan asks; the verdict
 * says "incomplete", gc_verdict_incomplete). */
void det_temper_incomplete(gc_verdict *v);
int det_add_reason(gc_verdict *v, const char *rule, const char *metric, double value,
                   double ref, double dev, const char *dev_unit, int sev, const char *fmt, ...)
    __attribute__((format(printf, 9, 10)));

/* ---- layer 1: the common end above the GPUs (detect_topo.c) ----------- */

/* A host NUMA node or PCIe switch of a node whose every GPU's host copies
 * are slow, or the host itself when most of its GPUs' are. */
typedef struct det_hostgroup {
    char node[GC_NODE_MAX];
    int is_switch;
    int is_host;           /* 0, or the host itself: its node's GPUs with host links (most of
                            * them, gpus, all slow); ratio against the fleet's median */
    int numa;              /* the NUMA node (a switch's, -1 unknown) */
    char sw[24];           /* the switch's bus id */
    int gpus, severity;
    double ratio;          /* the group's fastest host copies over the others' median */
} det_hostgroup;
typedef struct det_hostgroups {
    det_hostgroup *v;
    size_t n, cap;
    unsigned char *covered;   /* per GPU: in a named group */
} det_hostgroups;
int det_host_groups(gc_detect *d, const long *lsrc, const long *ldst, det_hostgroups *hg);
/* The direction (0 h2d, 1 d2h) of a one-way pinned copy-engine host copy
 * that det_host_groups compares; -1: not one. */
int det_link_host_dir(const gc_det_link *l);
/* The group's reason on its node's verdict. */
int det_host_group_reason(const det_hostgroup *g, gc_verdict *v);
void det_host_groups_free(det_hostgroups *hg);

/* ---- layer 1: tempering (detect_temper.c) ----------------------------- */

/* After a GPU's rules: what was measured while the GPU was shared becomes
 * "inconclusive: GPU shared" (suspect at most), a value the host sets
 * suspect at most unless confirmed and large; the level follows. */
int det_temper_gpu(gc_detect *d, const grec *g, gc_verdict *v);
/* A GPU whose every link of a kind is slow: the GPU is named the common end. */
/* covered: per GPU, 1 when a named host group (det_host_groups) holds it:
 * its host links' common end is the group, not the GPU. May be NULL. */
int det_common_end(gc_detect *d, const long *lsrc, const long *ldst, const unsigned char *covered);
/* A link's family for the common end: P2P, host copies (one way or both,
 * pinned), or -1 (neither). */
enum { DET_FAM_P2P, DET_FAM_HOST, DET_FAM_N };
int det_link_family(const gc_det_link *l);
/* A link's degraded bandwidth findings against its second measurement
 * (det_judge_links calls it once the link's peers are judged). */
int det_temper_link(gc_detect *d, const lrec *l, gc_verdict *v);

/* ---- layer 1: a GPU's peers (detect_peers.c) -------------------------- */

int det_judge_gpu_peers(gc_detect *d, const uint32_t *members, size_t nm, gc_verdict *verd);

/* ---- layer 2: a GPU's other rules, the nodes (detect_rules.c) --------- */

int det_judge_baseline(gc_detect *d, const grec *g, gc_verdict *v);
int det_judge_limits(gc_detect *d, const grec *g, int group_links, gc_verdict *v);
int det_judge_nodes(gc_detect *d, const det_hostgroups *hg);

/* ---- layer 2: the links (detect_links.c) ------------------------------ */

/* l's class and subject, made once as the link is added (while records
 * still arrive, not after the last). */
int det_link_names(gc_detect *d, lrec *l);
/* Makes the links' verdicts (after the GPUs') and judges them; fills d->ls
 * and, per link, the grec index of its ends (lsrc, ldst: -1 none; ids: the
 * GPUs' "node\x1fINDEX" keys). */
int det_judge_links(gc_detect *d, strtab *ids, long *lsrc, long *ldst);
/* A GPU ok whose host link is ok with a noisy_host note: noted
 * noisy_host_link, its note names the link (after the links are judged). */
int det_note_noisy_links(gc_detect *d, const long *lsrc, const long *ldst);

/* ---- layer 3: the records (detect.c) ---------------------------------- */

/* Frees what the judgement keeps between its start and its end. */
void det_fin_free(struct gc_detect *d);

#endif
