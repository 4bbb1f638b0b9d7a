/* The embedded validation descriptions. See kdesc_set.h. The texts are
 * made by the build (tools/embed_desc.sh -> build/gen/valid_desc.c). */
#include "census/kdesc_set.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census/kdesc_embed.h"

int gc_kdesc_set_add(gc_kdesc_set *s, const gc_kdesc *d)
{
    gc_kdesc *nd = realloc(s->d, (s->n + 1) * sizeof *nd);
    if (!nd)
        return GC_ENOMEM;
    s->d = nd;
    s->d[s->n++] = *d;
    return 0;
}

void gc_kdesc_set_embedded(gc_kdesc_set *s)
{
    memset(s, 0, sizeof *s);
    const gc_kdesc_text *t = gc_valid_descs;
    snprintf(s->origin, sizeof s->origin, "%s", gc_valid_ndescs ? gc_valid_desc_origin : "none");
    gc_kdesc *d = malloc(sizeof *d);
    for (size_t i = 0; d && i < gc_valid_ndescs; i++) {
        char name[96];
        gc_err e = { 0 };
        snprintf(name, sizeof name, "embedded:%s.cfg", t[i].name ? t[i].name : "?");
        if (!t[i].cfg_text || gc_kdesc_parse(name, t[i].cfg_text, d, &e)) {
            if (!s->error[0])
                snprintf(s->error, sizeof s->error, "%s", t[i].cfg_text ? e.msg : name);
            continue;
        }
        if (gc_kdesc_set_add(s, d) && !s->error[0])
            snprintf(s->error, sizeof s->error, "out of memory");
    }
    free(d);
}

int gc_kdesc_embedded_find(const char *name, gc_kdesc *d, gc_err *err)
{
    const gc_kdesc_text *t = gc_valid_descs;
    size_t n = gc_valid_ndescs;
    for (size_t i = 0; i < n; i++) {
        if (!t[i].name || !t[i].cfg_text || strcmp(t[i].name, name) != 0)
            continue;
        char file[96];
        snprintf(file, sizeof file, "embedded:%s.cfg", name);
        return gc_kdesc_parse(file, t[i].cfg_text, d, err);
    }
    return gc_fail(err, GC_EINVAL, "no description of validation kernel \"%s\" in this build "
                   "(%zu embedded, origin %s)", name, n,
                   n ? gc_valid_desc_origin : "none");
}

const gc_kdesc *gc_kdesc_set_find(const gc_kdesc_set *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->d[i].name, name) == 0)
            return &s->d[i];
    return NULL;
}

void gc_kdesc_set_free(gc_kdesc_set *s)
{
    free(s->d);
    memset(s, 0, sizeof *s);
}
