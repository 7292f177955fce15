// RunPaths against the other writers of run folders: the helper script on a host
// (packaging/remote/traindeck-remote.sh) spells the names in sh, so this reads the script and
// checks that every name it uses in a run folder is RunPaths' and that it uses RunPaths' forms
// of the rank logs, checkpoints and Hugging Face exports; the exported scripts' writer
// (resources/exports/run_writer.py) names its Hugging Face folder alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "runlog/checkpoint_names.h"
#include "runlog/run_paths.h"

namespace traindeck {
namespace {

std::string helperScript() {
  std::ifstream in(TRAINDECK_SOURCE_DIR "/packaging/remote/traindeck-remote.sh", std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The first path element after each match of `prefix` ("$rundir/", or the like), a temporary
// file's ".tmp" dropped: the names the script uses in that folder.
std::set<std::string> namesAfter(const std::string& script, const std::string& prefix) {
  std::set<std::string> names;
  const std::regex element(prefix + R"(([A-Za-z0-9._-]+))");
  for (auto it = std::sregex_iterator(script.begin(), script.end(), element); it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[1];
    if (name.size() > 4 && name.ends_with(".tmp")) name.resize(name.size() - 4);
    names.insert(name);
  }
  return names;
}

bool isRunFileName(const std::string& name) {
  return std::any_of(std::begin(run_file::kAll), std::end(run_file::kAll),
                     [&](const char* known) { return name == known; });
}

TEST(RunPaths, BuildsEachPathFromItsName) {
  // The contract spelled out (docs/design.md, "The run directory"): a renamed constant fails here.
  const RunPaths paths{"/runs/a"};
  EXPECT_EQ(paths.config(), "/runs/a/config.yaml");
  EXPECT_EQ(paths.runJson(), "/runs/a/run.json");
  EXPECT_EQ(paths.metrics(), "/runs/a/metrics.jsonl");
  EXPECT_EQ(paths.rankLog(3), "/runs/a/logs/rank-3.log");
  EXPECT_EQ(paths.checkpoints(), "/runs/a/checkpoints");
  EXPECT_EQ(paths.hfExport("step-00000042"), "/runs/a/exports/step-00000042-hf");
  EXPECT_EQ(paths.remoteRecord(), "/runs/a/remote.json");
  // A run folder given as "" (a relative checkpoint's parent) is the current folder, not "/".
  EXPECT_EQ(RunPaths{""}.config(), "config.yaml");
  EXPECT_EQ(RunPaths{""}.rankLog(0), "logs/rank-0.log");
}

TEST(RunPaths, TheHelperScriptUsesOnlyItsNamesInARunFolder) {
  const std::string script = helperScript();
  ASSERT_FALSE(script.empty()) << "cannot read packaging/remote/traindeck-remote.sh";
  // "$rundir/name" and "$rundir"/name.
  std::set<std::string> used = namesAfter(script, R"(\$\{?rundir\}?"?/)");
  ASSERT_FALSE(used.empty()) << "the script names no file as $rundir/NAME any more: update this test";
  for (const std::string& name : used) EXPECT_TRUE(isRunFileName(name)) << name << " is not a RunPaths name";
  // `watch` tests for a run folder from inside it.
  for (const std::string& name : namesAfter(script, R"(\[ -f )")) {
    EXPECT_TRUE(isRunFileName(name)) << name << " is not a RunPaths name";
    used.insert(name);
  }
  // Each name both sides need to agree on is used.
  for (const char* name : {run_file::kRunJson, run_file::kMetrics, run_file::kLogs, run_file::kSupervisorLog,
                           run_file::kCheckpoints, run_file::kExports, run_file::kStopRequest})
    EXPECT_TRUE(used.count(name)) << "the script does not use " << name << " in a run folder";
}

TEST(RunPaths, TheHelperScriptSpellsLogsCheckpointsAndExportsAlike) {
  const std::string script = helperScript();
  ASSERT_FALSE(script.empty()) << "cannot read packaging/remote/traindeck-remote.sh";
  const std::string rankLog = RunPaths::rankLogName(7);  // logs/rank-7.log
  const std::string rankLogPrefix = rankLog.substr(0, rankLog.find('7'));
  EXPECT_NE(script.find(rankLogPrefix + "*.log"), std::string::npos) << rankLogPrefix;
  const std::string checkpoint = checkpointName(7);  // step-00000007
  const std::string checkpointPrefix = checkpoint.substr(0, checkpoint.find_first_of("0123456789"));
  EXPECT_NE(script.find(std::string(run_file::kCheckpoints) + "/" + checkpointPrefix + "*"), std::string::npos);
  EXPECT_NE(script.find(std::string("$dir/") + run_file::kCheckpointComplete), std::string::npos);
  EXPECT_NE(script.find(std::string(run_file::kExports) + "/$name" + run_file::kHfSuffix), std::string::npos);
}

// The exported scripts' writer keeps its newest weights in a run folder's exports/, named as a
// Hugging Face export there is named.
TEST(RunPaths, TheExportedScriptsKeepTheirWeightsUnderExports) {
  std::ifstream in(TRAINDECK_SOURCE_DIR "/resources/exports/run_writer.py", std::ios::binary);
  const std::string writer(std::istreambuf_iterator<char>(in), {});
  ASSERT_FALSE(writer.empty()) << "cannot read resources/exports/run_writer.py";
  const std::regex line(R"re(\nHF_EXPORT_DIR = os\.path\.join\("([^"]+)", "([^"]+)"\)\n)re");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(writer, m, line)) << "run_writer.py no longer sets HF_EXPORT_DIR: update this test";
  EXPECT_EQ(m[1].str(), run_file::kExports);
  EXPECT_TRUE(m[2].str().ends_with(run_file::kHfSuffix)) << m[2].str();
}

}  // namespace
}  // namespace traindeck
