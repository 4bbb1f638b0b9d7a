#!/usr/bin/env python3
"""A kernel description (docs/kernel-description.md) of a user's compiled
kernel: instruction classes per basic block from its SASS, dynamic counts
from a profile or from the user's trip counts, registers and shared memory
from the cubin.

Why: `gpucensus predict` needs what one warp executes. tools/kdesc.py counts
straight-line kernels only; real kernels loop, branch and use shared memory.
Here the SASS is cut into basic blocks (leaders: branch targets and what
follows a branch or EXIT) and each block is weighted by how often a warp
runs it, from one of:
  --ncu-source F  Nsight Compute's per-instruction counts (`ncu --section
                  SourceCounters`, then `ncu -i REP --page source
                  --print-source sass --csv`): warp instructions executed
                  and L2 sectors of every global load/store (origin
                  "profile"); the launch profiled must be the one described;
  --spec F        without a profile: the average trip count of every loop
                  (`trips N = T`, loops numbered 1.. by header address) and
                  the taken fraction of every conditional forward branch or
                  EXIT (`branch 0xADDR = P`), solved as a Markov chain over
                  the CFG (origin "sass"). Sectors per global access come from
                  `sectors 0xADDR = S` (default: coalesced).
A spec may add, in both modes, `lines 0xADDR = L` (the 128-byte lines one
warp access touches, which no counter reports; default contiguous; `lines
all = L` for every access of 32 sectors, one per lane) and
the launch (`grid = N`, `block = T`, `dynamic_smem = B`). With --ncu-raw
(the profile's DRAM bytes and L2 sectors per direction) every load and
store entry gets `dram_ratio`: the share of its sectors that DRAM served
(the rest hit in L2: tiles, halos, a vector that fits), so the models
count the DRAM bytes the launch really moved. --ncu-dram takes those
bytes from another profile: of a later launch with the caches as the
timing loop leaves them (`ncu --cache-control none`, one pass: no replay
restores memory); a flushed first launch leaves ~15 MB of its stores dirty
in L2 at its end (its DRAM writes 0.73-0.88 of what it stored), a launch
in a loop writes back its predecessor's. Where the raw profile has the L1
lookup hits of global loads (l1tex__t_sectors_pipe_lsu_mem_global_op_ld_
lookup_hit.sum), every load entry gets `l1_hit_ratio`.

Refuses (exit 1, naming the kernel and the SASS address) what it cannot
count: a loop or conditional branch with no count, global atomics, a
profile whose instructions are not this SASS, indirect branches.

  tools/describe.py --sass K.sass --res K.res --kernel NAME --spec NAME.spec \\
      [--ncu-source SRC.csv] -o NAME.cfg
  (K.sass: cuobjdump -sass -arch sm_90 K.o; K.res: cuobjdump -res-usage)
"""
import argparse
import csv
import hashlib
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kdesc  # noqa: E402  (the SASS parser, classes and critical path)

MAX_EXPAND = 4_000_000          # instructions of the critical-path walk
RESERVED_SMEM = {"sm_80": 1024, "sm_86": 1024, "sm_89": 1024, "sm_90": 1024}


def die(msg):
    sys.exit("describe.py: " + msg)


# ---- inputs ----

def parse_spec(path):
    spec = {"trips": {}, "branch": {}, "lines": {}, "sectors": {}, "conflicts": {}}
    if not path:
        return spec
    for n, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"(trips|branch|lines|sectors|conflicts)\s+(\w+)\s*=\s*([\d.eE+-]+)", line)
        if m:
            kind, key, v = m.group(1), m.group(2), float(m.group(3))
            key = -1 if key == "all" else int(key, 16) if key.lower().startswith("0x") else int(key)
            if kind == "branch" and not 0 <= v <= 1:
                die("%s:%d: branch %s = %g: a fraction in [0, 1]" % (path, n, m.group(2), v))
            if kind == "trips" and v < 1:
                die("%s:%d: trips %s = %g: a loop body runs at least once per entry" % (path, n, m.group(2), v))
            spec[kind][key] = v
            continue
        m = re.fullmatch(r"slowpath\s*=\s*([\d.eE+-]+)", line)
        if m:
            v = float(m.group(1))
            if not 0 <= v <= 1:
                die("%s:%d: slowpath = %g: a fraction in [0, 1]" % (path, n, v))
            spec["slowpath"] = v
            continue
        m = re.fullmatch(r"(kernel|grid|block|dynamic_smem)\s*=\s*(\S+)", line)
        if not m:
            die("%s:%d: cannot read '%s'" % (path, n, line))
        spec[m.group(1)] = m.group(2) if m.group(1) == "kernel" else int(m.group(2))
    return spec


def parse_res(text, arch, name):
    """(registers, static shared bytes) from cuobjdump -res-usage."""
    cur, fn = None, None
    for line in text.splitlines():
        m = re.search(r"arch = (sm_\w+)", line)
        if m:
            cur = m.group(1)
        m = re.match(r"\s*Function (\S+):", line)
        if m:
            fn = m.group(1)
            continue
        m = re.search(r"REG:(\d+).*SHARED:(\d+)", line)
        if m and fn == name and cur in (None, arch):
            regs, shared = int(m.group(1)), int(m.group(2))
            # the cubin counts the block's reserved shared memory (1 KiB on
            # sm_8x/9x) once a kernel has any; the occupancy calculator adds
            # it back itself
            if shared:
                shared = max(0, shared - RESERVED_SMEM.get(arch, 0))
            return regs, shared
    die("%s: no -res-usage line for %s" % (name, arch))


def parse_ncu_raw(path, name):
    """{metric: value} of the first profiled launch of `name` (ncu --page
    raw --csv; dram bytes converted to bytes)."""
    rows = list(csv.reader(open(path, newline="", encoding="utf-8", errors="replace")))
    hdr = next((r for r in rows if r and r[0] == "ID"), None)
    if not hdr:
        die("%s: no ncu raw header" % path)
    units = rows[rows.index(hdr) + 1]
    scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}
    for r in rows[rows.index(hdr) + 2:]:
        d = dict(zip(hdr, r))
        if d.get("Kernel Name") == name:
            out = {}
            for k, u in zip(hdr, units):
                if "__" in k:
                    try:
                        out[k] = float(d[k].replace(",", "")) * scale.get(u, 1)
                    except ValueError:
                        pass
            return out
    die("%s: not in %s" % (name, path))


def parse_ncu_source(path, name):
    """[(sass text, warp insts executed, L2 sectors global, any lane
    predicated on, shared-memory conflict ways)] of the first profiled
    launch of `name`."""
    rows, cur, hdr, got = [], None, None, False
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for r in csv.reader(f):
            if not r:
                continue
            if r[0] == "Kernel Name":
                if got:
                    break
                cur = r[1] if len(r) > 1 else None
                hdr = None
                continue
            if r[0] == "Address":
                hdr = {k: i for i, k in enumerate(r)}
                continue
            if cur != name or hdr is None or not r[0].startswith("0x"):
                continue
            got = True
            num = lambda k: float(r[hdr[k]].replace(",", "")) if k in hdr and r[hdr[k]] not in ("", "-") else 0.0
            # an instruction whose predicate was off in every lane issued
            # but moved nothing (the guarded copies of an unrolled loop)
            on = num("Predicated-On Thread Instructions Executed") > 0 if \
                "Predicated-On Thread Instructions Executed" in hdr else True
            rows.append((r[hdr["Source"]].strip(), num("Instructions Executed"),
                         num("L2 Theoretical Sectors Global"), on,
                         num("L1 Conflicts Shared N-Way")))
    if not rows:
        die("%s: no per-instruction counts of it in %s" % (name, path))
    return rows


# ---- control flow ----

def blocks_of(insts):
    """Basic blocks as (first, last) index pairs, and successor lists. A
    CALL to a subroutine of the function (the math library's slow paths:
    IEEE division, square root) does not end a block: its subroutine's
    instructions are counted at it (sub_counts); RET ends a subroutine as
    EXIT ends the kernel."""
    addr = {x.addr: i for i, x in enumerate(insts)}
    leaders = {0}
    for i, x in enumerate(insts):
        if x.base in ("BRX", "JMX") or (x.base == "CALL" and x.callee is None):
            die("indirect control flow or a call outside the function at %#x (`%s`): not counted"
                % (x.addr, x.text))
        if x.target is not None:
            if x.target not in addr:
                die("branch at %#x to %#x: outside the function" % (x.addr, x.target))
            leaders.add(addr[x.target])
        if x.target is not None or x.base in ("EXIT", "RET"):
            leaders.add(i + 1)
    starts = sorted(s for s in leaders if s < len(insts))
    blocks = [(s, (starts[k + 1] if k + 1 < len(starts) else len(insts)) - 1)
              for k, s in enumerate(starts)]
    index = {s: k for k, (s, _) in enumerate(blocks)}
    succ = []
    for s, e in blocks:
        x, nxt = insts[e], index.get(e + 1)
        cond = x.guard is not None and x.guard != "PT"
        out = []
        if x.base in ("EXIT", "RET"):
            out = [] if not cond else [("fall", nxt)]
        elif x.target is not None:
            out = [("taken", index[addr[x.target]])] + ([("fall", nxt)] if cond else [])
        elif nxt is not None:
            out = [("fall", nxt)]
        succ.append([(k, b) for k, b in out if b is not None])
    return blocks, succ


def loops_of(insts, blocks, succ):
    """Back edges (latch block, header block), numbered by header address."""
    back = [(b, h) for b, out in enumerate(succ) for k, h in out if k == "taken" and h <= b]
    return sorted(back, key=lambda e: (blocks[e[1]][0], blocks[e[0]][0]))


def solve(n, edges):
    """Expected visits per entry of block 0: v = e0 + sum p * v[pred]."""
    a = [[0.0] * n for _ in range(n)]
    rhs = [0.0] * n
    rhs[0] = 1.0
    for i in range(n):
        a[i][i] = 1.0
    for src, dst, p in edges:
        a[dst][src] -= p
    for c in range(n):                       # Gaussian elimination, partial pivoting
        piv = max(range(c, n), key=lambda r: abs(a[r][c]))
        if abs(a[piv][c]) < 1e-12:
            die("the CFG's flow equations are singular (a loop that never exits?)")
        a[c], a[piv], rhs[c], rhs[piv] = a[piv], a[c], rhs[piv], rhs[c]
        for r in range(n):
            if r != c and a[r][c]:
                f = a[r][c] / a[c][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
                rhs[r] -= f * rhs[c]
    return [rhs[i] / a[i][i] for i in range(n)]


SLOWPATH = re.compile(r"slowpath|__internal", re.I)   # the CUDA math library's subroutines


def visits(name, insts, spec, where, calls):
    """Expected visits per entry of every instruction of insts (a kernel to
    its last EXIT, or a subroutine to its RETs) from the spec's trip counts
    and branch fractions. A conditional branch with one successor block
    that calls a math-library slow path takes it at the spec's `slowpath`
    share (default 0: the slow path serves denormals, infinities and
    overflow, which data in range never reaches); a subroutine's own
    branches the spec does not give split evenly once it is entered."""
    blocks, succ = blocks_of(insts)
    loops = loops_of(insts, blocks, succ)
    prob = {}
    for k, (latch, head) in enumerate(loops, 1):
        key = k if where is None else None
        if key not in spec["trips"]:
            x = insts[blocks[latch][1]]
            if where is not None:
                die("%s: a loop in %s (back edge at %#x `%s`): not counted" % (name, where, x.addr, x.text))
            die("%s: loop %d (header %#x, back edge at %#x `%s`): no trip count "
                "(give `trips %d = T` in the spec, or a profile)"
                % (name, k, insts[blocks[head][0]].addr, x.addr, x.text, k))
        t = spec["trips"][key]
        prob[latch] = (t - 1) / t             # back edge taken T - 1 times per entry

    def calls_slow(b):
        # a subroutine of the kernel's own function is the compiler's (a
        # user's __noinline__ function is a function of its own): named
        # (nvdisasm) or not (cuobjdump: an address)
        return b is not None and any(insts[i].base == "CALL" and
                                     SLOWPATH.search(insts[i].callee_name or "slowpath")
                                     for i in range(blocks[b][0], blocks[b][1] + 1))
    edges = []
    for b, out in enumerate(succ):
        x = insts[blocks[b][1]]
        if len(out) == 2 or (x.base in ("EXIT", "RET") and out):
            if b in prob:
                p = prob[b]
            elif x.addr in spec["branch"]:
                p = spec["branch"][x.addr]
            elif len(out) == 2 and calls_slow(out[0][1]) != calls_slow(out[1][1]):
                share = spec.get("slowpath", 0.0)
                p = share if calls_slow(out[0][1]) else 1 - share
                calls.append("%#x" % x.addr)
            elif where is not None:
                p = 0.5
            else:
                die("%s: conditional %s at %#x (`%s`): no taken fraction "
                    "(give `branch %#x = P` in the spec, or a profile)"
                    % (name, "EXIT" if x.base == "EXIT" else "branch", x.addr, x.text, x.addr))
            if x.base in ("EXIT", "RET"):
                edges += [(b, out[0][1], 1 - p)]
            else:
                edges += [(b, out[0][1], p), (b, out[1][1], 1 - p)]
        else:
            edges += [(b, d, 1.0) for _, d in out]
    v = solve(len(blocks), edges)
    per = [0.0] * len(insts)
    for k, (s_, e) in enumerate(blocks):
        for i in range(s_, e + 1):
            per[i] = v[k]
    return per, len(loops)


def sub_range(full, entry):
    """[first, last] indices of the subroutine at index entry: up to its last
    RET before the next subroutine or the end of the function."""
    at = {x.addr: i for i, x in enumerate(full)}
    starts = sorted({at[x.callee] for x in full if x.base == "CALL" and x.callee in at})
    nxt = next((k for k in starts if k > entry), len(full))
    rets = [i for i in range(entry, nxt) if full[i].base == "RET"]
    if not rets:
        die("the subroutine at %#x (`%s`) has no RET" % (full[entry].addr, full[entry].text))
    return entry, rets[-1]


def add_calls(name, full, per, spec):
    """Each CALL's subroutine counted at it: the subroutine's own visits per
    entry (visits()) times the CALL's count, into per; a CALL inside a
    subroutine (at a higher address) in turn, once its caller is counted."""
    at = {x.addr: i for i, x in enumerate(full)}
    for i, x in enumerate(full):
        if x.base != "CALL" or per[i] <= 0:
            continue
        if x.callee not in at:
            die("%s: CALL at %#x (`%s`): its subroutine is not in the function" % (name, x.addr, x.text))
        if at[x.callee] <= i:
            die("%s: CALL at %#x (`%s`): a call back to a lower address (recursion?) is not counted"
                % (name, x.addr, x.text))
        lo, hi = sub_range(full, at[x.callee])
        sub, _ = visits(name, full[lo:hi + 1], spec, x.callee_name or "the subroutine at %#x" % x.callee, [])
        for k, c in enumerate(sub):
            per[lo + k] += per[i] * c
    return per


def counts_from_spec(name, insts, spec):
    """Per-instruction dynamic count per warp from trip counts and branch
    fractions; refuses any conditional edge the spec does not give (but a
    math-library slow path's guard: visits()). What follows the last EXIT
    (the self-branch and padding) never runs, but the subroutines that a
    CALL runs (add_calls)."""
    exits = [i for i, x in enumerate(insts) if x.base == "EXIT"]
    if not exits:
        die("%s: no EXIT in its SASS" % name)
    full, body = insts, insts[:exits[-1] + 1]
    calls = []
    v, nloops = visits(name, body, spec, None, calls)
    per = v + [0.0] * (len(full) - len(body))
    per = add_calls(name, full, per, spec)
    return per, nloops


def expand(insts, per):
    """A dynamic instruction sequence for the critical path: address order,
    never-run instructions left out, each loop's body repeated its average
    trip count per entry (its header's count over the count of the
    instruction before it), inner loops by recursion."""
    out = []

    def latch_of(i, hi, skip):
        ks = [k for k in range(i, hi + 1) if insts[k].target == insts[i].addr
              and insts[k].target <= insts[k].addr and (k, i) != skip]
        return max(ks) if ks else None

    def seq(lo, hi, skip):
        i = lo
        while i <= hi and len(out) <= MAX_EXPAND:
            j = latch_of(i, hi, skip) if per[i] > 0 else None
            if j is not None:
                entry = per[i - 1] if i > 0 and per[i - 1] > 0 else per[i]
                for _ in range(max(1, int(round(per[i] / entry)))):
                    seq(i, j, (j, i))
                i = j + 1
                continue
            if per[i] > 0 and insts[i].target is None:
                out.append(insts[i])
            i += 1

    seq(0, len(insts) - 1, None)
    return out


# ---- description ----

def describe(name, insts, per, sectors, spec, regs, smem, grid, block, arch, origin, tool, sha,
             ratio=None, off=None, ways_of=None):
    counts = dict.fromkeys(kdesc.CLASSES, 0.0)
    mem, syncs, wavefronts = {}, 0.0, 0.0
    for i, x in enumerate(insts):
        c = per[i]
        if c <= 0:
            continue
        if off and off[i]:
            counts["other"] += c        # issued, accessed nothing
            continue
        if x.cls == "smem":
            wavefronts += c * (ways_of or {}).get(i, spec["conflicts"].get(x.addr, 1.0))
        if x.cls == "gmem":
            op = "load" if x.base in kdesc.LOADS else "store" if x.base in kdesc.STORES else None
            if op is None:
                die("%s: `%s` at %#x: global atomics/reductions have no model" % (name, x.text, x.addr))
            b = 16 if "128" in x.mods else 8 if "64" in x.mods else \
                1 if {"U8", "S8"} & set(x.mods) else 2 if {"U16", "S16"} & set(x.mods) else 4
            lo = math.ceil(32 * b / 32)
            s = sectors[i] if sectors[i] is not None else spec["sectors"].get(x.addr, lo)
            if s < lo:      # partial warps (a profile's mean): that share of a full warp's access
                c, s = c * s / lo, lo
                if c <= 0:
                    continue
            s = min(64.0, round(s, 2))
            # `lines all = L`: every access of 32 sectors (one per lane) lies in L lines
            lines = spec["lines"].get(x.addr, spec["lines"].get(-1, 0) if s >= 32 else 0)
            if ratio:     # measured DRAM bytes already hold what isolated sectors cost
                lines = 0
            key = (op, b, s, lines)
            mem[key] = mem.get(key, 0.0) + c
        else:
            counts[x.cls] += c
        if x.base == "BAR":
            syncs += c
    dead = {id(x) for i, x in enumerate(insts) if off and off[i]}
    path = kdesc.critical_path([x for x in expand(insts, per) if id(x) not in dead], in_order=True)
    warps = grid * math.ceil(block / 32)
    f = lambda v: ("%.4f" % v).rstrip("0").rstrip(".") if v != int(v) else "%d" % v
    kv = lambda d: " ".join("%s = %s;" % (k, f(v)) for k, v in d.items())
    ents = []
    for (op, b, s, lines), c in sorted(mem.items()):
        r = ratio[op] if ratio else 1
        h = (ratio or {}).get("l1_hit", 0) if op == "load" else 0
        ents.append('    { op = "%s"; count = %s; bytes_per_thread = %d; sectors_per_inst = %s;%s%s%s }'
                    % (op, f(c), b, f(s), " lines_per_inst = %d;" % lines if lines else "",
                       " dram_ratio = %.4f;" % r if r < 1 else "",
                       " l1_hit_ratio = %.4f;" % h if h >= 1e-4 else ""))
    return f"""# Generated by tools/describe.py from the SASS of {name} ({arch}) with
# dynamic counts from {"an Nsight Compute profile (SourceCounters)" if origin == "profile" else "the spec's trip counts"}; do not edit.
kernel = {{
  name = "{name}";
  origin = "{origin}";
  arch = "{arch}";
  source_sha256 = "{sha}";
  tool = "{tool}";

  grid_blocks = {grid}L;
  block_threads = {block};
  registers_per_thread = {regs};
  smem_static_bytes = {smem};
  smem_dynamic_bytes = {spec.get("dynamic_smem", 0)};

  # per warp, averaged over the launch's {warps} warps
  insts = {{ {kv(counts)} }};
  mem = (
{",".join(chr(10) + e for e in ents).lstrip(chr(10)) if ents else ""}
  );
  syncs = {f(syncs)};{(chr(10) + "  smem_wavefronts = " + f(wavefronts) + ";") if abs(wavefronts - counts["smem"]) > 1e-9 else ""}
  critical_path = {{ {kv(path)} }};
}};
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sass", required=True, help="cuobjdump -sass output")
    ap.add_argument("--res", required=True, help="cuobjdump -res-usage output")
    ap.add_argument("--kernel", help="the function (default: the spec's kernel)")
    ap.add_argument("--spec", help="launch, trip counts, branch fractions, access hints")
    ap.add_argument("--ncu-source", help="ncu --page source --print-source sass --csv")
    ap.add_argument("--ncu-raw", help="ncu --page raw --csv with dram__bytes_read/write.sum and "
                    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld/st.sum: each op's DRAM ratio")
    ap.add_argument("--ncu-dram", help="ncu --page raw --csv of a warm launch (--cache-control "
                    "none): the DRAM ratios from it instead of --ncu-raw")
    ap.add_argument("--grid", type=int)
    ap.add_argument("--block", type=int)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--tool", default="", help="cuobjdump --version's last line")
    ap.add_argument("--source", help="the kernel's source file (its sha256 is recorded)")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    spec = parse_spec(a.spec)
    name = a.kernel or spec.get("kernel") or die("no --kernel and no `kernel =` in the spec")
    grid, block = a.grid or spec.get("grid"), a.block or spec.get("block")
    if not grid or not block:
        die("%s: the launch shape (--grid/--block or `grid =`/`block =` in the spec)" % name)
    rd = lambda p: open(p, encoding="utf-8", errors="replace").read()
    funcs = kdesc.parse_sass(rd(a.sass), a.arch)
    if name not in funcs:
        die("%s: no %s SASS of it in %s" % (name, a.arch, a.sass))
    insts = funcs[name]
    regs, smem = parse_res(rd(a.res), a.arch, name)
    sectors, ratio = [None] * len(insts), None
    off = [False] * len(insts)          # a memory access predicated off in every lane (profile)
    ways_of = {}                        # shared-memory conflict ways (profile)
    if (a.ncu_raw or a.ncu_dram) and not a.ncu_source:
        die("--ncu-raw and --ncu-dram go with --ncu-source")
    if a.ncu_source:
        prof = parse_ncu_source(a.ncu_source, name)
        if len(prof) != len(insts):
            die("%s: the profile has %d instructions, the SASS %d: not the same code"
                % (name, len(prof), len(insts)))
        warps = grid * math.ceil(block / 32)
        per = []
        for i, (text, execd, sec, on, ways) in enumerate(prof):
            op = re.sub(r"^@!?U?P\w+\s+", "", text).split()[0]
            if op != insts[i].opcode:
                die("%s: instruction %d is `%s` in the profile, `%s` in the SASS"
                    % (name, i, text, insts[i].text))
            per.append(execd / warps)
            if not on and insts[i].cls in ("gmem", "smem"):
                off[i] = True
            elif insts[i].cls == "gmem" and execd > 0:
                sectors[i] = sec / execd
            if insts[i].cls == "smem" and on:
                ways_of[i] = max(1.0, ways)
        if per[0] != 1.0:
            die("%s: the profile ran %g warps' first instruction per warp of a %d x %d launch: "
                "another launch shape" % (name, per[0], grid, block))
        origin = "profile"
        if a.ncu_raw or a.ncu_dram:
            raw = parse_ncu_raw(a.ncu_dram or a.ncu_raw, name)
            ratio = {}
            for op, dk, sk in (("load", "dram__bytes_read.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
                               ("store", "dram__bytes_write.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")):
                if dk not in raw or sk not in raw:
                    die("%s: %s lacks %s or %s" % (name, a.ncu_raw, dk, sk))
                ratio[op] = min(1.0, max(1e-4, raw[dk] / (32 * raw[sk]))) if raw[sk] else 1.0
            hk, sk = ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
                      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
            for r in ([raw] if a.ncu_dram is None or not a.ncu_raw else [raw, parse_ncu_raw(a.ncu_raw, name)]):
                if hk in r and r.get(sk):
                    ratio["l1_hit"] = min(1.0, max(0.0, r[hk] / r[sk]))
                    break
    else:
        per, _ = counts_from_spec(name, insts, spec)
        origin = "sass"
    sha = hashlib.sha256(open(a.source, "rb").read()).hexdigest() if a.source else ""
    tool = ("cuobjdump " + a.tool.strip().replace('"', "'")) if a.tool.strip() else ""
    text = describe(name, insts, per, sectors, spec, regs, smem, grid, block, a.arch, origin,
                    tool, sha, ratio, off, ways_of)
    with open(a.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
