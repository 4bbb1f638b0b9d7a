/* libFuzzer target for the history reader (read/history.c) opened as
 * untrusted: the bytes are written as an SQLite file and opened read-only;
 * its schema is checked table by table, then every reader runs on it (the
 * GPUs, a GPU's parameters and series, a SKU's band, a node's last
 * verdict). A result or an error; never a crash, a hang (each statement is
 * bounded), a leak, or arithmetic on a value out of range.
 * Seed corpus: tests/fuzz/corpus/histdb (small histories `history add`
 * made, and edits: a view, a trigger, a start time of 2^63 - 1).
 * Build and run: tests/fuzz/run.sh SECONDS histdb */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/gcfuzz-hist.%d.db", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    gc_history *h = NULL;
    gc_err err = { 0 };
    if (gc_history_open(path, 0, 1.0, &h, &err) == 0) {
        gc_hgpu *g = NULL;
        size_t n = 0;
        if (gc_history_gpus(h, NULL, &g, &n, &err) == 0 && n > 0) {
            char (*names)[64] = NULL;
            size_t np = 0;
            if (gc_history_params(h, g[0].uuid, &names, &np, &err) == 0 && np > 0) {
                gc_hquery q = { .uuid = g[0].uuid, .param = names[0], .max = 64 };
                gc_hpoint *p = NULL;
                size_t npts = 0;
                if (gc_history_series(h, &q, &p, &npts, &err) == 0)
                    for (size_t i = 0; i < npts; i++)
                        if (!gc_history_time_ok(p[i].t_s))
                            abort();   /* out of range: must have been left out */
                free(p);
            }
            free(names);
            double lo, mid, hi;
            (void)gc_history_band(h, g[0].name, "hbm_copy_bps", NULL, 0, &lo, &mid, &hi, &err);
            gc_hnode last;
            (void)gc_history_last_node(h, g[0].node, &last, &err);
        }
        free(g);
        gc_history_close(h);
    }
    unlink(path);
    return 0;
}
