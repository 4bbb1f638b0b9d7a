#!/bin/sh
# The house's rules (docs/architecture.md), on this build: no include points
# up the order of the stages (at most one, named in tools/layers.py's
# report), mpi.h only in tree/, run/ and main.c, every source file in a
# stage's folder, and no circle of calls between source files (read from
# the build's objects with nm). The report is the test's log.
. "$(dirname "$0")/../lib.sh"
command -v nm >/dev/null 2>&1 || skip "no nm"
[ -f "$BUILD/src/main.o" ] || die "no build in $BUILD (make first)"
cd "$ROOT" && python3 tools/layers.py --build "$BUILD" --max-up 1 || die "the layering above does not hold"
echo "layers hold"
