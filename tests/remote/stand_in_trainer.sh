#!/bin/sh
# A stand-in for `traindeck-train run --config C --run-dir R --no-progress` on the test host:
# run.json "running", a train record every 0.1 s, and run.json "stopped" on SIGTERM.
while [ $# -gt 0 ]; do [ "$1" = --run-dir ] && run=$2; shift; done
status() {
  printf '{"id":"r1","name":"remote-fake","status":"%s","host":"there","world_size":1}' "$1" > "$run/run.json.tmp"
  mv "$run/run.json.tmp" "$run/run.json"
}
trap 'status stopped; exit 0' TERM
status running
step=0
while :; do
  step=$((step + 1))
  echo "{\"kind\":\"train\",\"time\":$step,\"step\":$step,\"tokens\":64,\"loss\":5.0,\"lr\":0.001}" >> "$run/metrics.jsonl"
  sleep 0.1
done
