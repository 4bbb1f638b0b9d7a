// Helpers shared by the benchmark kernels (chase.cu, inst.cu, stream.cu,
// launch.cu): error macro, timers, and the sinks that pin a value in time.
//
// Timing windows are written so that the compiled SASS holds, between the
// two clock reads, only the measured instructions plus one shared-memory
// store of their result (the "consumer" that makes the stop clock wait for
// the last result). tests/sass/check_sass.sh verifies this on the objects.
#ifndef GCK_BENCH_UTIL_CUH
#define GCK_BENCH_UTIL_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e_));  \
            return 1;                                                         \
        }                                                                     \
    } while (0)

// Launch check: configuration errors now, execution errors at the sync.
#define CKL()                                                                 \
    do {                                                                      \
        cudaError_t e_ = cudaGetLastError();                                  \
        if (e_ != cudaSuccess) {                                              \
            snprintf(err, errlen, "kernel launch (%s:%d): %s", __FILE__,      \
                     __LINE__, cudaGetErrorString(e_));                       \
            return 1;                                                         \
        }                                                                     \
    } while (0)

__device__ __forceinline__ uint64_t gck_clock(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

__device__ __forceinline__ uint64_t gck_gtimer(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

// Shared-memory address of a generic pointer to shared memory.
__device__ __forceinline__ uint32_t gck_saddr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

// Volatile shared stores: consume a value so that the next clock read
// waits for it (in-order issue: the store cannot issue before its operand).
__device__ __forceinline__ void gck_sink_u64(uint32_t s, uint64_t v)
{
    asm volatile("st.volatile.shared.u64 [%0], %1;" ::"r"(s), "l"(v) : "memory");
}
__device__ __forceinline__ void gck_sink_u32(uint32_t s, uint32_t v)
{
    asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(s), "r"(v) : "memory");
}
__device__ __forceinline__ void gck_sink_f32(uint32_t s, float v)
{
    asm volatile("st.volatile.shared.f32 [%0], %1;" ::"r"(s), "f"(v) : "memory");
}
__device__ __forceinline__ void gck_sink_f64(uint32_t s, double v)
{
    asm volatile("st.volatile.shared.f64 [%0], %1;" ::"r"(s), "d"(v) : "memory");
}

// Make the compiler believe a register changed here, so that computations
// on it cannot be hoisted above this point (e.g. above the start clock).
__device__ __forceinline__ void gck_pin_u64(uint64_t &v) { asm volatile("" : "+l"(v)); }
__device__ __forceinline__ void gck_pin_u32(uint32_t &v) { asm volatile("" : "+r"(v)); }
__device__ __forceinline__ void gck_pin_f32(float &v) { asm volatile("" : "+f"(v)); }
__device__ __forceinline__ void gck_pin_f64(double &v) { asm volatile("" : "+d"(v)); }

#endif
