/* Terminal summary. See report.h. */
#include "report.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Past this many GPUs only the ones that are not ok get a row. */
#define ALL_ROWS_MAX 64

static void cell(FILE *f, double v, int width, int prec)
{
    if (v > 0)
        fprintf(f, " %*.*f", width, prec, v);
    else
        fprintf(f, " %*s", width, "-");
}

void gc_report_summary(FILE *f, const gc_run_meta *run, const gc_catalogue_stats *st,
                       const char *out_dir, double elapsed_s)
{
    /* Launchers give ranks a pseudo-terminal even when the job's output
     * goes to a file, so a rank of an MPI job never colours. */
    int tty = isatty(fileno(f)) && !getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_RANK") &&
              !getenv("PMIX_RANK") && !getenv("SLURM_PROCID") && !getenv("NO_COLOR");
    const char *red = tty ? "\033[31m" : "", *yel = tty ? "\033[33m" : "", *off = tty ? "\033[0m" : "";
    fprintf(f, "gpucensus %s: plan %s, backend %s%s, %d ranks on %d nodes, %.1f s\n",
            run->tool_version, run->plan_name, run->backend,
            strcmp(run->backend, "sim") == 0 ? " (simulated GPUs)" : "", run->ranks, run->nodes,
            elapsed_s);
    fprintf(f, "%-12s %3s %-8s %6s %6s %6s %8s %6s %6s  %s\n", "node", "gpu", "status", "L1", "L2",
            "DRAM", "HBM", "HBM", "failed", "name");
    fprintf(f, "%-12s %3s %-8s %6s %6s %6s %8s %6s %6s\n", "", "", "", "cycles", "cycles", "cycles",
            "GB/s", "%theo", "items");
    int shown = 0;
    for (int i = 0; i < st->gpus; i++) {
        const gc_brief *b = &st->briefs[i];
        if (st->gpus > ALL_ROWS_MAX && b->status == GC_GPU_OK)
            continue;
        const char *c = b->status == GC_GPU_FAILED ? red : b->status == GC_GPU_PARTIAL ? yel : "";
        fprintf(f, "%-12s %3d %s%-8s%s", b->node, b->index, c, gc_gpu_status_name(b->status),
                *c ? off : "");
        cell(f, b->l1_cycles, 6, 0);
        cell(f, b->l2_cycles, 6, 0);
        cell(f, b->dram_cycles, 6, 0);
        cell(f, b->hbm_bps / 1e9, 8, 0);
        cell(f, b->hbm_ratio * 100, 6, 1);
        fprintf(f, " %6zu  %s\n", b->failed_items, b->name);
        shown++;
    }
    if (shown < st->gpus)
        fprintf(f, "(%d GPUs ok not shown)\n", st->gpus - shown);
    fprintf(f, "GPUs: %d ok, %d partial, %d failed, on %d nodes\n", st->ok, st->partial, st->failed,
            st->nodes);
    fprintf(f, "catalogue: %s/catalogue.json (per node: %s/nodes/)\n", out_dir, out_dir);
}
