#!/bin/sh
# Every fuzz target: replay its committed corpus (crash-* regression seeds
# included), then fuzz for a short fixed time (10 s per target). Any crash,
# sanitizer report, leak or timeout fails. `make fuzz SECONDS=N` runs longer.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cd $ROOT"
BUILD=$BUILD tests/fuzz/run.sh "${GC_FUZZ_SECONDS:-10}"
