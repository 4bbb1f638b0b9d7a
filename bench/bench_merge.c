/* Merge scale: how long `gpucensus merge` takes, and how much memory it
 * holds, for a census of 64, 256 and 1024 GPUs. Rank 0 does the same work
 * after a gather, so this bounds the end of a large run.
 *
 * For each N the bench writes what a run of N ranks would leave on disk,
 * without MPI or a GPU: DIR/nN/shards/roster.gcr and one shard per GPU,
 * produced by the sim backend through the runner's schedule (the items
 * gc_schedule gives each rank, pair and net items measured by their
 * initiator as in a run). Every GPU has its own seed (node index, local
 * index), so no two histograms are alike. Nodes hold GPUS_PER_NODE GPUs
 * and are named n1, n2, ... as in a sim run. Generation is spread over
 * the machine's cores (forked workers).
 *
 * Then it runs `GPUCENSUS merge DIR/nN/shards -o DIR/nN/out` as a child
 * process REPS times and reports the fastest wall time and the largest
 * peak RSS (wait4's ru_maxrss) of the child.
 *
 * Output: one line per N, then the growth ratios, then key=value lines
 * (for bench/run.sh):
 *   shard_bytes_per_gpu  mean shard file size (compressed histograms + metadata)
 *   merge_s              fastest of REPS merges (wall clock)
 *   peak_mb              peak resident memory of the merge process (MiB)
 *   mb_per_gpu           peak_mb / N
 *   out_mb               size of catalogue.json + nodes/ (MiB)
 *   cat_B/gpu            size of catalogue.json alone per GPU (bytes; <= 16 KB
 *                        on the default plan)
 *   t_ratio              merge_s(N) / merge_s(previous N): linear growth = N / previous N
 *
 * Usage: bench_merge [-n 64,256,1024] [-g GPUS_PER_NODE] [-r REPS] [-d DIR]
 *                    [-x GPUCENSUS] [-k] PLAN.cfg
 *   -d  work directory (default: a fresh mkdtemp under /tmp, removed at the
 *       end unless -k) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure/backend.h"
#include "util/fsutil.h"
#include "census/hist.h"
#include "plan/plan.h"
#include "plan/schedule.h"
#include "census/shard.h"
#include "measure/sim/sim_rank.h"
#include "util/version.h"

#define MAX_SIZES 8

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void iso_now(char *out, size_t cap)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

typedef struct census {
    const gc_plan *plan;
    const gc_item *items;
    size_t nitems;
    int ranks, nodes;
    gc_run_meta meta;
    char shards[4300];
} census;

/* One rank's part of the plan, as gc_run_main runs it (sim_rank.c), into its shard. */
static int make_shard(const census *c, int rank, gc_err *e)
{
    gc_gpu gpu;
    gc_wbuf w = { 0 };
    int rc = gc_sim_rank_measure(c->plan, c->items, c->nitems, c->ranks, c->nodes, rank,
                                 c->meta.sub_bits, &gpu, e);
    if (rc)
        return rc;
    gc_run_meta m = c->meta;
    iso_now(m.end_time, sizeof m.end_time);
    char path[4400];
    rc = gc_shard_encode(&m, &gpu, &w, e);
    if (!rc)
        rc = gc_shard_path(path, sizeof path, c->shards, gpu.info.node, gpu.info.local_index);
    if (!rc)
        rc = gc_write_atomic(path, w.data, w.len, e);
    gc_wbuf_free(&w);
    gc_gpu_free(&gpu);
    return rc;
}

static int write_roster(const census *c, gc_err *e)
{
    gc_geom g;
    gc_roster_entry *roster;
    int rc = gc_geom_simulated(c->ranks, c->nodes, 0, &g, &roster, e);
    if (rc)
        return rc;
    gc_wbuf w = { 0 };
    char path[4400];
    snprintf(path, sizeof path, "%s/roster.gcr", c->shards);
    rc = gc_roster_encode(&c->meta, roster, (size_t)c->ranks, &w, e);
    if (!rc)
        rc = gc_write_atomic(path, w.data, w.len, e);
    gc_wbuf_free(&w);
    free(roster);
    return rc;
}

/* All shards of a census, ranks split over `workers` forked processes. */
static int generate(const census *c, int workers)
{
    fflush(stdout); /* or the children print it again */
    pid_t *pids = calloc((size_t)workers, sizeof *pids);
    if (!pids)
        return 1;
    for (int k = 0; k < workers; k++) {
        pids[k] = fork();
        if (pids[k] < 0) {
            perror("bench_merge: fork");
            return 1;
        }
        if (pids[k] == 0) {
            for (int r = k; r < c->ranks; r += workers) {
                gc_err e = { 0 };
                if (make_shard(c, r, &e)) {
                    fprintf(stderr, "bench_merge: shard of rank %d: %s\n", r, e.msg);
                    _exit(1);
                }
            }
            _exit(0);
        }
    }
    int bad = 0;
    for (int k = 0; k < workers; k++) {
        int st;
        if (waitpid(pids[k], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            bad = 1;
    }
    free(pids);
    return bad;
}

/* Sum of the sizes of the regular files in dir (one level) */
static uint64_t dir_bytes(const char *dir, const char *suffix, int *count)
{
    DIR *d = opendir(dir);
    uint64_t sum = 0;
    if (count)
        *count = 0;
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name), s = suffix ? strlen(suffix) : 0;
        if (de->d_name[0] == '.' || (suffix && (l < s || strcmp(de->d_name + l - s, suffix))))
            continue;
        char p[4400];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            sum += (uint64_t)st.st_size;
            if (count)
                (*count)++;
        }
    }
    closedir(d);
    return sum;
}

/* Run `exe merge shards -o out`; wall seconds and peak RSS (KiB). */
static int run_merge(const char *exe, const char *shards, const char *out, const char *log,
                     double *wall_s, long *maxrss_kb)
{
    fflush(stdout);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen(log, "w", stdout))
            _exit(127);
        execl(exe, exe, "merge", shards, "-o", out, (char *)NULL);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) < 0)
        return -1;
    *wall_s = now_s() - t0;
    *maxrss_kb = ru.ru_maxrss;
    if (WIFSIGNALED(st)) {
        fprintf(stderr, "bench_merge: %s merge killed by signal %d\n", exe, WTERMSIG(st));
        return -1;
    }
    /* merge exits non-zero when a GPU failed; a crash is what counts here. */
    return WEXITSTATUS(st) == 127 ? -1 : WEXITSTATUS(st);
}

/* The "GPUs measured: K in full, ..." line of merge's summary: K, or -1. */
static int count_ok(const char *log)
{
    FILE *f = fopen(log, "r");
    char line[512];
    int k = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "GPUs measured: %d in full", &k) == 1)
            break;
    if (f)
        fclose(f);
    return k;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_merge [-n 64,256,1024] [-g GPUS_PER_NODE] [-r REPS] "
                    "[-d DIR] [-x GPUCENSUS] [-k] PLAN.cfg\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int sizes[MAX_SIZES] = { 64, 256, 1024 }, nsizes = 3, per_node = 8, reps = 3, keep = 0;
    const char *dir = NULL, *exe = "build/gpucensus";
    int opt;
    while ((opt = getopt(argc, argv, "n:g:r:d:x:k")) != -1) {
        switch (opt) {
        case 'n': {
            nsizes = 0;
            for (char *s = optarg, *end; *s && nsizes < MAX_SIZES; s = *end ? end + 1 : end) {
                long v = strtol(s, &end, 10);
                if (end == s || v < 1 || v > 65536 || (*end && *end != ','))
                    usage();
                sizes[nsizes++] = (int)v;
            }
            break;
        }
        case 'g': per_node = atoi(optarg); break;
        case 'r': reps = atoi(optarg); break;
        case 'd': dir = optarg; break;
        case 'x': exe = optarg; break;
        case 'k': keep = 1; break;
        default: usage();
        }
    }
    if (optind != argc - 1 || per_node < 1 || reps < 1 || nsizes < 1)
        usage();
    if (access(exe, X_OK) != 0) {
        fprintf(stderr, "bench_merge: %s is not an executable (build it first, or -x)\n", exe);
        return 1;
    }

    gc_plan plan;
    gc_err e = { 0 };
    if (gc_plan_load(argv[optind], &plan, &e)) {
        fprintf(stderr, "bench_merge: %s\n", e.msg);
        return 1;
    }
    if (!plan.sim.present) {
        fprintf(stderr, "bench_merge: %s has no sim section\n", plan.file);
        return 1;
    }
    uint32_t sub_bits;
    gc_item *items = NULL;
    size_t nitems = 0;
    if (gc_hist_sub_bits_for(plan.precision, &sub_bits, &e) ||
        gc_plan_expand(&plan, &items, &nitems, &e)) {
        fprintf(stderr, "bench_merge: %s\n", e.msg);
        return 1;
    }

    char tmpl[] = "/tmp/bench_merge.XXXXXX";
    int own_dir = dir == NULL;
    if (own_dir && !(dir = mkdtemp(tmpl))) {
        perror("bench_merge: mkdtemp");
        return 1;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = ncpu < 1 ? 1 : ncpu > 64 ? 64 : (int)ncpu;

    census c = { .plan = &plan, .items = items, .nitems = nitems };
    gc_run_meta *m = &c.meta;
    snprintf(m->tool_version, sizeof m->tool_version, "%s", GC_VERSION);
    snprintf(m->git_commit, sizeof m->git_commit, "%s", GC_GIT_COMMIT);
    snprintf(m->plan_name, sizeof m->plan_name, "%s", plan.name);
    snprintf(m->plan_file, sizeof m->plan_file, "%s", plan.file);
    snprintf(m->plan_sha256, sizeof m->plan_sha256, "%s", plan.sha256);
    iso_now(m->start_time, sizeof m->start_time);
    snprintf(m->backend, sizeof m->backend, "sim");
    snprintf(m->sim_profile, sizeof m->sim_profile, "%s", plan.sim.profile);
    m->seed = plan.sim.seed;
    m->precision = plan.precision;
    m->sub_bits = sub_bits;

    printf("bench_merge: plan %s (%zu work items), %d GPUs per node, best of %d merges, "
           "%d generator processes, work dir %s\n",
           plan.file, nitems, per_node, reps, workers, dir);
    printf("%6s %6s %10s %12s %9s %9s %9s %8s %9s %10s\n", "gpus", "nodes", "gen_s",
           "shard_B/gpu", "merge_s", "peak_mb", "mb/gpu", "out_mb", "t_ratio", "cat_B/gpu");
    int status = 0;
    double prev_s = 0;
    int prev_n = 0;
    double res_s[MAX_SIZES] = { 0 }, res_mb[MAX_SIZES] = { 0 }, res_bpg[MAX_SIZES] = { 0 },
           res_cat[MAX_SIZES] = { 0 };
    for (int si = 0; si < nsizes; si++) {
        int n = sizes[si];
        c.ranks = n;
        c.nodes = (n + per_node - 1) / per_node;
        m->ranks = n;
        m->nodes = c.nodes;
        char base[4200], out[4300], nodes_dir[4400], logf[4300];
        snprintf(base, sizeof base, "%s/n%d", dir, n);
        snprintf(c.shards, sizeof c.shards, "%s/shards", base);
        snprintf(out, sizeof out, "%s/out", base);
        snprintf(logf, sizeof logf, "%s/merge.log", base);
        snprintf(nodes_dir, sizeof nodes_dir, "%s/nodes", out);
        if (gc_mkdir_p(c.shards, &e)) {
            fprintf(stderr, "bench_merge: %s\n", e.msg);
            status = 1;
            break;
        }
        double g0 = now_s();
        if (write_roster(&c, &e)) {
            fprintf(stderr, "bench_merge: roster: %s\n", e.msg);
            status = 1;
            break;
        }
        if (generate(&c, workers)) {
            fprintf(stderr, "bench_merge: generating %d shards failed\n", n);
            status = 1;
            break;
        }
        double gen_s = now_s() - g0;
        int nshards;
        uint64_t shard_bytes = dir_bytes(c.shards, ".gcs", &nshards);
        if (nshards != n) {
            fprintf(stderr, "bench_merge: %d shards written, expected %d\n", nshards, n);
            status = 1;
            break;
        }
        double best = 1e30;
        long peak_kb = 0;
        for (int r = 0; r < reps; r++) {
            double s;
            long kb;
            int rc = run_merge(exe, c.shards, out, logf, &s, &kb);
            if (rc != 0) {
                fprintf(stderr, "bench_merge: merge of %d GPUs failed (status %d)\n", n, rc);
                status = 1;
                break;
            }
            if (s < best)
                best = s;
            if (kb > peak_kb)
                peak_kb = kb;
        }
        if (status)
            break;
        /* A merge that could not read the shards is no measurement. */
        if (count_ok(logf) != n) {
            fprintf(stderr, "bench_merge: merge of %d GPUs did not find them all ok (see %s)\n",
                    n, logf);
            status = 1;
            break;
        }
        char catf[4400];
        struct stat st;
        snprintf(catf, sizeof catf, "%s/catalogue.json", out);
        uint64_t cat_bytes = stat(catf, &st) == 0 ? (uint64_t)st.st_size : 0;
        uint64_t out_bytes = dir_bytes(nodes_dir, ".json", NULL) + cat_bytes;
        double peak_mb = peak_kb / 1024.0, bpg = (double)shard_bytes / n;
        char ratio[32] = "-";
        if (prev_n)
            snprintf(ratio, sizeof ratio, "%.2f", best / prev_s);
        printf("%6d %6d %10.2f %12.0f %9.3f %9.1f %9.3f %8.1f %9s %10.0f\n", n, c.nodes, gen_s, bpg,
               best, peak_mb, peak_mb / n, out_bytes / 1048576.0, ratio, (double)cat_bytes / n);
        fflush(stdout);
        res_s[si] = best;
        res_mb[si] = peak_mb;
        res_bpg[si] = bpg;
        res_cat[si] = (double)cat_bytes / n;
        prev_s = best;
        prev_n = n;
    }
    if (!status) {
        printf("plan=%s\n", plan.name);
        for (int si = 0; si < nsizes; si++) {
            printf("merge_%d_s=%.3f\npeak_%d_mb=%.1f\nshard_bytes_per_gpu_%d=%.0f\n"
                   "catalogue_bytes_per_gpu_%d=%.0f\n", sizes[si], res_s[si], sizes[si], res_mb[si],
                   sizes[si], res_bpg[si], sizes[si], res_cat[si]);
            if (si)
                printf("ratio_%d_%d=%.2f (linear: %.2f)\n", sizes[si], sizes[si - 1],
                       res_s[si] / res_s[si - 1], (double)sizes[si] / sizes[si - 1]);
        }
    }
    if (own_dir && !keep) {
        char cmd[4300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "bench_merge: could not remove %s\n", dir);
    } else if (own_dir) {
        printf("kept %s\n", dir);
    }
    free(items);
    gc_plan_free(&plan);
    return status;
}
