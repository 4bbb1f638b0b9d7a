/* libFuzzer target for the catalogue and baseline reader (catread.c) and
 * the detector behind it: arbitrary bytes, read as a catalogue (then
 * judged, verdicts written as JSON and parsed back) and as a baseline,
 * give either a result or an error "NAME:LINE: ..." / "NAME: ..."; never a
 * crash, a hang or a leak. The first byte picks the rules' min_peers
 * (1..4 peers suffice for small inputs to reach the peer rules).
 * Then read once more as check reads it without a baseline (a schema-2
 * catalogue's verdicts as written, catread_verdicts.c).
 * Seed corpus: tests/fuzz/corpus/catread (small sim catalogues of schema 1
 * and 2, a baseline file, crafted edits).
 * Build and run: tests/fuzz/run.sh SECONDS catread */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/catread.h"

static void check_msg(int rc, const gc_err *err, const char *name)
{
    if (rc && (strncmp(err->msg, name, strlen(name)) != 0 && strncmp(err->msg, "detect:", 7) != 0))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    gc_rules r;
    gc_rules_default(&r);
    r.min_peers = 2 + data[0] % 3;
    const char *buf = (const char *)data + 1;
    size--;

    gc_err err = { 0 };
    gc_baseline *base = NULL;
    int brc = gc_catread_baseline_mem("fuzz.json", buf, size, &base, &err);
    check_msg(brc, &err, "fuzz.json");
    if (brc && base)
        abort();

    gc_detect *d = gc_detect_new(&r, base);
    gc_catread_info info = { 0 };   /* info.table is read: NULL, no table wanted */
    memset(&err, 0, sizeof err);
    int rc = gc_catread_catalogue_mem("fuzz.json", buf, size, d, &r, &info, &err);
    check_msg(rc, &err, "fuzz.json");
    if (rc && rc != GC_ECORRUPT && rc != GC_ENOMEM && rc != GC_EINVAL)
        abort();
    if (!rc) {
        rc = gc_detect_finish(d, &err);
        check_msg(rc, &err, "fuzz.json");
    }
    if (!rc) {
        int worst = gc_detect_worst(d);
        if (worst < 0 || worst > GC_V_FAILED)
            abort();
        char *t = gc_detect_json(d, 1);
        if (t) {
            json_error_t je;
            json_t *v = json_loads(t, 0, &je);
            if (!json_is_array(v) || json_array_size(v) != gc_detect_count(d))
                abort();   /* the verdicts must be valid JSON, one per subject */
            json_decref(v);
            free(t);
        }
    }
    gc_detect_free(d);

    /* the verdicts as written (a schema-2 catalogue: check without a
     * baseline), or judged again (schema 1) */
    d = gc_detect_new(&r, NULL);
    int as_written = 0;
    memset(&err, 0, sizeof err);
    rc = gc_catread_verdicts_mem("fuzz.json", buf, size, d, &r, &info, &as_written, &err);
    check_msg(rc, &err, "fuzz.json");
    if (!rc && !as_written)
        rc = gc_detect_finish(d, &err);
    if (!rc) {
        int worst = gc_detect_worst(d);
        if (worst < 0 || worst > GC_V_FAILED)
            abort();
        free(gc_detect_json(d, 1));
    }
    gc_detect_free(d);
    gc_baseline_free(base);
    return 0;
}
