/* `gpucensus merge`: the command around write/merge.c. See merge_cmd.h. */
#include "util/quote.h"
#include "cmd/merge_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "write/merge.h"

int gc_merge_main(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] != '-' && !dir)
            dir = argv[i];
        else
            return fprintf(stderr, "gpucensus merge: unexpected argument '%s'\n", argv[i]), 2;
    }
    if (!dir || !out)
        return fprintf(stderr, "usage: gpucensus merge SHARDS_DIR -o OUT\n"), 2;
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
