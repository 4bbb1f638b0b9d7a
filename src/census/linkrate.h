/* Nominal link rates: what a path is built to carry, the yardstick of a
 * transfer. The CUDA drivers flag samples faster than it (over_nominal)
 * and the link analysis (analyze/links.c) leaves such sizes out of a
 * link's fit and divides its bandwidth by it (lambda). */
#ifndef GC_LINKRATE_H
#define GC_LINKRATE_H

/* Nominal PCIe bandwidth per direction (bytes/s): lanes x GT/s x encoding
 * (8b/10b up to gen 2, 128b/130b for gens 3-5, FLIT 242/256 for gen 6) / 8.
 * 0 when gen or width is unknown. */
double gc_pcie_nominal_bps(int gen, int width);

#endif
