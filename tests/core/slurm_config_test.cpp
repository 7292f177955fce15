// target.kind: slurm: its keys through YAML and back, each malformed value refused at its key,
// and the cross-field rules: the login node, ignored keys, GPUs per node against ranks, and a
// job against the partitions its cluster has.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "config/config_fields.h"
#include "config/config_io.h"
#include "config/validate.h"

namespace traindeck {
namespace {

std::string slurmTestDataset() {
  static const std::string dir = [] {
    const std::string d =
        (std::filesystem::temp_directory_path() / ("slurm-config-test-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(d);
    std::ofstream(d + "/dataset.json") << "{}";
    std::atexit([] { std::filesystem::remove_all(slurmTestDataset()); });
    return d;
  }();
  return dir;
}

// A job that validates on a CPU-only Slurm cluster with nothing known about its partitions.
RunConfig slurmCpuJob() {
  RunConfig c;
  c.model = {"", 2, 2, 32, 64, 32, 257, 0.0, ""};
  c.data.train = slurmTestDataset();
  c.data.tokenizer = TokenizerKind::Byte;
  c.strategy.device = DeviceKind::Cpu;
  c.target.kind = TargetKind::Slurm;
  c.target.host = "me@login.cluster.example";
  return c;
}

// The same job on 2 nodes of 4 A100s each, one rank per GPU.
RunConfig slurmGpuJob() {
  RunConfig c = slurmCpuJob();
  c.strategy.device = DeviceKind::Cuda;
  c.strategy.kind = StrategyKind::Ddp;
  c.strategy.nnodes = 2;
  c.strategy.nproc_per_node = 4;
  c.strategy.master_port = 29500;
  c.target.slurm.partition = "gpu";
  c.target.slurm.gpus_per_node = 4;
  c.target.slurm.time_limit = "1-00:00:00";
  return c;
}

SlurmPartition makePartition(std::string name, int nodes, int gpus, std::optional<int> maxMinutes, bool isDefault) {
  SlurmPartition p;
  p.name = std::move(name);
  p.nodes = nodes;
  p.gpusPerNode = gpus;
  p.maxMinutes = maxMinutes;
  p.isDefault = isDefault;
  return p;
}

// debug (default): 2 CPU nodes, 30 min; gpu: 8 nodes of 4 GPUs, 2 days; long: 4 nodes, no limit.
ValidationContext clusterContext() {
  ValidationContext context;
  context.slurmPartitions = std::vector<SlurmPartition>{makePartition("debug", 2, 0, 30, true),
                                                        makePartition("gpu", 8, 4, 2 * 24 * 60, false),
                                                        makePartition("long", 4, 0, std::nullopt, false)};
  return context;
}

std::vector<std::string> slurmErrorPaths(const Diagnostics& all) {
  std::vector<std::string> paths;
  for (const Diagnostic& d : all)
    if (d.severity == Severity::Error) paths.push_back(d.path);
  return paths;
}

std::vector<std::string> slurmWarningPaths(const Diagnostics& all) {
  std::vector<std::string> paths;
  for (const Diagnostic& d : all)
    if (d.severity == Severity::Warning) paths.push_back(d.path);
  return paths;
}

const Diagnostic* slurmErrorAt(const Diagnostics& all, const std::string& path) {
  for (const Diagnostic& d : all)
    if (d.severity == Severity::Error && d.path == path) return &d;
  return nullptr;
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---- YAML ----------------------------------------------------------------------------------

TEST(SlurmConfig, EveryKeyRoundTripsThroughYaml) {
  RunConfig c = slurmGpuJob();
  c.target.user = "me";
  c.target.remote_dir = "/shared/me/traindeck";
  SlurmConfig& s = c.target.slurm;
  s.account = "proj-123";
  s.qos = "high";
  s.time_limit = "12:00:00";
  s.cpus_per_task = 32;
  s.mem = "256G";
  s.constraint = "a100&ib";
  s.sbatch_args = {"--exclusive", "--mail-type=END,FAIL", "--mail-user=me@example.org", "--comment=a: b, [c] #d"};
  s.build = SlurmBuild::Job;
  s.max_requeues = 0;
  const std::string text = saveConfigText(c);
  EXPECT_TRUE(mentions(text, "kind: slurm")) << text;
  EXPECT_TRUE(mentions(text, "partition: gpu")) << text;
  EXPECT_TRUE(mentions(text, "build: job")) << text;
  const LoadedConfig again = loadConfigText(text);
  ASSERT_TRUE(again.problems.empty()) << again.problems.front().format("saved");
  EXPECT_EQ(again.config.target.slurm, s);
  EXPECT_EQ(again.config, c);
}

TEST(SlurmConfig, DefaultsAreEmptyAndLoginBuildWithThreeRequeues) {
  const LoadedConfig loaded = loadConfigText("target:\n  kind: slurm\n  host: login\n");
  ASSERT_TRUE(loaded.problems.empty());
  const SlurmConfig& s = loaded.config.target.slurm;
  EXPECT_EQ(loaded.config.target.kind, TargetKind::Slurm);
  EXPECT_TRUE(s.partition.empty() && s.account.empty() && s.qos.empty() && s.time_limit.empty() && s.mem.empty() &&
              s.constraint.empty() && s.sbatch_args.empty());
  EXPECT_EQ(s.gpus_per_node, 0);
  EXPECT_EQ(s.cpus_per_task, 0);
  EXPECT_EQ(s.build, SlurmBuild::Login);
  EXPECT_EQ(s.max_requeues, 3);
  for (const char* key : {"target.partition", "target.time_limit", "target.gpus_per_node", "target.sbatch_args",
                          "target.build", "target.max_requeues"}) {
    const FieldInfo* info = findFieldInfo(key);
    ASSERT_NE(info, nullptr) << key;
    EXPECT_EQ(info->doc.rfind("slurm: ", 0), 0u) << key << ": " << info->doc;
  }
  EXPECT_EQ(findFieldInfo("target.max_requeues")->defaultValue, "3");
  EXPECT_EQ(findFieldInfo("target.sbatch_args")->defaultValue, "[]");
}

TEST(SlurmConfig, SbatchArgsReadAsABlockOrFlowListOrNothing) {
  const LoadedConfig block =
      loadConfigText("target:\n  sbatch_args:\n    - --exclusive\n    - \"--mail-type=END\"\n  time_limit: 30\n");
  ASSERT_TRUE(block.problems.empty()) << block.problems.front().format("");
  EXPECT_EQ(block.config.target.slurm.sbatch_args, (std::vector<std::string>{"--exclusive", "--mail-type=END"}));
  EXPECT_EQ(block.config.target.slurm.time_limit, "30");  // a YAML number is the text written
  const LoadedConfig flow = loadConfigText("target:\n  sbatch_args: [--exclusive]\n");
  ASSERT_TRUE(flow.problems.empty());
  EXPECT_EQ(flow.config.target.slurm.sbatch_args, std::vector<std::string>{"--exclusive"});
  const LoadedConfig none = loadConfigText("target:\n  sbatch_args:\n");
  ASSERT_TRUE(none.problems.empty());
  EXPECT_TRUE(none.config.target.slurm.sbatch_args.empty());
  const LoadedConfig overridden = loadConfigText("", "<text>", ".", {"target.sbatch_args=[--exclusive, --nice=10]"});
  ASSERT_TRUE(overridden.problems.empty());
  EXPECT_EQ(overridden.config.target.slurm.sbatch_args, (std::vector<std::string>{"--exclusive", "--nice=10"}));
}

struct BadValue {
  const char* key;    // under target:
  const char* value;  // as YAML
  const char* says;   // part of the message or hint
};

// Each malformed value is one error at its key and its line, and the default stays.
TEST(SlurmConfig, MalformedValuesAreErrorsNamingTheirKey) {
  const BadValue cases[] = {
      {"time_limit", "1:75:00", "not a Slurm time limit"},
      {"time_limit", "\"2 days\"", "not a Slurm time limit"},
      {"time_limit", "1-24", "hours after a day below 24"},
      {"time_limit", "0", "no limit at all"},
      {"time_limit", "infinite", "D-HH:MM:SS"},
      {"mem", "64GB", "no 'B'"},
      {"mem", "G", "not a Slurm memory size"},
      {"mem", "-1", "not a Slurm memory size"},
      {"mem", "\"8 G\"", "not a Slurm memory size"},
      {"gpus_per_node", "-1", "at least 0"},
      {"cpus_per_task", "-2", "at least 0"},
      {"max_requeues", "-1", "at least 0"},
      {"gpus_per_node", "two", "whole number"},
      {"sbatch_args", "[\"-N 2\"]", "does not start with --"},
      {"sbatch_args", "[--exclusive, exclusive]", "entry 2"},
      {"sbatch_args", "[\"--\"]", "does not start with --"},
      {"sbatch_args", "[\"--comment=a\\n#SBATCH --qos=high\"]", "line break"},
      {"sbatch_args", "[\"--comment=a\\rb\"]", "line break"},
      {"sbatch_args", "--exclusive", "write it as a list: [--exclusive]"},
      {"sbatch_args", "[[--a]]", "a list at position 1"},
      {"sbatch_args", "{a: b}", "must be a list of texts"},
      {"build", "compute", "login or job"},
      {"login_shell", "\"bash -l; rm -rf ~\"", "not a login shell"},
      {"login_shell", "\"$(id)\"", "not a login shell"},
      {"login_shell", "\"\"", "not a login shell"},
      {"login_shell", "-l", "not a login shell"},
      {"login_shell", "\" bash -l\"", "not a login shell"},
      {"login_shell", "\"  \"", "not a login shell"},
      {"login_shell", "\"bash -lc\"", "leave out -c"},
      {"login_shell", "\"zsh -c\"", "leave out -c"},
  };
  for (const BadValue& bad : cases) {
    const std::string text =
        "target:\n  kind: slurm\n  host: login\n  " + std::string(bad.key) + ": " + bad.value + "\n";
    const LoadedConfig loaded = loadConfigText(text);
    ASSERT_EQ(loaded.problems.size(), 1u) << text;
    const Diagnostic& d = loaded.problems[0];
    EXPECT_EQ(d.severity, Severity::Error) << text;
    EXPECT_EQ(d.path, "target." + std::string(bad.key)) << text;
    EXPECT_EQ(d.line, 4) << text;
    EXPECT_TRUE(mentions(d.message + " (" + d.hint + ")", bad.says)) << text << "\n" << d.format("job.yaml");
    EXPECT_EQ(loaded.config.target.slurm, SlurmConfig{}) << text;
  }
}

TEST(SlurmConfig, WellFormedValuesLoad) {
  for (const char* time : {"30", "30:00", "12:00:00", "2-12", "1-06:30", "7-00:00:00"}) {
    const LoadedConfig loaded = loadConfigText("target:\n  time_limit: \"" + std::string(time) + "\"\n");
    EXPECT_TRUE(loaded.problems.empty()) << time;
    EXPECT_EQ(loaded.config.target.slurm.time_limit, time);
  }
  for (const char* mem : {"0", "4000", "64G", "512m", "1T", "800K"}) {
    const LoadedConfig loaded = loadConfigText("target:\n  mem: " + std::string(mem) + "\n");
    EXPECT_TRUE(loaded.problems.empty()) << mem;
    EXPECT_EQ(loaded.config.target.slurm.mem, mem);
  }
  EXPECT_EQ(loadConfigText("target:\n  kind: slurm\n").config.target.login_shell, "bash -l");
  for (const char* shell : {"bash -l", "/bin/zsh -l", "bash --login --norc", "none", "/usr/local/bin/bash_5.2 -l"}) {
    const LoadedConfig loaded = loadConfigText("target:\n  login_shell: " + std::string(shell) + "\n");
    EXPECT_TRUE(loaded.problems.empty()) << shell;
    EXPECT_EQ(loaded.config.target.login_shell, shell);
  }
}

// ---- the login node, the nodes, and keys that do not apply --------------------------------

TEST(SlurmValidation, AJobWithItsLoginNodeIsValid) {
  EXPECT_TRUE(validateConfig(slurmCpuJob(), ValidationContext{}).empty());
  EXPECT_TRUE(slurmErrorPaths(validateConfig(slurmGpuJob(), ValidationContext{})).empty());
  EXPECT_TRUE(validateConfig(slurmGpuJob(), clusterContext()).empty());
}

// Several nodes need one rendezvous port: a Slurm job's batch script picks it from the job id,
// so port 0 is fine there and not for several ssh hosts.
TEST(SlurmValidation, SeveralNodesNeedNoFixedPort) {
  RunConfig c = slurmGpuJob();
  c.strategy.master_port = 0;
  EXPECT_TRUE(slurmErrorPaths(validateConfig(c, ValidationContext{})).empty());
  c.target.kind = TargetKind::Ssh;
  c.target.hosts = "a, b";
  c.target.slurm = SlurmConfig{};
  const Diagnostics problems = validateConfig(c, ValidationContext{});
  EXPECT_TRUE(std::any_of(problems.begin(), problems.end(), [](const Diagnostic& d) {
    return d.severity == Severity::Error && d.path == "strategy.master_port";
  }));
}

TEST(SlurmValidation, WithoutTargetHostIsAnError) {
  RunConfig c = slurmCpuJob();
  c.target.host.clear();
  const Diagnostics problems = validateConfig(c, ValidationContext{});
  ASSERT_EQ(slurmErrorPaths(problems), std::vector<std::string>{"target.host"});
  EXPECT_TRUE(mentions(slurmErrorAt(problems, "target.host")->message, "login node"));
  // From a file, at the kind when there is no host key.
  const LoadedConfig loaded = loadConfigText("target:\n  kind: slurm\n  partition: gpu\n");
  const Diagnostics fromFile = checkConfig(loaded, ValidationContext{});
  const Diagnostic* d = slurmErrorAt(fromFile, "target.kind");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 2);
}

TEST(SlurmValidation, TargetHostsIsForSshOnly) {
  RunConfig c = slurmCpuJob();
  c.target.hosts = "node1, node2";
  const Diagnostics problems = validateConfig(c, ValidationContext{});
  ASSERT_EQ(slurmErrorPaths(problems), std::vector<std::string>{"target.hosts"});
  EXPECT_TRUE(mentions(problems[0].hint, "strategy.nnodes"));
}

TEST(SlurmValidation, RemotePathsAreTakenAsThere) {
  RunConfig c = slurmCpuJob();
  c.data.train = "remote:/shared/datasets/owt";
  EXPECT_TRUE(slurmErrorPaths(validateConfig(c, ValidationContext{})).empty());
  c.data.train = "/not/on/this/machine";  // uploaded from here, so it must be here
  EXPECT_EQ(slurmErrorPaths(validateConfig(c, ValidationContext{})), std::vector<std::string>{"data.train"});
}

TEST(SlurmValidation, SlurmKeysOnAnotherTargetAreIgnoredWithAWarningEach) {
  RunConfig c = slurmGpuJob();
  c.target.kind = TargetKind::Ssh;
  c.target.slurm.sbatch_args = {"--exclusive"};
  c.target.slurm.build = SlurmBuild::Job;
  const Diagnostics problems = validateConfig(c, clusterContext());
  EXPECT_TRUE(slurmErrorPaths(problems).empty());
  const std::vector<std::string> warned = slurmWarningPaths(problems);
  EXPECT_EQ(warned, (std::vector<std::string>{"target.partition", "target.time_limit", "target.gpus_per_node",
                                              "target.sbatch_args", "target.build"}));
  for (const Diagnostic& d : problems) {
    EXPECT_TRUE(mentions(d.message, "ignored because target.kind is ssh")) << d.message;
    EXPECT_TRUE(mentions(d.hint, "target.kind: slurm")) << d.hint;
  }
  c.target.kind = TargetKind::Local;
  c.strategy.device = DeviceKind::Cpu;
  c.strategy.nnodes = 1;
  c.strategy.nproc_per_node = 2;
  EXPECT_EQ(slurmWarningPaths(validateConfig(c, ValidationContext{})).size(), 5u);
  c.target.slurm = SlurmConfig{};
  EXPECT_TRUE(slurmWarningPaths(validateConfig(c, ValidationContext{})).empty());
}

// ---- devices: the GPUs the job asks for, not the login node's ------------------------------

TEST(SlurmValidation, TheLoginNodesDevicesDoNotCount) {
  ValidationContext context;
  context.host = HostDevices{.cudaDevices = 0, .bf16 = false, .colabRuntime = false};
  context.remoteHost = HostDevices{.cudaDevices = 0, .bf16 = false, .colabRuntime = false};  // a login node has no GPU
  RunConfig c = slurmGpuJob();
  c.strategy.precision = Precision::Bf16;
  EXPECT_TRUE(slurmErrorPaths(validateConfig(c, context)).empty());
}

TEST(SlurmValidation, CudaWithoutGpusPerNodeIsAnError) {
  RunConfig c = slurmGpuJob();
  c.target.slurm.gpus_per_node = 0;
  const Diagnostics problems = validateConfig(c, ValidationContext{});
  ASSERT_EQ(slurmErrorPaths(problems), std::vector<std::string>{"strategy.device"});
  EXPECT_TRUE(mentions(problems[0].message, "Slurm job")) << problems[0].message;
  EXPECT_TRUE(mentions(problems[0].hint, "target.gpus_per_node")) << problems[0].hint;
  // device auto with no GPUs asked for is a CPU job: nccl and bf16 cannot be.
  c.strategy.device = DeviceKind::Auto;
  c.strategy.backend = Backend::Nccl;
  c.strategy.precision = Precision::Bf16;
  const Diagnostics cpu = validateConfig(c, ValidationContext{});
  EXPECT_EQ(slurmErrorPaths(cpu), (std::vector<std::string>{"strategy.backend", "strategy.precision"}));
  EXPECT_TRUE(mentions(slurmErrorAt(cpu, "strategy.precision")->hint, "target.gpus_per_node"));
}

TEST(SlurmValidation, RanksPerNodeAgainstGpusPerNode) {
  RunConfig c = slurmGpuJob();
  c.target.slurm.gpus_per_node = 2;  // 4 ranks per node
  const Diagnostics tooFew = validateConfig(c, ValidationContext{});
  ASSERT_EQ(slurmErrorPaths(tooFew), std::vector<std::string>{"strategy.nproc_per_node"});
  EXPECT_TRUE(mentions(tooFew[0].message, "has 2 CUDA devices")) << tooFew[0].message;
  EXPECT_TRUE(mentions(tooFew[0].hint, "gpus_per_node: 4")) << tooFew[0].hint;
  c.target.slurm.gpus_per_node = 8;
  c.target.slurm.partition = "";
  const Diagnostics idle = validateConfig(c, ValidationContext{});
  EXPECT_TRUE(slurmErrorPaths(idle).empty());
  ASSERT_EQ(slurmWarningPaths(idle), std::vector<std::string>{"target.gpus_per_node"});
  EXPECT_TRUE(mentions(idle[0].message, "4 of them would sit idle")) << idle[0].message;
}

// ---- partitions ----------------------------------------------------------------------------

TEST(SlurmValidation, AnUnknownPartitionListsTheKnownOnes) {
  RunConfig c = slurmGpuJob();
  c.target.slurm.partition = "gpus";
  const Diagnostics problems = validateConfig(c, clusterContext());
  ASSERT_EQ(slurmErrorPaths(problems), std::vector<std::string>{"target.partition"});
  const Diagnostic& d = *slurmErrorAt(problems, "target.partition");
  for (const char* name : {"debug (the default)", "gpu", "long"}) EXPECT_TRUE(mentions(d.message, name)) << d.message;
  EXPECT_TRUE(mentions(d.message, "login.cluster.example")) << d.message;
  EXPECT_EQ(d.hint, "did you mean gpu?");
  c.target.slurm.partition = "a100-xxl";
  const Diagnostic& far = *slurmErrorAt(validateConfig(c, clusterContext()), "target.partition");
  EXPECT_TRUE(mentions(far.hint, "leave target.partition empty")) << far.hint;
  ValidationContext none;
  none.slurmPartitions = std::vector<SlurmPartition>{};
  EXPECT_TRUE(mentions(slurmErrorAt(validateConfig(c, none), "target.partition")->message, "lists no partitions"));
}

TEST(SlurmValidation, NoPartitionMeansTheDefaultOne) {
  RunConfig c = slurmCpuJob();
  c.strategy.kind = StrategyKind::Ddp;
  c.strategy.master_port = 29500;
  c.strategy.nnodes = 3;  // debug, the default, has 2
  const Diagnostics problems = validateConfig(c, clusterContext());
  ASSERT_EQ(slurmErrorPaths(problems), std::vector<std::string>{"strategy.nnodes"});
  EXPECT_TRUE(mentions(problems[0].message, "this job can never run in partition debug: it asks for 3 nodes"))
      << problems[0].message;
  c.strategy.nnodes = 2;
  EXPECT_TRUE(slurmErrorPaths(validateConfig(c, clusterContext())).empty());

  ValidationContext noDefault;
  noDefault.slurmPartitions = std::vector<SlurmPartition>{makePartition("gpu", 8, 4, std::nullopt, false)};
  const Diagnostics unnamed = validateConfig(c, noDefault);
  ASSERT_EQ(slurmErrorPaths(unnamed), std::vector<std::string>{"target.partition"});
  EXPECT_TRUE(mentions(unnamed[0].message, "no default partition")) << unnamed[0].message;
  EXPECT_TRUE(mentions(unnamed[0].message, "gpu")) << unnamed[0].message;
}

// What the login node's probe checks right after it (before building, uploading or queueing):
// the partitions' verdict alone, not the job's other problems.
TEST(SlurmValidation, ThePartitionsAloneSayOnlyWhatTheySee) {
  RunConfig c = slurmGpuJob();
  c.strategy.nnodes = 9;
  c.target.slurm.time_limit = "3-00:00:00";
  c.model.n_head = 5;  // an error of its own, not the partitions'
  ASSERT_FALSE(slurmErrorPaths(validateConfig(c, ValidationContext{})).empty());
  const Diagnostics problems = slurmPartitionProblems(c, *clusterContext().slurmPartitions);
  EXPECT_EQ(slurmErrorPaths(problems), (std::vector<std::string>{"strategy.nnodes", "target.time_limit"}));
  EXPECT_TRUE(slurmPartitionProblems(slurmGpuJob(), *clusterContext().slurmPartitions).empty());
  RunConfig ssh = c;
  ssh.target.kind = TargetKind::Ssh;
  EXPECT_TRUE(slurmPartitionProblems(ssh, *clusterContext().slurmPartitions).empty());
}

TEST(SlurmValidation, AJobLargerThanItsPartitionCanNeverRun) {
  RunConfig c = slurmGpuJob();
  c.strategy.nnodes = 9;
  Diagnostics problems = validateConfig(c, clusterContext());
  ASSERT_EQ(slurmErrorPaths(problems), std::vector<std::string>{"strategy.nnodes"});
  EXPECT_TRUE(mentions(problems[0].message, "can never run in partition gpu")) << problems[0].message;
  EXPECT_TRUE(mentions(problems[0].hint, "strategy.nnodes: 8")) << problems[0].hint;

  c = slurmGpuJob();
  c.target.slurm.gpus_per_node = 8;
  c.strategy.nproc_per_node = 8;
  problems = validateConfig(c, clusterContext());
  ASSERT_EQ(slurmErrorPaths(problems), std::vector<std::string>{"target.gpus_per_node"});
  EXPECT_TRUE(mentions(problems[0].message, "can never run in partition gpu: it asks for 8 GPUs per node"))
      << problems[0].message;
  EXPECT_TRUE(mentions(problems[0].message, "at most 4")) << problems[0].message;

  c = slurmGpuJob();
  c.target.slurm.partition = "long";  // no GPUs at all
  problems = validateConfig(c, clusterContext());
  ASSERT_EQ(slurmErrorPaths(problems), std::vector<std::string>{"target.gpus_per_node"});
  EXPECT_TRUE(mentions(problems[0].message, "long's nodes have none")) << problems[0].message;
}

TEST(SlurmValidation, ATimeLimitPastThePartitionsCanNeverRun) {
  RunConfig c = slurmGpuJob();
  c.target.slurm.time_limit = "2-00:00:01";  // a minute past gpu's 2 days, as Slurm rounds
  Diagnostics problems = validateConfig(c, clusterContext());
  ASSERT_EQ(slurmErrorPaths(problems), std::vector<std::string>{"target.time_limit"});
  EXPECT_TRUE(mentions(problems[0].message, "can never run in partition gpu")) << problems[0].message;
  EXPECT_TRUE(mentions(problems[0].message, "limit of 2 days")) << problems[0].message;
  EXPECT_TRUE(mentions(problems[0].hint, "time_limit: 2-00:00:00")) << problems[0].hint;
  c.target.slurm.time_limit = "48:00:00";  // exactly the limit
  EXPECT_TRUE(slurmErrorPaths(validateConfig(c, clusterContext())).empty());
  c.target.slurm.time_limit = "";  // the partition's default
  EXPECT_TRUE(slurmErrorPaths(validateConfig(c, clusterContext())).empty());
  c = slurmCpuJob();
  c.target.slurm.partition = "long";  // infinite
  c.target.slurm.time_limit = "30-00:00:00";
  EXPECT_TRUE(slurmErrorPaths(validateConfig(c, clusterContext())).empty());
}

// From a file: the partition rule is reported at the line of the key it names.
TEST(SlurmValidation, PartitionProblemsStandAtTheirKeysLine) {
  const LoadedConfig loaded = loadConfigText(
      "data:\n  train: " + slurmTestDataset() +
      "\n  tokenizer: byte\nmodel:\n  n_layer: 2\n  n_head: 2\n  n_embd: 32\n  n_positions: 64\n  block_size: 32\n"
      "  vocab_size: 257\nstrategy:\n  device: cpu\ntarget:\n  kind: slurm\n  host: login\n  partition: debug\n"
      "  time_limit: 2:00:00\n");
  ASSERT_TRUE(loaded.problems.empty()) << loaded.problems.front().format("");
  const Diagnostics problems = checkConfig(loaded, clusterContext());
  ASSERT_EQ(slurmErrorPaths(problems), std::vector<std::string>{"target.time_limit"});
  EXPECT_EQ(problems[0].line, 17);
  EXPECT_EQ(problems[0].column, 15);
}

}  // namespace
}  // namespace traindeck
