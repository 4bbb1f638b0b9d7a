/* libFuzzer target for what `gpucensus predict` reads: arbitrary bytes as
 * a catalogue (catread_models.c; then both models predict a fixed kernel
 * on every GPU it read, with whatever parameters it holds) and as a kernel
 * description (kdesc.c). The first byte picks which. Either a result or an
 * error "NAME:LINE: ..." / "NAME: ..."; never a crash, a hang or a leak.
 * Seed corpus: tests/fuzz/corpus/predict (a small sim catalogue with
 * models, descriptions). Build and run: tests/fuzz/run.sh SECONDS predict */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/catread_models.h"
#include "census/kdesc.h"
#include "analyze/model_little.h"
#include "analyze/model_mwp.h"

/* libconfig 1.5 leaks a pending string token when a parse fails
 * (hyperrealm/libconfig#142; see fuzz_plan.c): only leaks allocated inside
 * libconfig are suppressed. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libconfig.so\n";
}

static const char *const kernel_text =
    "kernel = { name = \"k\"; origin = \"hand\"; grid_blocks = 4096L; block_threads = 256;\n"
    "  registers_per_thread = 32; smem_static_bytes = 4096; syncs = 2;\n"
    "  insts = { fp32 = 64; fp64 = 2; int = 8; sfu = 1; smem = 4; };\n"
    "  mem = ( { op = \"load\"; count = 2; bytes_per_thread = 4; sectors_per_inst = 4; },\n"
    "          { op = \"store\"; count = 1; bytes_per_thread = 8; sectors_per_inst = 32; } );\n"
    "  critical_path = { fp32 = 32; int = 2; smem = 2; gmem = 1; }; };\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int mode = data[0] & 1;
    const char *buf = (const char *)data + 1;
    size--;
    gc_err err = { 0 };
    if (mode) {
        char *t = malloc(size + 1);
        if (!t)
            return 0;
        memcpy(t, buf, size);
        t[size] = '\0';
        gc_kdesc d;
        int rc = gc_kdesc_parse("fuzz.cfg", t, &d, &err);
        if (rc && strncmp(err.msg, "fuzz.cfg:", 9) != 0)
            abort();
        free(t);
        return 0;
    }
    gc_cat_models m;
    int rc = gc_catread_models_mem("fuzz.json", buf, size, &m, &err);
    if (rc) {
        if (strncmp(err.msg, "fuzz.json", 9) != 0 && strncmp(err.msg, "out of memory", 13) != 0)
            abort();
        return 0;
    }
    gc_kdesc d;
    if (gc_kdesc_parse("k.cfg", kernel_text, &d, &err))
        abort();
    for (size_t i = 0; i < m.ngpus; i++) {
        gc_occ_limits lim;
        gc_occ_limits_of(&m.gpus[i].info, &lim);
        gc_mlaunch l;
        if (gc_mlaunch_of(&lim, &m.gpus[i].hw, &d, &l, &err))
            continue;
        gc_mwp_pred mp;
        gc_little_pred lp;
        gc_mwp_predict(&m.gpus[i].hw, &l, &d, &mp, &err);
        gc_little_predict(&m.gpus[i].hw, &l, &d, &lp, &err);
    }
    gc_cat_models_free(&m);
    return 0;
}
