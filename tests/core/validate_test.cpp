// Cross-field rules that depend on the machine or the target, which the broken-config corpus
// (a CPU-only machine) cannot show, and the helpers around validation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "config/config_io.h"
#include "config/validate.h"

namespace traindeck {
namespace {

// A folder that passes for a prepared dataset (it has dataset.json), made once per process.
std::string preparedDataset() {
  static const std::string dir = [] {
    const std::string d =
        (std::filesystem::temp_directory_path() / ("validate-test-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(d);
    std::ofstream(d + "/dataset.json") << "{}";
    std::atexit([] { std::filesystem::remove_all(preparedDataset()); });
    return d;
  }();
  return dir;
}

RunConfig validCpuJob() {
  RunConfig c;
  c.model = {"", 2, 2, 32, 64, 32, 257, 0.0, ""};
  c.data.train = preparedDataset();
  c.data.tokenizer = TokenizerKind::Byte;
  c.strategy.device = DeviceKind::Cpu;
  return c;
}

ValidationContext machineWith(int gpus, bool bf16) {
  ValidationContext context;
  context.host = HostDevices{.cudaDevices = gpus, .bf16 = bf16};
  return context;
}

std::vector<std::string> errorPaths(const Diagnostics& all) {
  std::vector<std::string> paths;
  for (const Diagnostic& d : all)
    if (d.severity == Severity::Error) paths.push_back(d.path);
  return paths;
}

TEST(Validate, AValidJobHasNoProblems) {
  EXPECT_TRUE(validateConfig(validCpuJob(), machineWith(0, false)).empty());
}

TEST(Validate, Bf16OnAGpuWithoutBf16IsAnError) {
  RunConfig c = validCpuJob();
  c.strategy.device = DeviceKind::Cuda;
  c.strategy.precision = Precision::Bf16;
  EXPECT_EQ(errorPaths(validateConfig(c, machineWith(1, false))), std::vector<std::string>{"strategy.precision"});
  EXPECT_TRUE(errorPaths(validateConfig(c, machineWith(1, true))).empty());
  c.strategy.precision = Precision::Fp16;
  EXPECT_TRUE(errorPaths(validateConfig(c, machineWith(1, false))).empty());
}

TEST(Validate, MoreRanksThanGpusIsAnError) {
  RunConfig c = validCpuJob();
  c.strategy.device = DeviceKind::Auto;
  c.strategy.kind = StrategyKind::Ddp;
  c.strategy.nproc_per_node = 4;
  const Diagnostics problems = validateConfig(c, machineWith(2, true));
  ASSERT_EQ(errorPaths(problems), std::vector<std::string>{"strategy.nproc_per_node"});
  EXPECT_NE(problems[0].message.find("2 CUDA devices"), std::string::npos);
  EXPECT_TRUE(errorPaths(validateConfig(c, machineWith(4, true))).empty());
}

TEST(Validate, UnknownMachineSkipsDeviceRules) {
  RunConfig c = validCpuJob();
  c.strategy.device = DeviceKind::Cuda;
  c.strategy.precision = Precision::Bf16;
  EXPECT_TRUE(errorPaths(validateConfig(c, ValidationContext{})).empty());
}

TEST(Validate, RemoteTargetsCheckLocalPathsButNotRemoteOnesOrThisMachinesDevices) {
  RunConfig c = validCpuJob();
  c.data.train = "remote:/only/on/the/remote";
  c.strategy.device = DeviceKind::Cuda;
  c.target.kind = TargetKind::Ssh;
  c.target.host = "gpu-box";
  EXPECT_TRUE(errorPaths(validateConfig(c, machineWith(0, false))).empty());
  c.data.train = "/not/here/either";  // a local path: it is uploaded, so it must be here
  EXPECT_EQ(errorPaths(validateConfig(c, machineWith(0, false))), (std::vector<std::string>{"data.train"}));
  c.target.kind = TargetKind::Local;
  EXPECT_EQ(errorPaths(validateConfig(c, machineWith(0, false))),
            (std::vector<std::string>{"data.train", "strategy.device"}));
}

// A cuda job on an ssh host without a GPU: the hint names another host, not the ssh target the
// job has already (issue 25); on this machine it still suggests one.
TEST(Validate, TheCudaHintFitsWhereTheJobRuns) {
  RunConfig c = validCpuJob();
  c.strategy.device = DeviceKind::Cuda;
  c.target.kind = TargetKind::Ssh;
  c.target.host = "me@cpu-box";
  ValidationContext remote;
  remote.remoteHost = HostDevices{.cudaDevices = 0, .bf16 = false};
  const auto deviceError = [](const Diagnostics& all) {
    for (const Diagnostic& d : all)
      if (d.path == "strategy.device" && d.severity == Severity::Error) return d;
    return Diagnostic{};
  };
  const Diagnostic there = deviceError(validateConfig(c, remote));
  EXPECT_NE(there.message.find("me@cpu-box has no CUDA device"), std::string::npos) << there.message;
  EXPECT_EQ(there.hint.find("target.kind: ssh"), std::string::npos) << there.hint;
  EXPECT_NE(there.hint.find("target.host"), std::string::npos) << there.hint;
  c.target.kind = TargetKind::Local;
  const Diagnostic here = deviceError(validateConfig(c, machineWith(0, false)));
  EXPECT_NE(here.hint.find("target.kind: ssh"), std::string::npos) << here.hint;
}

TEST(Validate, SeveralHostsAreOneNodeEach) {
  RunConfig c = validCpuJob();
  c.target.kind = TargetKind::Ssh;
  c.target.hosts = " a@10.0.0.1, b@10.0.0.2:2200 ,";
  EXPECT_EQ(nodeHosts(c.target), (std::vector<std::string>{"a@10.0.0.1", "b@10.0.0.2:2200"}));
  c.strategy.kind = StrategyKind::Ddp;
  c.strategy.master_port = 29500;
  const Diagnostics wrongCount = validateConfig(c, machineWith(0, false));
  ASSERT_EQ(errorPaths(wrongCount), std::vector<std::string>{"strategy.nnodes"});
  const auto error = std::find_if(wrongCount.begin(), wrongCount.end(),
                                  [](const Diagnostic& d) { return d.severity == Severity::Error; });
  EXPECT_NE(error->hint.find("nnodes: 2"), std::string::npos) << error->hint;
  c.strategy.nnodes = 2;
  EXPECT_TRUE(errorPaths(validateConfig(c, machineWith(0, false))).empty());
  c.target.host = "b@10.0.0.2:2200";  // not node 0
  EXPECT_EQ(errorPaths(validateConfig(c, machineWith(0, false))), std::vector<std::string>{"target.host"});
  c.target.host = "a@10.0.0.1";
  EXPECT_TRUE(errorPaths(validateConfig(c, machineWith(0, false))).empty());
  c.target.hosts = "a@10.0.0.1, a@10.0.0.1";
  EXPECT_EQ(errorPaths(validateConfig(c, machineWith(0, false))), std::vector<std::string>{"target.hosts"});
  c.target.hosts = "a@10.0.0.1, b@10.0.0.2";
  c.strategy.master_port = 0;  // the other node could not know it
  EXPECT_EQ(errorPaths(validateConfig(c, machineWith(0, false))), std::vector<std::string>{"strategy.master_port"});
  c.target.kind = TargetKind::Local;
  c.strategy.master_port = 29500;
  EXPECT_TRUE(nodeHosts(c.target).empty());
  EXPECT_EQ(errorPaths(validateConfig(c, machineWith(0, false))), std::vector<std::string>{"target.hosts"});
}

TEST(Validate, DataMustBePreparedTokens) {
  RunConfig c = validCpuJob();
  const std::string dir = preparedDataset();
  std::ofstream(dir + "/passwd") << "root:x:0:0:root:/root:/bin/bash\n";
  std::ofstream(dir + "/train-000000.bin", std::ios::binary) << std::string("TDTOKENS") + std::string(24, '\0');
  std::filesystem::create_directories(dir + "/raw-texts");
  for (const char* bad : {"/passwd", "/raw-texts"}) {
    c.data.train = dir + bad;
    const Diagnostics problems = validateConfig(c, machineWith(0, false));
    ASSERT_EQ(errorPaths(problems), (std::vector<std::string>{"data.train"})) << bad;
    EXPECT_NE(problems[0].hint.find("traindeck-train prepare"), std::string::npos);
  }
  c.data.train = dir + "/train-000000.bin";  // a shard is fine
  EXPECT_TRUE(errorPaths(validateConfig(c, machineWith(0, false))).empty());
  c.data.val = dir + "/passwd";
  EXPECT_EQ(errorPaths(validateConfig(c, machineWith(0, false))), (std::vector<std::string>{"data.val"}));
}

TEST(Validate, ProblemsOfAFormHaveNoPlace) {
  RunConfig c = validCpuJob();
  c.model.n_head = 3;
  const Diagnostics problems = validateConfig(c, machineWith(0, false));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].path, "model.n_embd");
  EXPECT_EQ(problems[0].line, 0);
  EXPECT_EQ(problems[0].format("form"),
            "form: error: model.n_embd: n_embd (32) is not divisible by n_head (3) "
            "(each head gets n_embd / n_head channels: use n_embd 30 or 33, or an n_head "
            "that divides 32)");
  // Without a source (the Setup page's list) the line starts with what it is, not ": error:".
  EXPECT_EQ(problems[0].format("").rfind("error: model.n_embd: n_embd (32)", 0), 0u);
}

TEST(Validate, DdpWithOneRankIsOnlyAWarning) {
  RunConfig c = validCpuJob();
  c.strategy.kind = StrategyKind::Ddp;
  const Diagnostics problems = validateConfig(c, machineWith(0, false));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].severity, Severity::Warning);
  EXPECT_FALSE(hasErrors(problems));
}

TEST(Validate, CheckConfigListsProblemsInFileOrder) {
  const LoadedConfig loaded =
      loadConfigText("model:\n  n_head: 3\n  n_embd: 32\nstrategy:\n  micro_bach: 1\n  device: cpu\ndata:\n  train: " +
                     preparedDataset() + "\n  tokenizer: byte\n  vocab: x\nschedule:\n  max_steps: -1\n");
  const Diagnostics problems = checkConfig(loaded, machineWith(0, false));
  std::vector<int> lines;
  for (const Diagnostic& d : problems) lines.push_back(d.line);
  EXPECT_TRUE(std::is_sorted(lines.begin(), lines.end()));
  EXPECT_EQ(lines.size(), 3u);
}

TEST(Validate, ProblemsInKeepsOnlyTheNamedSections) {
  const LoadedConfig loaded = loadConfigText("model:\n  n_layer: 0\nschedule:\n  max_steps: -1\n");
  const Diagnostics planOnly = problemsIn(checkConfig(loaded, {}), {"model", "strategy"});
  ASSERT_EQ(planOnly.size(), 1u);
  EXPECT_EQ(planOnly[0].path, "model.n_layer");
}

TEST(Validate, Slugify) {
  EXPECT_EQ(slugify("GPT-2 small, DDP x8!"), "gpt-2-small-ddp-x8");
  EXPECT_EQ(slugify(std::string(100, 'a')).size(), 48u);
  EXPECT_EQ(slugify("我的第一个模型"), "我的第一个模型");
  EXPECT_EQ(slugify("  --  ").substr(0, 4), "run-");  // nothing of the name left: a short id
}

// A name is a name in any script: only the folder's slug depends on what it holds.
TEST(Validate, ANameInAnyScriptIsValid) {
  for (const char* name : {"我的第一个模型", "Модель №1", "!!!", "🙂"}) {
    RunConfig c = validCpuJob();
    c.name = name;
    const Diagnostics problems = validateConfig(c, machineWith(0, false));
    for (const Diagnostic& d : problems) EXPECT_NE(d.path, "name") << name << ": " << d.message;
  }
}

}  // namespace
}  // namespace traindeck
