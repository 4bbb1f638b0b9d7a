# Sourced by t_san.sh and t_tsan.sh (after tests/lib.sh): a failure counted
# with the end of its log, and every unit test of a sanitized build run.
# The caller defines reports LOG: true when LOG holds a sanitizer's report.
failures=0
fail() {
    echo "FAIL: $1; end of $2:"
    tail -n 40 "$2" | sed 's/^/    /'
    failures=$((failures + 1))
}

# san_units BUILD_DIR: each BUILD_DIR/tests/test_* (77 = skipped is fine, as
# in tests/run.sh); a failed exit or a report fails it.
san_units() {
    for t in "$1"/tests/test_*; do
        [ -x "$t" ] || continue
        name=$(basename "$t")
        log=$TMP/$name.log
        "$t" . > "$log" 2>&1
        rc=$?
        if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
            fail "$name (exit $rc)" "$log"
        elif reports "$log"; then
            fail "$name: sanitizer report" "$log"
        else
            echo "ok: $name ($(tail -n 1 "$log"))"
        fi
    done
}
