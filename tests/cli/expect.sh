#!/bin/sh
# expect.sh CODE PATTERN COMMAND...: runs COMMAND, shows its output, and passes only when it
# exits with CODE and its output (stdout and stderr) matches the extended regex PATTERN.
code=$1 pattern=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne "$code" ]; then echo "expect.sh: exit code $status, wanted $code" >&2; exit 1; fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then echo "expect.sh: no line matches: $pattern" >&2; exit 1; fi
