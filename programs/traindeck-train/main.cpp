// traindeck-train: the trainer's command line. Parses the command, builds the context the
// commands share, and turns their results into exit codes. The only place that exits.
#include <filesystem>
#include <iostream>
#include <map>
#include <vector>

#include "commands.h"
#include "config/preset_files.h"
#include "config/suggest.h"
#if defined(TRAINDECK_WITH_TRAINER)
#include "trainer/blas_kernels.h"
#include "trainer/runtime_info.h"
#endif

namespace {

using traindeck::CliContext;
using Command = int (*)(const std::vector<std::string>&, const CliContext&);

const char* kUsage = R"(traindeck-train: train GPT-2-family models with data parallelism, headless.

usage: traindeck-train COMMAND [options]

commands:
  run --config FILE [--run-dir DIR] [--resume] [--stop-at STEP]
      [--nnodes N --node-rank R --master-addr ADDR --master-port PORT]
                                  train the job: supervise this node's nproc_per_node ranks,
                                  a run directory under runs_root (or DIR)
  worker --run-dir DIR [--resume] [--stop-at STEP]
                                  one rank, as run starts it (or torchrun, given RANK,
                                  WORLD_SIZE, MASTER_ADDR, MASTER_PORT, LOCAL_RANK)
  prepare --tokenizer byte|gpt2 [--vocab V --merges M] --out DIR [--val-fraction F]
          [--doc-separator LINE] files...
                                  text files to token shards (a dataset folder for data.train)
  validate --config FILE          print every problem in a job config; exit 1 if any is an error
  validate --machine              what validation knows of this machine, as JSON (for the app)
  plan --config FILE [--device NAME] [--utilization F] [--json]
                                  parameters, memory per device, tokens per step, step time
  presets                         list the bundled job presets (usable wherever FILE is)
  sample --checkpoint DIR [--prompt TEXT] [--max-new-tokens N] [--temperature T] [--top-k K]
         [--seed S]                generate text from a checkpoint (or run directory)
  export --checkpoint DIR --hf OUT
                                  a checkpoint in the Hugging Face layout (config.json,
                                  model.safetensors, tokenizer files)
  score --model PATH --tokens "ID ID ..."
                                  mean cross-entropy of each token given those before it (JSON)
  tokenize --tokenizer byte|gpt2 [--vocab V --merges M] [--decode]
                                  text on stdin to token ids (or back, with --decode)
  export-notebook --config FILE --framework traindeck|pytorch-ddp|torch-xla|keras-gpu|keras-jax|keras-tpu
                  --place colab-gpu|colab-tpu|kaggle-t4x2|kaggle-v5e8|vm --out DIR [--sources TGZ]
                                  the job as a script and a Colab-ready notebook (DIR/train_*.py
                                  and .ipynb) for that framework and place (docs/tutorial.md)
  config-reference                print every config key with its default (docs/config.md)

options:
  --help, -h                      this text
  --version                       version, LibTorch, BLAS and threads

FILE is a YAML job config or the name of a preset; run, validate and plan take --set KEY=VALUE
(repeatable) to override a key, e.g. --set strategy.micro_batch=16. Exit codes: 0 success, 1 the config is
invalid or the work failed, 2 the command line is wrong, 3 (run) Slurm stopped the run: requeue it. See docs/cli.md.
)";

std::string executablePath(const char* argv0) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(argv0) : self.string();
}

}  // namespace

int main(int argc, char** argv) {
#if defined(TRAINDECK_WITH_TRAINER)
  // OpenBLAS's kernels (blas_kernels.h): run multiplies nothing itself, so it only passes the
  // choice to its ranks; the commands that multiply restart (~0.5 s) where the kernels are narrow.
  const std::string first = argc > 1 ? argv[1] : "";
  if (first == "run") traindeck::chooseFasterBlasKernels();
  if (first == "worker" || first == "sample" || first == "score" || first == "--version")
    traindeck::restartWithFasterBlasKernels(argv);
#endif
  const std::vector<std::string> args(argv + 1, argv + argc);
  const std::string self = executablePath(argv[0]);
  CliContext context{traindeck::presetDirectories(self, TRAINDECK_PRESETS_SOURCE_DIR), std::nullopt,
                     "LibTorch: not built in (the trainer needs libtorch-dev)", std::cout, std::cerr};
  context.trainerSources =
      (std::filesystem::path(self).parent_path() / "../share/traindeck/remote/trainer-sources.tar.gz")
          .lexically_normal()
          .string();
  if (args.empty()) {
    std::cerr << kUsage;
    return traindeck::kExitUsage;
  }
  const std::string& command = args.front();
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return traindeck::kExitOk;
  }
#if defined(TRAINDECK_WITH_TRAINER)
  // Starting LibTorch to learn the devices takes most of a second: only where they matter.
  const bool textOnly = command == "export-notebook" || command == "presets" || command == "config-reference" ||
                        command == "tokenize" || command == "prepare";
  traindeck::RuntimeInfo runtime = textOnly ? traindeck::RuntimeInfo{} : traindeck::probeRuntime();
  runtime.threads = traindeck::cpuThreadsPerRank(1);  // what a one-rank CPU job will use
  context.host = traindeck::HostDevices{runtime.cudaDevices, runtime.cudaBf16};
  context.runtimeSummary = traindeck::describeRuntime(runtime);
  if (command == "--version") {
    if (const std::string warning = traindeck::blasWarning(runtime); !warning.empty())
      std::cerr << "warning: " << warning << "\n";
  }
#endif
  if (command == "--version") {
    std::cout << "traindeck-train " << TRAINDECK_VERSION << "\n" << context.runtimeSummary << "\n";
    return traindeck::kExitOk;
  }
  const std::map<std::string, Command> commands = {
    {"validate", traindeck::commandValidate},
    {"plan", traindeck::commandPlan},
    {"presets", traindeck::commandPresets},
    {"config-reference", traindeck::commandConfigReference},
    {"tokenize", traindeck::commandTokenize},
    {"prepare", traindeck::commandPrepare},
    {"export-notebook", traindeck::commandExportNotebook},
#if defined(TRAINDECK_WITH_TRAINER)
    {"run", traindeck::commandRun},
    {"worker", traindeck::commandWorker},
    {"export", traindeck::commandExport},
    {"sample", traindeck::commandSample},
    {"score", traindeck::commandScore},
#endif
  };
  const auto found = commands.find(command);
  if (found == commands.end()) {
    std::vector<std::string> names;
    for (const auto& entry : commands) names.push_back(entry.first);
    const auto guess = traindeck::closestMatch(command, names);
    std::cerr << "traindeck-train: unknown command '" << command << "'"
              << (guess ? "; did you mean " + *guess + "?" : "; see traindeck-train --help") << "\n";
    return traindeck::kExitUsage;
  }
  try {
    return found->second({args.begin() + 1, args.end()}, context);
  } catch (const std::exception& e) {
    std::cerr << "traindeck-train " << command << ": " << e.what() << "\n";
    return traindeck::kExitFailed;
  }
}
