/* Reading libconfig settings: typed, range-checked getters and the
 * "FILE:LINE: key.path: message" errors they report. See cfgread.h. */
#include "util/cfgread.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- error reporting ---------------------------------------------------- */

int gc_cfg_line_of(const config_setting_t *s)
{
    int line = s ? (int)config_setting_source_line(s) : 0;
    return line > 0 ? line : 1;
}

int gc_cfg_fail_at(const gc_cfg *L, int line, const char *path, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gc_fail(L->err, GC_EINVAL, "%s:%d: %s: %s", L->file, line, path, msg);
}

int gc_cfg_fail_missing(const gc_cfg *L, const config_setting_t *parent, const char *path)
{
    return gc_cfg_fail_at(L, gc_cfg_line_of(parent), path, "missing required setting");
}

void gc_cfg_path_key(char out[GC_CFG_PATH], const char *base, const char *key)
{
    int n = snprintf(out, GC_CFG_PATH, "%s%s%s", base, base[0] ? "." : "", key);
    if (n >= GC_CFG_PATH)   /* keys are short; a path this long is cut */
        memcpy(out + GC_CFG_PATH - 4, "...", 4);
}

void gc_cfg_path_index(char out[GC_CFG_PATH], const char *base, unsigned idx)
{
    snprintf(out, GC_CFG_PATH, "%s.[%u]", base, idx);
}

/* Integers print as integers (byte counts can be large), others with %g. */
const char *gc_cfg_fmt_num(char buf[40], double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, 40, "%.0f", v);
    else
        snprintf(buf, 40, "%g", v);
    return buf;
}

const char *gc_cfg_join_words(char *buf, size_t n, const char *const *words)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; words[i] && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", words[i]);
    return buf;
}

int gc_cfg_in_words(const char *s, const char *const *words)
{
    for (size_t i = 0; words[i]; i++)
        if (strcmp(s, words[i]) == 0)
            return 1;
    return 0;
}

const char *gc_cfg_type_name(const config_setting_t *s)
{
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64: return "an integer";
    case CONFIG_TYPE_FLOAT: return "a float";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL: return "a boolean";
    case CONFIG_TYPE_GROUP: return "a group { }";
    case CONFIG_TYPE_ARRAY: return "an array [ ]";
    case CONFIG_TYPE_LIST: return "a list ( )";
    default: return "an unknown type";
    }
}

/* ---- typed getters ------------------------------------------------------ */

int gc_cfg_is_number(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT;
}

double gc_cfg_num_value(const config_setting_t *s)
{
    if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
        return config_setting_get_float(s);
    return (double)config_setting_get_int64(s);
}

/* Every member of group must be named in allowed. */
int gc_cfg_check_keys(const gc_cfg *L, const config_setting_t *group,
                  const char *path, const char *const *allowed)
{
    int n = config_setting_length(group);
    for (int i = 0; i < n; i++) {
        const config_setting_t *m = config_setting_get_elem(group, (unsigned)i);
        const char *name = config_setting_name(m);
        if (name && gc_cfg_in_words(name, allowed))
            continue;
        char p[GC_CFG_PATH], words[256];
        gc_cfg_path_key(p, path, name ? name : "?");
        return gc_cfg_fail_at(L, gc_cfg_line_of(m), p, "unknown setting (expected one of: %s)",
                          gc_cfg_join_words(words, sizeof words, allowed));
    }
    return 0;
}

/* A number in [lo, hi] ((lo, hi] when lo_open). */
int gc_cfg_get_num(const gc_cfg *L, const config_setting_t *s, const char *path,
               double lo, double hi, int lo_open, double *out)
{
    char a[40], b[40], c[40];
    if (!gc_cfg_is_number(s))
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), path, "expected a number, got %s", gc_cfg_type_name(s));
    double v = gc_cfg_num_value(s);
    if (!isfinite(v) || v > hi || v < lo || (lo_open && v == lo))
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), path, "%s out of range %s%s, %s]",
                          isfinite(v) ? gc_cfg_fmt_num(a, v) : "non-finite value",
                          lo_open ? "(" : "[", gc_cfg_fmt_num(b, lo), gc_cfg_fmt_num(c, hi));
    *out = v;
    return 0;
}

int gc_cfg_get_int(const gc_cfg *L, const config_setting_t *s, const char *path,
               int64_t lo, int64_t hi, int64_t *out)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), path, "expected an integer, got %s", gc_cfg_type_name(s));
    int64_t v = config_setting_get_int64(s);
    if (v < lo || v > hi)
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), path, "%lld out of range [%lld, %lld]",
                          (long long)v, (long long)lo, (long long)hi);
    *out = v;
    return 0;
}

/* A string shorter than cap bytes (cap includes the NUL). */
int gc_cfg_get_str(const gc_cfg *L, const config_setting_t *s, const char *path,
               size_t cap, const char **out)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), path, "expected a string, got %s", gc_cfg_type_name(s));
    const char *v = config_setting_get_string(s);
    if (strlen(v) >= cap)
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), path, "longer than %zu characters", cap - 1);
    *out = v;
    return 0;
}

/* Optional member helpers: leave *out untouched when the key is absent. */
int gc_cfg_opt_num(const gc_cfg *L, const config_setting_t *g, const char *base,
               const char *key, double lo, double hi, int lo_open, double *out)
{
    const config_setting_t *s = config_setting_get_member(g, key);
    char p[GC_CFG_PATH];
    gc_cfg_path_key(p, base, key);
    return s ? gc_cfg_get_num(L, s, p, lo, hi, lo_open, out) : 0;
}

int gc_cfg_opt_int(const gc_cfg *L, const config_setting_t *g, const char *base,
               const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    const config_setting_t *s = config_setting_get_member(g, key);
    char p[GC_CFG_PATH];
    gc_cfg_path_key(p, base, key);
    return s ? gc_cfg_get_int(L, s, p, lo, hi, out) : 0;
}

/* Names used in file names and keys: [A-Za-z0-9_.-]+, not . or .. */
int gc_cfg_valid_name(const char *s)
{
    if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))   /* they name directories */
        return 0;
    for (; *s; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

int gc_cfg_get_name(const gc_cfg *L, const config_setting_t *s, const char *path,
                size_t cap, const char **out)
{
    int rc = gc_cfg_get_str(L, s, path, cap, out);
    if (rc)
        return rc;
    if (!gc_cfg_valid_name(*out))
        return gc_cfg_fail_at(L, gc_cfg_line_of(s), path, "'%s' is not a name ([A-Za-z0-9_.-]+)", *out);
    return 0;
}
