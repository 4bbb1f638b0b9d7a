/* Nominal link rates: what a link's generation and width promise, the
 * yardstick a measured transfer is held against. The cuda backend marks
 * samples faster than it (over_nominal) and the link analysis reports
 * lambda = beta / nominal, so both read the one table here. */
#ifndef GC_LINKS_NOMINAL_H
#define GC_LINKS_NOMINAL_H

/* Nominal PCIe bandwidth per direction (bytes/s): lanes x GT/s x encoding
 * (8b/10b up to gen 2, 128b/130b for gens 3-5, FLIT 242/256 for gen 6) / 8.
 * 0 when gen or width is unknown. */
double gc_pcie_nominal_bps(int gen, int width);

#endif
