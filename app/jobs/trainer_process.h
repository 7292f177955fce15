// Facts about a process this app did not start, by pid: is it alive, is it a traindeck-train,
// and sending it a signal only when it still is one (a pid can be reused). Linux /proc.
#pragma once

namespace traindeck {

// kill(pid, 0) succeeds and /proc/<pid>/cmdline names traindeck-train (a zombie has none).
bool isTrainerProcess(int pid);
// Sends `signal` when isTrainerProcess(pid); false when it did not.
bool signalTrainerProcess(int pid, int signal);

}  // namespace traindeck
