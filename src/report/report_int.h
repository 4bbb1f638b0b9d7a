/* What the report reads of a catalogue (report_data.c), shared by the
 * terminal table (report.c) and the HTML page (report_html.c). Compact:
 * a few numbers per GPU and the per-size medians of each link, so a
 * census of thousands of GPUs fits in a few MB. Private to src/report/.
 *
 * Its files in layers, each calling only those below it: report_data.c
 * (the model) at the bottom; report_nodes.c (the node files) and the
 * page's plots (report_lat.c, report_xfer.c, report_gx.c, report_hist.c)
 * above it; report_html.c (the page) above those; report.c on top. */
#ifndef GC_REPORT_INT_H
#define GC_REPORT_INT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "judge/detect.h"
#include "util/err.h"
#include "census/hist.h"
#include "census/results.h"

typedef struct rp_pt {
    double x, p5, p50, p95;
} rp_pt;

/* One GPU's latency histograms (or all GPUs' merged) at the L1, L2 and
 * DRAM footprints. */
typedef struct rp_hist3 {
    gc_hist h[3];
    int have[3];
    double scale[3];
    double fp[3];
} rp_hist3;

typedef struct rp_gpu {
    char node[GC_NODE_MAX];
    int index;
    char name[96], uuid[64], status[12], status_reason[160];
    /* parameters; NAN: not measured */
    double l1, l2, dram, hbm_bps, hbm_theo, hbm_ratio, l2_bw, launch_ns;
    rp_pt *chase;                 /* random-order chase latency (cycles) by footprint */
    size_t nchase;
    /* from links (pinned copy-engine where there is one); NAN: none */
    double h2d_bps, h2d_alpha, d2h_bps, d2h_alpha, p2p_bps;
    int verdict;                  /* GC_V_*, -1: no verdict */
    const gc_verdict *v;          /* may be NULL */
    size_t node_ix;               /* its node in rp_cat's node arrays */
    rp_hist3 *h3;                 /* from its node file; NULL: not read */
} rp_gpu;

typedef struct rp_seg {
    double alpha, beta, lo, hi;
} rp_seg;

typedef struct rp_link {
    char kind[16], bench[16], dir[12], mem[12], engine[8], peer[8];
    int concurrent;
    char cls[96];                 /* "kind bench dir mem engine [peer] [concurrent]" */
    char node[GC_NODE_MAX];       /* the node it was measured on */
    int src_gpu, dst_gpu;         /* -1: host (or another node) */
    char src_node[GC_NODE_MAX], dst_node[GC_NODE_MAX];
    double alpha, beta, nominal, lambda;   /* NAN: none */
    rp_seg seg[8];
    int nseg;
    rp_pt *sz;                    /* x: size_bytes, p5/p50/p95: time_s */
    size_t nsz;
    int verdict;
    size_t node_ix;               /* measured_on's node in rp_cat's node arrays */
} rp_link;

typedef struct rp_cat {
    char path[4200], dir[4200];
    char tool_version[32], plan_name[64], backend[16], start_time[32], end_time[32], commit[32];
    char run_start_raw[64], plan_sha256[80];   /* as read: node files must name this run */
    int ranks, nodes;
    rp_gpu *gpus;
    size_t ngpus;
    rp_link *links;
    size_t nlinks;
    char (*node_names)[GC_NODE_MAX];   /* in catalogue order */
    char (*node_files)[256];
    size_t nnodes;
    gc_detect *det;
    gc_rules rules;
    int worst;                    /* worst verdict level */
    int as_written;               /* the verdicts are the catalogue's (schema 2), not judged here */
    char missing[GC_NODE_MAX];    /* the last node whose file could not give them */
    size_t nmissing;              /* how many nodes so */
    int schema_major;
    json_t *peer_notes;           /* "peer_notes" (schema 3, src/analyze/peer_notes.c), NULL: none */
    /* per node (nnodes): its GPUs gpus[node_first .. + node_n), its links
     * links[link_ix[nl_first .. + nl_n)], its node verdict's level (-1:
     * none), the worst verdict of anything on it, whether its node file
     * was read (its points drawn) and why */
    size_t *node_first, *node_n, *nl_first, *nl_n, *link_ix;
    signed char *node_level, *node_worst;
    char *node_read;              /* RP_READ_* */
    size_t *worst_order;          /* node indices, worst first (ties: catalogue order) */
    size_t nread, nflagged, nflag_unread;
    int full;                     /* every node drawn in full (a small census) */
    char (*node_why)[400];        /* what its node file could not give, "" */
    size_t *hash;                 /* node name -> index (open addressing, 2 x nnodes slots) */
    size_t hcap;
} rp_cat;

/* Past this many nodes the report no longer reads every node file nor
 * draws every node: it reads those with something not ok (worst first, at
 * most RP_FLAGGED_MAX), RP_SAMPLE_NODES others spread over the census
 * (the fleet's latency curves and histograms), and those asked for with
 * --node; every GPU is still in the page's explorer (its numbers, its
 * verdict, its place among its SKU's). A node file costs 0.5-0.8 s of CPU
 * to read on the default plan (23.9 MB, jansson), so this bounds the
 * report's time (20 node files: ~10 s on two threads). */
#define RP_FULL_NODES 32
#define RP_FLAGGED_MAX 16
#define RP_SAMPLE_NODES 4
enum { RP_READ_NO = 0, RP_READ_FLAGGED = 1, RP_READ_SAMPLE = 2, RP_READ_ASKED = 3 };

/* Reads and validates path (a catalogue.json or its directory), with its
 * verdicts as `gpucensus check` gives them (no rules or baseline of its
 * own: a schema-2 catalogue's as written, a schema-1 one judged again):
 * the model, without its node files (report_data.c). Errors name the file. */
int rp_load_catalogue(const char *path, rp_cat *c, gc_err *err);
/* rp_load_catalogue, then the node files (report_nodes.c): which nodes'
 * files are read (node_read; RP_FULL_NODES) and, with points (the page;
 * not the terminal table), reading them: a schema-2 catalogue's points
 * (the latency plots) and link size tables come from its node files; a
 * node whose file is missing or unreadable is drawn without them (said on
 * stderr). asked[0..nasked): nodes whose files are read and which are
 * drawn in full whatever the census's size. */
int rp_load_nodes(const char *path, const char *const *asked, size_t nasked, int points,
                  rp_cat *c, gc_err *err);
/* Shared by the catalogue's and the node files' readers (report_data.c):
 * a member as a number (NAN) or string (""), a GPU's random-order chase
 * curve from its results, a link's size table, a link end's node and GPU. */
double rp_num(json_t *o, const char *k);
const char *rp_str(json_t *o, const char *k);
void rp_gpu_chase(rp_gpu *g, json_t *res);
void rp_link_sizes(rp_link *l, json_t *sizes);
void rp_end_of(json_t *e, char *node, int *gpu);
/* The index of node name in the catalogue's nodes, or nnodes. */
size_t rp_node_index(const rp_cat *c, const char *name);
/* The histograms h[0..n) hold (not h itself). */
void rp_free_h3(rp_hist3 *h, size_t n);
void rp_free(rp_cat *c);
/* GC_REPORT_PROFILE set: the time since the last call, on stderr. */
void rp_phase(const char *what);

/* The GPUs of node k: [*first, *first + *n) (gpus are sorted by node). O(1). */
void rp_node_gpus(const rp_cat *c, size_t k, size_t *first, size_t *n);

int rp_tty(FILE *f);
void rp_table(FILE *f, const rp_cat *c, int colour);
/* history_db: a history database for the history view (NULL: none). */
int rp_html(const rp_cat *c, const char *out, const char *history_db, gc_err *err);


/* ---- inside the HTML page (report_html.c and the plots it calls) ---- */

#define NCOL 8               /* line colours c0..c7 */

/* report_data.c (the bottom file, so that the page's files share them
 * without calling up into report_html.c): a verdict level's name ("-":
 * none), a node's id in the page (an HTML id: node- and its name's
 * letters, digits, - and _, others as _). Text into the page goes through
 * gc_html_esc (util/quote.h). */
const char *rh_vname(int level);
void rh_node_id(char *out, size_t cap, const char *node);

/* report_lat.c */
void rh_latency_plot(FILE *f, const rp_cat *c, size_t first, size_t n, const char *title,
                     double *tmp);
void rh_hist_row(FILE *f, rp_hist3 *hs, size_t n, const char *who);

/* report_hist.c: the history view of the catalogue's GPUs from db */
int rh_history_view(FILE *f, const rp_cat *c, const char *db, gc_err *err);

/* report_xfer.c */
void rh_cluster_view(FILE *f, const rp_cat *c);
/* node: the links measured on node k (rp_cat's index), or RP_ALL */
#define RP_ALL ((size_t)-1)
void rh_xfer_plots(FILE *f, const rp_cat *c, size_t node, const char *who);
void rh_p2p_matrix(const rp_cat *c, size_t node, int n, double *mx);
void rh_heatmap(FILE *f, const double *mx, int n, const char *title);
int rh_node_width(const rp_cat *c, size_t first, size_t n);

/* report_gx.c: every GPU as compact data with a paginated, filterable table and per-GPU detail
 * drawn on demand */
void rh_explorer(FILE *f, const rp_cat *c);
/* A JSON string safe inside a <script> element (< > & as \u escapes). */
void rh_json_str(FILE *f, const char *s);
void rh_aggregate_p2p(FILE *f, const rp_cat *c);

#endif
