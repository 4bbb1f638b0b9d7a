/* The figures that differ from the peers' convention or sit under the best
 * peer, and why (peer_notes.h). Numbers are from lab/examples-2026-11/PEERS.md
 * (card, UUID and commit there); a change of a figure's method that moves
 * it against its peer changes its row here. */
#include "analyze/peer_notes.h"

const gc_peer_note gc_peer_notes[] = {
    { "l2_bw_bps",
      "L2 bandwidth with every resident block on its own lines (at most 1.5 blocks per chunk), the "
      "best p50 over footprints up to half the L2: the rate the models divide by",
      "gpu-l2-cache's rate, whose walk puts 5-6 resident blocks on each segment (lines shared)",
      "lines that several SMs ask for together are served faster than one line per request: "
      "0.957-0.975x of gpu-l2-cache at 24 MiB (H200 9.303 against 9.546 TB/s at e2a563f, 9.183 "
      "against 9.547 at ff2101a; H100 7.916 against 8.276 at 4934bc9); our own shared shapes at 24 "
      "MiB read 0.995-1.011x of it (their fastest against ours)",
      "l2_bw_shared_peak_bps" },
    { "l2_bw:bandwidth{footprint_bytes=25165824}",
      "the p50 of 200 launches of each shape at 24 MiB",
      "gpu-l2-cache's fastest of 11 timings at its nearest footprint (23 or 25 MiB)",
      "the footprint and the statistic: at 24 MiB (theirs interpolated) and our fastest launch "
      "1.000x (H100 9dcae48) and 1.006x (H200 e2a563f; our fastest is the point's summary.max); the "
      "p50 0.992x and 0.996x",
      "" },
    { "l1_latency_cycles",
      "dependent ld.global (LDG) loads, %clock64 around 32 of them less the empty window",
      "gpu-latency's L1 plateau: a generic load (LD) through a C++ pointer, which checks the "
      "address space first",
      "32.1 against 34.2 cycles (0.938x, H100 9dcae48, H200 a6b4ab1; SASS in PEERS.md); the L2 "
      "plateau, where those cycles are 1%, agrees within 0.8%",
      "l2_latency_cycles" },
    { "hbm_copy_bps",
      "STREAM copy: bytes read plus bytes written per second",
      "nvbandwidth device_local_copy counts bytes copied (half of ours) and runs on a copy engine",
      "a convention: ours / (2 x theirs) is 1.008-1.014x on H100 and H200 (9dcae48, a6b4ab1, e2a563f, "
      "ff2101a)",
      "" },
    { "xfer:bandwidth{direction=bidir}",
      "both directions' rates summed, each direction's bytes over its own time from the common "
      "start while the other runs (bandwidth_h2d + bandwidth_d2h)",
      "nvbandwidth *_bidirectional_memcpy_{ce,sm}: one direction's rate while the other runs",
      "two quantities: the sum of both directions against one of them; ours / (their h2d + their "
      "d2h) is the comparable ratio (lab/gpu/peers_best.py prints it)",
      "xfer:bandwidth_h2d{direction=bidir}" },
    { "xfer:bandwidth{memory=pinned,size_bytes=1073741824}",
      "the p50 of single 1 GiB copies, 20 a point, measured again in rounds where they spread "
      "(spread, remeasures)",
      "nvbandwidth *_memcpy_{ce,sm}: the median of 3 samples, each the mean rate of 16 copies "
      "back to back",
      "the host's slow moments: a slow copy is one sample of ours (in the point's spread and mean, "
      "not its p50) but part of a 16-copy sample of nvbandwidth's. On an H100 host (GPU-3b4a7e79, "
      "8bbd760, 4 rounds in turn, lab/gpu/host_ab_run.sh) nvbandwidth's rounds spread 9.4% one "
      "way h2d CE (50.07-55.11 GB/s), 1.0-4.1% the other one-way copies, ours 0.1-0.8% (h2d CE "
      "55.26-55.33, the first pass's p95 / p50 up to 1.60); medians one way 1.003-1.025x",
      "" },
    { "xfer:bandwidth_h2d{direction=bidir,engine=ce}",
      "both ways on the copy engines, 1 GiB each way from a common start, each direction's bytes "
      "over its own end, each copying one more 1 GiB after it, untimed (both_ways = each_loaded "
      "since 8bbd760: the later direction no longer ends alone); the p50 of single copies",
      "nvbandwidth *_bidirectional_memcpy_ce: 16 copies back to back under the other direction's "
      "2 GiB copies, started earlier; the median of 3 such samples",
      "not explained: on an H100 host (GPU-3b4a7e79, 8bbd760, 4 rounds in turn) ours 46.41-47.21 / "
      "51.10-51.30 GB/s h2d / d2h, nvbandwidth's 43.18-45.75 / 48.45-51.22 (medians 1.081x / "
      "1.031x; its rounds spread 5.9% / 5.6%, ours 1.7% / 0.4%); the tail moved ours by 0.7% "
      "(lab/gpu/peers_probe.cu ce_both, same rounds: h2d 47.03 without, 46.70 with). Earlier "
      "H100 calls read 0.964-1.075x, an H200 1.012 / 0.998x",
      "" },
    { "xfer:bandwidth_h2d{direction=bidir,engine=sm}",
      "both ways by SM kernels: one resident kernel whose even warps copy host -> device and odd "
      "warps device -> host, each byte once, each direction timed on its own (its warps' last end; "
      "a direction done copies on, untimed, until the other is), its bytes over its own time "
      "(bandwidth_d2h the same)",
      "nvbandwidth *_bidirectional_memcpy_sm: the same split-warp interleave, but every lane copies "
      "its 16-byte word 16 times in a row within one launch, and both directions' rate is the "
      "kernel's: the two cannot differ",
      "re-copying the same bytes: 0.991 / 0.992x on an H200 (GPU-155f0064, ff2101a: 42.14 against "
      "42.51 / 42.48 GB/s); in the same call lab/gpu/peers_probe.cu's copy in nvbandwidth's "
      "convention read 42.20 GB/s copying each word once and 42.46 copying it 16 times in a row. "
      "Two kernels on two streams read 0.904 / 0.954 (fbb3f58); 0.996 / 0.997x on an H100 "
      "(GPU-3b4a7e79, 8bbd760, medians of 4 rounds in turn)",
      "xfer:bandwidth_h2d{direction=bidir,engine=ce}" },
    { "xfer:latency_ns{mode=chase}",
      "one thread's dependent ld.global loads from mapped pinned host memory, %clock64 around 32 "
      "less the empty window, launches moving from SM to SM (xfer method 2); the GPU writes the "
      "chain, then the CPU flushes its lines from its caches (host_cache = flushed: host DRAM); "
      "the default plan: random 128-byte lines over 256 MiB bound to each NUMA node",
      "nvbandwidth host_device_latency_sm: generic loads over consecutive lines of the first ~1 MiB "
      "of a chain the CPU wrote, event time over 7575 loads a launch, one launch per SM",
      "the same quantity since 9a19dcb: 1 MiB consecutive 0.986-1.027x on an H200 (GPU-3dd2cc48) "
      "and 1.005x on an H100 (GPU-f2118a60). Before, the census read its chain within ~20 ms of "
      "the GPU writing it, while the host's cache still held it, and read 0.900-0.987x: lines "
      "written by the GPU (or the CPU) are served from the host's cache for a few ms and from "
      "DRAM after ~20 ms, loads or not (a GPU-written chain 1079-1143 ns, CPU-written 1127-1185, "
      "flushed 1174-1217 in the census's reading; nvbandwidth's reading 1171-1202 whoever wrote, "
      "its first launch 1088-1106; the allocation and page size made no difference at 1 MiB; "
      "lab/gpu/peers_probe.cu hostmem and decay, PEERS.md). Neither the kernels (back-to-back "
      "dependent loads, SASS in PEERS.md) nor the timers. Random lines over 256 MiB read "
      "1.013-1.055x in cudaHostAlloc memory and 1.069-1.088x bound to a node in 4 KiB pages; "
      "since a10e007 the bound buffer is in transparent huge pages (host_huge_fraction) and read "
      "1204.2 ns as cudaHostAlloc's 1204.2 (1.029x, the footprint; H200 GPU-52988146); on two H100 "
      "hosts node-bound memory read 1.02-1.12x, cudaHostAlloc's 1.01-1.04x (the host's "
      "translation of registered memory; nvbandwidth's like is numa = any). On a third H100 "
      "(GPU-3b4a7e79, 8bbd760, rounds in turn with nvbandwidth, lab/gpu/host_ab_run.sh) the two "
      "read alike (1 MiB medians 1193.0 / 1195.0 ns, 0.999-1.000x; 256 MiB mostly 1213.4-1246.2, "
      "in the default plan, after its copies and alone) and a 256 MiB chase alone in its process "
      "read 1369.1 node-bound and 1375.2 in cudaHostAlloc's memory in two rounds (p95 1592-1639 "
      "against 1238-1322): the host's slow moments, not the plan's other items nor the memory",
      "xfer:latency_ns{mode=chase,order=sequential,size_bytes=1048576}" },
    { "p2p:latency_ns{mode=chase}",
      "one thread's dependent loads from a peer GPU's memory through CUDA IPC, on one SM",
      "nvbandwidth device_to_device_latency_sm: consecutive lines over ~1 MiB, one launch per SM",
      "in nvbandwidth's order 831.5 ns against 827 (1.005x, two H200 of e2a563f); random lines over "
      "4 MiB and more read 913-1012 ns",
      "p2p:latency_ns{mode=chase,order=sequential,size_bytes=1048576}" },
    { "p2p:bandwidth{direction=oneway}",
      "one 1 GiB copy per sample (its start and drain in each)",
      "nvbandwidth device_to_device_memcpy_write_ce: the median of 3 samples of 16 back-to-back copies",
      "0.998-0.999x (two H200 of e2a563f), within one copy's start and drain (0.2% of 2.7 ms); our "
      "fastest sample (the point's summary.max) 396.91 GB/s against its 396.69",
      "" },
};
const size_t gc_peer_nnotes = sizeof gc_peer_notes / sizeof gc_peer_notes[0];

void gc_peer_notes_json(gc_jw *w)
{
    gc_jw_open(w, "{");
    for (size_t i = 0; i < gc_peer_nnotes; i++) {
        const gc_peer_note *n = &gc_peer_notes[i];
        gc_jw_key(w, n->figure);
        gc_jw_open(w, "{");
        gc_jw_kstr(w, "measures", n->measures);
        gc_jw_kstr(w, "peer", n->peer);
        gc_jw_kstr(w, "why", n->why);
        gc_jw_kstr(w, "shown_by", n->shown_by);
        gc_jw_close(w, "}");
    }
    gc_jw_close(w, "}");
}
