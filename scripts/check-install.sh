#!/usr/bin/env bash
# The standalone install, used as a project outside the repository uses it (issue 44):
#  1. builds the module in build/ (or $BUILD_DIR; incremental, so after scripts/test.sh it
#     only checks) and installs it with `cmake --install` to a temporary prefix;
#  2. checks what is installed: the library and its SONAME, the headers as ns3/NAME.h, the
#     checkpoints, the CMake package (one imported target) and the pkg-config file, and that the
#     experiment layer is not there;
#  3. configures and builds test/install-project against the prefix (find_package), and runs
#     it with `balanced` and, when the module has LibTorch, with `drl` on the installed
#     checkpoints: with the source tree hidden (a private mount namespace), drl must find them
#     beside the installed library, and with them gone too it must name every folder it tried;
#  4. compiles the same main.cc with `pkg-config --cflags --libs ns3-allreduce` and runs it.
# Every run must end with every server's exact sum. The prefix is removed at the end.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build}
fail() { echo "check-install: FAILED: $*" >&2; exit 1; }
step() { echo "== check-install: $*"; }

work=$(cd "$(mktemp -d)" && pwd -P) # as the library will see it (symbolic links resolved)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

step "building the module in $build"
BUILD_DIR=$build bash "$repo/scripts/build.sh" --target ns3-allreduce ||
  fail "the module did not build in $build"

# The source tree this build was configured from (as CMake wrote it): its checkpoints/ are
# drl's first folder.
source=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
[ -n "$source" ] && [ "$source" -ef "$repo" ] ||
  fail "$build was configured from '$source', not from this repository $repo; give BUILD_DIR" \
       "a build of this repository (or none: build/)"

step "installing to $prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log" ||
  { cat "$work/install.log" >&2; fail "cmake --install $build --prefix $prefix"; }

# --- What is installed ------------------------------------------------------------------------
lib=$(find "$prefix" -name libns3-allreduce.so -print -quit)
[ -n "$lib" ] || fail "no libns3-allreduce.so under $prefix (cmake --install installed no library)"
libdir=$(dirname "$lib")
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ -n "$soname" ] && [ -e "$libdir/$soname" ] ||
  fail "$lib has no SONAME, or its SONAME '$soname' is not installed beside it"
include=$prefix/include/ns3
[ -f "$include/allreduce-module.h" ] || fail "no umbrella header $include/allreduce-module.h"
# Every header of ALLREDUCE_HEADERS, flat.
headers=$(sed -n '/^set(ALLREDUCE_HEADERS/,/^)/p' "$repo/CMakeLists.txt" | grep '\.h' || true)
[ -n "$headers" ] || fail "cannot read ALLREDUCE_HEADERS from $repo/CMakeLists.txt"
for header in $headers; do
  name=$(basename "$header")
  [ -f "$include/$name" ] || fail "$header is not installed as $include/$name"
done
installed_headers=$(find "$include" -name '*.h' | wc -l)
expected_headers=$(( $(echo "$headers" | wc -w) + 1 ))
[ "$installed_headers" -eq "$expected_headers" ] ||
  fail "$include holds $installed_headers headers; the module has $expected_headers" \
       "(ALLREDUCE_HEADERS and the umbrella header)"
experiment=$(find "$prefix" -name '*experiment*' | head -3)
[ -z "$experiment" ] ||
  fail "the experiment layer is installed, but it is not part of the module: $experiment"
models=$prefix/share/ns3-allreduce/checkpoints
shipped=$(find "$repo/checkpoints" -name '*.pt' | wc -l)
installed=$(find "$models" -name '*.pt' 2>/dev/null | wc -l)
[ "$installed" -eq "$shipped" ] && [ -f "$models/general.pt" ] ||
  fail "$models holds $installed checkpoints (with general.pt?); checkpoints/ ships $shipped"
cmakedir=$libdir/cmake/ns3-allreduce
for f in ns3-allreduceConfig.cmake ns3-allreduceConfigVersion.cmake ns3-allreduceTargets.cmake; do
  [ -f "$cmakedir/$f" ] || fail "no $cmakedir/$f"
done
targets=$(grep -ho 'add_library([^ ]*' "$cmakedir"/ns3-allreduceTargets*.cmake | sort -u)
[ "$targets" = "add_library(ns3-allreduce::ns3-allreduce" ] ||
  fail "the CMake package should define one target, ns3-allreduce::ns3-allreduce; it has: $targets"
pc=$libdir/pkgconfig/ns3-allreduce.pc
[ -f "$pc" ] || fail "no pkg-config file $pc"
echo "   $soname, $installed_headers headers, $installed checkpoints, CMake package and $pc"

export PKG_CONFIG_PATH=$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
pkg-config --exists --print-errors ns3-allreduce || fail "pkg-config cannot use $pc (above)"
with_torch=no
if pkg-config --cflags ns3-allreduce | grep -q -- '-DALLREDUCE_HAVE_TORCH'; then
  with_torch=yes
fi
[ "$(pkg-config --variable=modeldir ns3-allreduce)" -ef "$models" ] ||
  fail "pkg-config's modeldir '$(pkg-config --variable=modeldir ns3-allreduce)' is not $models"

# run NAME PROGRAM ARGS...: runs PROGRAM and checks that it verified every server's exact sum.
run() {
  local name=$1
  shift
  local status=0
  "$@" > "$work/$name.out" 2>&1 || status=$?
  if [ $status -ne 0 ]; then
    cat "$work/$name.out" >&2
    fail "$name: '$*' exited with status $status (above)"
  fi
  grep -q '^verified: true' "$work/$name.out" ||
    { cat "$work/$name.out" >&2; fail "$name: no 'verified: true' in the output (above)"; }
  sed 's/^/   /' "$work/$name.out"
}

# --- A CMake project outside the repository ---------------------------------------------------
step "configuring and building test/install-project with CMAKE_PREFIX_PATH=$prefix"
# Only the prefix and the system: not this build's package registry nor the source tree.
if ! cmake -S "$repo/test/install-project" -B "$work/project" -DCMAKE_PREFIX_PATH="$prefix" \
       -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_BUILD_TYPE=Release \
       > "$work/configure.log" 2>&1; then
  cat "$work/configure.log" >&2
  fail "find_package(ns3-allreduce) against $prefix (above)"
fi
grep -q "ns3-allreduce 0.*from $cmakedir" "$work/configure.log" ||
  { cat "$work/configure.log" >&2; fail "find_package(ns3-allreduce) did not find $cmakedir"; }
cmake --build "$work/project" -j "${JOBS:-$(nproc)}" > "$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; fail "building test/install-project against $prefix (above)"; }
program=$work/project/allreduce-installed

step "running it with balanced"
run cmake-balanced "$program" --scheduler=balanced

if [ "$with_torch" = yes ]; then
  step "running it with drl on the installed checkpoints (ALLREDUCE_MODEL_DIR=$models)"
  run cmake-drl-env env ALLREDUCE_MODEL_DIR="$models" "$program" --scheduler=drl
  grep -q "^model *$models/bcube-n-3-k-1.pt (shipped" "$work/cmake-drl-env.out" ||
    fail "drl did not load $models/bcube-n-3-k-1.pt"

  # Without the source tree, drl must find the checkpoints beside the installed library: hide
  # the source tree under an empty folder in a private mount namespace (nothing outside the
  # command sees it).
  mkdir "$work/empty"
  hide=()
  for u in "unshare --mount" "unshare --mount --map-root-user"; do
    if $u mount --bind "$work/empty" "$source" 2>/dev/null; then
      read -r -a hide <<< "$u"
      break
    fi
  done
  if [ ${#hide[@]} -gt 0 ]; then
    hidden() { "${hide[@]}" sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh \
                 "$work/empty" "$source" env -u ALLREDUCE_MODEL_DIR "$@"; }
    step "running it with drl, the source tree $source hidden (${hide[*]})"
    run cmake-drl-installed hidden "$program" --scheduler=drl
    grep -q "^model *$models/bcube-n-3-k-1.pt (shipped" "$work/cmake-drl-installed.out" ||
      fail "with the source tree hidden, drl did not load the installed $models/bcube-n-3-k-1.pt"
    # Nothing left: drl names every folder it tried (unless another install of the module at
    # the configured prefix, its last folder, would be found).
    configured=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
    step "running it with drl, the source tree hidden and the installed checkpoints moved away"
    if [ -d "$configured/share/ns3-allreduce/checkpoints" ]; then
      echo "   not run: the module is also installed at $configured, where drl would look last"
    else
      mv "$models" "$work/moved-checkpoints"
      status=0
      hidden "$program" --scheduler=drl > "$work/drl-none.out" 2>&1 || status=$?
      mv "$work/moved-checkpoints" "$models"
      [ $status -eq 1 ] ||
        { cat "$work/drl-none.out" >&2; fail "drl without checkpoints exited with $status, not 1"; }
      grep -qF "no checkpoint folder exists: $source/checkpoints, $models" "$work/drl-none.out" ||
        { cat "$work/drl-none.out" >&2
          fail "drl's error does not name every folder it tried" \
               "($source/checkpoints, $models, ...)"; }
      sed 's/^/   /' "$work/drl-none.out"
    fi
  else
    echo "   not run: no private mount namespace here (unshare --mount), so the source tree" \
         "cannot be hidden; the installed checkpoints were checked with ALLREDUCE_MODEL_DIR"
  fi
else
  echo "   the module has no LibTorch: drl is not run"
fi

# --- pkg-config -------------------------------------------------------------------------------
step "compiling test/install-project/main.cc with pkg-config --cflags --libs ns3-allreduce"
read -r -a pc_flags <<< "$(pkg-config --cflags --libs ns3-allreduce)"
g++ -std=c++17 -o "$work/allreduce-installed-pc" "$repo/test/install-project/main.cc" \
    "${pc_flags[@]}" -Wl,-rpath,"$libdir" > "$work/pc.log" 2>&1 ||
  { cat "$work/pc.log" >&2
    fail "g++ main.cc \$(pkg-config --cflags --libs ns3-allreduce) (above)"; }
step "running it with balanced"
run pc-balanced "$work/allreduce-installed-pc" --scheduler=balanced

step "ok: installed to a prefix, built against with find_package and pkg-config, every run verified"
