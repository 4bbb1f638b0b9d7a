/* Private to the plan loader (plan.c, plan_sweep.c, plan_sim.c,
 * plan_bytes.c): what its parts share. Not for use outside src/plan*.c; the
 * public interface is plan.h. Settings are read through cfgread.h, so plan
 * errors read like every other libconfig file's. Shared functions carry a
 * pl_ prefix so they stay clear of other modules' names in the library. */
#ifndef GC_PLAN_INT_H
#define GC_PLAN_INT_H

#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>

#include "util/cfgread.h"
#include "util/err.h"
#include "plan/plan.h"

/* ---- the parts of a plan ---- */

/* plan_sweep.c: the sweep group g of benchmark entry b (b->def set); adds
 * b's axes and sets *points to the product of their lengths. */
int pl_load_sweep(const gc_cfg *L, const config_setting_t *g, const char *path,
                  gc_bench_spec *b, size_t *points);
/* plan_sim.c: the sim group. */
int pl_load_sim(const gc_cfg *L, const config_setting_t *g, gc_sim_spec *sim);
/* plan_bytes.c: the raw bytes, before libconfig parses them. */
int pl_check_bytes(const gc_cfg *L, const char *buf, size_t len);
int pl_check_int_literals(const gc_cfg *L, const char *b, size_t len);

#endif
