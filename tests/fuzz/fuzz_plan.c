/* libFuzzer target for the plan loader and expander: arbitrary bytes must
 * give either a plan whose expansion is well formed or an error message of
 * the form "NAME:LINE: ..." with nothing left allocated. Never a crash, a
 * hang or a leak.
 *
 * Build and run (from the repository root):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 -D_GNU_SOURCE -Isrc \
 *       tests/fuzz/fuzz_plan.c src/plan*.c src/util/sha256.c src/census/registry.c \
 *       src/util/err.c src/census/results.c src/census/hist.c -lconfig -lm -o build/fuzz_plan
 *   mkdir -p build/fuzz-plan-work && build/fuzz_plan -max_total_time=60 \
 *       build/fuzz-plan-work tests/fuzz/corpus/plan
 * (the first directory receives new inputs; the checked-in seed corpus is
 * read only). Crashing inputs are kept in tests/fuzz/corpus/plan/crash-*. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"

/* libconfig 1.5 leaks a pending string token when a parse fails
 * (hyperrealm/libconfig#142, fixed in 1.7 by PR #155): 64 bytes per syntax
 * error, in the library, not here. Suppress only leaks allocated inside
 * libconfig so ours are still caught. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libconfig.so\n";
}

static void check_items(const gc_plan *plan, const gc_item *items, size_t n)
{
    if (n > GC_MAX_ITEMS)
        abort();
    for (size_t i = 0; i < n; i++) {
        const gc_item *it = &items[i];
        if (it->id != i || !it->spec || it->spec < plan->bench ||
            it->spec >= plan->bench + plan->nbench)
            abort();
        const gc_bench_def *d = it->spec->def;
        if ((size_t)it->params.n != d->nparams)
            abort();
        for (size_t q = 0; q < d->nparams; q++) {
            const gc_ctxv *v = gc_ctx_get(&it->params, d->params[q].name);
            if (!v || v->is_str != d->params[q].is_str)
                abort();
            if (!v->is_str && (v->num < d->params[q].min || v->num > d->params[q].max))
                abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gc_plan plan;
    gc_err err = { 0 };
    const char *name = "fuzz.cfg";
    int rc = gc_plan_load_mem(name, (const char *)data, size, &plan, &err);
    if (rc) {
        if (strncmp(err.msg, name, strlen(name)) != 0 || plan.bench || plan.sim.faults)
            abort();
        return 0;
    }
    gc_item *items = NULL;
    size_t n = 0;
    if (gc_plan_expand(&plan, &items, &n, &err) == 0)
        check_items(&plan, items, n);
    else
        abort();   /* a plan that loads must expand */
    free(items);
    gc_plan_free(&plan);
    return 0;
}
