#include "export/job_export.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "config/config_io.h"
#include "config/validate.h"
#include "export/export_strategy.h"
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

// The job as it will run there: the place's devices, on one node, on its GPUs. A sharded kind
// stays as it is (exportRefusal turned away the places where it cannot).
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
  const std::string data = r.place.dataDir.empty() ? "" : " --data " + r.place.dataDir + "/" + dataFolderName(placed);
  l.shownRun = l.command + data;
  if (r.framework.framework == ExportFramework::TrainDeck) {
    l.command += data;
  } else {
    // data_dir comes from the data cell: the uploaded folder, or the one a text file was
    // tokenized into; quoted, since a reader may type any path there.
    l.setup = "import shlex\ndata_args = \"--data \" + shlex.quote(data_dir) if data_dir else \"\"\n";
    l.command += " {data_args}";
  }
  const bool colab = r.place.place == ExportPlace::ColabGpu || r.place.place == ExportPlace::ColabTpu;
  if (colab) {
    // On Drive, so the run outlives the runtime. TrainDeck's own goes on in one folder (a new
    // runtime resumes it); the others start a new folder each time.
    const std::string root = "/content/drive/MyDrive/traindeck/runs/";
    l.setup += r.framework.framework == ExportFramework::TrainDeck
                   ? "run_dir = \"" + root + slugOf(placed.name) + "\"\n"
                   : "import time\nrun_dir = \"" + root + "\" + time.strftime(\"%Y%m%d-%H%M%S\", time.gmtime()) + \"-" +
                         slugOf(placed.name) + "\"\n";
    l.command += " --run-dir {run_dir}";
    l.shownRun += " --run-dir RUN_DIR";
  }
  return l;
}

// The notebook's data cell (every framework but TrainDeck's own, which prepares data itself):
// text_data.py, then TEXT_FILE for a text file to tokenize right there and data_dir for the
// folder the script reads. A Windows or Colab-only reader needs nothing of TrainDeck this way.
std::string dataCell(const ExportRequest& r, const RunConfig& placed, int devices) {
  const std::string folder = dataFolderName(placed);
  const std::string uploaded = r.place.dataDir.empty() ? "" : r.place.dataDir + "/" + folder;
  const bool kaggle = r.place.place == ExportPlace::KaggleT4x2 || r.place.place == ExportPlace::KaggleV5e8;
  // Kaggle's inputs are read-only; its output folder is what a saved version keeps.
  const std::string tokenized = kaggle             ? "/kaggle/working/data/" + folder
                                : uploaded.empty() ? "data/" + folder
                                                   : uploaded;
  const std::string tokenizer = placed.data.tokenizer == TokenizerKind::Gpt2 ? "gpt2" : "byte";
  std::ostringstream py;
  py << exportTemplate("text_data.py") << "\n\n";
  py << "# Either name a UTF-8 text file here (on Colab: on your Drive; on Kaggle: a dataset added as input), and it\n"
        "# is tokenized into "
     << tokenized << " with the job's tokenizer (" << tokenizer
     << "), or leave it\n# empty and upload the dataset folder `traindeck-train prepare` wrote"
     << (uploaded.empty() ? " (default: the job's data.train)" : " as " + uploaded) << ".\n";
  py << "TEXT_FILE = \"\"\n";
  py << "data_dir = " << pythonString(uploaded) << "\n";
  py << "if TEXT_FILE:\n    data_dir = prepare_text(TEXT_FILE, " << pythonString(tokenized) << ", "
     << pythonString(tokenizer) << ", 0.05, " << static_cast<std::int64_t>(devices) * placed.model.block_size + 1
     << ")\n";
  return py.str();
}

// What the notebook installs: only what the place's image lacks, pinned to versions that match
// what it has, so nothing it ships is replaced (docs/tutorial.md, "What each place ships";
// tests/export/install_lines.py checks every export against that table).
std::string installCell(const ExportRequest& r) {
  switch (r.framework.framework) {
    case ExportFramework::KerasTpu:
      // Neither TPU image has TensorFlow for TPUs (Colab's has none, Kaggle's tensorflow-cpu
      // 2.20): the TPU build of the same version, from Google's libtpu index (the two must match,
      // colabtools#5228), and KerasHub as Colab's GPU image has it. This may break the image's
      // other frameworks (colabtools#5174); the export says it is not expected to work.
      return "%pip install -q tensorflow==2.20.0 tensorflow-tpu==2.20.0 keras-hub==0.26.0 "
             "-f https://storage.googleapis.com/libtpu-tf-releases/index.html\n";
    default:
      // torch-xla: both TPU images have torch_xla (Colab 2.9, Kaggle 2.8 with libtpu 0.0.17);
      // an unpinned install would put 2.9 and a newer libtpu over Kaggle's 2.8 and break the
      // import. keras-gpu: Kaggle's GPU image is Colab's, KerasHub included. keras-jax: keras,
      // jax and numpy are on both TPU images. pytorch-ddp, traindeck: torch is everywhere.
      return "";
  }
}

std::string introCell(const ExportRequest& r, const RunConfig& placed, const ExportedJob& job,
                      const std::string& command) {
  const int devices = job.devices;
  std::ostringstream md;
  md << "# " << printableText(placed.name) << ": " << r.framework.title << " on " << r.place.title << "\n\n";
  md << "Exported by TrainDeck from `" << printableText(r.source) << "`. " << r.place.note << " This notebook runs **"
     << devices
     << (r.place.tpu                                                                     ? " TPU chip"
         : r.place.place == ExportPlace::Vm && placed.strategy.device == DeviceKind::Cpu ? " CPU rank"
                                                                                         : " GPU")
     << (devices == 1 ? "" : "s") << "**. Strategy: " << job.strategy << "\n\n";
  if (r.framework.framework == ExportFramework::TrainDeck)
    md << "It carries TrainDeck's trainer as C++ sources, builds them against this runtime's torch (a few "
          "minutes, once) and trains; nothing of ours is downloaded. No SSH is needed, so it suits free "
          "runtimes, where Colab's terms do not allow SSH.\n\n";
  else if (job.testedHere)
    md << "TrainDeck's tests train this script for real (2 ranks over Gloo) and check its first 20 losses "
          "against TrainDeck's own trainer on the same config.\n\n";
  else if (r.framework.testedHere)
    md << "**This strategy's code is generated from the documented API, not run by our tests** (FSDP2 needs torch "
          "2.4 or newer; the tests' torch is older). TrainDeck's tests train this script's ddp and zero1 paths for "
          "real against TrainDeck's own trainer.\n\n";
  else
    md << "**Generated from the documented API, not run by our tests** (TensorFlow, KerasHub, JAX, Keras 3 and "
          "torch_xla are not in Debian, where the tests run).\n\n";
  if (r.framework.framework == ExportFramework::KerasTpu)
    md << "**Not expected to work on 2026's Colab or Kaggle images.** Neither TPU image has TensorFlow for "
          "TPUs: Colab's has no TensorFlow at all, Kaggle's only tensorflow-cpu (its TPU build is switched off "
          "until a libtpu that suits it and torch_xla 2.8 is found). The install cell below puts "
          "tensorflow-tpu in, which may break the image's other frameworks (colabtools#5174), and users "
          "report installs that no longer find the TPU (colabtools#5419). On a TPU, use the keras-jax export "
          "(Keras 3 on JAX, which both images ship) or torch-xla.\n\n";
  if (r.framework.framework != ExportFramework::TrainDeck)
    md << "Data: set `TEXT_FILE` in the data cell to a UTF-8 text file, and the cell tokenizes it there (nothing of "
          "TrainDeck needed); or upload the dataset folder `traindeck-train prepare` wrote (`"
       << printableText(placed.data.train) << "` here)"
       << (r.place.dataDir.empty() ? "" : " as `" + r.place.dataDir + "/" + dataFolderName(placed) + "`") << ".\n\n";
  else if (!r.place.dataDir.empty())
    md << "Data: upload the prepared dataset folder (`traindeck-train prepare` wrote it: `"
       << printableText(placed.data.train) << "` here) as `" << r.place.dataDir << "/" << dataFolderName(placed) << "`"
       << (placed.data.tokenizer == TokenizerKind::Gpt2 ? ", with GPT-2's `encoder.json` and `vocab.bpe` in it" : "")
       << ".\n\n";
  md << "The run directory (config.yaml, run.json, metrics.jsonl) is what TrainDeck opens and compares like "
        "its own runs"
     << (r.place.place == ExportPlace::ColabGpu || r.place.place == ExportPlace::ColabTpu
             ? "; on Colab it goes to Google Drive, so it outlives the runtime"
         : r.place.place == ExportPlace::KaggleT4x2 || r.place.place == ExportPlace::KaggleV5e8
             ? "; on Kaggle it goes to /kaggle/working/runs, which a saved version (Save Version, Save & Run All) "
               "keeps as the notebook's output: download it from the Output tab (or `kaggle kernels output`) and put "
               "the run folder under TrainDeck's runs root, or open it with `traindeck --open DIR`"
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
  if (const std::string problem = exportRefusal(r.config, r.framework, r.place); !problem.empty())
    throw ExportError(problem);
  ExportedJob job;
  job.devices = exportDevices(r.config, r.place);
  const CarriedStrategy carried = carriedStrategy(r.config.strategy.kind, r.framework, r.place, job.devices);
  job.strategy = carried.how;
  job.testedHere = r.framework.testedHere && carried.testedHere;
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
  if (!job.testedHere) text << "# Generated from the documented API, not run by our tests.\n";
  text << "# Strategy: " << job.strategy << "\n";
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
  cells.push_back({NotebookCell::Kind::Markdown, introCell(r, placed, job, launch.shownRun)});
  if (r.place.place == ExportPlace::ColabGpu || r.place.place == ExportPlace::ColabTpu)
    cells.push_back({NotebookCell::Kind::Code, "from google.colab import drive\ndrive.mount(\"/content/drive\")\n"});
  if (const std::string install = installCell(r); !install.empty())
    cells.push_back({NotebookCell::Kind::Code, install});
  if (r.framework.framework != ExportFramework::TrainDeck)
    cells.push_back({NotebookCell::Kind::Code, dataCell(r, placed, job.devices)});
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
