// core/export's pieces one by one (the scripts and notebooks as a whole are run by the other
// export tests): Python literals read back by Python itself, the framework and place tables
// against the templates compiled in, the notebook's JSON, and makeExport's refusals and files.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "export/export_defaults.h"
#include "export/export_targets.h"
#include "export/export_templates.h"
#include "export/job_export.h"
#include "export/notebook.h"
#include "export/python_literal.h"
#include "runlog/json_value.h"
#include "runlog/utf8.h"

namespace traindeck {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPython = "/usr/bin/python3";

class ExportPartsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "export-parts-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // What Python makes of `literal` (ast.literal_eval), written back by `how` ("utf8": the
  // string's UTF-8 bytes; "json": json.dumps of the value).
  std::string pythonReads(const std::string& literal, const std::string& how) {
    const fs::path file = m_dir / "literal.py";
    std::ofstream(file, std::ios::binary) << literal;
    const std::string script =
        "import ast, json, sys\n"
        "v = ast.literal_eval(open(sys.argv[1], encoding='utf-8').read())\n"
        "sys.stdout.buffer.write(v.encode('utf-8') if sys.argv[2] == 'utf8' else json.dumps(v).encode())\n";
    std::ofstream(m_dir / "read.py") << script;
    const std::string command =
        std::string(kPython) + " " + (m_dir / "read.py").string() + " " + file.string() + " " + how + " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) return "cannot run " + command;
    std::string out;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
    const int status = ::pclose(pipe);
    return status == 0 ? out : "python3 failed: " + out;
  }

  fs::path m_dir;
};

#define REQUIRE_PYTHON() \
  if (!fs::exists(kPython)) GTEST_SKIP() << "python3 is not installed (" << kPython << ")"

TEST_F(ExportPartsTest, PythonReadsEveryStringBackAsWritten) {
  REQUIRE_PYTHON();
  const std::string texts[] = {
      "plain",
      "quotes \" and ' and \\ backslashes \\\"",
      "lines\nand\ttabs\r\x01\x7f",
      "我的第一个模型",
      "emoji 🙂 and é",
      "",
  };
  for (const std::string& text : texts) {
    const std::string literal = pythonString(text);
    EXPECT_EQ(literal.find('\n'), std::string::npos) << literal;  // one line, whatever the text
    EXPECT_EQ(pythonReads(literal, "utf8"), text) << literal;
  }
}

TEST_F(ExportPartsTest, InvalidBytesReadBackAsTheJsonWritersReplacement) {
  REQUIRE_PYTHON();
  // A byte that starts nothing, a cut sequence, an overlong form, a UTF-16 surrogate.
  const std::string text =
      "a\xff"
      "b\xe4\xb8"
      "c\xc0\xaf"
      "d\xed\xa0\x80";
  EXPECT_EQ(pythonReads(pythonString(text), "utf8"), validUtf8(text));
}

TEST(PrintableText, LineBreaksControlsAndInvalidBytesBecomeQuestionMarks) {
  EXPECT_EQ(printableText("name\nimport os\r\x1b[0m"), "name?import os??[0m");
  EXPECT_EQ(printableText("我的\xff模型\u2028"), "我的?模型?");
  EXPECT_EQ(printableText("plain 🙂"), "plain 🙂");
}

TEST_F(ExportPartsTest, ConfigReadsInPythonWithItsPathsMadeAbsolute) {
  REQUIRE_PYTHON();
  RunConfig config;
  config.name = "my \"first\" 模型";
  config.model.n_layer = 3;
  config.model.init_from = "gpt2";  // a hub name, left as it is
  config.data.train = "data/train";
  config.data.val = "${TRAINDECK_PARTS_TEST}/val";
  config.strategy.activation_checkpointing = true;
  const EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "TRAINDECK_PARTS_TEST") return "/mnt/shared";
    if (name == "TRAINDECK_DATA") return "/data";
    return std::nullopt;
  };
  const std::string json = pythonReads(configAsPython(config, "/base", env), "json");
  const JsonParseResult parsed = parseJson(json);
  ASSERT_TRUE(parsed.ok() && parsed.value.isObject()) << json;
  const JsonValue& v = parsed.value;
  EXPECT_EQ(v.stringOr("name", ""), config.name);
  EXPECT_EQ(v.find("model")->integerOr("n_layer", 0), 3);
  EXPECT_EQ(v.find("model")->stringOr("init_from", ""), "gpt2");
  EXPECT_EQ(v.find("data")->stringOr("train", ""), "/base/data/train");
  EXPECT_EQ(v.find("data")->stringOr("val", ""), "/mnt/shared/val");
  EXPECT_EQ(v.stringOr("runs_root", ""), "/data/runs");
  const JsonValue* checkpointing = v.find("strategy")->find("activation_checkpointing");
  ASSERT_NE(checkpointing, nullptr);
  EXPECT_TRUE(checkpointing->isBool() && checkpointing->boolOr(false));
  EXPECT_TRUE(v.find("optimizer")->find("lr")->isNumber());
}

TEST(ConfigAsPython, AnUnsetVariableNamesTheField) {
  RunConfig config;
  config.data.train = "${TRAINDECK_PARTS_TEST_UNSET}/train";
  const EnvLookup none = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  try {
    configAsPython(config, "/base", none);
    FAIL() << "an unset variable was expanded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("data.train"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("TRAINDECK_PARTS_TEST_UNSET"), std::string::npos) << e.what();
  }
}

TEST(ExportTargets, EveryFrameworksPartsAreCompiledIn) {
  for (const FrameworkInfo& f : exportFrameworks()) {
    EXPECT_FALSE(f.parts.empty()) << f.name;
    for (const std::string& part : f.parts) EXPECT_FALSE(exportTemplate(part).empty()) << f.name << ": " << part;
  }
  EXPECT_THROW(exportTemplate("no_such_part.py"), std::out_of_range);
}

TEST(ExportTargets, NamesFindTheirEntriesAndNothingElse) {
  for (const FrameworkInfo& f : exportFrameworks()) EXPECT_EQ(frameworkNamed(f.name)->framework, f.framework);
  for (const PlaceInfo& p : exportPlaces()) EXPECT_EQ(placeNamed(p.name)->place, p.place);
  EXPECT_FALSE(frameworkNamed("PyTorch DDP").has_value());  // a title is not a name
  EXPECT_FALSE(placeNamed("").has_value());
}

TEST(ExportTargets, OnlyAFrameworkForTheDevicesOfAPlaceGoesThere) {
  for (const FrameworkInfo& f : exportFrameworks())
    for (const PlaceInfo& p : exportPlaces()) {
      const std::string problem = targetProblem(f, p);
      EXPECT_EQ(problem.empty(), f.tpu == p.tpu) << f.name << " on " << p.name;
      if (!problem.empty()) {
        EXPECT_NE(problem.find(f.name), std::string::npos) << problem;
        EXPECT_NE(problem.find(p.name), std::string::npos) << problem;
      }
    }
}

TEST(Notebook, CellsKeepTheirSourceLineByLine) {
  const std::vector<NotebookCell> cells = {{NotebookCell::Kind::Markdown, "# Title\n\nText 模型"},
                                           {NotebookCell::Kind::Code, "print(1)\nprint(\"2\")\n"}};
  const JsonParseResult parsed = parseJson(notebookJson(cells, "TPU"));
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  const JsonValue& nb = parsed.value;
  EXPECT_EQ(nb.integerOr("nbformat", 0), 4);
  EXPECT_EQ(nb.integerOr("nbformat_minor", 0), 5);
  EXPECT_EQ(nb.find("metadata")->stringOr("accelerator", ""), "TPU");
  const std::vector<JsonValue>& written = nb.find("cells")->items();
  ASSERT_EQ(written.size(), cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const bool code = cells[i].kind == NotebookCell::Kind::Code;
    EXPECT_EQ(written[i].stringOr("cell_type", ""), code ? "code" : "markdown");
    EXPECT_EQ(written[i].find("outputs") != nullptr, code);
    std::string source;
    for (const JsonValue& line : written[i].find("source")->items()) {
      const std::size_t newline = line.text().find('\n');  // only at a line's end
      EXPECT_TRUE(newline == std::string::npos || newline + 1 == line.text().size()) << line.text();
      source += line.text();
    }
    EXPECT_EQ(source, cells[i].source);
  }
  EXPECT_EQ(parseJson(notebookJson(cells, "")).value.find("metadata")->find("accelerator"), nullptr);
}

TEST_F(ExportPartsTest, AnExportGetsThePlacesDevicesAndWritesItsTwoFiles) {
  ExportRequest request;
  request.config.data.train = "/data/train";
  request.config.strategy.nproc_per_node = 4;
  request.framework = *frameworkNamed("pytorch-ddp");
  request.place = *placeNamed("kaggle-t4x2");
  const ExportedJob job = makeExport(request);
  EXPECT_EQ(job.devices, request.place.devices);  // the place's GPUs, whatever the config asks
  EXPECT_EQ(job.baseName, "train_pytorch_ddp");
  EXPECT_NE(job.script.find("CONFIG = {"), std::string::npos);
  EXPECT_TRUE(parseJson(job.notebook).ok());

  request.place = *placeNamed("vm");
  EXPECT_EQ(makeExport(request).devices, 4);  // a VM has what the config says

  const fs::path out = m_dir / "nested" / "exports";
  ASSERT_EQ(writeExport(job, out.string()), "");
  std::ifstream script(out / "train_pytorch_ddp.py", std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(script), {}), job.script);
  EXPECT_TRUE(fs::is_regular_file(out / "train_pytorch_ddp.ipynb"));
}

TEST(JobExport, RefusesAFrameworkThePlaceCannotRunWithWhatToChoose) {
  ExportRequest request;
  request.framework = *frameworkNamed("torch-xla");
  request.place = *placeNamed("colab-gpu");
  try {
    makeExport(request);
    FAIL() << "torch-xla was exported for a GPU runtime";
  } catch (const ExportError& e) {
    EXPECT_EQ(std::string(e.what()), targetProblem(request.framework, request.place));
  }
  request.framework = *frameworkNamed("traindeck");
  request.trainerSources = "/nonexistent/trainer-sources.tar.gz";
  EXPECT_THROW(makeExport(request), ExportError);  // its sources must be there to be embedded
}

// Issue 40, item 3: the zero3 preset exported for a one-GPU place was silently made a single
// rank, and the PyTorch export trained zero2 and zero3 as plain DDP, which does not fit where they do.
RunConfig shardedJob(StrategyKind kind) {
  RunConfig config;
  config.data.train = "/data/train";
  config.strategy.kind = kind;
  config.strategy.device = DeviceKind::Cuda;
  config.strategy.nproc_per_node = 2;
  return config;
}

TEST(JobExport, AShardedJobForAOneDevicePlaceIsRefusedWithTheReason) {
  for (const char* framework : {"pytorch-ddp", "traindeck"}) {
    ExportRequest request;
    request.config = shardedJob(StrategyKind::Zero3);
    request.framework = *frameworkNamed(framework);
    request.place = *placeNamed("colab-gpu");
    request.trainerSources = "/nonexistent/trainer-sources.tar.gz";
    try {
      makeExport(request);
      FAIL() << "the zero3 job was exported for one GPU with " << framework;
    } catch (const ExportError& e) {
      const std::string why = e.what();
      EXPECT_NE(why.find("zero3"), std::string::npos) << why;
      EXPECT_NE(why.find("colab-gpu has one GPU"), std::string::npos) << why;
      EXPECT_NE(why.find("kaggle-t4x2"), std::string::npos) << why;  // where it can go instead
    }
  }
}

TEST(JobExport, ThePytorchExportTrainsUnderTheJobsKind) {
  ExportRequest request;
  request.framework = *frameworkNamed("pytorch-ddp");
  request.place = *placeNamed("kaggle-t4x2");
  const std::pair<StrategyKind, const char*> kinds[] = {
      {StrategyKind::Ddp, "\"kind\": \"ddp\""},
      {StrategyKind::Zero1, "\"kind\": \"zero1\""},
      {StrategyKind::Zero2, "\"kind\": \"zero2\""},
      {StrategyKind::Zero3, "\"kind\": \"zero3\""},
  };
  for (const auto& [kind, inConfig] : kinds) {
    request.config = shardedJob(kind);
    const ExportedJob job = makeExport(request);
    EXPECT_NE(job.script.find(inConfig), std::string::npos) << inConfig;
    const bool fsdp = kind == StrategyKind::Zero2 || kind == StrategyKind::Zero3;
    // The script shards the model under zero2 and zero3 and says so at its top.
    EXPECT_NE(job.script.find("fully_shard(block"), std::string::npos);
    const std::string header = job.script.substr(0, job.script.find("CONFIG = "));
    EXPECT_EQ(header.find("fully_shard") != std::string::npos, fsdp) << header;
    EXPECT_EQ(header.find("ZeroRedundancyOptimizer") != std::string::npos, kind == StrategyKind::Zero1) << header;
    EXPECT_EQ(header.find("not run by our tests") != std::string::npos, fsdp) << header;  // torch 1.13 has no FSDP2
  }
}

TEST(JobExport, AFrameworkWithoutShardingRefusesAShardedJob) {
  for (const auto& [framework, place] : {std::pair{"keras-gpu", "kaggle-t4x2"}, std::pair{"torch-xla", "kaggle-v5e8"},
                                         std::pair{"keras-jax", "kaggle-v5e8"}}) {
    ExportRequest request;
    request.config = shardedJob(StrategyKind::Zero1);
    request.framework = *frameworkNamed(framework);
    request.place = *placeNamed(place);
    try {
      makeExport(request);
      FAIL() << framework << " exported a zero1 job as if it were ddp";
    } catch (const ExportError& e) {
      const std::string why = e.what();
      EXPECT_NE(why.find(framework), std::string::npos) << why;
      EXPECT_NE(why.find("zero1"), std::string::npos) << why;
    }
    request.config.strategy.kind = StrategyKind::Ddp;
    EXPECT_NO_THROW(makeExport(request)) << framework;  // ddp is what it does
  }
}

// Issue 40, item 3: the export dialog's first place is the one the job was made for, and its
// folder is never the presets folder.
TEST(ExportDefaults, ThePlaceTheJobWasMadeFor) {
  RunConfig config;
  config.strategy.device = DeviceKind::Cuda;
  config.strategy.nproc_per_node = 2;
  EXPECT_EQ(suggestedPlace(config, "gpt2-1.5b-kaggle-t4x2-zero3"), "kaggle-t4x2");
  EXPECT_EQ(suggestedPlace(config, "job.yaml"), "vm");  // two GPUs, nothing said of a place
  config.name = "My Kaggle run";
  EXPECT_EQ(suggestedPlace(config, "job.yaml"), "kaggle-t4x2");
  config = RunConfig{};
  EXPECT_EQ(suggestedPlace(config, "gpt2-124m-colab-t4"), "colab-gpu");
  EXPECT_EQ(suggestedPlace(config, "job.yaml"), "colab-gpu");  // one GPU rank
  config.strategy.device = DeviceKind::Cpu;
  EXPECT_EQ(suggestedPlace(config, "job.yaml"), "vm");
}

TEST_F(ExportPartsTest, TheFolderIsTheJobsOwnNeverThePresets) {
  const fs::path presets = m_dir / "presets", data = m_dir / "data", jobs = m_dir / "jobs";
  fs::create_directories(presets);
  fs::create_directories(jobs);
  const std::vector<std::string> presetDirs = {presets.string() + "/"};
  EXPECT_EQ(defaultExportDir((jobs / "job.yaml").string(), presetDirs, data.string()), jobs.string());
  EXPECT_EQ(defaultExportDir((presets / "demo.yaml").string(), presetDirs, data.string()), (data / "exports").string());
  EXPECT_EQ(defaultExportDir("", presetDirs, data.string()), (data / "exports").string());  // no file: a preset
  // A folder that is not there (or not writable) is not proposed either.
  EXPECT_EQ(defaultExportDir((m_dir / "gone" / "job.yaml").string(), presetDirs, data.string()),
            (data / "exports").string());
  // The presets folder reached through a link is still the presets folder.
  fs::create_directory_symlink(presets, m_dir / "linked");
  EXPECT_EQ(defaultExportDir((m_dir / "linked" / "demo.yaml").string(), presetDirs, data.string()),
            (data / "exports").string());
}

}  // namespace
}  // namespace traindeck
