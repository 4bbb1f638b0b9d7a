/* Clocks: a monotonic clock for budgets and durations, UTC wall time for
 * the catalogue. */
#ifndef GC_TIMEUTIL_H
#define GC_TIMEUTIL_H

#include <stddef.h>

/* Monotonic wall clock in seconds. */
double gc_now_s(void);
/* Current UTC time: "2026-11-22T00:41:07Z", or "20261122T004107Z" when
 * compact (for directory names). */
void gc_iso_time(char *out, size_t cap, int compact);
/* "2026-11-22T00:41:07Z" (as gc_iso_time writes it) -> seconds since the
 * epoch; -1 when it is not that form. */
long long gc_iso_parse_s(const char *iso);

#endif
