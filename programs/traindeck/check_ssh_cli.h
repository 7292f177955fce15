// `traindeck --check-ssh`: the SSH connection test for people and scripts, run without a
// display. Prompts (host key, passphrase, password, a second factor) go to the terminal; the
// result is one line.
#pragma once

#include "host_key.h"
#include "interactive_prompt.h"

namespace traindeck {

// An unknown host key on the terminal: its type and fingerprint, then yes (remember), once or no.
// Shared by every headless command that connects.
HostKeyDecision askHostKeyOnTerminal(const HostKeyInfo& key);
// The server's keyboard-interactive questions (a second factor) on the terminal, each with its
// own text; answers the server marks as secret are read without echo. Also shared.
InteractiveAnswers askInteractiveOnTerminal(const InteractivePrompt& prompt);

// Returns the exit code: 0 connected, ran `true` and opened SFTP, 1 failed or refused, 2 bad arguments.
int runCheckSshCli(int argc, char** argv);

}  // namespace traindeck
