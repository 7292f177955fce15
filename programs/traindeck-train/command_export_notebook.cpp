// `traindeck-train export-notebook --config FILE --framework F --place P --out DIR`: the job as
// a runnable script and a Colab-ready notebook for one framework path (docs/tutorial.md).
#include <filesystem>
#include <ostream>

#include "cli_args.h"
#include "commands.h"
#include "export/export_strategy.h"
#include "export/job_export.h"

namespace traindeck {

namespace {

bool isLocalPathField(const std::string& path) {
  return path == "data.train" || path == "data.val" || path == "data.vocab" || path == "data.merges" ||
         path == "model.init_from";
}

std::string names(bool frameworks) {
  std::string out;
  if (frameworks)
    for (const FrameworkInfo& f : exportFrameworks()) out += (out.empty() ? "" : "|") + f.name;
  else
    for (const PlaceInfo& p : exportPlaces()) out += (out.empty() ? "" : "|") + p.name;
  return out;
}

}  // namespace

int commandExportNotebook(const std::vector<std::string>& args, const CliContext& context) {
  const ParsedArgs parsed =
      parseArgs(args, {{"--config", "--framework", "--place", "--out", "--sources"}, {}, {"--set"}});
  const auto config = parsed.option("--config");
  const auto framework = parsed.option("--framework");
  const auto place = parsed.option("--place");
  const auto out = parsed.option("--out");
  if (!parsed.error.empty() || !config || !framework || !place || !out || !parsed.positionals.empty()) {
    context.err << "traindeck-train export-notebook: "
                << (parsed.error.empty() ? "usage: traindeck-train export-notebook --config FILE --framework " +
                                               names(true) + " --place " + names(false) + " --out DIR"
                                         : parsed.error)
                << "\n";
    return kExitUsage;
  }
  // "all" for either exports every pair that goes together, each into DIR/FRAMEWORK-PLACE.
  std::vector<std::pair<FrameworkInfo, PlaceInfo>> pairs;
  const bool every = *framework == "all" || *place == "all";
  for (const FrameworkInfo& f : exportFrameworks())
    for (const PlaceInfo& p : exportPlaces())
      if ((*framework == "all" || f.name == *framework) && (*place == "all" || p.name == *place) &&
          (!every || targetProblem(f, p).empty()))
        pairs.emplace_back(f, p);
  if ((*framework != "all" && !frameworkNamed(*framework)) || (*place != "all" && !placeNamed(*place))) {
    const bool badFramework = *framework != "all" && !frameworkNamed(*framework);
    context.err << "traindeck-train export-notebook: " << (badFramework ? "--framework" : "--place") << " must be "
                << names(badFramework) << " or all, not '" << (badFramework ? *framework : *place) << "'\n";
    return kExitUsage;
  }
  const auto checked = checkConfigArgument(*config, context, parsed.list("--set"), /*forThisMachine=*/false);
  if (!checked) return kExitFailed;
  for (const Diagnostic& d : checked->problems) {
    if (d.severity != Severity::Error) continue;
    // The data and weights are uploaded to the place it runs (its --data): not being here is fine.
    if (isLocalPathField(d.path)) {
      context.err << "note: " << d.path << ": " << d.message << " (here; where it runs, pass its path)\n";
      continue;
    }
    context.err << d.format(checked->loaded.source) << "\n"
                << "traindeck-train export-notebook: the job has errors; fix them first\n";
    return kExitFailed;
  }
  ExportRequest request;
  request.config = checked->loaded.config;
  request.baseDir = std::filesystem::path(checked->loaded.source).parent_path().string();
  if (request.baseDir.empty()) request.baseDir = ".";
  request.source = std::filesystem::path(checked->loaded.source).filename().string();
  request.trainerSources = parsed.option("--sources").value_or(context.trainerSources);
  for (const auto& [frameworkInfo, placeInfo] : pairs) {
    request.framework = frameworkInfo;
    request.place = placeInfo;
    // "all" passes over what cannot carry the job's strategy, saying why; one pair named refuses.
    if (const std::string refusal = exportRefusal(request.config, frameworkInfo, placeInfo);
        every && !refusal.empty()) {
      context.err << "note: not exported for " << frameworkInfo.name << " on " << placeInfo.name << ": " << refusal
                  << "\n";
      continue;
    }
    const std::filesystem::path dir =
        every ? std::filesystem::path(*out) / (frameworkInfo.name + "-" + placeInfo.name) : std::filesystem::path(*out);
    try {
      const ExportedJob job = makeExport(request);
      if (const std::string error = writeExport(job, dir.string()); !error.empty()) {
        context.err << "traindeck-train export-notebook: " << error << "\n";
        return kExitFailed;
      }
      context.out << (dir / (job.baseName + ".py")).string() << "\n"
                  << (dir / (job.baseName + ".ipynb")).string() << "\n"
                  << "  " << frameworkInfo.title << " on " << placeInfo.title << ", " << job.devices
                  << (placeInfo.tpu ? " TPU chip" : " device") << (job.devices == 1 ? "" : "s") << ": "
                  << placeInfo.note << " Strategy: " << job.strategy
                  << (job.testedHere ? "" : " Generated from the documented API, not run by our tests.")
                  << (frameworkInfo.expectedToWork
                          ? ""
                          : " Not expected to work on 2026's Colab or Kaggle images (docs/tutorial.md says why).")
                  << "\n";
    } catch (const ExportError& e) {
      context.err << "traindeck-train export-notebook: " << e.what() << "\n";
      return kExitFailed;
    }
  }
  return kExitOk;
}

}  // namespace traindeck
