/* libFuzzer target for the node-file reader (read/catread_points.c): the
 * bytes are written as OUT/nodes/n1.json (first byte odd: as
 * nodes/n1.json.gz, read through zlib, whose inflation is bounded), then
 * read as the catalogue's points are: the GPU of index 0 and the node's
 * links, with this run's identity set or not (second byte). A result or an
 * error naming the file; never a crash, a hang or a leak.
 * Seed corpus: tests/fuzz/corpus/nodefile (sim node files, crafted edits).
 * Build and run: tests/fuzz/run.sh SECONDS nodefile */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/catread_points.h"

static char dir[64];

static void setup(void)
{
    if (dir[0])
        return;
    snprintf(dir, sizeof dir, "/tmp/gcfuzz-node.%d", (int)getpid());
    char p[128];
    mkdir(dir, 0700);
    snprintf(p, sizeof p, "%s/nodes", dir);
    mkdir(p, 0700);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    setup();
    int gz = data[0] & 1, with_run = data[1] & 1;
    char path[160], other[160], cat[160];
    snprintf(path, sizeof path, "%s/nodes/n1.json%s", dir, gz ? ".gz" : "");
    snprintf(other, sizeof other, "%s/nodes/n1.json%s", dir, gz ? "" : ".gz");
    snprintf(cat, sizeof cat, "%s/catalogue.json", dir);
    unlink(other);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data + 2, 1, size - 2, f);
    fclose(f);
    gc_catpoints *c = gc_catpoints_new(cat);
    if (!c)
        return 0;
    if (with_run)
        gc_catpoints_set_run(c, "2026-12-07T15:03:00Z", "ab12");
    gc_err err = { 0 };
    json_t *res = gc_catpoints_gpu(c, "n1", 0, &err);
    if (!res && !strstr(err.msg, "n1.json"))
        abort();   /* every error names the file */
    memset(&err, 0, sizeof err);
    json_t *links = gc_catpoints_links(c, "n1", &err);
    if (!links && !strstr(err.msg, "n1.json"))
        abort();
    gc_catpoints_free(c);
    return 0;
}
