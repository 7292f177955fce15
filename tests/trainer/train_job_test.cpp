// The training loop end to end on a tiny model and a dataset made here: the run directory it
// writes, exact resume (bitwise on this CPU), skipped non-finite steps, and clear failures.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "config/validate.h"
#include "runlog/json_value.h"
#include "skip_without_cuda.h"
#include "trainer/data/prepare_dataset.h"
#include "trainer/model/hf_weights.h"
#include "trainer/model/model_tools.h"
#include "trainer/tokenizer/byte_tokenizer.h"
#include "trainer/train/checkpointer.h"
#include "trainer/train/train_job.h"

namespace traindeck {
namespace {

namespace fs = std::filesystem;

class TrainJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_root = fs::temp_directory_path() / ("traindeck-train-" + std::to_string(::getpid()) + "-" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_root);
    fs::create_directories(m_root);
    // A corpus of fortune-like documents separated by "%" lines.
    std::mt19937 random(5);
    const std::vector<std::string> words = {"the", "deck",    "trains", "a",     "model",  "on",      "many", "devices",
                                            "and", "watches", "it",     "learn", "slowly", "quickly", "loss", "falls"};
    std::ofstream corpus(m_root / "corpus.txt");
    for (int doc = 0; doc < 400; ++doc) {
      for (int w = 0; w < 30; ++w) corpus << words[random() % words.size()] << (w % 10 == 9 ? "\n" : " ");
      corpus << "%\n";
    }
    corpus.close();
    PrepareOptions prepare;
    prepare.inputs = {m_root / "corpus.txt"};
    prepare.tokenizer = [] { return std::make_unique<ByteTokenizer>(); };
    prepare.outDir = m_root / "data";
    prepare.valFraction = 0.1;
    prepare.documentSeparator = "%";
    prepareDataset(prepare);
  }
  void TearDown() override { fs::remove_all(m_root); }

  RunConfig tinyJob() const {
    RunConfig c;
    c.name = "tiny";
    c.seed = 7;
    c.model = {"", 2, 2, 32, 64, 32, 257, 0.0, ""};
    c.data.train = (m_root / "data").string();
    c.data.tokenizer = TokenizerKind::Byte;
    c.strategy.device = DeviceKind::Cpu;
    c.strategy.micro_batch = 4;
    c.strategy.grad_accum = 2;
    c.optimizer.lr = 3e-3;
    c.schedule = {5, Decay::Cosine, 3e-4, 40, 0};
    c.eval = {10, 2};
    c.checkpoint = {20, 3, false};
    return c;
  }

  TrainResult train(const RunConfig& c, const std::string& runName, bool resume = false, std::int64_t stopAt = 0) {
    TrainOptions options;
    options.paths.root = (m_root / runName).string();
    fs::create_directories(options.paths.logs());
    options.info.id = runName;
    options.resume = resume;
    options.echoLog = false;
    options.stopAtStep = stopAt;
    return trainJob(c, options);
  }

  std::vector<JsonValue> records(const std::string& runName, const std::string& kind) const {
    std::ifstream in(m_root / runName / "metrics.jsonl");
    std::vector<JsonValue> out;
    for (std::string line; std::getline(in, line);) {
      JsonParseResult parsed = parseJson(line);
      EXPECT_TRUE(parsed.ok()) << line;
      if (parsed.value.stringOr("kind", "") == kind) out.push_back(parsed.value);
    }
    return out;
  }

  std::string readFile(const fs::path& path) const {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path m_root;
};

TEST_F(TrainJobTest, WritesTheRunDirectoryAndLearns) {
  const TrainResult result = train(tinyJob(), "run");
  ASSERT_EQ(result.status, RunStatus::Finished) << result.reason;
  EXPECT_EQ(result.steps, 40);
  const auto trainRecords = records("run", "train");
  ASSERT_EQ(trainRecords.size(), 40u);
  EXPECT_EQ(trainRecords.front().integerOr("step", 0), 1);
  EXPECT_EQ(trainRecords.back().integerOr("tokens", 0), 40 * 4 * 2 * 32);
  EXPECT_LT(trainRecords.back().numberOr("loss", 99), trainRecords.front().numberOr("loss", 0) - 1.0);
  EXPECT_GT(trainRecords.back().numberOr("tokens_per_s", 0), 0);
  const auto evals = records("run", "eval");
  ASSERT_EQ(evals.size(), 4u);
  EXPECT_EQ(evals[3].integerOr("step", 0), 40);
  EXPECT_EQ(records("run", "header").size(), 1u);
  EXPECT_GE(records("run", "system").size(), 1u);

  const JsonParseResult runJson = parseJson(readFile(m_root / "run" / "run.json"));
  EXPECT_EQ(runJson.value.stringOr("status", ""), "finished");
  EXPECT_EQ(runJson.value.integerOr("step", 0), 40);
  EXPECT_NE(readFile(m_root / "run" / "logs" / "rank-0.log").find("runtime: LibTorch"), std::string::npos);
  for (const char* step : {"step-00000020", "step-00000040"})
    EXPECT_TRUE(fs::exists(m_root / "run" / "checkpoints" / step / "COMPLETE")) << step;
}

TEST_F(TrainJobTest, ResumeContinuesExactly) {
  const RunConfig c = tinyJob();
  ASSERT_EQ(train(c, "straight").status, RunStatus::Finished);
  // Stopped off the eval grid (every 10): the --stop-at step is evaluated too (a sweep's rung),
  // and that evaluation changes nothing of the training that follows.
  const TrainResult first = train(c, "resumed", false, 15);
  ASSERT_EQ(first.status, RunStatus::Stopped) << first.reason;
  EXPECT_EQ(first.steps, 15);
  const auto evalsAtStop = records("resumed", "eval");
  ASSERT_FALSE(evalsAtStop.empty());
  EXPECT_EQ(evalsAtStop.back().integerOr("step", 0), 15);
  const TrainResult second = train(c, "resumed", true);
  ASSERT_EQ(second.status, RunStatus::Finished) << second.reason;

  const auto straight = records("straight", "train");
  const auto resumed = records("resumed", "train");
  ASSERT_EQ(straight.size(), 40u);
  ASSERT_EQ(resumed.size(), 40u);
  for (std::size_t i = 0; i < 40; ++i) {
    EXPECT_EQ(resumed[i].integerOr("step", 0), straight[i].integerOr("step", -1));
    // Bitwise: the records hold the shortest text that reads back to the same double.
    EXPECT_EQ(resumed[i].numberOr("loss", 0), straight[i].numberOr("loss", 1)) << "step " << i + 1;
  }
  const auto events = records("resumed", "event");
  EXPECT_TRUE(std::any_of(events.begin(), events.end(),
                          [](const JsonValue& e) { return e.stringOr("msg", "") == "resumed from step 15"; }));
}

TEST_F(TrainJobTest, ActivationCheckpointingTrainsTheSame) {
  RunConfig c = tinyJob();
  c.schedule.max_steps = 8;
  ASSERT_EQ(train(c, "stored").status, RunStatus::Finished);
  c.strategy.activation_checkpointing = true;
  ASSERT_EQ(train(c, "recomputed").status, RunStatus::Finished);
  const auto stored = records("stored", "train"), recomputed = records("recomputed", "train");
  ASSERT_EQ(stored.size(), 8u);
  ASSERT_EQ(recomputed.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_NEAR(recomputed[i].numberOr("loss", 0), stored[i].numberOr("loss", 1), 1e-5) << "step " << i + 1;
}

TEST_F(TrainJobTest, NonFiniteStepsAreSkippedAndRecorded) {
  RunConfig c = tinyJob();
  c.optimizer.lr = 1e30;  // diverges within a few steps
  c.optimizer.grad_clip = 0;
  c.schedule.warmup_steps = 0;
  c.schedule.max_steps = 12;
  const TrainResult result = train(c, "diverge");
  EXPECT_EQ(result.status, RunStatus::Finished) << result.reason;
  const auto events = records("diverge", "event");
  EXPECT_TRUE(std::any_of(events.begin(), events.end(), [](const JsonValue& e) {
    return e.stringOr("msg", "").find("skipped") != std::string::npos && e.stringOr("level", "") == "warn";
  }));
}

// The loop on CUDA, where there is one (tests/gpu/check_cuda.sh): bf16 autocast, and fp16 with
// dynamic loss scaling; both learn, and the system records carry the GPU's figures from NVML.
TEST_F(TrainJobTest, TrainsOnCudaInBf16AndFp16) {
  TRAINDECK_SKIP_WITHOUT_CUDA();
  for (const Precision precision : {Precision::Bf16, Precision::Fp16}) {
    if (precision == Precision::Bf16 && !compat::cudaDeviceSupportsBf16(0)) continue;  // before Ampere
    RunConfig c = tinyJob();
    c.strategy.device = DeviceKind::Cuda;
    c.strategy.precision = precision;
    const std::string name = precision == Precision::Bf16 ? "bf16" : "fp16";
    const TrainResult result = train(c, name);
    ASSERT_EQ(result.status, RunStatus::Finished) << name << ": " << result.reason;
    const auto trainRecords = records(name, "train");
    ASSERT_EQ(trainRecords.size(), 40u) << name;
    EXPECT_LT(trainRecords.back().numberOr("loss", 99), trainRecords.front().numberOr("loss", 0) - 1.0) << name;
    EXPECT_NE(readFile(m_root / name / "logs" / "rank-0.log").find("CUDA device"), std::string::npos) << name;
    const std::string metrics = readFile(m_root / name / "metrics.jsonl");
    EXPECT_NE(metrics.find("\"device\":\"cuda"), std::string::npos) << name;
    EXPECT_NE(metrics.find("\"power_w\""), std::string::npos) << name << ": no NVML figures";
  }
}

TEST_F(TrainJobTest, CorruptDataFailsWithASentence) {
  for (const auto& entry : fs::directory_iterator(m_root / "data"))
    if (entry.path().filename().string().starts_with("train-")) fs::resize_file(entry.path(), 100);
  const TrainResult result = train(tinyJob(), "corrupt");
  EXPECT_EQ(result.status, RunStatus::Failed);
  EXPECT_NE(result.reason.find("train-000000.bin"), std::string::npos) << result.reason;
  const JsonParseResult runJson = parseJson(readFile(m_root / "corrupt" / "run.json"));
  EXPECT_EQ(runJson.value.stringOr("status", ""), "failed");
  EXPECT_EQ(runJson.value.stringOr("exit_reason", ""), result.reason);
  // The rank's log says it once, as an error (it said it again as info).
  const std::string log = readFile(m_root / "corrupt" / "logs" / "rank-0.log");
  std::size_t times = 0;
  for (std::size_t at = log.find(result.reason); at != std::string::npos; at = log.find(result.reason, at + 1)) ++times;
  EXPECT_EQ(times, 1u) << log;
  EXPECT_NE(log.find("error: " + result.reason), std::string::npos) << log;
}

TEST_F(TrainJobTest, ExportedModelsScoreAndLoadTheSame) {
  RunConfig c = tinyJob();
  c.schedule.max_steps = 10;
  ASSERT_EQ(train(c, "short").status, RunStatus::Finished);
  const std::string run = (m_root / "short").string();
  const std::string hf = (m_root / "hf").string();
  const ExportSummary summary = exportHuggingFace(run, hf);
  EXPECT_EQ(summary.files, (std::vector<std::string>{"config.json", "model.safetensors", "traindeck_tokenizer.json"}));
  const JsonParseResult config = parseJson(readFile(m_root / "hf" / "config.json"));
  EXPECT_EQ(config.value.stringOr("model_type", ""), "gpt2");
  EXPECT_EQ(config.value.stringOr("activation_function", ""), "gelu_new");
  EXPECT_EQ(config.value.integerOr("n_embd", 0), 32);

  const std::vector<std::int64_t> tokens = {84, 104, 101, 32, 100, 101, 99, 107, 32, 116, 114, 97, 105, 110, 115, 256};
  const Score fromRun = scoreTokens(run, tokens), fromExport = scoreTokens(hf, tokens);
  EXPECT_EQ(fromRun.predicted, 15);
  EXPECT_EQ(fromRun.meanCrossEntropy, fromExport.meanCrossEntropy);
  EXPECT_LT(fromRun.meanCrossEntropy, std::log(257.0));

  // init_from reads exactly the exported weights.
  Gpt2 imported(c.model);
  loadHuggingFaceWeights(imported, hf);
  const auto checkpoint = Checkpointer::load(run + "/checkpoints/step-00000010");
  for (const auto& [name, tensor] : imported->namedWeights())
    EXPECT_TRUE(torch::equal(tensor, checkpoint.model.at(name))) << name;
  c.model.init_from = hf;
  c.schedule.max_steps = 2;
  c.schedule.warmup_steps = 1;
  ASSERT_EQ(train(c, "finetune").status, RunStatus::Finished);
  EXPECT_NE(readFile(m_root / "finetune" / "logs" / "rank-0.log").find("weights from " + hf), std::string::npos);

  EXPECT_THROW(scoreTokens(hf, {1}), std::runtime_error);
  EXPECT_THROW(scoreTokens(hf, {1, 300}), std::runtime_error);
  EXPECT_THROW(scoreTokens((m_root / "data").string(), tokens), std::runtime_error);
}

TEST_F(TrainJobTest, SamplingIsSeededAndStartsWithThePrompt) {
  RunConfig c = tinyJob();
  c.schedule.max_steps = 6;
  ASSERT_EQ(train(c, "sampled").status, RunStatus::Finished);
  SampleOptions options;
  options.prompt = "the deck";
  options.maxNewTokens = 20;
  const std::string run = (m_root / "sampled").string();
  const std::string a = sampleText(run, options), b = sampleText(run, options);
  EXPECT_EQ(a, b);
  EXPECT_TRUE(a.starts_with("the deck"));
  EXPECT_GE(a.size(), 8u + 20u);  // byte tokens: one byte each, <|endoftext|> longer
  options.seed = 99;
  options.maxNewTokens = 200;
  EXPECT_NE(sampleText(run, options), sampleText(run, {options.prompt, 200, 1.0, 50, 1337}));
}

}  // namespace
}  // namespace traindeck
