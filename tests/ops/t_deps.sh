#!/bin/bash
# tools/deps.sh test as root, with a dpkg that says slurm-wlm and sqlite3
# are missing and an apt-get that only records what it was asked (nothing
# is installed):
#   - outside CI, stdin not a terminal: it installs nothing, fails, and
#     prints the lines to run (GC_INSTALL_DEPS=1 make test, the apt-get line);
#   - GC_INSTALL_DEPS=1, or CI=true (CI's own behaviour): it installs both;
#   - a "y" typed at a terminal (script(1) gives it one): installs; "n": not.
# Skipped (77) when not root (then deps.sh only prints the line).
. "$(dirname "$0")/../lib.sh"
set -u
[ "$(id -u)" = 0 ] || skip "not root: tools/deps.sh installs nothing then"
mkdir -p "$TMP/bin"
cat > "$TMP/bin/dpkg" <<'SH'
#!/bin/sh
case "$2" in slurm-wlm|sqlite3) exit 1 ;; esac
exit 0
SH
cat > "$TMP/bin/apt-get" <<SH
#!/bin/sh
echo "apt-get \$*" >> "$TMP/apt.rec"
SH
chmod 755 "$TMP/bin/dpkg" "$TMP/bin/apt-get"
deps() {   # deps VAR=VALUE...: tools/deps.sh test with the fakes, stdin /dev/null
    rm -f "$TMP/apt.rec"
    env -u CI -u GC_INSTALL_DEPS -u GC_SKIP_DEPS PATH="$TMP/bin:$PATH" NVCC=/bin/true "$@" \
        sh "$ROOT/tools/deps.sh" test < /dev/null > "$TMP/deps.out" 2>&1
    D_RC=$?
    echo "deps.sh $*: exit $D_RC"; sed 's/^/  | /' "$TMP/deps.out"
}
deps
[ $D_RC = 1 ] && [ ! -e "$TMP/apt.rec" ] || die "outside CI without consent: exit $D_RC, apt-get: $(cat "$TMP/apt.rec" 2>/dev/null)"
grep -q "these bring system services (daemons Debian may start): slurm-wlm$" "$TMP/deps.out" || die "the services not named"
grep -q "^  GC_INSTALL_DEPS=1 make test$" "$TMP/deps.out" || die "the line to run"
grep -q "^  apt-get update && apt-get install -y --no-install-recommends slurm-wlm sqlite3$" "$TMP/deps.out" ||
    die "the apt-get line"
for consent in GC_INSTALL_DEPS=1 CI=true; do
    deps "$consent"
    [ $D_RC = 0 ] && grep -q "install -y -qq --no-install-recommends slurm-wlm sqlite3" "$TMP/apt.rec" ||
        die "$consent: exit $D_RC, apt-get: $(cat "$TMP/apt.rec" 2>/dev/null)"
done
grep -q '^export GC_INSTALL_DEPS=1$' "$ROOT/.ci/run" || die ".ci/run does not consent explicitly"
if command -v script > /dev/null; then
    for answer in y n; do
        rm -f "$TMP/apt.rec"
        printf '%s\n' "$answer" | env -u CI -u GC_INSTALL_DEPS PATH="$TMP/bin:$PATH" NVCC=/bin/true \
            script -qec "sh '$ROOT/tools/deps.sh' test" /dev/null > "$TMP/tty.out" 2>&1
        rc=$?
        grep -q "Install them now (apt-get, as root)? \[y/N\]" "$TMP/tty.out" || die "no question on a terminal: $(cat "$TMP/tty.out")"
        if [ $answer = y ]; then
            [ $rc = 0 ] && [ -e "$TMP/apt.rec" ] || die "answered y: exit $rc, nothing installed"
        else
            [ $rc = 1 ] && [ ! -e "$TMP/apt.rec" ] || die "answered n: exit $rc, apt-get: $(cat "$TMP/apt.rec" 2>/dev/null)"
        fi
    done
    echo "ok: on a terminal it asks: y installs, n does not"
fi
echo "ok: tools/deps.sh: as root outside CI no service is installed without consent (GC_INSTALL_DEPS=1 or y); CI=true installs"
