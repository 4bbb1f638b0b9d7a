/* The sim backend's times for the validation kernels (`valid`). */
#ifndef GC_SIM_VALID_H
#define GC_SIM_VALID_H

#include "util/err.h"
#include "census/kdesc.h"
#include "census/results.h"
#include "measure/sim/sim_profile.h"

/* Time of one launch of kernel d, ns (before noise), at SM clock x
 * clock_scale and HBM bandwidth x hbm_scale. ctx (may be NULL) gets the
 * launch's context: grid_blocks, block_threads, smem_dynamic_bytes,
 * sm_clock_mhz_measured, warps_per_sm. */
int gc_sim_valid_desc(const gc_sim_profile *p, const gc_kdesc *d, double clock_scale,
                      double hbm_scale, double *ns, gc_ctx *ctx, gc_err *err);
/* The same for the embedded description of `kernel`. */
int gc_sim_valid(const gc_sim_profile *p, const char *kernel, double clock_scale,
                 double hbm_scale, double *ns, gc_ctx *ctx, gc_err *err);

#endif
