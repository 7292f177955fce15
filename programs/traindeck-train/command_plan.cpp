// `traindeck-train plan --config FILE [--device NAME] [--utilization F] [--json]`. Only the
// model and strategy sections must be valid: a plan is wanted before the data exists.
#include <cstdlib>
#include <ostream>

#include "cli_args.h"
#include "commands.h"
#include "config/planner.h"
#include "plan_report.h"

namespace traindeck {

namespace {

// --device when given; else this machine's CPU for CPU jobs, and an H100 (said in a note) for
// CUDA jobs, since the GPU of a remote or future machine is not known here.
std::optional<DeviceSpec> chooseDevice(const std::optional<std::string>& wanted, const RunConfig& config,
                                       const CliContext& context, std::string& note) {
  if (wanted) return findDevice(*wanted);
  const bool cuda = config.strategy.device == DeviceKind::Cuda ||
                    (config.strategy.device == DeviceKind::Auto && context.host && context.host->cudaDevices > 0) ||
                    (config.strategy.device == DeviceKind::Auto && isRemote(config.target.kind));
  if (!cuda) return thisMachineCpu();
  note = "no --device given: planned for an H100";
  return findDevice("H100");
}

}  // namespace

int commandPlan(const std::vector<std::string>& args, const CliContext& context) {
  const ParsedArgs parsed = parseArgs(args, {{"--config", "--device", "--utilization"}, {"--json"}, {"--set"}});
  const auto configArg = parsed.option("--config");
  if (!parsed.error.empty() || !configArg || !parsed.positionals.empty()) {
    context.err << "traindeck-train plan: "
                << (parsed.error.empty() ? "usage: traindeck-train plan --config FILE [--device NAME] [--json]"
                                         : parsed.error)
                << "\n";
    return kExitUsage;
  }
  PlanOptions options;
  if (const auto u = parsed.option("--utilization")) {
    char* end = nullptr;
    options.utilization = std::strtod(u->c_str(), &end);
    if (end == u->c_str() || *end != '\0' || !(options.utilization > 0 && options.utilization <= 1)) {
      context.err << "traindeck-train plan: --utilization must be a fraction in (0, 1], such as 0.4\n";
      return kExitUsage;
    }
  }
  // A plan is for the device named, not for this machine.
  const auto checked = checkConfigArgument(*configArg, context, parsed.list("--set"), /*forThisMachine=*/false);
  if (!checked) return kExitFailed;
  const LoadedConfig* loaded = &checked->loaded;
  const Diagnostics problems = problemsIn(checked->problems, {"model", "strategy"});
  if (hasErrors(problems)) {
    for (const Diagnostic& d : problems) context.err << d.format(loaded->source) << "\n";
    context.err << "traindeck-train plan: fix the model and strategy sections first\n";
    return kExitFailed;
  }
  std::string note;
  const auto device = chooseDevice(parsed.option("--device"), loaded->config, context, note);
  if (!device) {
    context.err << "traindeck-train plan: unknown device '" << *parsed.option("--device")
                << "'; known: " << deviceChoices() << "\n";
    return kExitUsage;
  }
  Plan plan = makePlan(loaded->config, *device, options);
  if (!note.empty()) plan.notes.insert(plan.notes.begin(), note);
  context.out << (parsed.flag("--json") ? planJson(loaded->config, plan) : planText(loaded->config, plan));
  return kExitOk;
}

}  // namespace traindeck
