/* Each GPU, link and top-level member of a catalogue to a caller (the
 * report), through the reader check uses (catread.c's walk and its
 * checks of the top-level members): see catread.h. */
#include "catread_int.h"

#include <string.h>

typedef struct each_sink {
    sink s;                      /* first: the walk hands &s back */
    gc_catread_each_fn *fn;
} each_sink;

static int each_gpu(sink *s, rd *r, json_t *o)
{
    gc_catread_each_fn *fn = ((each_sink *)s)->fn;
    fn->schema_major = r->major;
    return fn->gpu ? fn->gpu(fn->ctx, o) : 0;
}

static int each_link(sink *s, rd *r, json_t *o, size_t index)
{
    gc_catread_each_fn *fn = ((each_sink *)s)->fn;
    fn->schema_major = r->major;
    return fn->link ? fn->link(fn->ctx, o, index) : 0;
}

static int each_top(sink *s, rd *r, const char *key, json_t *v)
{
    gc_catread_each_fn *fn = ((each_sink *)s)->fn;
    fn->schema_major = r->major;
    int rc = cr_cat_top(s, r, key, v);   /* the same checks as check's */
    return rc ? rc : fn->top ? fn->top(fn->ctx, key, v) : 0;
}

int gc_catread_each(const char *path, gc_catread_each_fn *fn, gc_err *err)
{
    char *buf;
    size_t len;
    int mapped;
    int rc = cr_load_file(path, &buf, &len, &mapped, err);
    if (rc)
        return rc;
    rd r = { .file = path, .buf = buf, .len = len, .err = err };
    each_sink es = { .s = { .gpu = each_gpu, .link = each_link, .top = each_top }, .fn = fn };
    rc = cr_walk_catalogue(&r, &es.s);
    cr_unload_file(buf, len, mapped);
    return rc;
}
