// The sweep command line: `traindeck --sweep SWEEP.yaml [--on HOST]... [--slots N]` runs a sweep
// without a display, `--sweep-status DIR` prints its trials, `--attach DIR` on a sweep folder
// takes it up again (docs/sweeps.md).
#pragma once

namespace traindeck {

bool isSweepCliCommand(int argc, char** argv);
int runSweepCli(int argc, char** argv);

}  // namespace traindeck
