// `traindeck --check-ssh`: the SSH connection test for people and scripts, run without a
// display. Prompts (host key, passphrase, password) go to the terminal; the result is one line.
#pragma once

#include "host_key.h"

namespace traindeck {

// An unknown host key on the terminal: its type and fingerprint, then yes (remember), once or no.
// Shared by every headless command that connects.
HostKeyDecision askHostKeyOnTerminal(const HostKeyInfo& key);

// Returns the exit code: 0 connected, ran `true` and opened SFTP, 1 failed or refused, 2 bad arguments.
int runCheckSshCli(int argc, char** argv);

}  // namespace traindeck
