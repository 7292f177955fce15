// Rules that involve more than one value, or the machine the job will run on: divisibility,
// context length, tokenizer and vocabulary, strategy and device, data paths. Each problem
// names the key it is about and, when the config came from a file, its line and column.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config_io.h"
#include "diagnostic.h"
#include "path_expand.h"
#include "run_config.h"
#include "slurm_partitions.h"

namespace traindeck {

// What the machine that will run the job has. Unknown (nullopt in the context) where this
// program was built without LibTorch, or for a remote target not probed yet: rules that need
// it are skipped.
struct HostDevices {
  int cudaDevices = 0;
  bool bf16 = false;          // every CUDA device computes in bf16 (compute capability 8.0 or newer)
  bool colabRuntime = false;  // a Colab runtime: one accelerator, whatever the plan
};

// A slurm job's devices are what it asks for (target.gpus_per_node on each node), not those of
// the login node, so neither `host` nor `remoteHost` is used for one.
struct ValidationContext {
  std::optional<HostDevices> host;        // this machine (target.kind: local)
  std::optional<HostDevices> remoteHost;  // target.host, as last probed (target.kind: ssh)
  // The partitions of target.host's cluster, as parseSinfo read them (target.kind: slurm);
  // nullopt: not probed, and the rules that need them are skipped.
  std::optional<std::vector<SlurmPartition>> slurmPartitions;
  EnvLookup env = processEnvironment();
};

// Cross-field rules only; `places` and `baseDir` come from LoadedConfig (or are empty).
Diagnostics validateConfig(const RunConfig& config, const ValidationContext& context,
                           const std::map<std::string, SourcePlace>& places = {}, const std::string& baseDir = ".");

// What a Slurm job's partitions alone say against it (validateConfig says it too, given them):
// errors for a job that can never run there. Nothing for another target.kind.
Diagnostics slurmPartitionProblems(const RunConfig& config, const std::vector<SlurmPartition>& partitions);

// Everything wrong with a loaded config: its load problems, then the cross-field ones.
Diagnostics checkConfig(const LoadedConfig& loaded, const ValidationContext& context);

// Only the problems in the named sections (and in the file as a whole): `plan` needs model
// and strategy alone to be right.
Diagnostics problemsIn(const Diagnostics& all, std::initializer_list<std::string_view> sections);

// The config's path fields, by their keys ("data.train"): the ones withExpandedPaths expands.
std::vector<std::pair<const char*, std::string*>> pathFields(RunConfig& config);

// The config with every path field expanded (~, ${VAR}) and made absolute against `baseDir`:
// what the trainer uses and what a run directory's config.yaml records. Unset variables are
// left for validation to report; here they expand to nothing.
RunConfig withExpandedPaths(const RunConfig& config, const std::string& baseDir, const EnvLookup& env);

// The slug a run id ends with (runSlug in runlog/run_directory.h): the name's letters and digits
// in any script, dashes between; never empty for a name that is not.
std::string slugify(const std::string& name);

}  // namespace traindeck
