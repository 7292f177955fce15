#include "export/job_export.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "config/config_io.h"
#include "config/validate.h"
#include "export/export_templates.h"
#include "export/notebook.h"
#include "export/python_literal.h"
#include "runlog/atomic_file.h"

namespace traindeck {

namespace fs = std::filesystem;

namespace {

std::string base64Lines(const std::string& bytes) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::string line;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t chunk = 0;
    for (std::size_t k = 0; k < 3; ++k) chunk = (chunk << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) line += k <= n ? kAlphabet[(chunk >> (18 - 6 * k)) & 0x3f] : '=';
    if (line.size() >= 96) {
      out += "    \"" + line + "\"\n";
      line.clear();
    }
  }
  if (!line.empty()) out += "    \"" + line + "\"\n";
  return out;
}

std::string readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The job as it will run there: the place's devices, on one node, on its GPUs.
RunConfig placedConfig(const ExportRequest& r, int devices) {
  RunConfig c = r.config;
  c.strategy.nnodes = 1;
  c.strategy.nproc_per_node = devices;
  if (!r.place.tpu && r.place.place != ExportPlace::Vm) {
    c.strategy.device = DeviceKind::Cuda;
    c.strategy.backend = Backend::Auto;
  }
  if (devices == 1) c.strategy.kind = StrategyKind::Single;
  if (devices > 1 && c.strategy.kind == StrategyKind::Single) c.strategy.kind = StrategyKind::Ddp;
  return c;
}

// The run folder's name on Drive: the run id's slug (letters, digits and '-' only).
std::string slugOf(const std::string& name) {
  const std::string slug = slugify(name);
  return slug.empty() ? "run" : slug;
}

// The dataset folder's name as the notebook asks for it where it runs: letters, digits, '.',
// '_' and '-' only, so that nothing of a file name ever reaches a shell or IPython's `!` line.
std::string dataFolderName(const RunConfig& placed) {
  fs::path train(placed.data.train);
  while (!train.empty() && train.filename().empty()) train = train.parent_path();  // "data/tiny/"
  std::string safe;
  for (const char c : train.filename().string())
    safe += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '-';
  return safe.empty() || safe.front() == '.' || safe.front() == '-' ? "dataset" : safe;
}

struct Launch {
  std::string command;   // the shell line, every word from a safe character set
  std::string setup;     // Python the notebook's launch cell runs first (the run folder's name)
  std::string shownRun;  // the command as the script's header shows it
};

Launch launchFor(const ExportRequest& r, const RunConfig& placed, const std::string& script, int devices) {
  Launch l;
  l.command = r.framework.framework == ExportFramework::PytorchDdp
                  ? "torchrun --standalone --nproc_per_node=" + std::to_string(devices) + " " + script
                  : "python3 " + script;  // the others start their own replicas
  if (!r.place.dataDir.empty()) l.command += " --data " + r.place.dataDir + "/" + dataFolderName(placed);
  l.shownRun = l.command;
  const bool colab = r.place.place == ExportPlace::ColabGpu || r.place.place == ExportPlace::ColabTpu;
  if (colab) {
    // On Drive, so the run outlives the runtime. TrainDeck's own goes on in one folder (a new
    // runtime resumes it); the others start a new folder each time.
    const std::string root = "/content/drive/MyDrive/traindeck/runs/";
    l.setup = r.framework.framework == ExportFramework::TrainDeck
                  ? "run_dir = \"" + root + slugOf(placed.name) + "\"\n"
                  : "import time\nrun_dir = \"" + root + "\" + time.strftime(\"%Y%m%d-%H%M%S\", time.gmtime()) + \"-" +
                        slugOf(placed.name) + "\"\n";
    l.command += " --run-dir {run_dir}";
    l.shownRun += " --run-dir RUN_DIR";
  }
  return l;
}

std::string installCell(const ExportRequest& r) {
  const bool kaggle = r.place.place == ExportPlace::KaggleT4x2 || r.place.place == ExportPlace::KaggleV5e8;
  switch (r.framework.framework) {
    case ExportFramework::TorchXla:
      return kaggle ? "%pip install -q 'torch_xla[tpu]'\n" : "";  // Colab's TPU image has torch_xla 2.9
    case ExportFramework::KerasGpu:
      return kaggle ? "%pip install -q keras-hub\n" : "";  // Colab's GPU image has keras 3 and keras-hub
    case ExportFramework::KerasTpu:
      // Colab's TPU image has no TensorFlow: this installs it, which may break its other frameworks
      // (googlecolab/colabtools#5174); the versions must match (colabtools#5228).
      return "%pip install -q tensorflow==2.20.0 tensorflow-tpu==2.20.0 keras-hub "
             "-f https://storage.googleapis.com/libtpu-tf-releases/index.html\n";
    default:
      return "";
  }
}

std::string introCell(const ExportRequest& r, const RunConfig& placed, int devices, const std::string& command) {
  std::ostringstream md;
  md << "# " << printableText(placed.name) << ": " << r.framework.title << " on " << r.place.title << "\n\n";
  md << "Exported by TrainDeck from `" << printableText(r.source) << "`. " << r.place.note << " This notebook runs **"
     << devices
     << (r.place.tpu                                                                     ? " TPU chip"
         : r.place.place == ExportPlace::Vm && placed.strategy.device == DeviceKind::Cpu ? " CPU rank"
                                                                                         : " GPU")
     << (devices == 1 ? "" : "s") << "**.\n\n";
  if (r.framework.framework == ExportFramework::TrainDeck)
    md << "It carries TrainDeck's trainer as C++ sources, builds them against this runtime's torch (a few "
          "minutes, once) and trains; nothing of ours is downloaded. No SSH is needed, so it suits free "
          "runtimes, where Colab's terms do not allow SSH.\n\n";
  else if (r.framework.testedHere)
    md << "TrainDeck's tests train this script for real (2 ranks over Gloo) and check its first 20 losses "
          "against TrainDeck's own trainer on the same config.\n\n";
  else
    md << "**Generated from the documented API, not run by our tests** (TensorFlow, KerasHub and torch_xla "
          "are not in Debian, where the tests run).\n\n";
  if (r.framework.framework == ExportFramework::KerasTpu)
    md << "This path is fragile: Colab's TPU image has no TensorFlow, and installing it there may break "
          "the image's other frameworks.\n\n";
  if (!r.place.dataDir.empty())
    md << "Data: upload the prepared dataset folder (`traindeck-train prepare` wrote it: `"
       << printableText(placed.data.train) << "` here) as `" << r.place.dataDir << "/" << dataFolderName(placed) << "`"
       << (placed.data.tokenizer == TokenizerKind::Gpt2 ? ", with GPT-2's `encoder.json` and `vocab.bpe` in it" : "")
       << ".\n\n";
  md << "The run directory (config.yaml, run.json, metrics.jsonl) is what TrainDeck opens and compares like "
        "its own runs"
     << (r.place.place == ExportPlace::ColabGpu || r.place.place == ExportPlace::ColabTpu
             ? "; on Colab it goes to Google Drive, so it outlives the runtime"
             : "")
     << ".\n\nRun it: `" << command << "`";
  return md.str();
}

}  // namespace

std::string_view exportTemplate(std::string_view name) {
  for (const ExportTemplate& t : exportTemplates())
    if (t.name == name) return t.text;
  throw std::out_of_range("no export template " + std::string(name));
}

ExportedJob makeExport(const ExportRequest& r) {
  if (const std::string problem = targetProblem(r.framework, r.place); !problem.empty()) throw ExportError(problem);
  ExportedJob job;
  job.devices = r.place.devices > 0 ? r.place.devices : static_cast<int>(r.config.strategy.worldSize());
  const RunConfig placed = placedConfig(r, job.devices);
  job.baseName = "train_" + r.framework.name;
  for (char& c : job.baseName)
    if (c == '-') c = '_';
  const std::string script = job.baseName + ".py";
  const Launch launch = launchFor(r, placed, script, job.devices);

  std::string config;
  try {
    config = configAsPython(placed, r.baseDir, r.env);
  } catch (const std::runtime_error& e) {
    throw ExportError(e.what());
  }
  std::ostringstream text;
  // Comments hold no line break and no invalid UTF-8 of a name: nothing of it can become code.
  text << "# " << printableText(placed.name) << ": " << r.framework.title << " on " << r.place.title
       << ", exported by TrainDeck from " << printableText(r.source) << ".\n";
  if (!r.framework.testedHere) text << "# Generated from the documented API, not run by our tests.\n";
  text << "#   " << launch.shownRun << "\n\n";
  text << "CONFIG = " << config << "\n\n";
  text << "PLACE = {\"name\": " << pythonString(r.place.name) << ", \"title\": " << pythonString(r.place.title)
       << ", \"devices\": " << job.devices << ", \"note\": " << pythonString(r.place.note) << "}\n\n";
  if (r.framework.framework == ExportFramework::TrainDeck) {
    const std::string sources = readWhole(r.trainerSources);
    if (sources.empty())
      throw ExportError("the trainer's sources (" + r.trainerSources +
                        ") are not there: they come with the app (share/traindeck/remote/trainer-sources.tar.gz)");
    text << "JOB_YAML = " << pythonString(saveConfigText(placed)) << "\n\n";
    text << "TRAINER_SOURCES = (  # trainer-sources.tar.gz, base64\n" << base64Lines(sources) << ")\n\n";
  }
  for (const std::string& part : r.framework.parts) text << exportTemplate(part) << "\n";
  job.script = text.str();

  std::vector<NotebookCell> cells;
  cells.push_back({NotebookCell::Kind::Markdown, introCell(r, placed, job.devices, launch.shownRun)});
  if (r.place.place == ExportPlace::ColabGpu || r.place.place == ExportPlace::ColabTpu)
    cells.push_back({NotebookCell::Kind::Code, "from google.colab import drive\ndrive.mount(\"/content/drive\")\n"});
  if (const std::string install = installCell(r); !install.empty())
    cells.push_back({NotebookCell::Kind::Code, install});
  cells.push_back({NotebookCell::Kind::Code, "%%writefile " + script + "\n" + job.script});
  cells.push_back({NotebookCell::Kind::Code, launch.setup + "!" + launch.command + "\n"});
  job.notebook = notebookJson(cells, r.place.place == ExportPlace::Vm ? "" : r.place.tpu ? "TPU" : "GPU");
  return job;
}

std::string writeExport(const ExportedJob& job, const std::string& outDir) {
  std::error_code ec;
  fs::create_directories(outDir, ec);
  if (ec) return "cannot make " + outDir + ": " + ec.message();
  const fs::path dir(outDir);
  if (std::string error = writeFileAtomically((dir / (job.baseName + ".py")).string(), job.script); !error.empty())
    return error;
  return writeFileAtomically((dir / (job.baseName + ".ipynb")).string(), job.notebook);
}

}  // namespace traindeck
