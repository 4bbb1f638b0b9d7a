/* libFuzzer target for what the history keeps of a catalogue
 * (catread_hist.c) and the history database behind it (history.c,
 * history_base.c): arbitrary bytes read as a catalogue give either the run
 * or an error "NAME:LINE: ..." / "NAME: ..."; a catalogue that reads is
 * added to an in-memory database (once: the second add is refused),
 * judged against it as `check --baseline DB` would, and its nodes' last
 * verdicts are read back. Never a crash, a hang or a leak.
 * Seed corpus: tests/fuzz/corpus/hist (a small sim catalogue, a truncated one).
 * Build and run: tests/fuzz/run.sh SECONDS hist */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/catread_hist.h"
#include "read/history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gc_err err = { 0 };
    gc_hcat c;
    int rc = gc_catread_hist_mem("fuzz.json", (const char *)data, size, &c, &err);
    if (rc) {
        if (strncmp(err.msg, "fuzz.json", 9) || (rc != GC_ECORRUPT && rc != GC_ENOMEM && rc != GC_EIO))
            abort();
        return 0;
    }
    gc_history *h;
    if (gc_history_open(":memory:", 1, 1, &h, &err))
        abort();
    rc = gc_history_add(h, &c, "fuzz.json", &err);
    if (rc && rc != GC_EINVAL)   /* only a start time that is not a time is refused */
        abort();
    if (!rc && gc_history_add(h, &c, "fuzz.json", &err) != GC_EEXIST)
        abort();
    gc_rules r;
    gc_rules_default(&r);
    gc_baseline *b = NULL;
    size_t ndrift;
    char *note = NULL;
    if (gc_history_baseline(h, &c, &r, &b, &ndrift, &note, &err))
        abort();
    gc_baseline_free(b);
    free(note);
    for (size_t i = 0; i < c.nnodes; i++) {
        gc_hnode v;
        int lrc = gc_history_last_node(h, c.nodes[i].name, &v, &err);
        if (!rc && lrc)
            abort();   /* an added run's nodes have a verdict */
    }
    gc_history_close(h);
    gc_hcat_free(&c);
    return 0;
}
