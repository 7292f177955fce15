// cmdline is NUL-separated; any argument containing "traindeck-train" counts, so an installed
// binary, a build tree's and a renamed copy in a path named so are all recognised.
#include "trainer_process.h"

#include <signal.h>

#include <fstream>
#include <iterator>
#include <string>

namespace traindeck {

bool isTrainerProcess(int pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return cmdline.find("traindeck-train") != std::string::npos;
}

bool signalTrainerProcess(int pid, int signal) {
  return isTrainerProcess(pid) && ::kill(pid, signal) == 0;
}

}  // namespace traindeck
