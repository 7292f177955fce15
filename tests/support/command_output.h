// Tests and benchmarks that run another program (node, traindeck-train) read what it prints
// through this: its stdout (add 2>&1 to the command line for stderr) and its exit status.
#pragma once

#include <array>
#include <cstdio>
#include <string>

namespace traindeck::test_support {

struct CommandOutput {
  std::string text;  // stdout
  int status = -1;   // pclose()'s status: 0 for a clean exit 0; -1 when it could not start
};

inline CommandOutput commandOutput(const std::string& commandLine) {
  CommandOutput out;
  std::FILE* pipe = popen(commandLine.c_str(), "r");
  if (!pipe) return out;
  std::array<char, 65536> buffer;
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) out.text.append(buffer.data(), n);
  out.status = pclose(pipe);
  return out;
}

}  // namespace traindeck::test_support
