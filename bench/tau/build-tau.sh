#!/bin/sh
# Builds TAU (UO-OACISS/tau2) from its public source for bench/tau-trace.ts: a plain single-threaded
# TAU (no MPI, no PDT, no OpenMP), whose tracing is the run-time setting TAU_TRACE=1 (.trc + .edf), and
# TAU's tau2otf2 converter against Debian's OTF2 library. Not run by CI or the test suite.
#
# Usage: sh bench/tau/build-tau.sh TAU2_SOURCE [PERFSTUBS_SOURCE]
#   TAU2_SOURCE       a tau2 work tree, or a git repository of tau2 (bare or not): its HEAD is checked
#                     out into $BUILD (what the repository lacks, such as large files of examples/ it
#                     stores elsewhere, is left out; the build needs none of it)
#   PERFSTUBS_SOURCE  a perfstubs work tree or git repository, for a tau2 source without its perfstubs
#                     submodule (TAU's configure otherwise runs `git submodule update`, which needs the
#                     network); its HEAD is used
# Environment: PREFIX (default /opt/tau-trace), BUILD (default /tmp/tau2-src, a work tree made from a
# repository). Idempotent: an installed TAU with tau2otf2 is reported and left as it is.
# Needs gcc, g++, gfortran, make, git, and libopen-trace-format2-dev for tau2otf2.
# Takes about 15 minutes of one core; run it under `nice -n 10` on a shared machine.
set -eu

PREFIX=${PREFIX:-/opt/tau-trace}
BUILD=${BUILD:-/tmp/tau2-src}
SRC=${1:-}
PERFSTUBS=${2:-}
LIB=$PREFIX/x86_64/lib
BIN=$PREFIX/x86_64/bin

die() {
  echo "build-tau.sh: $*" >&2
  exit 1
}

[ -n "$SRC" ] || die "no TAU source given (usage: sh bench/tau/build-tau.sh TAU2_SOURCE [PERFSTUBS_SOURCE])"
[ -e "$SRC" ] || die "TAU source $SRC is missing (a tau2 work tree or git repository, from github.com/UO-OACISS/tau2)"

if [ -f "$LIB/Makefile.tau" ] && [ -x "$BIN/tau2otf2" ]; then
  echo "build-tau.sh: TAU is already built in $PREFIX ($LIB/Makefile.tau, $BIN/tau2otf2)"
  exit 0
fi

# 1. A work tree. From a repository: its HEAD through a private index, leaving out the blobs the
#    repository does not hold (a partial mirror lacks a few large files) and the submodules.
if [ -f "$SRC/configure" ] && [ -d "$SRC/src/Profile" ]; then
  BUILD=$SRC
elif [ ! -f "$BUILD/configure" ]; then
  GIT_DIR=$(git -C "$SRC" rev-parse --absolute-git-dir 2>/dev/null) ||
    die "TAU source $SRC is neither a tau2 work tree (no configure, src/Profile) nor a git repository"
  mkdir -p "$BUILD"
  index=$BUILD.index
  rm -f "$index"
  export GIT_DIR GIT_INDEX_FILE="$index"
  git read-tree HEAD
  # Submodules (mode 160000) and blobs the repository lacks ("missing" in cat-file's check).
  git ls-files -s | awk '$1 != 160000 { print $2 }' | git cat-file --batch-check | awk '$2 == "missing" { print $1 }' >"$BUILD.missing"
  git ls-files -s | awk -v missing="$BUILD.missing" '
    BEGIN { while ((getline b < missing) > 0) lack[b] = 1 }
    $1 == 160000 || ($2 in lack) { sub(/^[^\t]*\t/, ""); print }' >"$BUILD.leave-out"
  while read -r path; do
    echo "build-tau.sh: left out $path (a submodule or a file the repository lacks)"
    git update-index --force-remove "$path"
  done <"$BUILD.leave-out"
  git checkout-index -a --prefix="$BUILD/"
  rm -f "$index" "$BUILD.missing" "$BUILD.leave-out"
  unset GIT_DIR GIT_INDEX_FILE
fi
cd "$BUILD"

# 2. perfstubs: TAU's configure needs its headers, and clones the submodule when they are missing.
if [ ! -f perfstubs/CMakeLists.txt ]; then
  [ -n "$PERFSTUBS" ] || die "$BUILD/perfstubs is missing: give a perfstubs source (github.com/UO-OACISS/perfstubs) as the second argument"
  mkdir -p perfstubs
  if [ -f "$PERFSTUBS/CMakeLists.txt" ]; then
    cp -R "$PERFSTUBS/." perfstubs/
  else
    ps_git=$(git -C "$PERFSTUBS" rev-parse --absolute-git-dir 2>/dev/null) ||
      die "perfstubs source $PERFSTUBS is neither a perfstubs work tree nor a git repository"
    git --git-dir="$ps_git" archive HEAD | tar -x -C perfstubs
  fi
  [ -f perfstubs/CMakeLists.txt ] || die "perfstubs source $PERFSTUBS gave no CMakeLists.txt (a perfstubs work tree or git repository?)"
fi

# 3. utils/perfetto/perfetto.h: src/Profile's Makefile lists it among every object's prerequisites,
#    but only TracerPerfetto.cpp (built with -perfetto alone) includes it. A repository without the
#    file (the Perfetto SDK amalgamation, a large file) gets a placeholder that stops any build that
#    includes it.
if [ ! -f utils/perfetto/perfetto.h ]; then
  printf '%s\n' '/* Placeholder: the real header (Perfetto SDK amalgamation) is only for TAU configured with -perfetto. */' \
    '#error "perfetto.h placeholder: configure TAU with the real utils/perfetto/perfetto.h for -perfetto"' >utils/perfetto/perfetto.h
fi

# 4. Configure and build. The top level's `install` depends on `.clean`, a step that runs `make clean`
#    in every directory first, examples included; with the marker present it goes straight to the
#    build. Nothing is downloaded: no -bfd, -unwind, -otf, -apex options.
if [ ! -f "$LIB/Makefile.tau" ]; then
  ./configure -prefix="$PREFIX" -cc=gcc -c++=g++ -fortran=gfortran
  touch .clean
  make -j2 install
fi
[ -f "$LIB/Makefile.tau" ] || die "make install did not produce $LIB/Makefile.tau"

# 5. tau2otf2: TAU's converter, built by hand against TAU's trace reader (libTAU_traceinput) and
#    Debian's OTF2 (libopen-trace-format2), which TAU's configure does not find (it wants -otf=DIR
#    with include/otf2 and lib/libotf2).
[ -f /usr/include/otf2/otf2.h ] || die "OTF2's headers are missing (apt-get install libopen-trace-format2-dev)"
g++ -O2 -w -Iinclude utils/tau2otf2.cpp -o "$BIN/tau2otf2" -L"$LIB" -lTAU_traceinput -lopen-trace-format2
echo "build-tau.sh: TAU built in $PREFIX: TAU_MAKEFILE=$LIB/Makefile.tau, $BIN/tau2otf2"
