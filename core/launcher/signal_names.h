// Names of signals as a user writes them ("SIGKILL"), for exit reasons. strsignal() is avoided:
// its text depends on the locale and says "Killed" where a reader wants the signal's name.
#pragma once

#include <string>

namespace traindeck {

// "SIGKILL", "SIGSEGV", ...; "signal N" for one not in the table.
std::string signalName(int signal);

}  // namespace traindeck
