/* Why a figure of the catalogue is not the peers' figure: each
 * reported figure known to follow another convention than the peer tools
 * (nvbandwidth, gpu-benches), or to sit under the best peer, says what it
 * measures, the peer quantity it differs from and why (with the measurement
 * that shows it: lab/examples-2026-11/PEERS.md, lab/gpu/peers_run.sh), and
 * which figure of the same catalogue shows the peer's quantity. One table,
 * written once per catalogue ("peer_notes", schema 3), never per GPU.
 *
 * A figure is a parameter name (gpus[].parameters) or a point:
 * "BENCHMARK:METRIC{KEY=VALUE,...}", the context a point must match (any
 * other keys free). */
#ifndef GC_PEER_NOTES_H
#define GC_PEER_NOTES_H

#include <stddef.h>

#include "util/jsonw.h"

typedef struct gc_peer_note {
    const char *figure;     /* parameter name, or BENCHMARK:METRIC{KEY=VALUE,...} */
    const char *measures;   /* what ours measures */
    const char *peer;       /* the peer's quantity it differs from */
    const char *why;        /* why, and the measurement that shows it */
    const char *shown_by;   /* the figure (as `figure`) that shows the peer's quantity, "" none */
} gc_peer_note;

extern const gc_peer_note gc_peer_notes[];
extern const size_t gc_peer_nnotes;

/* The "peer_notes" value: figure -> {measures, peer, why, shown_by}. */
void gc_peer_notes_json(gc_jw *w);

#endif
