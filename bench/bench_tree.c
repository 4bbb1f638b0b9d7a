/* The aggregation tree at scale (src/tree/tree.h): a node leader's part and
 * rank 0's part of a census of 1024, 4096 and 16,384 GPUs, without MPI.
 *
 * Input: the shards of one node of 8 GPUs (SHARDS, with its roster.gcr),
 * as bench_merge -n 8 -k leaves them from the sim backend.
 *
 *   leader   gc_catalogue_write_node on those 8 shards: read them from
 *            disk, analyse, write nodes/n1.json (what each leader does in
 *            parallel with the others)
 *   records  each shard made a record (shard.h) once; a census of N GPUs
 *            is N records made from them, node n<k/8+1>, local index k%8,
 *            rank k, its own UUID, and every point's summary scaled by a
 *            factor of its own (within +-1%), so no two GPUs of a node are
 *            equal. A senders' process makes them (each of the 1608
 *            distinct tails deflated once: gc_record_tail/head/join) and
 *            feeds them through a pipe node by node, each node's leader
 *            (local index 0, whose record says it wrote the node file)
 *            after its node's other GPUs, as in a run, to
 *   rank 0   a process of its own (this program run again with -R N, so its
 *            peak RSS is its own), which takes each in as it arrives
 *            (gc_collect_add) and then, the leaders having written the node
 *            files, writes catalogue.json (gc_collect_finish): from the last
 *            record received to catalogue.json on disk (wall and CPU time),
 *            and its peak resident memory (getrusage)
 *   check    `GPUCENSUS check OUT/catalogue.json` (wall time)
 *   report   `GPUCENSUS report OUT/catalogue.json -o OUT/report.html`
 *            (wall time, page size), with node files in OUT/nodes/: the
 *            leader's nodes/n1.json with its node's name, for every node up
 *            to NODE_FILES_MAX nodes and for that many spread over the
 *            census past it, and (-f) for the first 64 nodes with a GPU made slower
 *            (23.9 MB each on the default plan: 2048 would be 49 GB; the
 *            report reads at most the nodes it draws, 16 with something not
 *            ok and a sample of 4), then the page in
 *            headless Chromium (bench/page_time.py: time to the load event
 *            and of a few interactions; skipped without Chromium)
 *
 * Output: one line per N, then key=value lines for bench/run.sh:
 *   leader_s, record_bytes_per_gpu, and per N: rank0_N_s, peak_N_mb,
 *   catalogue_N_mb, check_N_s, report_N_s, page_N_mb.
 *
 * Usage: bench_tree [-n 1024,4096,16384] [-d DIR] [-x GPUCENSUS] [-k] [-r] [-f] [-p REPS] SHARDS
 *   -r  rank 0's part only (no check, no report)
 *   -p  rank 0's part REPS times per size (at most 9), the sizes in turn
 *       (all sizes once, then again): its wall and CPU time are the
 *       medians, its system time the median CPU run's, and
 *       rank0_cpu_N_runs lists each run's CPU, rank0_N_runs its wall
 *   -f  faults: one GPU in 97 (k % 97 == 50) 20% off its peers (every
 *       summary scaled by 1.2), so the verdicts and the report have GPUs
 *       and nodes that are not ok to show
 *   -d  work directory (default: a fresh mkdtemp under /tmp, removed at
 *       the end unless -k) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "write/catalogue.h"
#include "tree/collect.h"
#include "util/fsutil.h"
#include "census/shard.h"
#include "util/timeutil.h"

/* Under valgrind (--tool=callgrind --instr-atstart=no), only rank 0's last
 * part is instrumented: bench_tree -R N -d DIR [-f] SHARDS (see
 * bench/README.md). Outside valgrind these are a few no-op instructions. */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

/* Under perf (perf record -D -1 --control fifo:CTL,ACK), BENCH_PERF_CTL and
 * BENCH_PERF_ACK name the same fifos: perf samples rank 0's last part
 * alone, as callgrind does above (this VM has no hardware counters, but
 * cpu-clock sampling works: bench/README.md). */
static void perf_ctl(const char *cmd)
{
    const char *ctl = getenv("BENCH_PERF_CTL"), *ack = getenv("BENCH_PERF_ACK");
    if (!ctl)
        return;
    FILE *f = fopen(ctl, "w");
    if (f) {
        fputs(cmd, f);
        fclose(f);
    }
    char a[16];
    FILE *g = ack ? fopen(ack, "r") : NULL;   /* perf says it acted */
    if (g) {
        if (!fgets(a, sizeof a, g))
            a[0] = 0;
        fclose(g);
    }
}

#define NODE_GPUS 8
#define MAX_SIZES 8
#define MAX_REPS 9

/* The median of n values (n <= MAX_REPS; v is reordered). */
static double median_of(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
#define NODE_FILES_MAX 128
#define FAULTED_FILES_MAX 64
#define FAULT_EVERY 97

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* This process's CPU time (user + system): the machine is shared, so wall
 * time alone says as much about the others' load as about rank 0. */
static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* Its system part: the kernel's work for it (writing the files, paging). */
static double sys_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static long file_bytes(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

typedef struct tmpl {
    gc_run_meta run;
    gc_roster_entry roster[NODE_GPUS];
    gc_gpu gpus[NODE_GPUS];      /* decoded from records: summaries, no histograms */
    const char *shards;
} tmpl;

static void shard_fetch(void *ctx, size_t r, gc_blob *b, void **owned)
{
    const tmpl *t = ctx;
    memset(b, 0, sizeof *b);
    *owned = NULL;
    char path[4200];
    uint8_t *d = NULL;
    size_t n = 0;
    gc_err e = { 0 };
    gc_shard_path(path, sizeof path, t->shards, t->roster[r].node, t->roster[r].local_index);
    if (gc_read_file(path, GC_SHARD_MAX_BYTES + 64, &d, &n, &e) == 0) {
        b->data = d;
        b->len = n;
        *owned = d;
    } else {
        snprintf(b->missing_reason, sizeof b->missing_reason, "%.150s", e.msg);
    }
}

static void none_fetch(void *ctx, size_t r, gc_blob *b, void **owned)
{
    (void)ctx;
    (void)r;
    memset(b, 0, sizeof *b);
    *owned = NULL;
}

static int load_roster(tmpl *t, const char *shards)
{
    char path[4200];
    uint8_t *d = NULL;
    size_t n = 0;
    gc_err e = { 0 };
    gc_roster_entry *ro = NULL;
    size_t nro = 0;
    snprintf(path, sizeof path, "%s/roster.gcr", shards);
    if (gc_read_file(path, 1u << 26, &d, &n, &e) || gc_roster_decode(d, n, &t->run, &ro, &nro, &e)) {
        fprintf(stderr, "bench_tree: %s: %s\n", path, e.msg);
        return -1;
    }
    free(d);
    if (nro != NODE_GPUS) {
        fprintf(stderr, "bench_tree: %s: %zu GPUs, expected one node of %d\n", path, nro, NODE_GPUS);
        return -1;
    }
    memcpy(t->roster, ro, sizeof t->roster);
    free(ro);
    t->shards = shards;
    return 0;
}

/* The leader's part. */
static int leader(tmpl *t, const char *work, double *leader_s)
{
    char path[4200];
    gc_err e = { 0 };
    snprintf(path, sizeof path, "%s/leader", work);
    double t0 = now_s();
    if (gc_catalogue_write_node(path, &t->run, t->roster, NODE_GPUS, t->roster[0].node, shard_fetch,
                                t, NULL, &e)) {
        fprintf(stderr, "bench_tree: leader: %s\n", e.msg);
        return -1;
    }
    *leader_s = now_s() - t0;

    return 0;
}

/* Templates: each shard as a record, decoded; the record's mean size. */
static int templates(tmpl *t, size_t *record_bytes)
{
    gc_err e = { 0 };
    *record_bytes = 0;
    for (int i = 0; i < NODE_GPUS; i++) {
        gc_blob b;
        void *owned;
        shard_fetch(t, (size_t)i, &b, &owned);
        gc_run_meta m;
        gc_gpu g;
        gc_wbuf w = { 0 };
        gc_record_note note = { 0 };
        if (!b.data || gc_shard_decode(b.data, b.len, &m, &g, &e) ||
            gc_analyze_local(&m, &g, &note, &w, &e) ||
            gc_record_decode(w.data, w.len, &m, &t->gpus[i], &note, &e)) {
            fprintf(stderr, "bench_tree: shard %d: %s\n", i, b.data ? e.msg : b.missing_reason);
            return -1;
        }
        *record_bytes += w.len;
        gc_gpu_free(&g);
        gc_wbuf_free(&w);
        free(owned);
    }
    *record_bytes /= NODE_GPUS;
    return 0;
}

static void scale_sum(gc_summary *s, double f)
{
    double *v[] = { &s->min, &s->p1, &s->p5, &s->p50, &s->p95, &s->p99, &s->max, &s->mean,
                    &s->stddev };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        *v[i] *= f;
}

/* Record k's factor: every point's summary scaled by it (within +-1%). */
static double factor_of(size_t k)
{
    return 1.0 + 0.01 * ((double)((k * 7919) % 201) - 100.0) / 100.0;
}

/* Record k is made from template k % 8 and factor k * 7919 % 201: k mod
 * 1608 (8 x 201, coprime) names its tail (gc_record_tail: every point),
 * which the sender deflates once and joins to each record's head (its node,
 * index, rank and UUID), as gc_record_encode would make it. */
#define TAILS (NODE_GPUS * 201)

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

static int faults;   /* -f */

/* The rank whose record arrives i-th: node by node, each node's leader
 * (local index 0) last, as in a run, where a leader sends its record once
 * its node file is written and the others theirs as they finish. */
static size_t arrival_rank(size_t i, size_t n)
{
    size_t node0 = i / NODE_GPUS * NODE_GPUS;
    if (node0 + NODE_GPUS > n)
        return i;
    return node0 + (i - node0 + 1) % NODE_GPUS;
}

/* The senders (a process of its own): n records into fd, each its length
 * (u32), rank (u32) and bytes, then 0 and the seconds spent making them. */
static int producer(tmpl *t, const gc_run_meta *run, const gc_roster_entry *ro, size_t n, int fd)
{
    size_t ignored;
    if (templates(t, &ignored))
        return 1;
    gc_record_part *tails = calloc(TAILS, sizeof *tails);
    if (!tails)
        return 1;
    gc_err e = { 0 };
    double make_s = 0;
    for (size_t i = 0; i < n; i++) {
        double t0 = now_s();
        size_t k = arrival_rank(i, n);
        const gc_gpu *src = &t->gpus[k % NODE_GPUS];
        gc_gpu g = *src;
        snprintf(g.info.node, sizeof g.info.node, "%s", ro[k].node);
        g.info.local_index = ro[k].local_index;
        g.info.rank = (int)k;
        snprintf(g.info.uuid, sizeof g.info.uuid, "GPU-bench-%08zx", k);
        /* a GPU made slower (-f) has a tail of its own */
        int slow = faults && k % FAULT_EVERY == FAULT_EVERY / 2;
        gc_record_part own = { 0 };
        gc_record_part *tail = slow ? &own : &tails[k % TAILS];
        if (!tail->z.len) {
            g.points = malloc((src->npoints ? src->npoints : 1) * sizeof *g.points);
            if (!g.points)
                return 1;
            memcpy(g.points, src->points, src->npoints * sizeof *g.points);
            double f = factor_of(k) * (slow ? 1.2 : 1.0);
            for (size_t j = 0; j < g.npoints; j++)
                scale_sum(&g.points[j].sum, f);
            gc_record_note note = { k % NODE_GPUS == 0 ? GC_NODE_FILE_WRITTEN : GC_NODE_FILE_NONE, "" };
            int rc = gc_record_tail(&g, NULL, &note, tail, &e);
            free(g.points);
            if (rc) {
                fprintf(stderr, "bench_tree: record %zu: %s\n", k, e.msg);
                return 1;
            }
        }
        gc_record_part head;
        gc_wbuf w = { 0 };
        if (gc_record_head(run, &g, &head, &e) || gc_record_join(&head, tail, &w, &e)) {
            fprintf(stderr, "bench_tree: record %zu: %s\n", k, e.msg);
            return 1;
        }
        gc_record_part_free(&head);
        gc_record_part_free(&own);
        make_s += now_s() - t0;
        uint32_t len = (uint32_t)w.len, rank = (uint32_t)k;
        if (write_all(fd, &len, sizeof len) || write_all(fd, &rank, sizeof rank) ||
            write_all(fd, w.data, w.len))
            return 1;
        gc_wbuf_free(&w);
    }
    uint32_t end = 0;
    if (write_all(fd, &end, sizeof end) || write_all(fd, &make_s, sizeof make_s))
        return 1;
    return 0;
}

/* Rank 0 of a census of n GPUs (bench_tree -R, a process of its own, so
 * that its peak resident memory is its own). In a census every GPU runs
 * the same plan and they end within seconds of each other: the records
 * arrive at once. So the senders' records are first spooled into a file
 * in out (untimed; the senders take longer to make them than rank 0 to
 * take them in, and on a 2-core machine they would share its CPUs), then
 * read back one after another and taken in (gc_collect_add: queued for
 * the collector's workers, analysed, kept in the order they came), as
 * from a network that holds them all. Timed: taking them in (the first
 * record read to the last one's gc_collect_add returned), then from there
 * to catalogue.json on disk (gc_collect_finish: the queue's last records,
 * the leaders having written the node files), and the two together: the
 * end to end, from the last record sent to the catalogue. CPU times are
 * the process's (every thread). Prints "finish_s ok ingest_s make_s
 * finish_cpu_s peak_kb ingest_cpu_s finish_sys_s". */
static int rank0_child(tmpl *t, size_t n, const char *out)
{
    gc_roster_entry *ro = calloc(n, sizeof *ro);
    if (!ro)
        return 1;
    gc_run_meta run = t->run;
    run.ranks = (int)n;
    run.nodes = (int)(n / NODE_GPUS);
    for (size_t k = 0; k < n; k++) {
        ro[k].rank = (int)k;
        snprintf(ro[k].node, sizeof ro[k].node, "n%zu", k / NODE_GPUS + 1);
        ro[k].local_index = (int)(k % NODE_GPUS);
    }
    int fds[2];
    if (pipe(fds))
        return 1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        close(fds[0]);
        _exit(producer(t, &run, ro, n, fds[1]));
    }
    close(fds[1]);
    char spool_path[4200];
    snprintf(spool_path, sizeof spool_path, "%s/records.spool", out);
    FILE *spool = fopen(spool_path, "w+");
    if (!spool) {
        fprintf(stderr, "bench_tree: %s: %s\n", spool_path, strerror(errno));
        return 1;
    }
    unlink(spool_path);   /* gone when the process ends */
    double make_s = -1;
    uint8_t *buf = NULL;
    size_t cap = 0;
    for (size_t k = 0;; k++) {
        uint32_t hdr[2];
        if (read_all(fds[0], &hdr[0], sizeof hdr[0])) {
            fprintf(stderr, "bench_tree: the senders stopped after %zu records\n", k);
            return 1;
        }
        if (!hdr[0]) {
            if (k != n || read_all(fds[0], &make_s, sizeof make_s))
                return 1;
            break;
        }
        if (hdr[0] > cap) {
            free(buf);
            if (!(buf = malloc(cap = hdr[0])))
                return 1;
        }
        if (read_all(fds[0], &hdr[1], sizeof hdr[1]) || read_all(fds[0], buf, hdr[0]) ||
            fwrite(hdr, sizeof hdr, 1, spool) != 1 || fwrite(buf, 1, hdr[0], spool) != hdr[0])
            return 1;
    }
    close(fds[0]);
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
        return 1;
    if (fflush(spool) != 0 || fseek(spool, 0, SEEK_SET) != 0)
        return 1;
    gc_err e = { 0 };
    gc_collect *c = gc_collect_new(out, &run, ro, n, &e);
    if (!c) {
        fprintf(stderr, "bench_tree: rank 0: %s\n", e.msg);
        return 1;
    }
    double t1 = now_s(), c1 = cpu_s();
    for (size_t k = 0; k < n; k++) {
        uint32_t hdr[2];
        if (fread(hdr, sizeof hdr, 1, spool) != 1 || hdr[0] > cap ||
            fread(buf, 1, hdr[0], spool) != hdr[0])
            return 1;
        gc_blob b = { .data = buf, .len = hdr[0] };
        if (gc_collect_add(c, hdr[1], &b, &e)) {
            fprintf(stderr, "bench_tree: rank 0, record of rank %u: %s\n", hdr[1], e.msg);
            return 1;
        }
    }
    double ingest_s = now_s() - t1, ingest_cpu_s = cpu_s() - c1;
    free(buf);
    fclose(spool);
    gc_catalogue_stats sts = { 0 };
    /* the run's end as a run sets it after its last record (run.c): the
     * head written first had now's time, of the same length, so it is
     * written again in place (an end time of another length would copy
     * the whole catalogue into a new file, which a run does not do) */
    gc_iso_time(run.end_time, sizeof run.end_time, 0);
    double t0 = now_s(), c0 = cpu_s(), s0 = sys_s();
    perf_ctl("enable\n");
    CALLGRIND_START_INSTRUMENTATION;
    int rc = gc_collect_finish(c, none_fetch, NULL, &sts, &e);
    CALLGRIND_STOP_INSTRUMENTATION;
    perf_ctl("disable\n");
    double fs = now_s() - t0, cs = cpu_s() - c0, ss = sys_s() - s0;
    gc_collect_free(c);
    if (rc) {
        fprintf(stderr, "bench_tree: rank 0, %zu GPUs: %s\n", n, e.msg);
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);   /* this process's own, not the senders' */
    printf("%.3f %d %.3f %.3f %.3f %ld %.3f %.3f\n", fs, sts.ok, ingest_s, make_s, cs, (long)ru.ru_maxrss,
           ingest_cpu_s, ss);
    fflush(stdout);
    return 0;
}

/* The node files of a census of n GPUs in out/nodes/: the leader's file
 * (node n1, text) with every "n1" naming node nK, for each node when they
 * are at most NODE_FILES_MAX, else for NODE_FILES_MAX nodes spread evenly
 * and (-f) the first FAULTED_FILES_MAX nodes with a GPU made slower: the nodes the report reads. */
static int write_node_files(const char *leader, size_t leader_len, size_t n, const char *out)
{
    size_t nodes = n / NODE_GPUS, m = nodes < NODE_FILES_MAX ? nodes : NODE_FILES_MAX;
    char *want = calloc(nodes + 1, 1);
    if (!want)
        return -1;
    for (size_t j = 0; j < m; j++)
        want[j * nodes / m + 1] = 1;
    /* the first FAULTED_FILES_MAX nodes with a slower GPU: the report reads
     * at most RP_FLAGGED_MAX of them, worst first and, all alike, in the
     * catalogue's order (131,072 GPUs have 1352: 32 GB of files) */
    size_t faulted = 0;
    for (size_t k = 0; faults && k < n && faulted < FAULTED_FILES_MAX; k++)
        if (k % FAULT_EVERY == FAULT_EVERY / 2 && !want[k / NODE_GPUS + 1])
            want[k / NODE_GPUS + 1] = 1, faulted++;
    char path[4400];
    snprintf(path, sizeof path, "%s/nodes", out);
    mkdir(path, 0755);
    for (size_t k = 1; k <= nodes; k++) {
        if (!want[k])
            continue;
        snprintf(path, sizeof path, "%s/nodes/n%zu.json", out, k);
        FILE *f = fopen(path, "w");
        if (!f) {
            free(want);
            return -1;
        }
        char name[32];
        int nl = snprintf(name, sizeof name, "\"n%zu\"", k);
        const char *p = leader, *end = leader + leader_len;
        for (;;) {
            const char *q = memmem(p, (size_t)(end - p), "\"n1\"", 4);
            if (!q) {
                fwrite(p, 1, (size_t)(end - p), f);
                break;
            }
            fwrite(p, 1, (size_t)(q - p), f);
            fwrite(name, 1, (size_t)nl, f);
            p = q + 4;
        }
        if (fclose(f)) {
            free(want);
            return -1;
        }
    }
    free(want);
    return 0;
}

/* A key=value line of a log (page_time.py's), or -1. */
static double log_value(const char *log, const char *key)
{
    FILE *f = fopen(log, "r");
    char line[512];
    double v = -1;
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == '=')
            v = atof(line + kl + 1);
    if (f)
        fclose(f);
    return v;
}

static double last_cpu_s;   /* run_cmd's child's CPU time (user + system) */
static long last_rss_kb;    /* and its peak resident memory */

/* Run cmd (argv) with stdout to log; wall seconds, exit status (-1: crash). */
static int run_cmd(char *const argv[], const char *log, double *wall_s)
{
    fflush(stdout);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen(log, "w", stdout) || (argv[0][0] != '/' || strcmp(argv[0], "/proc/self/exe")
                                            ? !freopen("/dev/null", "w", stderr) : 0))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) < 0)
        return -1;
    *wall_s = now_s() - t0;
    last_rss_kb = ru.ru_maxrss;
    last_cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                 (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    return WIFSIGNALED(st) || WEXITSTATUS(st) == 127 ? -1 : WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
    size_t sizes[MAX_SIZES] = { 1024, 4096, 16384 };
    int nsizes = 3, keep = 0, rank0_only = 0, reps = 1;
    const char *page_time = "bench/page_time.py";
    const char *dir = NULL, *exe = "build/gpucensus";
    int opt;
    size_t rank0_n = 0;
    while ((opt = getopt(argc, argv, "n:d:x:krR:fp:")) != -1) {
        if (opt == 'n') {
            nsizes = 0;
            for (char *s = strtok(optarg, ","); s && nsizes < MAX_SIZES; s = strtok(NULL, ","))
                sizes[nsizes++] = strtoul(s, NULL, 10) / NODE_GPUS * NODE_GPUS;
        } else if (opt == 'd') {
            dir = optarg;
        } else if (opt == 'x') {
            exe = optarg;
        } else if (opt == 'k') {
            keep = 1;
        } else if (opt == 'r') {
            rank0_only = 1;
        } else if (opt == 'R') {
            rank0_n = strtoul(optarg, NULL, 10);   /* internal: rank 0 of that size, out in -d */
        } else if (opt == 'f') {
            faults = 1;
        } else if (opt == 'p') {
            reps = atoi(optarg);
            reps = reps < 1 ? 1 : reps > MAX_REPS ? MAX_REPS : reps;
        } else {
            fprintf(stderr, "usage: bench_tree [-n 1024,4096,16384] [-d DIR] [-x GPUCENSUS] [-k] [-r] [-f] [-p REPS] "
                            "SHARDS\n");
            return 2;
        }
    }
    if (optind != argc - 1)
        return fprintf(stderr, "bench_tree: one SHARDS directory (one node of 8 GPUs)\n"), 2;
    static tmpl t;
    if (rank0_n) {   /* the rank 0 process of one size (below) */
        if (!dir || load_roster(&t, argv[optind]))
            return 1;
        return rank0_child(&t, rank0_n, dir);
    }
    char work[4096];
    if (dir) {
        snprintf(work, sizeof work, "%s", dir);
        mkdir(work, 0755);
    } else {
        snprintf(work, sizeof work, "/tmp/gc-bench-tree.XXXXXX");
        if (!mkdtemp(work))
            return perror("mkdtemp"), 1;
    }
    double leader_s = 0;
    size_t record_bytes = 0;
    if (load_roster(&t, argv[optind]) || leader(&t, work, &leader_s) ||
        templates(&t, &record_bytes))
        return 1;
    long node_bytes = 0;
    char path[4400];
    snprintf(path, sizeof path, "%s/leader/nodes/%s.json", work, t.roster[0].node);
    node_bytes = file_bytes(path);
    printf("leader: 8 GPUs, %.3f s, node file %.1f MB; record %zu B per GPU\n", leader_s,
           node_bytes / 1e6, record_bytes);
    uint8_t *leader_file = NULL;
    size_t leader_len = 0;
    gc_err le = { 0 };
    if (!rank0_only && gc_read_file(path, (size_t)1 << 31, &leader_file, &leader_len, &le)) {
        fprintf(stderr, "bench_tree: %s\n", le.msg);
        return 1;
    }
    printf("%7s %9s %9s %9s %9s %9s %9s %9s %9s %10s %10s %9s %10s %9s %9s %9s %9s\n", "gpus", "make_s", "ingest_s",
           "in_cpu_s", "rank0_s", "r0_cpu_s", "e2e_s", "e2e_cpu_s", "peak_mb", "cat_mb", "cat_B/gpu", "check_s", "report_s",
           "rep_cpu_s", "page_mb", "load_ms", "action_ms");
    char keys[8192] = "";
    size_t klen = 0;
    int status = 0;
    /* -p: rank 0's part run reps times per size (a shared 2-core VM moves
     * one run by 20-40%, and its slow spells last minutes), the sizes in
     * turn (1024, 4096, 16384, 1024, ...) so that each size's runs meet
     * the same spells; its wall and CPU time are the medians, the rest the
     * last run's, every run's CPU time listed */
    static double walls[MAX_SIZES][MAX_REPS], cpus[MAX_SIZES][MAX_REPS], syss[MAX_SIZES][MAX_REPS];
    /* the end to end of each run: the records taken in, then the last part */
    static double e2e_w[MAX_SIZES][MAX_REPS], e2e_c[MAX_SIZES][MAX_REPS];
    static char runs[MAX_SIZES][MAX_REPS * 16], wruns[MAX_SIZES][MAX_REPS * 16];
    double ingest_v[MAX_SIZES], make_v[MAX_SIZES], ingest_cpu_v[MAX_SIZES];
    long peak_v[MAX_SIZES];
    int ok_v[MAX_SIZES];
    size_t rl[MAX_SIZES] = { 0 }, wl[MAX_SIZES] = { 0 };
    int timed = 1;
    for (int p = 0; p < reps && timed; p++)
        for (int i = 0; i < nsizes && timed; i++) {
            size_t n = sizes[i];
            char out[4300], log[4400], nb[32];
            snprintf(out, sizeof out, "%s/n%zu", work, n);
            mkdir(out, 0755);
            snprintf(log, sizeof log, "%s/rank0.txt", out);
            snprintf(nb, sizeof nb, "%zu", n);
            /* rank 0 in a process of its own (exec: none of this one's memory) */
            char *r0a[] = { "/proc/self/exe", "-R", nb, "-d", out, faults ? "-f" : (char *)argv[optind],
                            faults ? (char *)argv[optind] : NULL, NULL };
            double ignored_s;
            if (run_cmd(r0a, log, &ignored_s) != 0) {
                fprintf(stderr, "bench_tree: rank 0 part for %zu GPUs failed\n", n);
                timed = 0;
                break;
            }
            FILE *f = fopen(log, "r");
            if (!f || fscanf(f, "%lf %d %lf %lf %lf %ld %lf %lf", &walls[i][p], &ok_v[i], &ingest_v[i], &make_v[i],
                             &cpus[i][p], &peak_v[i], &ingest_cpu_v[i], &syss[i][p]) != 8)
                timed = 0;
            if (f)
                fclose(f);
            e2e_w[i][p] = ingest_v[i] + walls[i][p];
            e2e_c[i][p] = ingest_cpu_v[i] + cpus[i][p];
            rl[i] += (size_t)snprintf(runs[i] + rl[i], sizeof runs[i] - rl[i], "%s%.3f", p ? "," : "",
                                      cpus[i][p]);
            wl[i] += (size_t)snprintf(wruns[i] + wl[i], sizeof wruns[i] - wl[i], "%s%.3f", p ? "," : "",
                                      walls[i][p]);
        }
    if (!timed)
        status = 1;
    for (int i = 0; i < nsizes && timed; i++) {
        size_t n = sizes[i];
        char out[4300], log[4400], cat[4400], page[4400];
        snprintf(out, sizeof out, "%s/n%zu", work, n);
        double r0 = -1, ingest_s = ingest_v[i], make_s = make_v[i], r0_cpu = -1, ingest_cpu = ingest_cpu_v[i];
        double r0_sys = -1;
        long peak_kb = peak_v[i];
        int ok = ok_v[i];
        /* the system time of the run whose CPU time is the median (the
         * upper middle one of an even count) */
        for (int p = 0; p < reps; p++) {
            int below = 0;
            for (int q = 0; q < reps; q++)
                below += cpus[i][q] < cpus[i][p] || (cpus[i][q] == cpus[i][p] && q < p);
            if (below == reps / 2)
                r0_sys = syss[i][p];
        }
        r0 = median_of(walls[i], reps);
        r0_cpu = median_of(cpus[i], reps);
        double e2e = median_of(e2e_w[i], reps), e2e_cpu = median_of(e2e_c[i], reps);
        double peak_mb = peak_kb / 1024.0;
        snprintf(cat, sizeof cat, "%s/catalogue.json", out);
        double cat_mb = file_bytes(cat) / 1e6;
        double check_s = -1, report_s = -1;
        snprintf(log, sizeof log, "%s/check.txt", out);
        char *ca[] = { (char *)exe, "check", cat, NULL };
        if (!rank0_only && run_cmd(ca, log, &check_s) < 0)
            status = 1, check_s = -1;
        double check_cpu = last_cpu_s, check_mb = last_rss_kb / 1024.0;
        snprintf(page, sizeof page, "%s/report.html", out);
        snprintf(log, sizeof log, "%s/report.txt", out);
        if (!rank0_only && write_node_files((const char *)leader_file, leader_len, n, out)) {
            fprintf(stderr, "bench_tree: %s/nodes: cannot write the node files\n", out);
            status = 1;
        }
        char *ra[] = { (char *)exe, "report", cat, "-o", page, NULL };
        double report_cpu = -1;
        if (!rank0_only && run_cmd(ra, log, &report_s) != 0)
            status = 1, report_s = -1;
        else if (!rank0_only)
            report_cpu = last_cpu_s;
        double report_mb = last_rss_kb / 1024.0;
        double page_mb = file_bytes(page) / 1e6;
        /* the page in headless Chromium */
        double load_ms = -1, act_ms = -1, pt_s;
        char ptlog[4400], skip[300] = "";
        snprintf(ptlog, sizeof ptlog, "%s/page_time.txt", out);
        char *pa[] = { "/usr/bin/python3", (char *)page_time, page, NULL };
        if (!rank0_only && report_s >= 0) {
            int prc = run_cmd(pa, ptlog, &pt_s);
            FILE *pf = fopen(ptlog, "r");
            char line[400];
            while (pf && fgets(line, sizeof line, pf))
                if (!strncmp(line, "page_skip=", 10))
                    snprintf(skip, sizeof skip, "%.*s", (int)strcspn(line + 10, "\n"), line + 10);
            if (pf)
                fclose(pf);
            load_ms = log_value(ptlog, "page_load_ms");
            act_ms = log_value(ptlog, "page_worst_action_ms");
            if (prc != 0 && !skip[0]) {
                fprintf(stderr, "bench_tree: %s: page_time.py failed (exit %d)\n", ptlog, prc);
                status = 1;
            }
            if (skip[0])
                printf("page in Chromium, %zu GPUs: skipped: %s\n", n, skip);
        }
        printf("%7zu %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.1f %10.1f %10.0f %9.2f %10.2f %9.2f %9.2f %9.0f %9.1f\n", n,
               make_s, ingest_s, ingest_cpu, r0, r0_cpu, e2e, e2e_cpu, peak_mb, cat_mb, cat_mb * 1e6 / (double)n, check_s, report_s, report_cpu,
               page_mb, load_ms, act_ms);
        klen += (size_t)snprintf(keys + klen, sizeof keys - klen, "rank0_cpu_%zu_runs=%s\nrank0_%zu_runs=%s\n", n,
                                 runs[i], n, wruns[i]);
        klen += (size_t)snprintf(keys + klen, sizeof keys - klen, "e2e_%zu_s=%.3f\ne2e_cpu_%zu_s=%.3f\n", n, e2e, n,
                                 e2e_cpu);
        klen += (size_t)snprintf(keys + klen, sizeof keys - klen,
                                 "rank0_sys_%zu_s=%.3f\ningest_cpu_%zu_s=%.3f\ningest_%zu_s=%.3f\nrank0_%zu_s=%.3f\nrank0_cpu_%zu_s=%.3f\npeak_%zu_mb=%.1f\ncatalogue_%zu_mb=%.1f\n"
                                 "check_%zu_s=%.3f\nreport_%zu_s=%.3f\nreport_cpu_%zu_s=%.3f\npage_%zu_mb=%.2f\n"
                                 "page_load_%zu_ms=%.0f\npage_action_%zu_ms=%.1f\n",
                                 n, r0_sys, n, ingest_cpu, n, ingest_s, n, r0, n, r0_cpu, n, peak_mb, n, cat_mb, n, check_s,
                                 n, report_s, n, report_cpu, n, page_mb, n, load_ms, n, act_ms);
        if (!rank0_only)   /* check's and report's own CPU time and peak memory */
            klen += (size_t)snprintf(keys + klen, sizeof keys - klen,
                                     "check_cpu_%zu_s=%.3f\ncheck_peak_%zu_mb=%.1f\nreport_peak_%zu_mb=%.1f\n",
                                     n, check_cpu, n, check_mb, n, report_mb);
        if (ok != (int)n)
            fprintf(stderr, "bench_tree: %zu GPUs: %d ok\n", n, ok);
        if (!keep) {
            char *rm[] = { "/bin/rm", "-rf", out, NULL };
            double ignored;
            run_cmd(rm, "/dev/null", &ignored);
        }
    }
    printf("leader_s=%.3f\nrecord_bytes_per_gpu=%zu\n%s", leader_s, record_bytes, keys);
    if (!keep && !dir) {
        char *rm[] = { "/bin/rm", "-rf", work, NULL };
        double ignored;
        run_cmd(rm, "/dev/null", &ignored);
    }
    return status;
}
