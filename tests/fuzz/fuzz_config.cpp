// libFuzzer target: any bytes through load + validate + (when valid) save/reload and plan.
// It must never crash, leak, overflow, or break the round trip save(load(x)) == load(x).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "config/config_io.h"
#include "config/planner.h"
#include "config/validate.h"

using namespace traindeck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const LoadedConfig loaded = loadConfigText(text, "<fuzz>", "/nonexistent-base");
  ValidationContext context;
  context.host = HostDevices{.cudaDevices = 1, .bf16 = true};
  context.env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "HOME") return "/nonexistent-home";
    return std::nullopt;
  };
  const Diagnostics problems = checkConfig(loaded, context);
  for (const Diagnostic& d : problems) (void)d.format(loaded.source);

  if (loaded.problems.empty()) {
    const LoadedConfig again = loadConfigText(saveConfigText(loaded.config));
    if (!again.problems.empty() || !(again.config == loaded.config)) std::abort();
  }
  if (!hasErrors(problemsIn(problems, {"model", "strategy"}))) {
    const Plan plan = makePlan(loaded.config, *findDevice("H100"));
    if (plan.parameters <= 0 || plan.memory.total() <= 0) std::abort();
  }
  return 0;
}
