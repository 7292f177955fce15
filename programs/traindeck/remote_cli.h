// The headless side of remote runs, on the same code as the app (JobController, RemoteJob):
//   traindeck --launch [user@]host[:port] --config FILE [--identity KEY] [--known-hosts FILE]
//             [--proxy-command CMD] [--batch] [--runs-root DIR] [--remote-dir DIR] [--set K=V]...
//   traindeck --attach RUN_DIR      follow a remote run's mirror again
//   traindeck --stop RUN_DIR        stop it (every rank checkpoints), and follow it to the end
// The mirror's run directory is the first line on stdout; progress goes to stderr. Exit 0 when
// the run finished (or was stopped), 1 when it failed, 2 for a wrong command line, 130 when
// Ctrl-C detached (the run goes on).
#pragma once

namespace traindeck {

bool isRemoteCliCommand(int argc, char** argv);
int runRemoteCli(int argc, char** argv);

}  // namespace traindeck
