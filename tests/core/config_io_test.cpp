// Loading and saving: defaults, every key read, presets applied, save(load(x)) == load(x),
// strings that need quotes, and inputs that must fail politely instead of throwing.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "config/config_fields.h"
#include "config/config_io.h"
#include "config/model_presets.h"
#include "config/preset_files.h"

namespace traindeck {
namespace {

namespace fs = std::filesystem;

RunConfig roundTrip(const RunConfig& config) {
  const LoadedConfig again = loadConfigText(saveConfigText(config));
  EXPECT_TRUE(again.problems.empty()) << again.problems.front().format("saved");
  return again.config;
}

TEST(ConfigIo, EmptyTextGivesDefaults) {
  const LoadedConfig loaded = loadConfigText("");
  EXPECT_TRUE(loaded.problems.empty());
  EXPECT_EQ(loaded.config, RunConfig{});
}

TEST(ConfigIo, DefaultsRoundTrip) {
  EXPECT_EQ(roundTrip(RunConfig{}), RunConfig{});
}

TEST(ConfigIo, ChangedValuesRoundTrip) {
  RunConfig c;
  c.name = "my run: #1";  // needs quotes
  c.seed = 7;
  c.model.n_layer = 3;
  c.model.dropout = 0.1;
  c.model.init_from = "~/gpt2/model.safetensors";
  c.data.train = "${TRAINDECK_DATA}/shards/*.bin";
  c.data.tokenizer = TokenizerKind::Byte;
  c.strategy.kind = StrategyKind::Zero1;
  c.strategy.nproc_per_node = 4;
  c.strategy.precision = Precision::Bf16;
  c.strategy.activation_checkpointing = true;
  c.strategy.bucket_mb = 12.5;
  c.optimizer.lr = 3e-4;
  c.optimizer.betas = {0.8, 0.999};
  c.optimizer.eps = 1e-10;
  c.schedule.decay = Decay::Linear;
  c.schedule.max_tokens = 9'000'000'000;
  c.checkpoint.resume = true;
  c.target.kind = TargetKind::Ssh;
  c.target.host = "ubuntu@10.0.0.1:2222";
  c.target.proxy_command = "cloudflared access ssh --hostname %h";
  EXPECT_EQ(roundTrip(c), c);
}

TEST(ConfigIo, TextThatLooksLikeOtherTypesRoundTrips) {
  for (const std::string& name :
       std::vector<std::string>{"true", "no", "123", "1e5", "~", "null", "", " padded ", "- dash", "a: b", "#x",
                                "\r\r\r", "quote\"d", "multi\nline", "[list]", "{map}", "ünïcødé"}) {
    RunConfig c;
    c.data.val = name;
    EXPECT_EQ(roundTrip(c).data.val, name) << "value: " << name;
  }
}

TEST(ConfigIo, EveryKeyIsReadFromTheFile) {
  // Saving a config whose every value differs from the default, then loading it, must give
  // back those values: a key the loader ignored would come back as its default.
  RunConfig c;
  c.name = "x";
  c.seed = 1;
  c.runs_root = "/r";
  c.model = {"", 3, 2, 8, 33, 31, 300, 0.5, "/m"};
  c.data = {"/t", "/v", TokenizerKind::Byte, "/vocab", "/merges"};
  c.strategy = {StrategyKind::Ddp, DeviceKind::Cpu, 3, 2, Backend::Gloo, Precision::Fp16, 5, 6, true, 7.5};
  c.optimizer = {OptimizerKind::AdamW, 0.5, {0.1, 0.2}, 0.3, 0.4, 0.6};
  c.schedule = {11, Decay::Constant, 0.01, 12, 13};
  c.eval = {14, 15};
  c.checkpoint = {16, 17, true};
  c.target = {TargetKind::Ssh, "h", "u", 2022, "/id", "proxy", "/remote", "zsh -l", "h, v:2200", "10.0.0.2", SlurmConfig{}};
  c.target.slurm = {"p", "a", "q", "1-00", 2, 3, "4G", "c", {"--x"}, SlurmBuild::Job, 5};
  const std::string text = saveConfigText(c);
  for (const FieldInfo& info : configFieldInfos()) {
    const std::string leaf = info.path.substr(info.path.rfind('.') + 1);
    EXPECT_NE(text.find(leaf + ":"), std::string::npos) << info.path << " is not saved";
  }
  EXPECT_EQ(roundTrip(c), c);
}

TEST(ConfigIo, ModelPresetSetsSizesAndGivenSizesWin) {
  const LoadedConfig loaded = loadConfigText("model:\n  preset: gpt2-medium\n  block_size: 256\n");
  ASSERT_TRUE(loaded.problems.empty());
  EXPECT_EQ(loaded.config.model.n_layer, 24);
  EXPECT_EQ(loaded.config.model.n_head, 16);
  EXPECT_EQ(loaded.config.model.n_embd, 1024);
  EXPECT_EQ(loaded.config.model.block_size, 256);
  EXPECT_EQ(roundTrip(loaded.config), loaded.config);
}

TEST(ConfigIo, WholeNumbersMayBeWrittenInScientificNotation) {
  const LoadedConfig loaded = loadConfigText("schedule:\n  max_tokens: 1e10\n");
  ASSERT_TRUE(loaded.problems.empty());
  EXPECT_EQ(loaded.config.schedule.max_tokens, 10'000'000'000);
}

TEST(ConfigIo, BadValuesKeepDefaultsAndRecordPlaces) {
  const LoadedConfig loaded = loadConfigText("strategy:\n  micro_batch: lots\n  grad_accum: 3\n");
  ASSERT_EQ(loaded.problems.size(), 1u);
  EXPECT_EQ(loaded.problems[0].line, 2);
  EXPECT_EQ(loaded.problems[0].column, 16);
  EXPECT_EQ(loaded.config.strategy.micro_batch, RunConfig{}.strategy.micro_batch);
  EXPECT_EQ(loaded.config.strategy.grad_accum, 3);
  EXPECT_EQ(loaded.places.at("strategy.grad_accum").line, 3);
}

TEST(ConfigIo, OversizedTextIsRefusedUnparsed) {
  const LoadedConfig loaded = loadConfigText(std::string(kMaxConfigBytes + 1, '#'));
  ASSERT_EQ(loaded.problems.size(), 1u);
  EXPECT_NE(loaded.problems[0].message.find("KiB"), std::string::npos);
}

TEST(ConfigIo, MissingFileIsAProblemNotAnException) {
  const LoadedConfig loaded = loadConfigFile("/nonexistent/job.yaml");
  ASSERT_EQ(loaded.problems.size(), 1u);
  EXPECT_NE(loaded.problems[0].message.find("cannot be opened"), std::string::npos);
}

TEST(ConfigIo, HostileInputsNeverThrow) {
  const std::string deep(5000, '[');
  for (const std::string& text : std::vector<std::string>{
           deep, std::string("{a: [}"), std::string("\xff\xfe\x00", 3), std::string("*alias"), std::string("&a [*a]"),
           std::string("model: &m {n_layer: *m}"), std::string("? complex\n: key"), std::string("%YAML 9.9\n---\n")}) {
    EXPECT_NO_THROW({ const LoadedConfig loaded = loadConfigText(text); });
  }
}

TEST(ConfigIo, EveryBundledPresetLoadsCleanlyAndRoundTrips) {
  const std::vector<std::string> dirs = {std::string(TRAINDECK_SOURCE_DIR) + "/resources/presets"};
  const std::vector<std::string> names = listPresets(dirs);
  EXPECT_EQ(names, (std::vector<std::string>{"demo-cpu", "gpt2-1.5b-8gpu-zero1", "gpt2-1.5b-kaggle-t4x2-zero3",
                                             "gpt2-124m-1gpu", "gpt2-124m-8gpu-ddp",
                                             "gpt2-124m-colab-a100", "gpt2-124m-colab-t4", "gpt2-350m-8gpu-ddp",
                                             "gpt2-774m-8gpu-zero1"}));
  for (const std::string& name : names) {
    const LoadedConfig loaded = loadConfigFile(*resolveConfigPath(name, dirs));
    EXPECT_TRUE(loaded.problems.empty()) << name << ": " << loaded.problems.front().format(name);
    EXPECT_EQ(loaded.config.name, name);
    EXPECT_EQ(roundTrip(loaded.config), loaded.config) << name;
  }
}

TEST(ConfigIo, SaveFileWritesAtomicallyAndLoadsBack) {
  const fs::path dir = fs::temp_directory_path() / ("traindeck-io-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  RunConfig c;
  c.name = "saved";
  const std::string path = (dir / "job.yaml").string();
  ASSERT_EQ(saveConfigFile(c, path), "");
  EXPECT_EQ(loadConfigFile(path).config, c);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);  // no temp left
  fs::remove_all(dir);
}

}  // namespace
}  // namespace traindeck
