// traindeck --read PATH: every record of every run found at PATH (TrainDeck's own runs and other
// tools', core/imports) as JSON lines {"run", "metric", "step", "value", "time"} on stdout, so the
// readers can be checked from a shell. No Qt: it runs before any application object exists.
// What a reader skipped goes to stderr. Exit 0 when runs were read, 1 when none was found or one
// could not be read, 2 for a wrong command line.
#pragma once

#include <cstdio>

namespace traindeck {

bool isReadCliCommand(int argc, char** argv);
int runReadCli(int argc, char** argv, std::FILE* out = stdout, std::FILE* err = stderr);

}  // namespace traindeck
