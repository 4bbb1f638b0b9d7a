/* Private to the plan loader (plan.c, plan_setting.c, plan_sweep.c,
 * plan_sim.c, plan_bytes.c): what its parts share so they report errors the
 * same way, "FILE:LINE: key.path: message". Not for use outside src/plan*.c;
 * the public interface is plan.h. Shared functions carry a pl_ prefix so
 * they stay clear of other modules' names in the library. */
#ifndef GC_PLAN_INT_H
#define GC_PLAN_INT_H

#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "plan.h"

#define PATH_CHARS 160         /* a key path such as benchmarks.[3].sweep.size_bytes */

/* What every validation function needs to report an error. */
typedef struct loader {
    const char *file;
    gc_err *err;
} loader;

/* ---- error reporting (plan_setting.c) ---- */

/* The setting's line in the file, 1 when unknown. */
int pl_line_of(const config_setting_t *s);
/* Fills L->err with "FILE:LINE: path: message" and returns GC_EINVAL. */
int pl_fail_at(const loader *L, int line, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int pl_fail_missing(const loader *L, const config_setting_t *parent, const char *path);
void pl_path_key(char out[PATH_CHARS], const char *base, const char *key);
void pl_path_index(char out[PATH_CHARS], const char *base, unsigned idx);
const char *pl_fmt_num(char buf[40], double v);
const char *pl_join_words(char *buf, size_t n, const char *const *words);
int pl_in_words(const char *s, const char *const *words);
const char *pl_type_name(const config_setting_t *s);

/* ---- typed getters (plan_setting.c); 0 or the error's code ---- */

int pl_is_number(const config_setting_t *s);
double pl_num_value(const config_setting_t *s);
int pl_check_keys(const loader *L, const config_setting_t *group, const char *path,
                  const char *const *allowed);
int pl_get_num(const loader *L, const config_setting_t *s, const char *path,
               double lo, double hi, int lo_open, double *out);
int pl_get_int(const loader *L, const config_setting_t *s, const char *path,
               int64_t lo, int64_t hi, int64_t *out);
int pl_get_str(const loader *L, const config_setting_t *s, const char *path,
               size_t cap, const char **out);
int pl_opt_num(const loader *L, const config_setting_t *g, const char *base,
               const char *key, double lo, double hi, int lo_open, double *out);
int pl_opt_int(const loader *L, const config_setting_t *g, const char *base,
               const char *key, int64_t lo, int64_t hi, int64_t *out);
int pl_valid_name(const char *s);
int pl_get_name(const loader *L, const config_setting_t *s, const char *path,
                size_t cap, const char **out);

/* ---- the parts of a plan ---- */

/* plan_sweep.c: the sweep group g of benchmark entry b (b->def set); adds
 * b's axes and sets *points to the product of their lengths. */
int pl_load_sweep(const loader *L, const config_setting_t *g, const char *path,
                  gc_bench_spec *b, size_t *points);
/* plan_sim.c: the sim group. */
int pl_load_sim(const loader *L, const config_setting_t *g, gc_sim_spec *sim);
/* plan_bytes.c: the raw bytes, before libconfig parses them. */
int pl_check_bytes(const loader *L, const char *buf, size_t len);
int pl_check_int_literals(const loader *L, const char *b, size_t len);

#endif
