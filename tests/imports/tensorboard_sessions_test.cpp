// TensorBoard folders as they are left by real trainings: one log dir used by two runs of a
// script (a file each), Keras' fit() twice into train/ and validation/ plus the HParams plugin's
// file beside them, a writer that started its step counter again inside one file, and event
// files that hold only text or HParams.
#include <gtest/gtest.h>

#include "fixture_writers.h"
#include "imports/not_read.h"
#include "imports/run_discovery.h"

namespace traindeck {
namespace {

using namespace fixtures;

std::string lossFile(double start, std::initializer_list<float> losses) {
  std::string bytes = tfRecord(tfFileVersion(start));
  std::int64_t step = 0;
  for (float loss : losses)
    bytes += tfRecord(tfSimpleValue(start + 1 + static_cast<double>(step), step, "loss", loss)), ++step;
  return bytes;
}

TEST(TensorBoardSessions, EachFileOfAFolderUsedTwiceIsARunOfItsOwn) {
  ScratchDir dir("tb-sessions");
  const auto run = dir.path() / "logs";
  writeFile(run / "events.out.tfevents.1718000000.host.100.0", lossFile(1718000000, {3.0f, 2.5f, 2.0f}));
  writeFile(run / "events.out.tfevents.1718003600.host.200.0", lossFile(1718003600, {3.5f, 3.25f}));

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].name, "logs (session 1 of 2)");
  EXPECT_EQ(found[0].key, "events.out.tfevents.1718000000.host.100.0");
  EXPECT_EQ(found[1].name, "logs (session 2 of 2)");
  const ImportedRun first = readRun(found[0]);
  const ImportedRun second = readRun(found[1]);
  EXPECT_EQ(first.name, "logs (session 1 of 2)");
  ASSERT_EQ(first.metrics.train.size(), 3u);  // no step repeats in either
  EXPECT_EQ(first.metrics.train.step, (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_FLOAT_EQ(first.metrics.train.loss[2], 2.0f);
  ASSERT_EQ(second.metrics.train.size(), 2u);
  EXPECT_EQ(second.metrics.train.step, (std::vector<std::int64_t>{0, 1}));
  EXPECT_FLOAT_EQ(second.metrics.train.loss[0], 3.5f);
  EXPECT_DOUBLE_EQ(second.metrics.train.time[0], 1718003601.0);
  EXPECT_TRUE(first.problems.empty() && second.problems.empty());

  // A file alone is the folder's one run, under the folder's name, as before.
  std::filesystem::remove(run / "events.out.tfevents.1718003600.host.200.0");
  const std::vector<RunSource> one = findRuns(dir.path());
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].name, "logs");
  EXPECT_TRUE(one[0].key.empty());
}

TEST(TensorBoardSessions, KerasFitTwicePairsTrainAndValidationAndReadsHparams) {
  ScratchDir dir("tb-keras-sessions");
  const auto run = dir.path() / "fit";
  writeFile(run / "train" / "events.out.tfevents.1718000010.h.1.v2",
            tfRecord(tfSimpleValue(1718000011, 0, "epoch_accuracy", 1.0f)) +
                tfRecord(tfSimpleValue(1718000012, 1, "epoch_accuracy", 0.5f)));
  writeFile(run / "validation" / "events.out.tfevents.1718000012.h.2.v2",
            tfRecord(tfSimpleValue(1718000012, 0, "epoch_accuracy", 1.25f)));
  writeFile(run / "train" / "events.out.tfevents.1718000500.h.3.v2",
            tfRecord(tfSimpleValue(1718000501, 0, "epoch_accuracy", 0.25f)));
  writeFile(run / "validation" / "events.out.tfevents.1718000503.h.4.v2",
            tfRecord(tfSimpleValue(1718000503, 0, "epoch_accuracy", 0.375f)));
  // hp.KerasCallback's file in the log dir itself, written as the second fit() began.
  writeFile(run / "events.out.tfevents.1718000499.h.5.v2",
            tfRecord(tfFileVersion(1718000499)) +
                tfRecord(tfHparamsEvent(1718000499, {{"learning_rate", Proto().fixed64(2, 0.001)},
                                                     {"optimizer", Proto().bytes(3, "adam")},
                                                     {"batch_norm", Proto().varint(4, 1)}})));

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].key, "train/events.out.tfevents.1718000010.h.1.v2");
  EXPECT_EQ(found[1].key, "train/events.out.tfevents.1718000500.h.3.v2");
  const ImportedRun first = readRun(found[0]);
  ASSERT_NE(first.scalar("train/epoch_accuracy"), nullptr);
  EXPECT_EQ(first.scalar("train/epoch_accuracy")->value, (std::vector<double>{1.0, 0.5}));
  EXPECT_EQ(first.scalar("validation/epoch_accuracy")->value, (std::vector<double>{1.25}));
  EXPECT_EQ(first.configValue("optimizer"), nullptr);  // the HParams file is the second fit's
  const ImportedRun second = readRun(found[1]);
  EXPECT_EQ(second.scalar("train/epoch_accuracy")->value, (std::vector<double>{0.25}));
  EXPECT_EQ(second.scalar("validation/epoch_accuracy")->value, (std::vector<double>{0.375}));
  ASSERT_NE(second.configValue("learning_rate"), nullptr);
  EXPECT_EQ(*second.configValue("learning_rate"), "0.001");
  EXPECT_EQ(*second.configValue("optimizer"), "adam");
  EXPECT_EQ(*second.configValue("batch_norm"), "true");
  EXPECT_TRUE(second.problems.empty()) << second.problems.front();
}

TEST(TensorBoardSessions, TimesInNamesThatAreNegativeOrHugeJoinASessionWithoutOverflow) {
  ScratchDir dir("tb-odd-times");
  const auto run = dir.path() / "fit";
  writeFile(run / "train" / "events.out.tfevents.1718000000.h.1.v2",
            tfRecord(tfSimpleValue(1718000001, 0, "epoch_accuracy", 1.0f)));
  writeFile(run / "train" / "events.out.tfevents.1718003600.h.2.v2",
            tfRecord(tfSimpleValue(1718003601, 0, "epoch_accuracy", 2.0f)));
  // A signed time would make "session start - this" overflow int64; these have no time (0),
  // except the largest uint64, which is nearest the later session.
  writeFile(run / "validation" / "events.out.tfevents.-9223372036854775808.h.3.v2",
            tfRecord(tfSimpleValue(1718000002, 0, "epoch_accuracy", 3.0f)));
  writeFile(run / "validation" / "events.out.tfevents.99999999999999999999999.h.4.v2",
            tfRecord(tfSimpleValue(1718000003, 1, "epoch_accuracy", 4.0f)));
  writeFile(run / "validation" / "events.out.tfevents.18446744073709551615.h.5.v2",
            tfRecord(tfSimpleValue(1718003602, 0, "epoch_accuracy", 5.0f)));

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 2u);
  const ImportedRun first = readRun(found[0]);
  const ImportedRun second = readRun(found[1]);
  ASSERT_NE(first.scalar("validation/epoch_accuracy"), nullptr);
  EXPECT_EQ(first.scalar("validation/epoch_accuracy")->value, (std::vector<double>{3.0, 4.0}));
  ASSERT_NE(second.scalar("validation/epoch_accuracy"), nullptr);
  EXPECT_EQ(second.scalar("validation/epoch_accuracy")->value, (std::vector<double>{5.0}));
}

TEST(TensorBoardSessions, AGitLfsPointerIsSaidByItsOwnSessionOnly) {
  ScratchDir dir("tb-session-lfs");
  const auto run = dir.path() / "logs";
  writeFile(run / "events.out.tfevents.1718000000.host.100.0", lossFile(1718000000, {3.0f}));
  writeFile(run / "events.out.tfevents.1718003600.host.200.0", lossFile(1718003600, {2.0f}));
  const auto pointer = run / "events.out.tfevents.1718003700.host.300.0";  // the second session's
  writeFile(pointer,
            "version https://git-lfs.github.com/spec/v1\n"
            "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 5000\n");

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 2u);  // the pointer starts no session
  const ImportedRun first = readRun(found[0]);
  const ImportedRun second = readRun(found[1]);
  EXPECT_TRUE(first.problems.empty()) << first.problems.front();
  EXPECT_EQ(second.problems, (std::vector<std::string>{gitLfsPointerSentence(pointer)}));
}

TEST(TensorBoardSessions, AStepCounterStartingAgainInOneFileIsSaid) {
  ScratchDir dir("tb-restart");
  const auto file = dir.path() / "r" / "events.out.tfevents.1718000000.h";
  std::string bytes = lossFile(1718000000, {3.0f, 2.0f});
  const std::size_t restartAt = bytes.size();
  bytes += tfRecord(tfSimpleValue(1718000100, 0, "loss", 3.5f));
  writeFile(file, bytes);
  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);
  const ImportedRun run = readRun(found[0]);
  ASSERT_EQ(run.metrics.train.size(), 3u);  // nothing lost: the later session's row follows
  EXPECT_FLOAT_EQ(run.metrics.train.loss[2], 3.5f);
  ASSERT_EQ(run.problems.size(), 1u);
  EXPECT_EQ(run.problems[0], file.string() + ": the step counter starts again at byte " + std::to_string(restartAt) +
                                 " (loss at step 0 after step 1): a later session in the same file, read on after "
                                 "the first");
}

TEST(TensorBoardSessions, TextOnlyFilesAreSaidAndHparamsOnlyFilesAreConfig) {
  ScratchDir dir("tb-text");
  const auto text = dir.path() / "notes" / "events.out.tfevents.1718000000.h";
  writeFile(text, tfRecord(tfFileVersion(1718000000)) +
                      tfRecord(tfTextEvent(1718000001, 0, "config/text_summary", "lr: 0.1")));
  const auto hp = dir.path() / "hp" / "events.out.tfevents.1718000000.h";
  writeFile(hp, tfRecord(tfFileVersion(1718000000)) +
                    tfRecord(tfHparamsEvent(1718000000,
                                            {{"lr", Proto().fixed64(2, 0.25)}, {"layers", Proto().fixed64(2, 4)}})));

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 2u);
  const ImportedRun hpRun = readRun(found[0]);
  EXPECT_EQ(hpRun.name, "hp");
  EXPECT_TRUE(hpRun.problems.empty()) << hpRun.problems.front();
  EXPECT_EQ(*hpRun.configValue("lr"), "0.25");
  EXPECT_EQ(*hpRun.configValue("layers"), "4");
  const ImportedRun textRun = readRun(found[1]);
  EXPECT_EQ(textRun.metrics.train.size(), 0u);
  EXPECT_TRUE(textRun.scalars.empty());
  ASSERT_EQ(textRun.problems.size(), 1u);
  EXPECT_EQ(textRun.problems[0], text.string() +
                                     ": 2 records and no scalar among them (text, images, histograms or other "
                                     "plugins' data only): nothing in it to chart");
}

}  // namespace
}  // namespace traindeck
