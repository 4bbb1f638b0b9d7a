/* libFuzzer target for the detection rules reader (rules.c): arbitrary
 * bytes give either rules within their documented ranges or an error
 * "NAME:LINE: ..." (or "NAME: ..."); never a crash, a hang or a leak.
 * Seed corpus: tests/fuzz/corpus/rules (configs/rules.cfg and variants).
 * Build and run: tests/fuzz/run.sh SECONDS rules */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "judge/rules.h"

/* libconfig 1.5 leaks a pending string token on a syntax error
 * (hyperrealm/libconfig#142); only leaks inside libconfig are ignored. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libconfig.so\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gc_rules r;
    gc_err err = { 0 };
    const char *name = "fuzz.cfg";
    int rc = gc_rules_load_mem(name, (const char *)data, size, &r, &err);
    if (rc) {
        if (strncmp(err.msg, name, strlen(name)) != 0 || (rc != GC_EINVAL && rc != GC_ENOMEM))
            abort();
        return 0;
    }
    /* what was accepted is what the documentation allows */
    if (r.min_peers < 2 || r.z_suspect < 0.5 || r.z_degraded < r.z_suspect ||
        r.rel_degraded < r.rel_suspect || r.sigma_floor_rel < 0 || r.sigma_floor_rel > 1 ||
        r.nparams > GC_RULES_MAX_PARAMS || r.nskip > GC_RULES_MAX_SKIP ||
        r.dist_rel_degraded < r.dist_rel_suspect || r.base_rel_degraded < r.base_rel_suspect ||
        r.hbm_ratio_floor < 0 || r.hbm_ratio_floor > 1 || r.throttle_bad_mask < 0)
        abort();
    for (size_t i = 0; i < r.nparams; i++)
        if (!r.params[i].name[0] || memchr(r.params[i].name, 0, sizeof r.params[i].name) == NULL ||
            (r.params[i].better != GC_BETTER_HIGHER && r.params[i].better != GC_BETTER_LOWER))
            abort();
    for (size_t i = 0; i < r.nskip; i++)
        if (!r.skip_bench[i][0])
            abort();
    return 0;
}
