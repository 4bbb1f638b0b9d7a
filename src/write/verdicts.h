/* The catalogue writer's side of detection (detect.c): every GPU is given
 * to the detector as the writer streams it, every link's view
 * (analyze/links.h) by whoever holds the links as they are told, and the
 * verdicts array comes back for the end of catalogue.json. The links are
 * never written here. The run judges with the default rules and no
 * baseline (`gpucensus check --rules R --baseline B` judges again with
 * them); the values are read as the catalogue keeps them, so check on the
 * catalogue repeats the run's verdicts. A detection that fails (out of
 * memory) leaves the catalogue without verdicts ([]) and says so on
 * stderr. */
#ifndef GC_VERDICTS_H
#define GC_VERDICTS_H

#include "judge/detect.h"
#include "analyze/links.h"
#include "census/results.h"

typedef struct gc_verdicts gc_verdicts;

gc_verdicts *gc_verdicts_new(void);   /* NULL: out of memory */
/* A GPU with its parameters derived; sums: its points' summaries (or NULL). */
void gc_verdicts_gpu(gc_verdicts *v, const gc_gpu *g, const gc_summary *sums);
/* The same, for GPUs given out of order (rank 0 takes records as they
 * arrive): pos is the GPU's position in the catalogue, which orders the
 * verdicts. */
void gc_verdicts_gpu_at(gc_verdicts *v, const gc_gpu *g, const gc_summary *sums, size_t pos);
/* A link, in the catalogue's order (x->index): its view as the analysis
 * tells it (catalogue_tail.c's observer of gc_links_emit, or a caller
 * that reads gc_links_view). */
void gc_verdicts_link(gc_verdicts *v, const gc_link_view *x);
/* Every GPU and link given: judges everything, frees v, and returns the
 * "verdicts" array as text indented at depth ("[]" when v is NULL or
 * detection failed); free() it. NULL only when even "[]" cannot be
 * allocated. */
char *gc_verdicts_finish(gc_verdicts *v, int depth);
/* The subject and node of the last link's verdict to be (the detector's
 * strings, gc_detect_last_link_names); NULL: none (no detector, or it failed). */
void gc_verdicts_last_link(const gc_verdicts *v, const char **subject, const char **node);
/* For a writer with more to write around the verdicts (catalogue.json,
 * schema 3): the judgement, the detector with its verdicts, or NULL when
 * detection failed (said on stderr). v stays v's: gc_verdicts_free. */
const gc_detect *gc_verdicts_judge(gc_verdicts *v);
/* Begins the judgement (gc_detect_finish_start: the GPUs' peers on a
 * thread of their own) for a writer that has more to write before the
 * verdicts; gc_verdicts_judge completes it. Every link told first. */
void gc_verdicts_judge_start(gc_verdicts *v);
/* Without judging (the catalogue was not finished); NULL is fine. */
void gc_verdicts_free(gc_verdicts *v);

#endif
