/* `check --prometheus FILE`: the verdicts and main parameters of a judged
 * catalogue as metrics for node_exporter's textfile collector (Prometheus
 * text exposition format 0.0.4, no timestamps), written atomically in
 * FILE's directory (a temporary name that does not end in .prom, then a
 * rename), readable by the exporter (mode 0644).
 *
 * Metric names carry Prometheus base units (seconds, bytes, bytes per
 * second, hertz, ratio; latencies stay in cycles, as measured):
 *   gpucensus_census_start_timestamp_seconds, gpucensus_census_info
 *   gpucensus_{gpu,link,node}_verdict   0 ok, 1 suspect, 2 degraded, 3 failed
 *   gpucensus_gpu_<parameter>_<unit>    per GPU: node, gpu, uuid, sku labels
 *   gpucensus_link_{bandwidth_bytes_per_second,latency_seconds,
 *                   nominal_bytes_per_second,efficiency_ratio}
 * Label values are escaped as the format says (\\, \", \n). */
#ifndef GC_PROM_H
#define GC_PROM_H

#include "read/catread_hist.h"
#include "judge/detect.h"
#include "util/err.h"

/* c: the catalogue (its run, parameters and links); d: its verdicts. */
int gc_prom_write(const char *path, const gc_hcat *c, const gc_detect *d, gc_err *err);

#endif
