#!/bin/sh
# The command line as the README's command table states it: every command
# (each row of the table) takes -h/--help (its usage on stdout, exit 0),
# refuses an unknown option with exit 2 and the list of the options its
# parser accepts; its usage, the top-level usage and the README row name
# each of those options (and the row names none the parser lacks); the exit
# codes of the row are the ones its --help states. Then `--opt=V` is
# `--opt V`, and missing arguments exit 2 with the synopsis.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd"
[ -x "$GC" ] || die "no $GC (make first)"
command -v python3 >/dev/null || skip "no python3"

"$GC" --help > "$TMP/top.out" || die "gpucensus --help: exit $?"
"$GC" > /dev/null 2>&1
[ $? = 2 ] || die "gpucensus without a command: expected exit 2"

python3 - "$GC" README.md "$TMP/top.out" <<'PY' || die "README's command table and the program disagree"
import re, subprocess, sys
gc, readme, top = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
table = readme.split("## Commands", 1)[1].split("\n## ", 1)[0]
rows = [l for l in table.splitlines() if l.startswith("| `")]
assert len(rows) >= 12, len(rows)
seen = set()
for row in rows:
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
    syn, codes = cells[0], cells[2]
    words = re.match(r"`([a-z]+(?: (?:add|show|last|publish))?)", syn).group(1).split()
    name = " ".join(words)
    seen.add(words[0])
    h = subprocess.run([gc, *words, "--help"], capture_output=True, text=True)
    assert h.returncode == 0, (name, "--help exit", h.returncode, h.stderr)
    assert h.stdout.startswith("usage: gpucensus " + words[0]), (name, h.stdout[:80])
    b = subprocess.run([gc, *words, "--no-such-option"], capture_output=True, text=True)
    assert b.returncode == 2, (name, "bad option exit", b.returncode)
    m = re.search(r"\(options:(.*?)-h\|--help;", b.stderr)
    assert m, (name, b.stderr)
    parser = set(re.findall(r"(--?[a-z][a-z-]*)", m.group(1)))
    in_row = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", syn))
    assert parser == in_row, (name, "parser", sorted(parser), "README row", sorted(in_row))
    for o in parser:
        assert re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", h.stdout), (name, o, "not in its --help")
        assert re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", top), (name, o, "not in gpucensus --help")
    # the exit codes: each of the row's in the command's --help, and bad arguments are 2
    ex = h.stdout.split("exit codes:", 1)[1]
    if name == "history publish":   # a usage of its own
        pass
    elif words[0] == "history":   # one usage for the other three verbs: the verb's part
        ex = ex.split(words[1] + ":", 1)[1] if words[1] != "add" else ex
        ex = re.split(r"\n\s+(?:show|last):", ex)[0] if words[1] == "add" else re.split(r"\n\s+last:", ex)[0] if words[1] == "show" else re.split(r"\n\s+publish:", ex)[0]
    row_codes = sorted(set(re.findall(r"(?:^|; )(\d)\b", codes)))
    help_codes = sorted(set(re.findall(r"(?:^\s*|[;:] |\n\s+)(\d)\b", ex)))
    assert row_codes == help_codes, (name, "README", row_codes, "--help", help_codes)
    assert re.search(r"\b2 [^;]*\bbad\b", codes) or re.search(r"\b2 [^;]*arguments", codes), (name, "bad arguments not exit 2", codes)
    assert re.search(r"\b2\b[^;]*(bad|arguments)", ex), (name, "its --help does not give bad arguments 2", ex)
for c in seen:
    assert re.search(r"^  " + c + r"\b", top, re.M), (c, "not in the top-level usage")
print("usage: %d rows of the README's table agree with the program" % len(rows))
PY

# --opt=V is --opt V
"$GC" plan configs/quick.cfg --ranks 8 --nodes=1 > "$TMP/a.out" || die "plan --ranks 8 --nodes=1"
"$GC" plan configs/quick.cfg --ranks=8 --nodes 1 > "$TMP/b.out" || die "plan --ranks=8 --nodes 1"
cmp -s "$TMP/a.out" "$TMP/b.out" || die "--opt=V differs from --opt V"
"$GC" plan configs/quick.cfg --ranks= > /dev/null 2>&1
[ $? = 2 ] || die "--ranks= (empty): expected exit 2"
"$GC" check --json=1 x > "$TMP/out" 2>&1
[ $? = 2 ] && grep -q "takes no value" "$TMP/out" || die "a flag given a value: expected exit 2"
# missing arguments: exit 2 and the synopsis
for c in run plan merge check report predict "history add" "history show" "history last"; do
    # shellcheck disable=SC2086
    "$GC" $c > "$TMP/out" 2>&1
    rc=$?
    [ $rc = 2 ] && grep -q "^usage: gpucensus " "$TMP/out" || { cat "$TMP/out"; die "$c without arguments: exit $rc"; }
done
# gpucensus help COMMAND is COMMAND --help
"$GC" help check > "$TMP/a.out" && "$GC" check --help > "$TMP/b.out" && cmp -s "$TMP/a.out" "$TMP/b.out" ||
    die "help check differs from check --help"
echo "ok: --help, bad options, --opt=V and missing arguments as the README says"
