// `traindeck --check-ssh`: the SSH connection test for people and scripts, run without a
// display. Prompts (host key, passphrase, password) go to the terminal; the result is one line.
#pragma once

namespace traindeck {

// Returns the exit code: 0 connected and ran `true`, 1 failed or refused, 2 bad arguments.
int runCheckSshCli(int argc, char** argv);

}  // namespace traindeck
