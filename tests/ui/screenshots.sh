#!/bin/sh
# screenshots.sh TRAINDECK OUT: the app renders each page, with a recorded two-rank run open
# and five recorded runs compared, to OUT/{setup,setup-sweep,monitor,logs,compare,
# compare-multiples}.png (offscreen). Look at them after changing the pages.
set -eu
app=$1 out=$2
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
run=$root/runs/20261130-083449-tiny-ddp
mkdir -p "$run/logs"
cp "$(dirname "$0")/../app/fixtures/metrics.jsonl" "$run/metrics.jsonl"
printf '{"id":"20261130-083449-tiny-ddp","name":"tiny ddp","created":"2026-11-30T08:34:49Z","status":"finished","exit_reason":"finished 40 steps","world_size":2,"step":40}' > "$run/run.json"
for rank in 0 1; do
  printf '2026-11-30T08:34:49Z info: rank %s of 2: meeting the others\n2026-11-30T08:34:50Z info: all 2 ranks arrived; backend gloo\n' "$rank" > "$run/logs/rank-$rank.log"
done
pages="setup setup-sweep monitor logs compare compare-multiples"
for page in $pages; do rm -f "$out/$page.png"; done
set --
for compared in "$(dirname "$0")"/fixtures/compare/*/; do set -- "$@" --compare "$compared"; done
TRAINDECK_DATA=$root QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} XDG_CONFIG_HOME=$root/config \
  "$app" --runs-root "$root/runs" --open "$run" "$@" --screenshot "$out" --screenshot-wait 1000
for page in $pages; do
  [ "$(wc -c < "$out/$page.png")" -gt 20000 ] || { echo "screenshots.sh: $page.png is missing or blank" >&2; exit 1; }
done
echo "screenshots.sh: $out/{setup,setup-sweep,monitor,logs,compare,compare-multiples}.png"
