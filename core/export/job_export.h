// A job config exported as a runnable script and a Colab-ready notebook for one framework and
// one place (docs/tutorial.md): the script is the template parts joined after the job's CONFIG
// and the PLACE it will really run on; the notebook mounts Drive on Colab, installs what the
// place lacks, writes the script (%%writefile) and runs it with as many devices as the place has.
#pragma once

#include <stdexcept>
#include <string>

#include "config/path_expand.h"
#include "config/run_config.h"
#include "export/export_targets.h"

namespace traindeck {

struct ExportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ExportRequest {
  RunConfig config;
  std::string baseDir = ".";  // the folder the config's relative paths mean
  std::string source;         // the config's file or preset name, for the notebook's heading
  FrameworkInfo framework;
  PlaceInfo place;
  std::string trainerSources;  // trainer-sources.tar.gz, for the traindeck framework
  EnvLookup env = processEnvironment();
};

struct ExportedJob {
  std::string baseName;  // "train_pytorch_ddp": DIR/<baseName>.py and .ipynb
  std::string script, notebook;
  int devices = 1;  // ranks or replicas it will run with
  std::string strategy;     // how it trains under the job's strategy.kind, one sentence
  bool testedHere = false;  // our tests run this framework's code for this strategy
};

// Throws ExportError with a sentence saying what to change.
ExportedJob makeExport(const ExportRequest& request);
// Writes the two files into `outDir` (made when missing); an error sentence, or empty.
std::string writeExport(const ExportedJob& job, const std::string& outDir);

}  // namespace traindeck
