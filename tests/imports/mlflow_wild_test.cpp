// MLflow's runs as they lie in the wild: deleted runs and experiments left in mlruns/, runs that
// share a name (a sweep's two "SVM" and three "RF"), in mlruns/ and in mlflow.db, and TensorBoard
// logs among a run's artifacts.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <set>

#include "fixture_writers.h"
#include "imports/run_discovery.h"

namespace traindeck {
namespace {

using namespace fixtures;

void writeMlflowRun(const std::filesystem::path& experiment, const std::string& id, const std::string& name,
                    const std::string& stage, double loss) {
  writeFile(experiment / id / "meta.yaml", "artifact_uri: file:///x/" + id + "/artifacts\nexperiment_id: '1'\n" +
                                               "lifecycle_stage: " + stage + "\nrun_id: " + id + "\nrun_name: " + name +
                                               "\nstart_time: 1718000000000\nstatus: 3\n");
  writeFile(experiment / id / "metrics" / "loss", "1718000000000 " + std::to_string(loss) + " 0\n");
  writeFile(experiment / id / "params" / "model", name + "\n");
}

TEST(MlflowWild, DeletedRunsAndExperimentsAreSkippedAndSaid) {
  ScratchDir dir("mlruns-deleted");
  const auto live = dir.path() / "mlruns" / "1";
  writeFile(live / "meta.yaml", "experiment_id: '1'\nlifecycle_stage: active\nname: sweep\n");
  writeMlflowRun(live, "aaaa1111", "kept", "active", 1.5);
  writeMlflowRun(live, "bbbb2222", "thrown-away", "deleted", 9.0);
  const auto gone = dir.path() / "mlruns" / "2";
  writeFile(gone / "meta.yaml", "experiment_id: '2'\nlifecycle_stage: deleted\nname: old\n");
  writeMlflowRun(gone, "cccc3333", "in-deleted-experiment", "active", 8.0);

  const RunSearch search = searchRuns(dir.path());
  ASSERT_EQ(search.runs.size(), 1u);
  EXPECT_EQ(search.runs[0].path, live / "aaaa1111");
  EXPECT_EQ(readRun(search.runs[0]).name, "kept");
  ASSERT_EQ(search.notRead.size(), 2u);
  EXPECT_EQ(search.notRead[0].path, live / "bbbb2222");
  EXPECT_NE(search.notRead[0].reason.find("deleted in MLflow (lifecycle_stage: deleted)"), std::string::npos);
  EXPECT_EQ(search.notRead[1].path, gone / "cccc3333");
}

TEST(MlflowWild, RunsThatShareANameStayApartWithTheirIdShown) {
  ScratchDir dir("mlruns-names");
  const auto experiment = dir.path() / "mlruns" / "1";
  writeFile(experiment / "meta.yaml", "experiment_id: '1'\nlifecycle_stage: active\nname: models\n");
  writeMlflowRun(experiment, "11111111aaaa", "SVM", "active", 0.5);
  writeMlflowRun(experiment, "22222222bbbb", "SVM", "active", 0.25);
  writeMlflowRun(experiment, "33333333cccc", "RF", "active", 0.125);
  writeMlflowRun(experiment, "44444444dddd", "RF", "active", 0.0625);
  writeMlflowRun(experiment, "55555555eeee", "RF", "active", 0.03125);
  writeMlflowRun(experiment, "66666666ffff", "kNN", "active", 1.0);

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 6u);
  std::vector<std::string> names;
  std::set<std::string> distinct;
  for (const RunSource& source : found) {
    const ImportedRun run = readRun(source);
    names.push_back(run.name);
    distinct.insert(run.name);
    // Each keeps its own values: the id, not the name, says which run it is.
    ASSERT_EQ(run.metrics.train.size(), 1u);
    EXPECT_EQ(*run.configValue("mlflow.run_id"), source.path.filename().string());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"SVM (11111111)", "SVM (22222222)", "RF (33333333)", "RF (44444444)",
                                             "RF (55555555)", "kNN"}));
  EXPECT_EQ(distinct.size(), 6u);
  EXPECT_FLOAT_EQ(readRun(found[1]).metrics.train.loss[0], 0.25f);
  EXPECT_FLOAT_EQ(readRun(found[4]).metrics.train.loss[0], 0.03125f);
}

TEST(MlflowWild, StoreRunsThatShareANameAreListedApart) {
  ScratchDir dir("mlflow-db-names");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path() / "mlflow.db").c_str(), &db), SQLITE_OK);
  const char* sql =
      "CREATE TABLE experiments (experiment_id INTEGER PRIMARY KEY, name VARCHAR(256), lifecycle_stage VARCHAR(32));"
      "CREATE TABLE runs (run_uuid VARCHAR(32) PRIMARY KEY, name VARCHAR(250), start_time BIGINT, "
      "lifecycle_stage VARCHAR(20), experiment_id INTEGER);"
      "CREATE TABLE metrics (key VARCHAR(250), value FLOAT, timestamp BIGINT, run_uuid VARCHAR(32), step BIGINT, "
      "is_nan BOOLEAN);"
      "CREATE TABLE params (key VARCHAR(250), value VARCHAR(8000), run_uuid VARCHAR(32));"
      "INSERT INTO experiments VALUES (1, 'models', 'active'), (2, 'gone', 'deleted');"
      "INSERT INTO runs VALUES ('9f8e7d6c5b4a', 'SVM', 1, 'active', 1), ('0a1b2c3d4e5f', 'SVM', 2, 'active', 1), "
      "('77', 'RF', 3, 'active', 1), ('88', 'RF', 4, 'active', 2);"
      "INSERT INTO metrics VALUES ('loss', 0.5, 1000, '9f8e7d6c5b4a', 0, 0), ('loss', 0.25, 1000, '0a1b2c3d4e5f', 0, "
      "0), ('loss', 0.125, 1000, '77', 0, 0);";
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 3u);  // the run of the deleted experiment is not listed
  EXPECT_EQ(found[0].name, "SVM (9f8e7d6c)");
  EXPECT_EQ(found[0].key, "9f8e7d6c5b4a");
  EXPECT_EQ(found[1].name, "SVM (0a1b2c3d)");
  EXPECT_EQ(found[2].name, "RF");  // alone now: shown as it is
  const ImportedRun second = readRun(found[1]);
  EXPECT_EQ(second.name, "SVM (0a1b2c3d)");
  ASSERT_EQ(second.metrics.train.size(), 1u);
  EXPECT_FLOAT_EQ(second.metrics.train.loss[0], 0.25f);
}

TEST(MlflowWild, TensorBoardLogsAmongAnArtifactsFolderAreTheRunsScalars) {
  ScratchDir dir("mlruns-tb");
  const auto experiment = dir.path() / "mlruns" / "1";
  writeMlflowRun(experiment, "abcd", "keras-autolog", "active", 1.0);
  const auto logs = experiment / "abcd" / "artifacts" / "tensorboard_logs";
  writeFile(logs / "train" / "events.out.tfevents.1718000000.h.1.v2",
            tfRecord(tfSimpleValue(1718000001, 0, "epoch_loss", 0.75f)) +
                tfRecord(tfSimpleValue(1718000002, 1, "epoch_loss", 0.5f)));
  writeFile(logs / "validation" / "events.out.tfevents.1718000000.h.2.v2",
            tfRecord(tfSimpleValue(1718000001, 0, "epoch_loss", 0.875f)));

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);  // the event files are the run's, not runs of their own
  const ImportedRun run = readRun(found[0]);
  EXPECT_TRUE(run.problems.empty()) << run.problems.front();
  const ScalarSeries* train = run.scalar("tensorboard_logs/train/epoch_loss");
  ASSERT_NE(train, nullptr);
  EXPECT_EQ(train->step, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(train->value, (std::vector<double>{0.75, 0.5}));
  EXPECT_DOUBLE_EQ(train->time[1], 1718000002.0);
  const ScalarSeries* validation = run.scalar("tensorboard_logs/validation/epoch_loss");
  ASSERT_NE(validation, nullptr);
  EXPECT_EQ(validation->value, (std::vector<double>{0.875}));
  ASSERT_EQ(run.metrics.train.size(), 1u);  // MLflow's own loss is still the loss
  EXPECT_FLOAT_EQ(run.metrics.train.loss[0], 1.0f);
}

}  // namespace
}  // namespace traindeck
