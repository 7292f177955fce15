// MLflow's SQLite store, created here through libsqlite3 with the tables and columns MLflow's
// schema has, and the legacy mlruns/ folders written as MLflow's file store writes them.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>

#include "fixture_writers.h"
#include "imports/import_error.h"
#include "imports/mlflow_files_reader.h"
#include "imports/mlflow_store_reader.h"
#include "imports/run_discovery.h"

namespace traindeck {
namespace {

using namespace fixtures;

void exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "") << "\n" << sql;
}

void makeStore(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  exec(db,
       "CREATE TABLE experiments (experiment_id INTEGER PRIMARY KEY, name VARCHAR(256) NOT NULL UNIQUE, "
       "artifact_location VARCHAR(256), lifecycle_stage VARCHAR(32), creation_time BIGINT, last_update_time BIGINT);"
       "CREATE TABLE runs (run_uuid VARCHAR(32) PRIMARY KEY, name VARCHAR(250), source_type VARCHAR(20), "
       "source_name VARCHAR(500), entry_point_name VARCHAR(50), user_id VARCHAR(256), status VARCHAR(9), "
       "start_time BIGINT, end_time BIGINT, source_version VARCHAR(50), lifecycle_stage VARCHAR(20), "
       "artifact_uri VARCHAR(200), experiment_id INTEGER, deleted_time BIGINT);"
       "CREATE TABLE metrics (key VARCHAR(250) NOT NULL, value FLOAT NOT NULL, timestamp BIGINT NOT NULL, "
       "run_uuid VARCHAR(32) NOT NULL, step BIGINT DEFAULT 0 NOT NULL, is_nan BOOLEAN DEFAULT 0 NOT NULL, "
       "PRIMARY KEY (key, timestamp, step, run_uuid, value, is_nan));"
       "CREATE TABLE params (key VARCHAR(250) NOT NULL, value VARCHAR(8000) NOT NULL, run_uuid VARCHAR(32) NOT NULL, "
       "PRIMARY KEY (key, run_uuid));"
       "INSERT INTO experiments VALUES (0, 'Default', 'mlflow-artifacts:/0', 'active', 1, 1);"
       "INSERT INTO experiments VALUES (1, 'gpt2-sweep', 'mlflow-artifacts:/1', 'active', 1, 1);"
       "INSERT INTO runs (run_uuid, name, status, start_time, lifecycle_stage, experiment_id) VALUES "
       "('b2', 'second-run', 'RUNNING', 2000, 'active', 1), ('a1', 'first-run', 'FINISHED', 1000, 'active', 1), "
       "('c3', 'thrown-away', 'FINISHED', 500, 'deleted', 0);"
       "INSERT INTO metrics VALUES ('loss', 2.5, 1718000000000, 'a1', 0, 0), ('loss', 2.25, 1718000001500, 'a1', 10, "
       "0), "
       "('learning_rate', 0.001, 1718000000000, 'a1', 0, 0), ('val_loss', 2.75, 1718000002000, 'a1', 10, 0), "
       "('accuracy', 0, 1718000002000, 'a1', 10, 1), ('tokens_seen', 40960, 1718000002000, 'a1', 10, 0), "
       "('loss', 9.0, 1718000000000, 'b2', 0, 0), ('loss', 1.0, 1718000000000, 'c3', 0, 0);"
       "INSERT INTO params VALUES ('lr', '0.001', 'a1'), ('n_layer', '12', 'a1'), ('lr', '0.01', 'b2');");
  sqlite3_close(db);
}

TEST(MlflowStoreReader, ListsLiveRunsAndReadsMetricsAndParams) {
  ScratchDir dir("mlflow-db");
  makeStore(dir.path() / "mlflow.db");
  const std::vector<MlflowStoreRun> runs = listMlflowStoreRuns(dir.path() / "mlflow.db");
  ASSERT_EQ(runs.size(), 2u);  // the deleted one is not listed
  EXPECT_EQ(runs[0].runUuid, "a1");
  EXPECT_EQ(runs[0].name, "first-run");
  EXPECT_EQ(runs[0].experiment, "gpt2-sweep");
  EXPECT_EQ(runs[1].runUuid, "b2");

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].kind, SourceKind::MlflowStore);
  EXPECT_EQ(found[0].key, "a1");
  EXPECT_EQ(found[0].name, "first-run");
  const ImportedRun run = readRun(found[0]);
  EXPECT_EQ(run.name, "first-run");
  EXPECT_TRUE(run.problems.empty());
  const TrainColumns& t = run.metrics.train;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.step[0], 0);
  EXPECT_FLOAT_EQ(t.loss[0], 2.5f);
  EXPECT_FLOAT_EQ(t.lr[0], 0.001f);
  EXPECT_DOUBLE_EQ(t.time[0], 1718000000.0);
  EXPECT_EQ(t.step[1], 10);
  EXPECT_FLOAT_EQ(t.loss[1], 2.25f);
  EXPECT_DOUBLE_EQ(t.time[1], 1718000001.5);
  ASSERT_EQ(run.metrics.eval.size(), 1u);
  EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[0], 2.75f);
  ASSERT_NE(run.scalar("accuracy"), nullptr);
  EXPECT_TRUE(std::isnan(run.scalar("accuracy")->value[0]));  // is_nan
  ASSERT_NE(run.scalar("tokens_seen"), nullptr);
  EXPECT_EQ(run.scalar("tokens_seen")->value[0], 40960);
  EXPECT_EQ(*run.configValue("lr"), "0.001");
  EXPECT_EQ(*run.configValue("n_layer"), "12");
  EXPECT_EQ(*run.configValue("mlflow.experiment"), "gpt2-sweep");

  const ImportedRun second = readRun(found[1]);
  ASSERT_EQ(second.metrics.train.size(), 1u);
  EXPECT_FLOAT_EQ(second.metrics.train.loss[0], 9.0f);
  EXPECT_EQ(*second.configValue("lr"), "0.01");
}

TEST(MlflowStoreReader, AnotherSqliteDatabaseIsNotARun) {
  ScratchDir dir("mlflow-other");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path() / "app.db").c_str(), &db), SQLITE_OK);
  exec(db, "CREATE TABLE things (a INTEGER);");
  sqlite3_close(db);
  EXPECT_THROW(listMlflowStoreRuns(dir.path() / "app.db"), ImportError);
  EXPECT_TRUE(findRuns(dir.path()).empty());
  EXPECT_THROW(readMlflowStoreRun(dir.path() / "nope.db", "a1"), ImportError);
}

TEST(MlflowFolderReader, ReadsMetricFilesParamsAndTheRunName) {
  ScratchDir dir("mlruns");
  const auto experiment = dir.path() / "mlruns" / "0";
  writeFile(experiment / "meta.yaml", "artifact_location: file:///x/mlruns/0\nexperiment_id: '0'\nname: Default\n");
  const auto run = experiment / "4f2c";
  writeFile(run / "meta.yaml",
            "artifact_uri: file:///x/mlruns/0/4f2c/artifacts\nend_time: null\nexperiment_id: '0'\n"
            "lifecycle_stage: active\nrun_id: 4f2c\nrun_name: brave-owl-7\nstart_time: 1718000000000\nstatus: 1\n");
  writeFile(run / "metrics" / "loss", "1718000000000 2.5 0\n1718000001000 2.25 1\n");
  writeFile(run / "metrics" / "val" / "loss", "1718000002000 2.75 1\n");  // key "val/loss"
  writeFile(run / "metrics" / "grad_norm",
            "1718000000000 0.5 0\nnot a line\n1718000001000 nan 1\n1718000002000 0.25 2");
  writeFile(run / "metrics" / "perplexity", "1718000000000 12.5 0\n");
  writeFile(run / "params" / "lr", "0.001");
  writeFile(run / "params" / "model" / "n_layer", "12\n");
  writeFile(run / "tags" / "mlflow.runName", "brave-owl-7");
  writeFile(dir.path() / "mlruns" / ".trash" / "dead" / "meta.yaml", "run_id: dead\n");

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, SourceKind::MlflowFolder);
  EXPECT_EQ(found[0].name, "mlruns/0/4f2c");
  const ImportedRun read = readRun(found[0]);
  EXPECT_EQ(read.name, "brave-owl-7");
  const TrainColumns& t = read.metrics.train;
  ASSERT_EQ(t.size(), 2u);  // grad_norm's last line has no newline yet: left for the next read
  EXPECT_FLOAT_EQ(t.loss[0], 2.5f);
  EXPECT_FLOAT_EQ(t.gradNorm[0], 0.5f);
  EXPECT_EQ(t.step[1], 1);
  EXPECT_FLOAT_EQ(t.loss[1], 2.25f);
  EXPECT_TRUE(std::isnan(t.gradNorm[1]));  // "nan": no grad norm at step 1
  EXPECT_TRUE(read.partialTail);
  ASSERT_EQ(read.metrics.eval.size(), 1u);
  EXPECT_FLOAT_EQ(read.metrics.eval.valLoss[0], 2.75f);
  EXPECT_DOUBLE_EQ(read.metrics.eval.time[0], 1718000002.0);
  ASSERT_NE(read.scalar("perplexity"), nullptr);
  EXPECT_EQ(read.scalar("perplexity")->value[0], 12.5);
  EXPECT_EQ(*read.configValue("lr"), "0.001");
  EXPECT_EQ(*read.configValue("model/n_layer"), "12");
  ASSERT_EQ(read.problems.size(), 1u);
  EXPECT_EQ(read.problems[0], (run / "metrics" / "grad_norm").string() + ":2: not \"timestamp value step\"; skipped");
}

}  // namespace
}  // namespace traindeck
