/* The "links" array of a node file: each full link's ends, per-size table
 * and model, written from the views of analyze/links.h. */
#ifndef GC_LINKS_JSON_H
#define GC_LINKS_JSON_H

#include "analyze/links.h"
#include "util/jsonw.h"

/* The array (the value, after its key) of l's full links, as
 * gc_links_resolve left them; "[]" for NULL or compact links. */
void gc_links_json(gc_jw *w, const gc_links *l);

#endif
