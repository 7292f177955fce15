// The terminal side of following a job (remote_cli_follow.cpp).
#pragma once

#include <QString>

#include "job.h"

namespace traindeck {

void say(const QString& line);  // one line on stderr
// A question on the terminal; only "y" or "yes" is yes. No terminal: no.
bool askYesOnTerminal(const QString& question);
// From now on Ctrl-C detaches follow() (exit 130) instead of ending the program at once.
void detachOnInterrupt();
// Whether Ctrl-C came since detachOnInterrupt().
bool interrupted();
// Follows `job` to its end, printing its steps, output and progress on stderr; the exit code:
// 0 finished or stopped, 1 failed or not started, 130 detached.
int follow(Job* job);

}  // namespace traindeck
