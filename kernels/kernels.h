/* C ABI between the host code (C11) and the CUDA kernels. Host code never
 * includes CUDA headers: every CUDA runtime call lives behind these
 * functions, compiled by nvcc. Each function returns 0 on success or a
 * non-zero code with a message in err (errlen bytes). Times are in
 * nanoseconds, sizes in bytes, latencies in SM clock cycles. */
#ifndef GC_KERNELS_H
#define GC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gck_device {
    char name[96];
    char uuid[48];           /* "GPU-xxxxxxxx-..." as nvidia-smi prints it */
    char pci_bus_id[24];
    int cc_major, cc_minor;
    int sm_count, warp_size, cores_per_sm;
    int max_threads_per_sm, max_threads_per_block, regs_per_sm;
    uint64_t smem_per_sm_bytes, smem_per_block_optin_bytes;
    uint64_t l2_bytes, mem_bytes;
    int sm_clock_khz, mem_clock_khz, bus_width_bits;
    int ecc_enabled;
    int async_engines;
} gck_device;

/* Number of CUDA devices visible; 0 with no driver or no GPU (not an error). */
int gck_device_count(int *count, char *err, size_t errlen);
/* Select device index for this host thread and read its properties. */
int gck_device_open(int index, gck_device *d, char *err, size_t errlen);
/* Identity probe: one block per SM reads %smid and %globaltimer; reports how
 * many distinct SMs ran a block and the kernel's device time. Proves that
 * the device executes our code. */
int gck_identity_probe(int *sms_seen, uint64_t *elapsed_ns, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
