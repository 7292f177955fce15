// sweep.json: a state round-trips exactly (types, NaN metrics), a corrupt or half-written file
// is an error that leaves it and the previous good version alone, and merging a plan never
// adds a trial twice nor brings back one that was deleted.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "sweep/sweep_state_file.h"
#include "sweep/trial_plan.h"
#include "sweep_fixture.h"

namespace traindeck {
namespace {

using SweepStateFile = test_support::SweepFolder;

std::vector<TrialParams> gridPlan(const std::string& lrs) {
  const LoadedSweepSpec loaded = loadSweepSpecText(
      "base: job.yaml\nmethod: grid\nrepeats: [1, 2]\n"
      "parameters: {optimizer.lr: " +
      lrs + ", strategy.bucket_mb: [1.0], schedule.decay: [linear]}\n");
  EXPECT_TRUE(loaded.problems.empty());
  return planTrials(loaded.spec);
}

SweepState sampleState() {
  SweepState state;
  state.sweepFile = "sweep.yaml";
  state.places = {{"the job's target", 2, "", "", ""},
                  {"gpu-b", 4, "me@gpu-b:2222", "/keys/id \"b\"", "cloudflared access ssh --hostname %h"}};
  mergePlan(state, gridPlan("[1e-3, 3e-4]"));
  TrialRecord& pruned = state.trials[1];
  pruned.state = TrialState::Pruned;
  pruned.runFolder = "runs/20261206-101500-lr-1e-3-s2";
  recordRungResult(pruned, {0, 1'000'000, 3.25});
  recordRungResult(pruned, {1, 3'000'000, NAN});
  pruned.clearedRung = 0;
  recordCrash(state.trials[2]);
  return state;
}

std::string fileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(SweepState, RoundTripsExactly) {
  const SweepState state = sampleState();
  const SweepStateRead read = parseSweepState(sweepStateJson(state));
  ASSERT_TRUE(read.ok()) << read.error;
  const TrialRecord& pruned = read.state.trials[1];
  EXPECT_TRUE(std::isnan(pruned.rungs[1].metric));
  EXPECT_DOUBLE_EQ(pruned.rungs[0].metric, 3.25);
  // NaN != NaN: compare the rest, then the whole with that metric made equal.
  SweepState expected = state, got = read.state;
  expected.trials[1].rungs[1].metric = got.trials[1].rungs[1].metric = 0;
  EXPECT_EQ(got, expected);
  EXPECT_EQ(*findSetting(got.trials[0].params.settings, "strategy.bucket_mb"), ParamValue(1.0))
      << "1.0 stays a double, so the id computed again matches";
  EXPECT_EQ(got.trials[2].state, TrialState::Crashed);
  EXPECT_EQ(got.trials[2].retries, 1);
}

// A folder is a sweep's when it holds a sweep.json file: a folder of that name, or none, is not;
// a Chinese name is a name like any other.
TEST_F(SweepStateFile, ASweepFolderIsOneWithItsStateFile) {
  const std::string sweep = path("扫描 lr");
  std::filesystem::create_directories(sweep);
  EXPECT_FALSE(isSweepFolder(sweep));
  ASSERT_EQ(writeSweepState(sampleState(), sweep + "/" + kSweepStateFile), "");
  EXPECT_TRUE(isSweepFolder(sweep));
  const std::string odd = path("odd");
  std::filesystem::create_directories(odd + "/" + kSweepStateFile);
  EXPECT_FALSE(isSweepFolder(odd));
  EXPECT_FALSE(isSweepFolder(path("none")));
  EXPECT_FALSE(isSweepFolder(""));
}

TEST_F(SweepStateFile, WritesAtomicallyAndKeepsThePreviousVersion) {
  const std::string file = path("sweep.json");
  EXPECT_TRUE(readSweepState(file).missing);
  SweepState state = sampleState();
  ASSERT_EQ(writeSweepState(state, file), "");
  const std::string firstText = fileText(file);
  state.trials[0].state = TrialState::Running;
  ASSERT_EQ(writeSweepState(state, file), "");
  EXPECT_EQ(fileText(previousSweepStatePath(file)), firstText);
  const SweepStateRead read = readSweepState(file);
  ASSERT_TRUE(read.ok()) << read.error;
  EXPECT_FALSE(read.missing);
  EXPECT_EQ(read.state.trials[0].state, TrialState::Running);
}

TEST_F(SweepStateFile, ACorruptFileIsAnErrorAndStaysAsItWas) {
  const std::string file = path("sweep.json");
  ASSERT_EQ(writeSweepState(sampleState(), file), "");
  ASSERT_EQ(writeSweepState(sampleState(), file), "");
  const std::string good = fileText(file);
  const std::string half = good.substr(0, good.size() / 2);  // a write cut short by something else
  write("sweep.json", half);
  const SweepStateRead read = readSweepState(file);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error.find("is not valid JSON"), std::string::npos) << read.error;
  EXPECT_NE(read.error.find("sweep.json.previous"), std::string::npos) << read.error;
  EXPECT_TRUE(read.state.trials.empty());
  EXPECT_EQ(fileText(file), half) << "reading changes nothing";
  // Writing over a corrupt file does not make it the previous version.
  ASSERT_EQ(writeSweepState(sampleState(), file), "");
  EXPECT_EQ(fileText(previousSweepStatePath(file)), good);
}

TEST(SweepState, DefectsAreNamed) {
  const std::string good = sweepStateJson(sampleState());
  auto errorOf = [](std::string text) { return parseSweepState(text).error; };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  EXPECT_NE(errorOf(replaced("0.001", "0.002")).find("do not match its id"), std::string::npos);
  EXPECT_NE(errorOf(replaced("\"queued\"", "\"paused\"")).find("unknown state 'paused'"), std::string::npos);
  EXPECT_NE(errorOf(replaced("\"schema\":1", "\"schema\":2")).find("a newer TrainDeck"), std::string::npos);
  EXPECT_NE(errorOf("[]").find("not a sweep state"), std::string::npos);
  EXPECT_NE(errorOf(replaced("\"slots\":4", "\"slots\":0")).find("a place without its slots"), std::string::npos);
  // A sweep.json from before places were kept reads, with none.
  const SweepStateRead older = parseSweepState(replaced("\"places\":[", "\"placez\":["));
  ASSERT_TRUE(older.ok()) << older.error;
  EXPECT_TRUE(older.state.places.empty());
  const auto firstId = sampleState().trials[0].params.id;
  const auto secondId = sampleState().trials[1].params.id;
  EXPECT_NE(errorOf(replaced(secondId, firstId)).find("do not match its id"), std::string::npos);
}

// The example in docs/sweeps.md is a state this version reads.
TEST(SweepState, TheDocumentedExampleReads) {
  const std::string example = test_support::sweepsDocExample("json");
  ASSERT_FALSE(example.empty());
  const SweepStateRead read = parseSweepState(example);
  ASSERT_TRUE(read.ok()) << read.error;
  ASSERT_EQ(read.state.trials.size(), 1u);
  EXPECT_EQ(read.state.trials[0].state, TrialState::Pruned);
  EXPECT_EQ(read.state.trials[0].rungs.size(), 2u);
  ASSERT_EQ(read.state.places.size(), 2u);
  EXPECT_EQ(read.state.places[1].host, "me@gpu-b");
  EXPECT_EQ(read.state.places[1].slotCount, 4);
}

TEST(SweepState, MergingAPlanAddsOnlyNewTrials) {
  SweepState state;
  EXPECT_EQ(mergePlan(state, gridPlan("[1e-3, 3e-4]")), 4u);
  EXPECT_EQ(mergePlan(state, gridPlan("[1e-3, 3e-4]")), 0u) << "planning again adds nothing";
  state.trials[0].state = TrialState::Deleted;
  state.trials[1].state = TrialState::Finished;
  EXPECT_EQ(mergePlan(state, gridPlan("[3e-4, 1e-3, 1e-4]")), 2u) << "only lr=1e-4's two seeds are new";
  ASSERT_EQ(state.trials.size(), 6u);
  EXPECT_EQ(state.trials[0].state, TrialState::Deleted) << "a deleted trial is not run again";
  EXPECT_EQ(state.trials[1].state, TrialState::Finished);
  EXPECT_EQ(state.trials[4].params.name, "lr=1e-4 bucket_mb=1 decay=linear s1");
  std::set<std::string> ids;
  for (const TrialRecord& t : state.trials) ids.insert(t.params.id);
  EXPECT_EQ(ids.size(), 6u);
}

TEST(SweepState, ACrashIsRetriedOnceThenFailed) {
  TrialRecord trial;
  recordCrash(trial);
  EXPECT_EQ(trial.state, TrialState::Crashed);
  trial.state = TrialState::Running;
  recordCrash(trial);
  EXPECT_EQ(trial.state, TrialState::Failed);
  requeueTrial(trial);
  EXPECT_EQ(trial.state, TrialState::Queued);
  EXPECT_EQ(trial.retries, 0);
}

TEST(SweepState, ARungMeasuredAgainReplacesItsResult) {
  TrialRecord trial;
  recordRungResult(trial, {1, 300, 2.0});
  recordRungResult(trial, {0, 100, 3.0});
  recordRungResult(trial, {1, 310, 1.5});
  ASSERT_EQ(trial.rungs.size(), 2u);
  EXPECT_EQ(trial.rungs[0].rung, 0);
  EXPECT_DOUBLE_EQ(trial.rungs[1].metric, 1.5);
  EXPECT_EQ(trial.lastRung(), 1);
}

}  // namespace
}  // namespace traindeck
