#!/usr/bin/env python3
"""Kernel descriptions of the validation suite, counted from compiled code.

Why: the models (MWP-CWP, Little's law) predict a kernel's time from what
one warp executes. Typed-in counts drift from what the compiler really
emits (extra IMADs, fused ops, spills), so the descriptions of
kernels/valid.cu are counted here from its SASS (`cuobjdump -sass`), with
registers and static shared memory from `ptxas -v`, and launch shapes and
access patterns (invisible in SASS) from kernels/valid_table.h.
Output: one libconfig file per kernel, format of docs/kernel-description.md.

Refuses (exit 1, naming the kernel) when the SASS has a loop the table does
not annotate, or when its global loads/stores disagree with the table's
annotation: a description that does not match the code is worse than none.

  tools/kdesc.py --sass valid.sass --ptxas valid.ptxas.log \
      --table kernels/valid_table.h --source kernels/valid.cu \
      --tool "$(cuobjdump --version | tail -n 1)" -o build/gen/kdesc
"""
import argparse
import hashlib
import os
import re
import sys

CLASSES = ("fp32", "fp64", "int", "sfu", "conv", "smem", "control", "other")
PATH_CLASSES = ("fp32", "fp64", "int", "sfu", "smem", "gmem")
# Nominal latencies (cycles) of the critical-path search; conv/other 4.
LATENCY = {"fp32": 4, "int": 4, "fp64": 8, "sfu": 20, "smem": 30, "gmem": 500}

OPS = {
    "fp32": "FADD FMUL FFMA FMNMX FSET FSETP FSEL FCHK FSWZADD FADD32I FMUL32I FFMA32I "
            "HADD2 HMUL2 HFMA2 HSET2 HSETP2 HMNMX2",
    "fp64": "DADD DMUL DFMA DSETP DMNMX DSET",
    "int": "IADD3 IADD IADD32I IMAD IMUL IMNMX IABS ISETP ISCADD LOP3 LOP LOP32I SHF SHL SHR "
           "LEA SEL PRMT POPC FLO BREV BMSK SGXT IDP IDP4A VIADD VIADDMNMX VIMNMX VIMNMX3 "
           "VABSDIFF VABSDIFF4 PLOP3 P2R R2P",
    "sfu": "MUFU",
    "conv": "F2F F2I I2F I2I F2FP FRND I2FP F2IP I2IP",
    "smem": "LDS STS ATOMS LDSM STSM",
    "control": "BRA BRX JMP JMX EXIT RET CALL BSSY BSYNC BREAK BPT KILL WARPSYNC",
    "gmem": "LDG STG LD ST LDL STL ATOMG ATOM RED",
}
CLASS_OF = {op: cls for cls, ops in OPS.items() for op in ops.split()}
LOADS, STORES = {"LDG", "LD", "LDL"}, {"STG", "ST", "STL"}
NO_DEST = STORES | {"STS", "RED", "BAR", "NOP", "MEMBAR", "DEPBAR", "ERRBAR", "CCTL", "YIELD"}
PRED = re.compile(r"^!?U?P(\d+|T)$")
REG = re.compile(r"\b(UR\d+|R\d+|UP\d+|P\d+)(\.64|\.128)?\b")


def die(msg):
    sys.exit("kdesc.py: " + msg)


def classify(opcode):
    if opcode.startswith("HFMA2.MMA"):
        return "other"                    # the compiler's move-immediate idiom
    base = opcode.split(".")[0]
    if base in CLASS_OF:
        return CLASS_OF[base]
    if base.startswith("U") and CLASS_OF.get(base[1:]) == "int":
        return "int"                      # uniform datapath integer ops
    return "other"


def width(mods):
    """Registers per operand implied by an opcode's modifiers."""
    return 4 if "128" in mods else 2 if ("64" in mods or "WIDE" in mods) else 1


def regs(text, n=1):
    """Registers named in an operand; .64/.128 (or n) expand to pairs/quads."""
    out = []
    for name, suf in REG.findall(text):
        k = 2 if suf == ".64" else 4 if suf == ".128" else n
        m = re.match(r"(U?[RP])(\d+)", name)
        out += ["%s%d" % (m.group(1), int(m.group(2)) + j) for j in range(k)]
    return out


class Inst:
    def __init__(self, addr, text):
        self.addr, self.text = addr, text
        m = re.match(r"(@!?U?P\w+)\s+(.*)", text)
        self.guard = m.group(1)[1:].lstrip("!") if m else None
        body = m.group(2) if m else text
        self.opcode, _, rest = body.partition(" ")
        self.ops = [o.strip() for o in rest.split(",")] if rest.strip() else []
        self.base = self.opcode.split(".")[0]
        self.mods = self.opcode.split(".")[1:]
        self.cls = classify(self.opcode)
        self.target = None                # branch target: address or label
        self.callee = self.callee_name = None   # CALL: the subroutine's address and label
        if self.base in ("BRA", "JMP") and self.ops:
            t = self.ops[-1]
            lm = re.search(r"\((\.L\w+)\)", t)
            self.target = lm.group(1) if lm else int(t.split()[-1], 16)
        if self.base == "CALL" and self.ops:   # cuobjdump: an address; nvdisasm: a label
            lm = re.search(r"\(([.$][\w$.]+)\)", self.ops[-1])
            hm = re.fullmatch(r"(0x[0-9a-fA-F]+)", self.ops[-1].split()[-1])
            self.callee_name = lm.group(1) if lm else None
            self.callee = int(hm.group(1), 16) if hm and ".REL" in body.split()[0] else None
        self.dests, self.srcs = self.operands()

    def operands(self):
        ops, dests, i = self.ops, [], 0
        fp64 = self.cls == "fp64" and self.base != "DSETP"
        if ops and self.base not in NO_DEST and self.cls != "control":
            types = [m for m in self.mods if re.match(r"^[FSU](8|16|32|64)$", m)]
            dw = width(self.mods)
            if fp64 or self.base == "CS2R" and "32" not in self.mods or \
                    (self.cls == "conv" and types and types[0].endswith("64")):
                dw = 2
            dests = regs(ops[0], dw)
            i = 1
            while i < len(ops) and i <= 2 and PRED.match(ops[i]):
                dests += regs(ops[i])
                i += 1
        srcs = [self.guard] if self.guard else []
        for k, o in enumerate(ops[i:], i):
            sw = 2 if fp64 else 1
            if self.base in STORES | {"STS"} and k == len(ops) - 1:
                sw = width(self.mods)     # the stored data
            srcs += regs(o, sw)
        return [d for d in dests if d[-1] != "T"], srcs


def parse_sass(text, arch):
    """{function: [Inst]} of one architecture; labels resolved to addresses."""
    funcs, cur, fn, labels, pending = {}, None, None, {}, []
    for line in text.splitlines():
        m = re.search(r"(?:code for|arch =)\s*(sm_\w+)", line)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r"\s*Function\s*:\s*(\S+)", line)
        if m:
            fn = m.group(1) if cur == arch else None
            if fn:
                funcs[fn], labels[fn] = [], {}
            continue
        if not fn:
            continue
        m = re.match(r"\s*(\.L\w+|\$[\w$.]+):", line)   # branch targets, subroutines
        if m:
            pending.append(m.group(1))
            continue
        m = re.match(r"\s*/\*([0-9a-fA-F]+)\*/\s+(.*?)\s*;", line)
        if m:
            ins = Inst(int(m.group(1), 16), m.group(2))
            for lb in pending:
                labels[fn][lb] = ins.addr
            pending = []
            funcs[fn].append(ins)
    for fn, insts in funcs.items():
        for ins in insts:
            if isinstance(ins.target, str):
                ins.target = labels[fn].get(ins.target)
            if ins.callee_name:
                ins.callee = labels[fn].get(ins.callee_name)
    return funcs


def executed(name, insts, trips):
    """The dynamic instruction list of one warp: straight-line up to the last
    EXIT; a loop only when the table gives its trip count."""
    exits = [i for i, x in enumerate(insts) if x.base == "EXIT"]
    if not exits:
        die("%s: no EXIT in its SASS" % name)
    live = insts[:exits[-1] + 1]
    back = [i for i, x in enumerate(live) if x.target is not None and x.target <= x.addr]
    if back and not trips:
        x = live[back[0]]
        die("%s: backward branch at %#x (`%s`): a loop, and valid_table.h gives no trip count"
            % (name, x.addr, x.text))
    if trips:
        if len(back) != 1:
            die("%s: trips = %d annotated, but the SASS has %d loops" % (name, trips, len(back)))
        b = back[0]
        t = next(i for i, x in enumerate(live) if x.addr == live[b].target)
        return live[:t] + live[t:b + 1] * trips + live[b + 1:]
    return live


def critical_path(insts, in_order=False):
    """Longest register dependency chain (sum of nominal latencies); the
    class counts of the instructions along it.

    in_order (describe.py, kernels with loops): a warp issues in program
    order, so an instruction also starts no earlier than the one before it
    (an edge of no latency: the load of a loop's next trip waits behind the
    add that waits for this trip's load), and a barrier waits for the
    shared-memory stores before it (STS/ATOMS, at the smem latency): the
    path then counts every wait a warp really makes, not only the loads
    whose addresses depend on each other."""
    ready, fin, start_of, parent = {}, [], [], []
    stores_done = (0, None)        # latest shared store completion since the last barrier
    for i, x in enumerate(insts):
        start, par = 0, None
        for r in x.srcs:
            if r in ready and ready[r][0] > start:
                start, par = ready[r]
        if in_order and i and start_of[i - 1] > start:
            start, par = start_of[i - 1], (i - 1, False)
        if in_order and x.base == "BAR" and stores_done[0] > start:
            start, par = stores_done
        lat = 0 if not x.dests else LATENCY.get(x.cls, 4)
        fin.append(start + lat)
        start_of.append(start)
        parent.append(par)
        for d in x.dests:
            ready[d] = (start + lat, (i, True))
        if in_order and x.cls == "smem" and not x.dests:
            done = start + LATENCY["smem"]
            if done > stores_done[0]:
                stores_done = (done, (i, "store"))
        if x.base == "BAR":
            stores_done = (0, None)
    path = dict.fromkeys(PATH_CLASSES, 0)
    i = max(range(len(insts)), key=lambda k: fin[k]) if insts else None
    counted = True
    while i is not None:
        if counted == "store" or (counted and insts[i].cls in path and insts[i].dests):
            path[insts[i].cls] += 1
        if parent[i] is None:
            break
        i, counted = parent[i]
    return path


def parse_ptxas(text, arch):
    """{function: (registers, static smem bytes)} for one architecture."""
    out, fn = {}, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '(\S+)' for '(sm_\w+)'", line)
        if m:
            fn = m.group(1) if m.group(2) == arch else None
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and fn:
            sm = re.search(r"(\d+) bytes smem", line)
            out[fn] = (int(m.group(1)), int(sm.group(1)) if sm else 0)
            fn = None
    return out


def int_expr(s, defs):
    e = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: str(defs.get(m.group(0), m.group(0))), s)
    e = re.sub(r"(\d)(ull|ul|u|l|L|U)+\b", r"\1", e)
    if not re.fullmatch(r"[\d\s()+*<-]+", e):
        die("valid_table.h: cannot evaluate '%s'" % s)
    return int(eval(e, {"__builtins__": {}}))   # digits and operators only


def parse_table(text):
    defs = {}
    for m in re.finditer(r"^#define\s+(GCV_\w+)\s+(\(?[\d\s<ul()]+\)?)\s*(?:/\*.*)?$", text, re.M):
        defs[m.group(1)] = int_expr(m.group(2), {})
    rows = []
    for m in re.finditer(r'^GCV\((.*)\)\s*\\?\s*$', text, re.M):
        f = [x.strip() for x in re.findall(r'"[^"]*"|[^,]+', m.group(1))]
        if len(f) != 9:
            die("valid_table.h: row '%s' has %d fields, not 9" % (m.group(1), len(f)))
        mem = []
        for g in f[8].strip('"').split(";"):
            gm = re.fullmatch(r"\s*(load|store) (\d+)x(\d+)B (\d+)sec(?: (\d+)lines)?\s*", g)
            if not gm:
                die("valid_table.h: %s: bad access annotation '%s'" % (f[0], g))
            lines = int(gm.group(5)) if gm.group(5) else 0   # 0: contiguous (the default)
            mem.append((gm.group(1), int(gm.group(2)), int(gm.group(3)), int(gm.group(4)), lines))
        rows.append(dict(name=f[0].strip('"'), fn=f[1], family=f[2], k=int_expr(f[3], defs),
                         threads=int_expr(f[4], defs), elements=int_expr(f[5], defs),
                         bps=int_expr(f[6], defs), trips=int_expr(f[7], defs), mem=mem))
    return defs, rows


def describe(row, defs, insts, ptx, arch, sha, tool):
    name = row["name"]
    counts = dict.fromkeys(CLASSES, 0)
    gmem, syncs = {}, 0
    for x in insts:
        if x.cls == "gmem":
            op = "load" if x.base in LOADS else "store" if x.base in STORES else None
            if op is None:
                die("%s: `%s`: atomics/reductions cannot be annotated" % (name, x.text))
            b = 16 if "128" in x.mods else 8 if "64" in x.mods else \
                1 if {"U8", "S8"} & set(x.mods) else 2 if {"U16", "S16"} & set(x.mods) else 4
            gmem[(op, b)] = gmem.get((op, b), 0) + 1
        else:
            counts[x.cls] += 1
        syncs += x.base == "BAR"
    want = {}
    for op, n, b, _, _ in row["mem"]:
        want[(op, b)] = want.get((op, b), 0) + n
    if gmem != want:
        fmt = lambda d: ", ".join("%d %s x %dB" % (n, op, b) for (op, b), n in sorted(d.items()))
        die("%s: its SASS (%s) has global memory instructions %s, valid_table.h says %s"
            % (name, row["fn"], fmt(gmem) or "none", fmt(want) or "none"))
    regs_, smem = ptx
    grid = row["elements"] // row["threads"] if row["elements"] else row["bps"] * defs["GCV_SM90_SMS"]
    dyn = 0
    if row["family"] == "GCV_OCC":
        b = row["k"] * 32 // row["threads"]
        dyn = defs["GCV_SM90_SMEM_PER_SM"] // b // 128 * 128 - defs["GCV_SM90_SMEM_RESERVED"]
    path = critical_path(insts)
    kv = lambda d: " ".join("%s = %d;" % kv for kv in d.items())
    mem = ",\n".join('    { op = "%s"; count = %d; bytes_per_thread = %d; sectors_per_inst = %d;%s }'
                     % (g[:4] + (" lines_per_inst = %d;" % g[4] if g[4] else "",))
                     for g in row["mem"])
    return f"""# Generated by tools/kdesc.py from the SASS of kernels/valid.cu ({row["fn"]})
# and kernels/valid_table.h; `make kdesc-update` refreshes the committed copy.
kernel = {{
  name = "{name}";
  origin = "sass";
  arch = "{arch}";
  source_sha256 = "{sha}";
  tool = "{tool}";

  grid_blocks = {grid}L;
  block_threads = {row["threads"]};
  registers_per_thread = {regs_};
  smem_static_bytes = {smem};
  smem_dynamic_bytes = {dyn};

  insts = {{ {kv(counts)} }};
  mem = (
{mem}
  );
  syncs = {syncs};
  critical_path = {{ {kv(path)} }};
}};
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sass", required=True)
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--source", required=True, help="kernels/valid.cu")
    ap.add_argument("--tool", default="", help="cuobjdump --version's last line")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    rd = lambda p: open(p, encoding="utf-8", errors="replace").read()
    table = rd(a.table)
    sha = hashlib.sha256(open(a.source, "rb").read() + open(a.table, "rb").read()).hexdigest()
    tool = "cuobjdump " + a.tool.strip().replace('"', "'") if a.tool.strip() else ""
    defs, rows = parse_table(table)
    funcs, ptx = parse_sass(rd(a.sass), a.arch), parse_ptxas(rd(a.ptxas), a.arch)
    if not rows:
        die("%s: no GCV rows" % a.table)
    os.makedirs(a.out, exist_ok=True)
    for row in rows:
        if row["fn"] not in funcs:
            die("%s: no %s SASS of %s in %s" % (row["name"], a.arch, row["fn"], a.sass))
        if row["fn"] not in ptx:
            die("%s: no ptxas -v line for %s (%s) in %s" % (row["name"], row["fn"], a.arch, a.ptxas))
        insts = executed(row["name"], funcs[row["fn"]], row["trips"])
        text = describe(row, defs, insts, ptx[row["fn"]], a.arch, sha, tool)
        with open(os.path.join(a.out, row["name"] + ".cfg"), "w") as f:
            f.write(text)
    print("kdesc.py: %d descriptions in %s" % (len(rows), a.out))


if __name__ == "__main__":
    main()
