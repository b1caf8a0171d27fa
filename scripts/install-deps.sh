#!/usr/bin/env bash
# Installs the Debian packages hyprof builds and tests with. Run as root or with sudo available.
#   compilers and tools: gcc, g++, gfortran, clang, llvm (llvm-symbolizer), binutils (addr2line, c++filt), make, python3,
#                        pkg-config (the C-only install's test builds with `pkg-config hyprof`)
#   runtime deps:        libunwind-dev (DWARF unwinding in the sampler), libpapi-dev (optional counters)
#   OpenMP / MPI:        libomp-dev (LLVM OpenMP with OMPT), openmpi-bin + libopenmpi-dev
#   traces (optional):   libopen-trace-format2-dev (hyprof-otf2 writes OTF2 with it), otf2-tools
#                        (otf2-print) and python3-otf2 (the tests read every trace with both)
#   tests / benchmarks:  chromium (viewer tests through playwright-core), linux-perf (perf record),
#                        a JDK (TAU's own profile reader, test/tools/tau-reader), util-linux (prlimit:
#                        a file size limit in the tests), time (GNU time: peak memory in the benchmarks),
#                        golang-go + golang-github-google-pprof-dev (Google's pprof, built offline by the
#                        export tests to read hyprof's pprof files), strace (the system calls of the
#                        sampler's unwinding: test/node-unwind-syscalls, bench/node-unwind), valgrind
#                        (callgrind's instruction counts in the benchmarks), git (bench/tau/build-tau.sh
#                        checks TAU's source out of a repository), hpcc (the HPC Challenge suite: an MPI
#                        program not written here, bench/mpi-service)
#   traces (OTF2):       libopen-trace-format2-dev (the OTF2 library: hyprof-otf2-read is built with it),
#                        otf2-tools (otf2-print) and python3-otf2 (the tests read traces with OTF2's own readers)
set -euo pipefail
packages=(build-essential python3 pkg-config gfortran clang llvm binutils libunwind-dev libpapi-dev libomp-dev
  openmpi-bin libopenmpi-dev chromium linux-perf openjdk-17-jdk-headless util-linux time golang-go golang-github-google-pprof-dev
  libopen-trace-format2-dev otf2-tools python3-otf2 strace valgrind git hpcc)
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all Debian packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
