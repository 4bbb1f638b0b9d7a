/* libFuzzer target for the published verdict file reader
 * (cmd/verdict_file.c): arbitrary bytes give either node n2's verdict
 * (a level, a parsed time, strings without control characters) or an
 * error "fuzz.verdict...: ..."; never a crash, a hang or a leak.
 * Seed corpus: tests/fuzz/corpus/vfile (what `history publish` writes).
 * Build and run: tests/fuzz/run.sh SECONDS vfile */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/verdict_file.h"

static int clean(const char *s, size_t cap)
{
    const char *end = memchr(s, '\0', cap);
    if (!end)
        return 0;
    for (; s < end; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gc_vfile f;
    gc_err err = { 0 };
    const char *name = "fuzz.verdict";
    int rc = gc_vfile_parse(name, (const char *)data, size, "n2", &f, &err);
    if (rc) {
        if (strncmp(err.msg, name, strlen(name)) != 0 || rc != GC_ECORRUPT)
            abort();
        return 0;
    }
    if (strcmp(f.v.node, "n2") || f.v.level < 0 || f.v.level > 3 || f.v.t_s <= 0 || f.published_s <= 0 ||
        !clean(f.v.plan, sizeof f.v.plan) || !clean(f.v.reason, sizeof f.v.reason) ||
        !clean(f.v.source, sizeof f.v.source) || !clean(f.v.time, sizeof f.v.time))
        abort();
    return 0;
}
