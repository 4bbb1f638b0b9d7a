# Sourced by the make targets that start mpirun on this machine.
# shellcheck shell=sh
# mpirun refuses root unless told; containers and CI run as root.
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# More ranks than cores (the demo) must not spin each other to a halt.
export OMPI_MCA_mpi_yield_when_idle=1
MPIRUN=${MPIRUN:-mpirun}
