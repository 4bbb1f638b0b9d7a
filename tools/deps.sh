#!/bin/sh
# Install what gpucensus needs from Debian/Ubuntu packages, or say exactly
# what to install. Usage: tools/deps.sh build|test
# As root it installs what is missing; as another user it prints the
# apt-get line and fails. The test packages include system services
# (slurm-wlm, munge, prometheus, prometheus-node-exporter, which Debian
# may start at once): outside CI they are installed only with consent,
# GC_INSTALL_DEPS=1 or a "y" typed at the question (asked only on a
# terminal; without one the apt-get line is printed and it fails). CI
# (CI=true, as CI services set it) installs as before. Without dpkg (not
# Debian-like) it only checks for the tools and trusts the *_PREFIX
# variables (see INSTALL).
set -eu
what=${1:-build}
pkgs="pkg-config make gcc openmpi-bin libopenmpi-dev libconfig-dev libjansson-dev zlib1g-dev libsqlite3-dev"
if [ "$what" = test ]; then
    # slurm-wlm + munge: tests/slurm runs a private Slurm cluster on this machine
    # chromium: tests/report renders the HTML report headless
    # prometheus (promtool) + python3-prometheus-client: tests/ops parse the metrics file;
    # prometheus-node-exporter: tests/slurm/t_daily.sh serves it as the README says
    # sqlite3: tests/ops corrupts and inspects a history database
    # lmod: tests/ops/t_install.sh loads the installed modulefile
    # iproute2: tests/net's test bed (ip netns, veth, bridge, tc)
    pkgs="$pkgs python3 python3-jsonschema clang libclang-rt-14-dev slurm-wlm munge chromium"
    pkgs="$pkgs prometheus python3-prometheus-client prometheus-node-exporter sqlite3 lmod iproute2"
fi
# packages that bring system services: installed as root only with consent outside CI
services="slurm-wlm munge prometheus prometheus-node-exporter"
[ -n "${GC_SKIP_DEPS:-}" ] && exit 0

nvcc=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
if ! [ -x "$nvcc" ] && ! command -v nvcc >/dev/null 2>&1; then
    echo "gpucensus: nvcc not found at $nvcc: install the CUDA toolkit and set CUDA_HOME (see INSTALL)" >&2
    exit 1
fi
if ! command -v dpkg >/dev/null 2>&1; then
    command -v mpicc >/dev/null 2>&1 || { echo "gpucensus: mpicc not found (set MPI_PREFIX, see INSTALL)" >&2; exit 1; }
    exit 0
fi
missing=""
for p in $pkgs; do
    # libclang-rt-14-dev only exists where clang is 14 (Debian 12).
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
line="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
    echo "gpucensus: missing packages. As root, run:" >&2
    echo "  apt-get update && $line" >&2
    exit 1
fi
need_consent=""
for p in $missing; do
    case " $services " in *" $p "*) need_consent="$need_consent $p" ;; esac
done
if [ -n "$need_consent" ] && [ "${CI:-}" != true ] && [ "${GC_INSTALL_DEPS:-}" != 1 ]; then
    echo "gpucensus: the tests need$missing; these bring system services (daemons Debian may start):$need_consent" >&2
    answer=n
    if [ -t 0 ] && [ -t 2 ]; then
        printf 'Install them now (apt-get, as root)? [y/N] ' >&2
        read -r answer || answer=n
    fi
    case "$answer" in
    y|Y|yes) ;;
    *)  echo "gpucensus: not installed. Run either of:" >&2
        echo "  GC_INSTALL_DEPS=1 make test" >&2
        echo "  apt-get update && $line" >&2
        echo "(or GC_SKIP_DEPS=1 make test: the tests that need them skip)" >&2
        exit 1 ;;
    esac
fi
echo "gpucensus: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
