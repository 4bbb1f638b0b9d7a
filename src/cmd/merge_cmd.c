/* `gpucensus merge`: the command around write/merge.c. See merge_cmd.h. */
#include "util/quote.h"
#include "cmd/merge_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/args.h"
#include "write/merge.h"

const char gc_merge_usage[] =
    "merge SHARDS_DIR -o OUT\n"
    "        rebuild OUT/catalogue.json and OUT/nodes/ from the shards alone\n"
    "\n"
    "  -o:  the output directory\n"
    "exit codes: 0 done; 1 merge failed (a bad shard, named); 2 bad arguments\n";

static const gc_opt merge_opts[] = { { "-o", 1 } };

int gc_merge_main(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    gc_args a;
    gc_args_init(&a, "gpucensus merge", gc_merge_usage, argc, argv, merge_opts, 1);
    for (int k; (k = gc_args_next(&a)) != GC_ARG_END;) {
        if (k == GC_ARG_HELP)
            return 0;
        if (k == GC_ARG_BAD)
            return GC_EXIT_USAGE;
        if (k == 0)
            out = a.value;
        else if (!dir)
            dir = a.value;
        else
            return gc_args_unexpected(&a, a.value);
    }
    if (!dir || !out)
        return gc_args_missing(&a, "SHARDS_DIR and -o OUT");
    if (!*out)
        return fprintf(stderr, "gpucensus merge: -o: the output directory is empty\n"), 2;
    gc_run_meta run;
    gc_catalogue_stats st;
    gc_err e = { 0 };
    if (gc_merge(dir, out, &run, &st, &e)) {
        fprintf(stderr, "gpucensus: merge: %s\n", e.msg);
        return 1;
    }
    if (st.links_dropped) {   /* names from the shards, escaped for the terminal */
        char d[600], f[600];
        gc_term_esc(dir, d, sizeof d);
        gc_term_esc(st.link_dropped_first, f, sizeof f);
        fprintf(stderr, "gpucensus merge: left out %zu link(s) whose other end is no GPU of %s (no roster "
                "names it), first: %s\n", st.links_dropped, d, f);
    }
    gc_report_summary(stdout, &run, &st, out, 0);
    free(st.briefs);
    return 0;
}
