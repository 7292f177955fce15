#!/bin/bash
# build-trainer.sh: configures and builds the trainer (traindeck-train, no desktop app) against
# the LibTorch this host has: the one inside Python's torch package (CUDA and NCCL on a GPU
# machine), else a system LibTorch (Debian's libtorch-dev). The one recipe for a GPU check
# (tests/gpu/check_cuda.sh) and for building the bundled trainer on a remote host. Anything
# missing is one sentence naming it and the command that installs it, on stderr, exit 3.
#
#   packaging/build-trainer.sh SOURCE_DIR BUILD_DIR [TARGET...]     (default target traindeck-train)
#
# LIBTORCH=pip|system|PREFIX   which LibTorch (default: pip when python3 has torch, else system)
# EXTRA_PREFIX=DIR[;DIR]       more CMake prefixes (yaml-cpp, GoogleTest unpacked somewhere)
# GLOO_INCLUDE_DIR=DIR         gloo's headers, where neither torch nor the system has them
# JOBS=N                       parallel compile jobs (default: the cores)
# TESTS=OFF                    leave the tests out (the sources an app uploads carry none)
# The first lines of output say what was found ("found: ..."), for the caller's log.
set -uo pipefail

if [ $# -lt 2 ]; then
  echo "usage: build-trainer.sh SOURCE_DIR BUILD_DIR [TARGET...]" >&2
  exit 2
fi
src=$1 build=$2
shift 2
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(traindeck-train)

missing() {  # missing WHAT INSTALL: one sentence, then exit 3
  echo "build-trainer: this host lacks $1; install it with: $2" >&2
  exit 3
}
found() { echo "found: $*"; }

command -v cmake >/dev/null || missing "cmake" "sudo apt-get install -y cmake (or pip install cmake)"
command -v c++ >/dev/null || command -v g++ >/dev/null || missing "a C++ compiler" "sudo apt-get install -y g++"
found "$(cmake --version | head -1); $(${CXX:-c++} --version 2>/dev/null | head -1 || g++ --version | head -1)"

# --- Which LibTorch --------------------------------------------------------------------------
python=$(command -v python3 || true)
has_pip_torch() { [ -n "$python" ] && "$python" -c 'import torch' 2>/dev/null; }
choice=${LIBTORCH:-}
[ -z "$choice" ] && { has_pip_torch && choice=pip || choice=system; }

cmake_args=(-DCMAKE_BUILD_TYPE=Release -DTRAINDECK_GUI=OFF -DBUILD_TESTING=${TESTS:-ON})
prefixes=${EXTRA_PREFIX:-}
include_flags=""
case "$choice" in
  pip)
    has_pip_torch || missing "Python's torch" "pip install torch"
    # torch.utils.cmake_prefix_path holds TorchConfig.cmake; its CUDA version decides whether
    # nvcc is needed (torch's CMake config calls for it, and its major version must match).
    read -r torch_version torch_cuda torch_prefix abi < <("$python" -c '
import torch
print(torch.__version__, torch.version.cuda or "none", torch.utils.cmake_prefix_path,
      int(torch._C._GLIBCXX_USE_CXX11_ABI))')
    found "torch $torch_version (CUDA $torch_cuda) at $torch_prefix, C++11 string ABI $abi"
    # The torch-free libraries, yaml-cpp and GoogleTest from the system use the C++11 string ABI;
    # a torch built with the old one (wheels before 2.7) cannot link with them.
    [ "$abi" = 1 ] || missing "a torch built with the C++11 string ABI (torch >= 2.7)" "pip install 'torch>=2.7'"
    if [ "$torch_cuda" != none ]; then
      [ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
      command -v nvcc >/dev/null ||
        missing "CUDA's compiler nvcc (torch's CMake config needs it; CUDA ${torch_cuda%%.*}.x to match torch)" \
          "sudo apt-get install -y cuda-toolkit-${torch_cuda%%.*}-${torch_cuda#*.}"
      nvcc_version=$(nvcc --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1.\2/p')
      found "nvcc $nvcc_version"
      [ "${nvcc_version%%.*}" = "${torch_cuda%%.*}" ] ||
        missing "a CUDA ${torch_cuda%%.*} compiler (nvcc is $nvcc_version, torch was built with CUDA $torch_cuda)" \
          "sudo apt-get install -y cuda-toolkit-${torch_cuda%%.*}-${torch_cuda#*.}"
      # nccl.h of the NCCL torch loads (pip's nvidia-nccl); another release's header would give
      # c10d's objects the wrong layout.
      nccl=$("$python" -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "include"))' 2>/dev/null)
      [ -n "$nccl" ] && [ -f "$nccl/nccl.h" ] || missing "nccl.h of torch's NCCL" "pip install nvidia-nccl-cu${torch_cuda%%.*}"
      cmake_args+=(-DNCCL_INCLUDE_DIR="$nccl" -DCMAKE_CUDA_ARCHITECTURES=native)
      found "nccl.h in $nccl"
    fi
    ;;
  system)
    torch_prefix=""
    for dir in /usr/lib/x86_64-linux-gnu/cmake /usr/lib/cmake /usr/local/lib/cmake; do
      [ -f "$dir/Torch/TorchConfig.cmake" ] && { torch_prefix=$dir; break; }
    done
    [ -n "$torch_prefix" ] || missing "LibTorch" "pip install torch (or on Debian: sudo apt-get install -y libtorch-dev libgloo-dev)"
    found "system LibTorch at $torch_prefix"
    ;;
  *)
    torch_prefix=$choice
    [ -f "$torch_prefix/Torch/TorchConfig.cmake" ] || [ -f "$torch_prefix/TorchConfig.cmake" ] ||
      missing "LibTorch at $torch_prefix (no TorchConfig.cmake there)" "pip install torch"
    found "LibTorch at $torch_prefix"
    ;;
esac
torch_include=$(cd "$torch_prefix/../.." 2>/dev/null && pwd)/include

# c10d's Gloo header includes gloo's own; torch's wheel ships none.
gloo=${GLOO_INCLUDE_DIR:-}
if [ -z "$gloo" ]; then
  for dir in "$torch_include" /usr/include /usr/local/include; do
    [ -f "$dir/gloo/algorithm.h" ] && { gloo=$dir; break; }
  done
fi
[ -n "$gloo" ] && [ -f "$gloo/gloo/algorithm.h" ] || missing "gloo's headers" "sudo apt-get install -y libgloo-dev"
[ "$gloo" != "$torch_include" ] && [ "$gloo" != /usr/include ] && include_flags="-isystem $gloo"
found "gloo headers in $gloo"

cmake_args+=(-DCMAKE_PREFIX_PATH="${prefixes:+$prefixes;}$torch_prefix")
[ -n "$include_flags" ] && cmake_args+=(-DCMAKE_CXX_FLAGS="$include_flags")
command -v ninja >/dev/null && cmake_args+=(-G Ninja)

# --- Configure and build ---------------------------------------------------------------------
if ! cmake -S "$src" -B "$build" "${cmake_args[@]}"; then
  echo "build-trainer: configuring failed; the lines above say why (yaml-cpp missing: sudo apt-get install -y" \
    "libyaml-cpp-dev; GoogleTest: libgtest-dev libgmock-dev)" >&2
  exit 1
fi
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "${targets[@]}" || {
  echo "build-trainer: the build failed (the compiler's message is above)" >&2
  exit 1
}
found "built ${targets[*]} in $build"
