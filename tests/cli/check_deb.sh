#!/bin/sh
# check_deb.sh BUILD_DIR: builds the .deb with CPack into a scratch folder and checks that it
# holds both programs, the .desktop entry, the icon, the metainfo, the presets and the docs.
set -eu
build=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cpack --config "$build/CPackConfig.cmake" -B "$scratch" >/dev/null
deb=$(ls "$scratch"/*.deb)
contents=$(dpkg-deb -c "$deb")
for file in ./usr/bin/traindeck ./usr/bin/traindeck-train ./usr/share/applications/traindeck.desktop \
            ./usr/share/icons/hicolor/scalable/apps/traindeck.svg ./usr/share/metainfo/io.traindeck.TrainDeck.metainfo.xml \
            ./usr/share/traindeck/presets/demo-cpu.yaml ./usr/share/doc/TrainDeck/README.md \
            ./usr/share/doc/TrainDeck/docs/remote.md; do
  printf '%s\n' "$contents" | grep -q " $file\$" || { echo "check_deb: $file is missing from $(basename "$deb")"; exit 1; }
done
echo "check_deb: $(basename "$deb") holds both programs, the desktop entry, icon, metainfo, presets and docs"
