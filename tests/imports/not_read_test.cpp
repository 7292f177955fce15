// What a search finds but cannot read is said, with what to do: files that a clone without
// `git lfs pull` left as pointers, and a W&B run whose .wandb is empty.
#include <gtest/gtest.h>

#include "fixture_writers.h"
#include "imports/import_error.h"
#include "imports/not_read.h"
#include "imports/run_discovery.h"

namespace traindeck {
namespace {

using namespace fixtures;

// A pointer as git-lfs writes it in place of the file (the specification's three lines).
std::string lfsPointer(std::size_t size) {
  return "version https://git-lfs.github.com/spec/v1\n"
         "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
         "size " +
         std::to_string(size) + "\n";
}

TEST(NotRead, GitLfsPointersAreSaidWithWhatToDo) {
  ScratchDir dir("lfs");
  const auto root = dir.path();
  writeFile(root / "tb" / "run1" / "events.out.tfevents.1718000000.h", lfsPointer(774000));
  writeFile(root / "stores" / "mlflow.db", lfsPointer(1 << 20));
  writeFile(root / "keras" / "training.log", lfsPointer(2048));
  writeFile(root / "images" / "plot.png", lfsPointer(999));  // not a run's file: nothing to say
  writeFile(root / "tb" / "run2" / "events.out.tfevents.1718000000.h", tfRecord(tfSimpleValue(1, 1, "loss", 2)));
  writeFile(root / "tb" / "run2" / "events.out.tfevents.1718009999.h", lfsPointer(5000));

  const RunSearch search = searchRuns(root);
  ASSERT_EQ(search.runs.size(), 1u);
  EXPECT_EQ(search.runs[0].name, "tb/run2");  // its pointer is no session of its own
  ASSERT_EQ(search.notRead.size(), 3u);
  const std::vector<std::filesystem::path> expected = {root / "keras" / "training.log", root / "stores" / "mlflow.db",
                                                       root / "tb" / "run1" / "events.out.tfevents.1718000000.h"};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(search.notRead[i].path, expected[i]);
    EXPECT_EQ(search.notRead[i].reason,
              expected[i].string() +
                  ": this is a Git LFS pointer, not the file itself: run `git lfs pull` in its "
                  "repository");
  }
  // The run that has a real file beside a pointer is read, and says which file it could not.
  const ImportedRun run = readRun(search.runs[0]);
  ASSERT_EQ(run.metrics.train.size(), 1u);
  ASSERT_EQ(run.problems.size(), 1u);
  EXPECT_EQ(run.problems[0], gitLfsPointerSentence(root / "tb" / "run2" / "events.out.tfevents.1718009999.h"));

  // Given the pointer itself, the search says the same.
  const RunSearch one = searchRuns(root / "stores" / "mlflow.db");
  EXPECT_TRUE(one.runs.empty());
  ASSERT_EQ(one.notRead.size(), 1u);
  EXPECT_EQ(one.notRead[0].reason, gitLfsPointerSentence(root / "stores" / "mlflow.db"));
}

TEST(NotRead, AnEmptyWandbFileIsSaidNotListed) {
  ScratchDir dir("wandb-empty");
  const auto run = dir.path() / "wandb" / "offline-run-20250101_000000-abc";
  writeFile(run / "run-abc.wandb", "");
  writeFile(run / "files" / "config.yaml", "lr:\n  value: 0.1\n");
  const RunSearch search = searchRuns(dir.path());
  EXPECT_TRUE(search.runs.empty());
  ASSERT_EQ(search.notRead.size(), 1u);
  EXPECT_EQ(search.notRead[0].path, run / "run-abc.wandb");
  EXPECT_NE(search.notRead[0].reason.find("empty (0 bytes): W&B wrote no records to it"), std::string::npos);

  // Once W&B writes its header and records, the run is listed.
  WandbLog log;
  log.add(wandbHistory(0, {{"loss", "2.5"}}));
  writeFile(run / "run-abc.wandb", log.bytes());
  const RunSearch later = searchRuns(dir.path());
  ASSERT_EQ(later.runs.size(), 1u);
  EXPECT_TRUE(later.notRead.empty());
  EXPECT_FLOAT_EQ(readRun(later.runs[0]).metrics.train.loss[0], 2.5f);
}

TEST(NotRead, PointerTestsOnlyTheFirstLine) {
  EXPECT_TRUE(isGitLfsPointer(lfsPointer(1)));
  EXPECT_FALSE(isGitLfsPointer("version 2\n"));
  EXPECT_FALSE(isGitLfsPointer(""));
}

}  // namespace
}  // namespace traindeck
