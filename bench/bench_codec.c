/* Codec throughput: rank 0 decodes one histogram per GPU x benchmark point
 * x rank, so decode speed bounds how fast a large census is aggregated.
 * Measures encode and decode of two typical shapes and prints one line per
 * case: histograms per second, MB/s of encoded bytes, encoded size.
 *
 * Usage: bench_codec [seconds_per_measurement]   (default 0.5) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "census/codec.h"

#define N_SAMPLES 100000

static uint64_t rng_state = 7;

static uint64_t rng_u64(void)   /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Pointer-chase-like latencies: L1, L2, TLB-miss and DRAM modes in cycles,
 * clamped to [30, 900]. */
static void fill_latency(gc_hist *h)
{
    static const uint64_t mode_cycles[4] = {34, 190, 420, 780};
    static const uint64_t spread_cycles[4] = {4, 30, 60, 120};
    for (int i = 0; i < N_SAMPLES; i++) {
        unsigned m = (unsigned)(rng_u64() % 4);
        uint64_t v = mode_cycles[m] + rng_u64() % (2 * spread_cycles[m]) - spread_cycles[m];
        gc_hist_record(h, v < 30 ? 30 : v > 900 ? 900 : v);
    }
}

/* Bandwidths around 3 TB/s with +-1% jitter, in bytes per second. */
static void fill_bandwidth(gc_hist *h)
{
    const uint64_t center_bps = 3000000000000ull, jitter_bps = center_bps / 100;
    for (int i = 0; i < N_SAMPLES; i++)
        gc_hist_record(h, center_bps - jitter_bps + rng_u64() % (2 * jitter_bps));
}

static int bench_case(const char *name, const gc_hist *h, double budget_s)
{
    gc_err err = {0};
    gc_wbuf w = {0};
    if (gc_hist_encode(h, &w, &err)) {
        fprintf(stderr, "bench_codec: %s: %s\n", name, err.msg);
        return 1;
    }
    size_t enc_bytes = w.len;

    long enc_iters = 0;
    double t0 = now_s(), enc_s;
    do {
        for (int i = 0; i < 64; i++) {
            w.len = 0;   /* reuse the buffer: measure the codec, not malloc */
            gc_hist_encode(h, &w, NULL);
        }
        enc_iters += 64;
    } while ((enc_s = now_s() - t0) < budget_s);

    long dec_iters = 0;
    double dec_s;
    int bad = 0;
    t0 = now_s();
    do {
        for (int i = 0; i < 64; i++) {
            gc_hist d;
            bad |= gc_hist_decode(w.data, w.len, &d, &err);
            gc_hist_free(&d);
        }
        dec_iters += 64;
    } while ((dec_s = now_s() - t0) < budget_s);
    gc_wbuf_free(&w);
    if (bad) {
        fprintf(stderr, "bench_codec: %s: decode failed: %s\n", name, err.msg);
        return 1;
    }
    double enc_hps = (double)enc_iters / enc_s, dec_hps = (double)dec_iters / dec_s;
    printf("codec %-9s samples=%d buckets=%u encoded_bytes=%zu "
           "encode_hist_per_s=%.0f encode_MBps=%.1f decode_hist_per_s=%.0f decode_MBps=%.1f\n",
           name, N_SAMPLES, h->n, enc_bytes, enc_hps, enc_hps * (double)enc_bytes / 1e6,
           dec_hps, dec_hps * (double)enc_bytes / 1e6);
    return 0;
}

int main(int argc, char **argv)
{
    double budget_s = argc > 1 ? atof(argv[1]) : 0.5;
    if (!(budget_s > 0.0))
        budget_s = 0.5;
    uint32_t sub_bits;
    gc_hist lat, bw;
    if (gc_hist_sub_bits_for(0.01, &sub_bits, NULL) || gc_hist_init(&lat, sub_bits, NULL) ||
        gc_hist_init(&bw, sub_bits, NULL))
        return 1;
    fill_latency(&lat);
    fill_bandwidth(&bw);
    int rc = bench_case("latency", &lat, budget_s) | bench_case("bandwidth", &bw, budget_s);
    gc_hist_free(&lat);
    gc_hist_free(&bw);
    return rc;
}
