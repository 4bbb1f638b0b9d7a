/* Reading libconfig files with errors that name the place: every reader
 * of a libconfig file (plans, kernel descriptions) reports
 * "FILE:LINE: key.path: message" through these, typed and range-checked. */
#ifndef GC_CFGREAD_H
#define GC_CFGREAD_H

#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define GC_CFG_PATH 160         /* a key path such as benchmarks.[3].sweep.size_bytes */

/* What every validation function needs to report an error. */
typedef struct gc_cfg {
    const char *file;
    gc_err *err;
} gc_cfg;

/* ---- error reporting ---- */

/* The setting's line in the file, 1 when unknown. */
int gc_cfg_line_of(const config_setting_t *s);
/* Fills L->err with "FILE:LINE: path: message" and returns GC_EINVAL. */
int gc_cfg_fail_at(const gc_cfg *L, int line, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int gc_cfg_fail_missing(const gc_cfg *L, const config_setting_t *parent, const char *path);
void gc_cfg_path_key(char out[GC_CFG_PATH], const char *base, const char *key);
void gc_cfg_path_index(char out[GC_CFG_PATH], const char *base, unsigned idx);
const char *gc_cfg_fmt_num(char buf[40], double v);
const char *gc_cfg_join_words(char *buf, size_t n, const char *const *words);
int gc_cfg_in_words(const char *s, const char *const *words);
const char *gc_cfg_type_name(const config_setting_t *s);

/* ---- typed getters; 0 or the error's code ---- */

int gc_cfg_is_number(const config_setting_t *s);
double gc_cfg_num_value(const config_setting_t *s);
int gc_cfg_check_keys(const gc_cfg *L, const config_setting_t *group, const char *path,
                  const char *const *allowed);
int gc_cfg_get_num(const gc_cfg *L, const config_setting_t *s, const char *path,
               double lo, double hi, int lo_open, double *out);
int gc_cfg_get_int(const gc_cfg *L, const config_setting_t *s, const char *path,
               int64_t lo, int64_t hi, int64_t *out);
int gc_cfg_get_str(const gc_cfg *L, const config_setting_t *s, const char *path,
               size_t cap, const char **out);
int gc_cfg_opt_num(const gc_cfg *L, const config_setting_t *g, const char *base,
               const char *key, double lo, double hi, int lo_open, double *out);
int gc_cfg_opt_int(const gc_cfg *L, const config_setting_t *g, const char *base,
               const char *key, int64_t lo, int64_t hi, int64_t *out);
int gc_cfg_valid_name(const char *s);
int gc_cfg_get_name(const gc_cfg *L, const config_setting_t *s, const char *path,
                size_t cap, const char **out);

#endif
