#!/bin/sh
# SASS of the built kernels: each timed window holds the intended
# instructions (tests/sass/check_sass.sh). Skipped without cuobjdump.
. "$(dirname "$0")/../lib.sh"
exec "$ROOT/tests/sass/check_sass.sh" "$BUILD"/kernels/*.o
