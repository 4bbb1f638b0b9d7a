/* One parser for every command's arguments, so that they all behave alike:
 * `--opt V` and `--opt=V` both work, `-h`/`--help` is seen everywhere, `--`
 * ends the options, and an unknown option is refused with the list of the
 * ones the command takes (what tests/cli/t_usage.sh compares with the usage
 * and the README). The caller loops on gc_args_next and switches on the
 * option's index in its table. */
#ifndef GC_ARGS_H
#define GC_ARGS_H

#include <stddef.h>
#include <stdio.h>

typedef struct gc_opt {
    const char *name;   /* "--backend" or "-o" */
    int has_value;      /* 1: takes a value (`--name V`, `--name=V`) */
} gc_opt;

typedef struct gc_args {
    const char *cmd;    /* "gpucensus run", for messages */
    const char *usage;  /* the command's usage (see gc_args_print_usage) */
    int argc;
    char **argv;
    int i;              /* the next argument */
    int no_more_opts;   /* after `--` */
    const gc_opt *opts;
    size_t nopts;
    const char *value;  /* the option's value, or the positional argument */
} gc_args;

/* gc_args_next's returns besides an option's index. */
enum { GC_ARG_END = -1, GC_ARG_POS = -2, GC_ARG_HELP = -3, GC_ARG_BAD = -4 };

/* The exit status of bad arguments, for every command. */
#define GC_EXIT_USAGE 2

/* usage: the command's synopsis without "gpucensus " (every option named;
 * what it does, indented), a blank line, then details and its exit codes:
 * `gpucensus X --help` prints all of it, `gpucensus help` the synopsis. */
void gc_args_init(gc_args *a, const char *cmd, const char *usage, int argc, char **argv,
                  const gc_opt *opts, size_t nopts);
/* The next argument: an option's index in opts (its value, if it takes
 * one, in a->value), GC_ARG_POS (a->value), GC_ARG_HELP (-h, --help: the
 * usage is on stdout already; the command exits 0),
 * GC_ARG_END, or GC_ARG_BAD (an unknown option, a missing value, a value
 * given to a flag: the message is on stderr already). */
int gc_args_next(gc_args *a);
/* "usage: gpucensus " and the whole usage; synopsis_only: up to its
 * first blank line, indented, without "usage: gpucensus ". */
void gc_args_print_usage(FILE *f, const char *usage, int synopsis_only);
/* A required argument missing: "CMD: what" and the synopsis on stderr;
 * returns GC_EXIT_USAGE. */
int gc_args_missing(const gc_args *a, const char *what);
/* "gpucensus X: unexpected argument 'A'" on stderr; returns GC_EXIT_USAGE. */
int gc_args_unexpected(const gc_args *a, const char *arg);
/* Integer and seconds values: 0 when valid and within [lo, hi], else the
 * message "CMD: OPT: WHAT" on stderr and -1. */
int gc_args_int(const gc_args *a, const char *opt, const char *s, long lo, long hi, int *out);
int gc_args_seconds(const gc_args *a, const char *opt, const char *s, double hi, double *out);

#endif
