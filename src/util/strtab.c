/* See strtab.h. */
#include "util/strtab.h"

#include <stdlib.h>
#include <string.h>

uint64_t gc_fnv1a(const char *s, uint64_t h)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int strtab_grow(gc_strtab *t)
{
    size_t ns = t->nslot ? t->nslot * 2 : 1024;
    uint32_t *sl = calloc(ns, sizeof *sl);
    if (!sl)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t h = (size_t)gc_fnv1a(t->s[i], GC_FNV_SEED) & (ns - 1);
        while (sl[h])
            h = (h + 1) & (ns - 1);
        sl[h] = (uint32_t)i + 1;
    }
    free(t->slot);
    t->slot = sl;
    t->nslot = ns;
    return 0;
}

long gc_strtab_id(gc_strtab *t, const char *s, int add)
{
    if (!s)
        s = "";
    size_t hs = (size_t)gc_fnv1a(s, GC_FNV_SEED);
    if (t->nslot) {
        size_t h = hs & (t->nslot - 1);
        while (t->slot[h]) {
            if (strcmp(t->s[t->slot[h] - 1], s) == 0)
                return (long)t->slot[h] - 1;
            h = (h + 1) & (t->nslot - 1);
        }
    }
    if (!add)
        return -1;
    if ((t->n + 1) * 2 > t->nslot && strtab_grow(t))
        return -1;
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 256;
        char **ns = realloc(t->s, nc * sizeof *ns);
        if (!ns)
            return -1;
        t->s = ns;
        t->cap = nc;
    }
    char *c = strdup(s);
    if (!c)
        return -1;
    t->s[t->n] = c;
    size_t h = hs & (t->nslot - 1);
    while (t->slot[h])
        h = (h + 1) & (t->nslot - 1);
    t->slot[h] = (uint32_t)t->n + 1;
    return (long)t->n++;
}

void gc_strtab_free(gc_strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    free(t->slot);
    memset(t, 0, sizeof *t);
}
