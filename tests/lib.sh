# Shared by the test scripts: paths, MPI environment, small helpers.
# shellcheck shell=sh
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
GC=$BUILD/gpucensus
VALIDATE=$ROOT/tests/schema/validate.py
# tools/gccat.py: a catalogue with its points, whatever its layout (`import gccat`)
export PYTHONPATH="$ROOT/tools${PYTHONPATH:+:$PYTHONPATH}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gctest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# Open MPI on one small machine, maybe as root (CI): oversubscribe, TCP on
# loopback only (shared-memory segments of logical nodes on one host can
# collide), yield when idle so 16 ranks on 2 cores stay fast.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl=self,tcp
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN="mpirun --oversubscribe"

die() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
