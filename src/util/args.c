/* The shared argument parser. See args.h. */
#include "util/args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gc_args_init(gc_args *a, const char *cmd, const char *usage, int argc, char **argv,
                  const gc_opt *opts, size_t nopts)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    a->usage = usage;
    a->argc = argc;
    a->argv = argv;
    a->opts = opts;
    a->nopts = nopts;
}

static void list_options(const gc_args *a)
{
    fputs(" (options:", stderr);
    for (size_t k = 0; k < a->nopts; k++)
        fprintf(stderr, " %s%s,", a->opts[k].name, a->opts[k].has_value ? " V" : "");
    fprintf(stderr, " -h|--help; %s --help)\n", a->cmd);
}

int gc_args_next(gc_args *a)
{
    a->value = NULL;
    if (a->i >= a->argc)
        return GC_ARG_END;
    const char *s = a->argv[a->i++];
    if (a->no_more_opts || s[0] != '-' || !strcmp(s, "-")) {
        a->value = s;
        return GC_ARG_POS;
    }
    if (!strcmp(s, "--")) {
        a->no_more_opts = 1;
        return gc_args_next(a);
    }
    if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
        gc_args_print_usage(stdout, a->usage, 0);
        return GC_ARG_HELP;
    }
    const char *eq = !strncmp(s, "--", 2) ? strchr(s, '=') : NULL;
    size_t len = eq ? (size_t)(eq - s) : strlen(s);
    for (size_t k = 0; k < a->nopts; k++) {
        const gc_opt *o = &a->opts[k];
        if (strlen(o->name) != len || strncmp(o->name, s, len))
            continue;
        if (!o->has_value && eq) {
            fprintf(stderr, "%s: %s takes no value\n", a->cmd, o->name);
            return GC_ARG_BAD;
        }
        if (o->has_value && eq)
            a->value = eq + 1;
        else if (o->has_value && a->i < a->argc)
            a->value = a->argv[a->i++];
        else if (o->has_value) {
            fprintf(stderr, "%s: %s needs a value\n", a->cmd, o->name);
            return GC_ARG_BAD;
        }
        return (int)k;
    }
    fprintf(stderr, "%s: unknown option '%.*s'", a->cmd, (int)len, s);
    list_options(a);
    return GC_ARG_BAD;
}

void gc_args_print_usage(FILE *f, const char *usage, int synopsis_only)
{
    if (!usage)
        return;
    if (!synopsis_only) {
        fprintf(f, "usage: gpucensus %s", usage);
        return;
    }
    const char *end = strstr(usage, "\n\n");
    size_t n = end ? (size_t)(end - usage) + 1 : strlen(usage);
    fprintf(f, "  %.*s", (int)n, usage);
}

int gc_args_missing(const gc_args *a, const char *what)
{
    fprintf(stderr, "%s: %s\n", a->cmd, what);
    const char *u = a->usage, *end = u ? strstr(u, "\n\n") : NULL;
    if (u)
        fprintf(stderr, "usage: gpucensus %.*s(%s --help)\n", (int)(end ? end - u + 1 : (long)strlen(u)), u, a->cmd);
    return GC_EXIT_USAGE;
}

int gc_args_unexpected(const gc_args *a, const char *arg)
{
    fprintf(stderr, "%s: unexpected argument '%s' (%s --help)\n", a->cmd, arg, a->cmd);
    return GC_EXIT_USAGE;
}

int gc_args_int(const gc_args *a, const char *opt, const char *s, long lo, long hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) {
        fprintf(stderr, "%s: %s: an integer in %ld..%ld, not '%s'\n", a->cmd, opt, lo, hi, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int gc_args_seconds(const gc_args *a, const char *opt, const char *s, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || !(v > 0 && v <= hi)) {
        fprintf(stderr, "%s: %s: seconds, > 0 and <= %g, not '%s'\n", a->cmd, opt, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}
