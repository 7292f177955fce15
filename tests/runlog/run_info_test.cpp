// run.json through its writer and its reader (core/runlog/run_directory): every field comes
// back as written, the failed rank only when there is one; unknown keys are ignored, missing
// ones keep their defaults, and bad input is an error that says what was wrong.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>

#include "runlog/run_directory.h"
#include "runlog/utf8.h"

namespace traindeck {
namespace {

RunInfo sampleRun() {
  RunInfo info;
  info.id = "20261201-083000-demo";
  info.name = "demo \"cpu\" ünïcode";
  info.created = "2026-12-01T08:30:00Z";
  info.host = "gpu-box";
  info.trainerVersion = "0.1.0";
  info.worldSize = 2;
  info.devices = {"cpu", "cpu"};
  info.status = RunStatus::Failed;
  info.exitReason = "rank 1 was killed by SIGKILL at step 37";
  info.failedRank = 1;
  info.supervisorPid = 4242;
  info.rankPids = {4243, 4244};
  info.step = 37;
  return info;
}

TEST(RunInfo, EveryFieldComesBackAsWritten) {
  const RunInfo written = sampleRun();
  const RunInfoReadResult read = parseRunInfo(runInfoJson(written));
  ASSERT_TRUE(read.ok()) << read.error;
  const RunInfo& r = read.info;
  EXPECT_EQ(r.id, written.id);
  EXPECT_EQ(r.name, written.name);
  EXPECT_EQ(r.created, written.created);
  EXPECT_EQ(r.host, written.host);
  EXPECT_EQ(r.trainerVersion, written.trainerVersion);
  EXPECT_EQ(r.worldSize, 2);
  EXPECT_EQ(r.devices, written.devices);
  EXPECT_EQ(r.status, RunStatus::Failed);
  EXPECT_EQ(r.exitReason, written.exitReason);
  EXPECT_EQ(r.failedRank, 1);
  EXPECT_EQ(r.supervisorPid, 4242);
  EXPECT_EQ(r.rankPids, written.rankPids);
  EXPECT_EQ(r.step, 37);
}

TEST(RunInfo, EveryStatusRoundTrips) {
  for (const RunStatus s :
       {RunStatus::Starting, RunStatus::Running, RunStatus::Finished, RunStatus::Failed, RunStatus::Stopped,
        RunStatus::Killed}) {
    RunInfo info = sampleRun();
    info.status = s;
    const RunInfoReadResult read = parseRunInfo(runInfoJson(info));
    ASSERT_TRUE(read.ok()) << read.error;
    EXPECT_EQ(read.info.status, s) << toString(s);
    EXPECT_EQ(runStatusFromString(toString(s)), s);
  }
  EXPECT_FALSE(runStatusFromString("Running").has_value());
  EXPECT_TRUE(isLive(RunStatus::Starting) && isLive(RunStatus::Running));
  EXPECT_FALSE(isLive(RunStatus::Stopped) || isLive(RunStatus::Finished) || isLive(RunStatus::Failed) ||
               isLive(RunStatus::Killed));
}

// Why a run stopped: every cause round-trips, none is not written, one this version does not
// know reads as none (an older app reading a newer run.json stays as it was).
TEST(RunInfo, EveryEndCauseRoundTripsAndAnUnknownOneReadsAsNone) {
  for (const EndCause c :
       {EndCause::Asked, EndCause::TimeLimit, EndCause::Preempted, EndCause::Cancelled, EndCause::NodeFailure}) {
    RunInfo info = sampleRun();
    info.endCause = c;
    const RunInfoReadResult read = parseRunInfo(runInfoJson(info));
    ASSERT_TRUE(read.ok()) << read.error;
    EXPECT_EQ(read.info.endCause, c) << toString(c);
    EXPECT_NE(std::string(endCauseWords(c)), "") << toString(c);
  }
  const std::string none = runInfoJson(sampleRun());
  EXPECT_EQ(none.find(run_json::kEndCause), std::string::npos) << none;
  EXPECT_EQ(parseRunInfo(R"({"status":"stopped","end_cause":"a meteor"})").info.endCause, EndCause::None);
  EXPECT_TRUE(parseRunInfo(R"({"status":"stopped","end_cause":"a meteor"})").ok());
}

TEST(RunInfo, NoFailedRankIsWrittenWhenNoRankFailed) {
  RunInfo info = sampleRun();
  info.failedRank = -1;
  const std::string json = runInfoJson(info);
  EXPECT_EQ(json.find(run_json::kFailedRank), std::string::npos) << json;
  EXPECT_EQ(parseRunInfo(json).info.failedRank, -1);
}

TEST(RunInfo, UnknownKeysAreIgnoredAndMissingOnesKeepTheirDefaults) {
  const RunInfoReadResult read = parseRunInfo(R"({"status":"running","future_key":[1,2],"id":"x"})");
  ASSERT_TRUE(read.ok()) << read.error;
  EXPECT_EQ(read.info.id, "x");
  EXPECT_EQ(read.info.status, RunStatus::Running);
  EXPECT_EQ(read.info.worldSize, 1);
  EXPECT_EQ(read.info.failedRank, -1);
  EXPECT_TRUE(read.info.rankPids.empty());
}

TEST(RunInfo, BadInputIsAnErrorThatSaysWhat) {
  EXPECT_NE(parseRunInfo("").error.find("not a JSON object"), std::string::npos);
  EXPECT_NE(parseRunInfo("[1, 2]").error.find("not a JSON object"), std::string::npos);
  EXPECT_NE(parseRunInfo(R"({"id":"half)").error.find("not a JSON object"), std::string::npos);
  const RunInfoReadResult odd = parseRunInfo(R"({"id":"y","status":"exploded"})");
  EXPECT_NE(odd.error.find("unknown status 'exploded'"), std::string::npos) << odd.error;
  EXPECT_EQ(odd.info.id, "y");  // what could be read is still there
  EXPECT_FALSE(readRunInfo(RunPaths{"/nonexistent/run"}).ok());
}

// A failed run keeps its status and reason whatever bytes the reason holds: a Chinese path cut
// at a byte limit inside a character (as the launcher's error line once was) used to make
// run.json unreadable. Valid text comes back as written, a split character as U+FFFD.
TEST(RunInfo, AReasonCutInsideACharacterStillReadsBack) {
  std::string root = (std::filesystem::temp_directory_path() / "traindeck-runinfo-XXXXXX").string();
  ASSERT_NE(::mkdtemp(root.data()), nullptr);
  const RunPaths paths{root};
  const std::string path = "/home/\xE7\x94\xA8\xE6\x88\xB7/\xE6\x95\xB0\xE6\x8D\xAE\xE9\x9B\x86";  // /home/用户/数据集
  const std::string reason = "rank 0 failed: FileNotFoundError: " + path;

  RunInfo info = sampleRun();
  info.name = "\xE4\xB8\xAD\xE6\x96\x87\xE5\x90\x8D";  // 中文名
  info.exitReason = reason;
  ASSERT_EQ(writeRunInfo(paths, info), "");
  RunInfoReadResult read = readRunInfo(paths);
  ASSERT_TRUE(read.ok()) << read.error;
  EXPECT_EQ(read.info.name, info.name);
  EXPECT_EQ(read.info.exitReason, reason);

  const std::string split = reason.substr(0, reason.size() - 1);  // 集 loses its last byte
  info.exitReason = split;
  ASSERT_EQ(writeRunInfo(paths, info), "");
  read = readRunInfo(paths);
  ASSERT_TRUE(read.ok()) << read.error;
  EXPECT_EQ(read.info.status, RunStatus::Failed);
  EXPECT_EQ(read.info.failedRank, 1);
  EXPECT_EQ(read.info.exitReason, reason.substr(0, reason.size() - 3) + std::string(kUtf8Replacement));
  EXPECT_EQ(read.info.name, info.name);
  std::filesystem::remove_all(root);
}

// A run id keeps a readable slug of a name in any script (issue 25: 我的第一个模型 was refused);
// a name with no letter or digit at all still gets a short id of its own, never a bad file name.
TEST(RunId, TheSlugKeepsLettersAndDigitsOfAnyScript) {
  EXPECT_EQ(runSlug("GPT-2 small, DDP x8!"), "gpt-2-small-ddp-x8");
  EXPECT_EQ(runSlug("\xE6\x88\x91\xE7\x9A\x84\xE7\xAC\xAC\xE4\xB8\x80\xE4\xB8\xAA\xE6\xA8\xA1\xE5\x9E\x8B"),
            "\xE6\x88\x91\xE7\x9A\x84\xE7\xAC\xAC\xE4\xB8\x80\xE4\xB8\xAA\xE6\xA8\xA1\xE5\x9E\x8B");  // 我的第一个模型
  // Модель №1, 2: Cyrillic stays as written; "№" and ", " are not letters.
  const std::string numero = "\xE2\x84\x96";  // №
  EXPECT_EQ(runSlug("\xD0\x9C\xD0\xBE\xD0\xB4\xD0\xB5\xD0\xBB\xD1\x8C " + numero + "1, 2"),
            "\xD0\x9C\xD0\xBE\xD0\xB4\xD0\xB5\xD0\xBB\xD1\x8C-1-2");
  // 模型。版本 2 — the ideographic full stop and the dash separate like ASCII punctuation.
  EXPECT_EQ(runSlug("\xE6\xA8\xA1\xE5\x9E\x8B\xE3\x80\x82\xE7\x89\x88\xE6\x9C\xAC 2 \xE2\x80\x94"),
            "\xE6\xA8\xA1\xE5\x9E\x8B-\xE7\x89\x88\xE6\x9C\xAC-2");
  EXPECT_EQ(runSlug("a/b\\c\n..d"), "a-b-c-d");  // never a path separator, a control or a dot
  EXPECT_EQ(runSlug(std::string("caf\xC3\xA9 bad\xFF") + "byte"), "caf\xC3\xA9-bad-byte");
  EXPECT_EQ(runSlug(""), "");
}

TEST(RunId, TheSlugIsCutAtACharacterBoundary) {
  std::string name;
  for (int i = 0; i < 40; ++i) name += "\xE6\xA8\xA1";  // 模, 3 bytes each
  const std::string slug = runSlug(name);
  EXPECT_EQ(slug.size(), 48u);
  EXPECT_TRUE(isValidUtf8(slug));
  EXPECT_EQ(runSlug(std::string(100, 'A')), std::string(kRunSlugBytes, 'a'));
}

TEST(RunId, ANameWithNothingSafeLeftGetsAShortIdOfItsOwn) {
  const std::string smiles = runSlug("\xF0\x9F\x99\x82\xF0\x9F\x99\x82");  // two emoji
  const std::string bangs = runSlug("!!!");
  EXPECT_EQ(smiles.size(), 12u);
  EXPECT_EQ(smiles.substr(0, 4), "run-");
  EXPECT_EQ(smiles.find_first_not_of("0123456789abcdef", 4), std::string::npos);
  EXPECT_NE(smiles, bangs);
  EXPECT_EQ(bangs, runSlug("!!!"));  // the same name, the same id
  const auto when = std::chrono::system_clock::from_time_t(0);
  EXPECT_EQ(makeRunId(when, bangs), "19700101-000000-" + bangs);
}

}  // namespace
}  // namespace traindeck
