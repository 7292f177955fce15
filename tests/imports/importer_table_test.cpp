// The importer table: every source kind has one format, names and badges come from it, and a
// search walks it so that a folder holding one run of every format lists each once.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>
#include <set>

#include "fixture_writers.h"
#include "imports/run_discovery.h"
#include "imports/run_format.h"

namespace traindeck {
namespace {

using namespace fixtures;

constexpr SourceKind kEveryKind[] = {SourceKind::TrainDeck,    SourceKind::TensorBoard,  SourceKind::HfTrainer,
                                     SourceKind::MlflowStore,  SourceKind::MlflowFolder, SourceKind::Wandb,
                                     SourceKind::LightningCsv, SourceKind::KerasCsv,     SourceKind::LlmC,
                                     SourceKind::Trackio,      SourceKind::DvcLive,      SourceKind::Optuna};

void sql(const std::filesystem::path& file, const char* text) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, text, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

TEST(ImporterTable, EveryKindHasOneFormatWithItsOwnName) {
  std::set<std::string_view> names;
  for (const SourceKind kind : kEveryKind) {
    const RunFormat* format = runFormatOf(kind);
    ASSERT_NE(format, nullptr) << static_cast<int>(kind);
    EXPECT_EQ(format->kind(), kind);
    EXPECT_TRUE(names.insert(format->name()).second) << format->name();
    EXPECT_EQ(sourceKindName(kind), format->name());
    EXPECT_EQ(sourceKindBadge(kind), format->badge());
  }
  EXPECT_EQ(runFormats().size(), std::size(kEveryKind));
  EXPECT_EQ(sourceKindBadge(SourceKind::TrainDeck), "");
  EXPECT_EQ(sourceKindBadge(SourceKind::Trackio), "Trackio");
}

TEST(ImporterTable, TheFormatsReadAreEachBadgeOnceWithTheSignsOfItsFormats) {
  const std::string text = runFormatsRead();
  EXPECT_TRUE(text.starts_with("TrainDeck (run.json, metrics.jsonl), HF Trainer (trainer_state.json), ")) << text;
  EXPECT_NE(text.find("MLflow (mlruns/, mlflow.db)"), std::string::npos) << text;
  EXPECT_NE(text.find("CSV (metrics.csv, *.csv or *.log with an epoch column)"), std::string::npos) << text;
  for (const RunFormat* format : runFormats()) {
    EXPECT_FALSE(format->signs().empty()) << format->name();
    if (format->badge().empty()) continue;
    const std::string named = std::string(format->badge()) + " (";
    EXPECT_NE(text.find(named), std::string::npos) << named;
    EXPECT_EQ(text.find(named), text.rfind(named)) << named;  // once
  }
}

// One run of every format in one folder, as --read and Open folder meet it.
void writeEveryFormat(const std::filesystem::path& root) {
  writeFile(root / "native" / "metrics.jsonl",
            "{\"kind\":\"header\",\"schema\":1,\"run_id\":\"r\"}\n"
            "{\"kind\":\"train\",\"time\":1718000000.5,\"step\":1,\"tokens\":4096,\"loss\":3.5}\n");
  writeFile(root / "tb" / "events.out.tfevents.1.h", tfRecord(tfSimpleValue(1, 1, "loss", 1)));
  writeFile(root / "hf" / "trainer_state.json", R"({"global_step":2,"log_history":[{"loss":1,"step":2}]})");
  writeFile(root / "mlruns" / "0" / "4f2c" / "meta.yaml", "run_id: 4f2c\nrun_name: owl\nlifecycle_stage: active\n");
  writeFile(root / "mlruns" / "0" / "4f2c" / "metrics" / "loss", "1718000000000 2.5 0\n");
  WandbLog log;
  log.add(wandbHistory(0, {{"loss", "2.5"}}));
  writeFile(root / "wandb" / "offline-run-1-abc" / "run-abc.wandb", log.bytes());
  writeFile(root / "lightning" / "version_0" / "metrics.csv", "epoch,step,train_loss\r\n0,9,2.5\r\n");
  writeFile(root / "keras.log", "epoch,loss,val_loss\r\r\n0,2.5,2.75\r\r\n");
  writeFile(root / "llmc" / "main.log", "s:0 trl:10.5\n");
  writeFile(root / "dvclive" / "plots" / "metrics" / "loss.tsv", "step\tloss\n0\t2.5\n");
  sql(root / "mlflow.db",
      "CREATE TABLE experiments (experiment_id INTEGER PRIMARY KEY, name TEXT, lifecycle_stage TEXT);"
      "CREATE TABLE runs (run_uuid TEXT, name TEXT, start_time BIGINT, lifecycle_stage TEXT, experiment_id INT);"
      "CREATE TABLE metrics (key TEXT, value FLOAT, timestamp BIGINT, run_uuid TEXT, step BIGINT, is_nan BOOLEAN);"
      "CREATE TABLE params (key TEXT, value TEXT, run_uuid TEXT);"
      "INSERT INTO experiments VALUES (0, 'Default', 'active');"
      "INSERT INTO runs VALUES ('a1', 'stored', 1, 'active', 0);"
      "INSERT INTO metrics VALUES ('loss', 2.5, 1000, 'a1', 0, 0);");
  sql(root / "project.db",
      "CREATE TABLE metrics (id INTEGER PRIMARY KEY, run_id TEXT, timestamp TEXT, run_name TEXT, step INT, metrics "
      "TEXT);"
      "INSERT INTO metrics VALUES (1, 'x1', '2025-01-01T00:00:00+00:00', 'tracked', 0, '{\"loss\": 2.5}');");
  sql(root / "optuna.sqlite3",
      "CREATE TABLE studies (study_id INTEGER PRIMARY KEY, study_name TEXT);"
      "CREATE TABLE trials (trial_id INTEGER PRIMARY KEY, number INT, study_id INT, state TEXT, datetime_complete "
      "TEXT);"
      "CREATE TABLE trial_params (param_id INTEGER PRIMARY KEY, trial_id INT, param_name TEXT, param_value FLOAT, "
      "distribution_json TEXT);"
      "INSERT INTO studies VALUES (1, 's');"
      "INSERT INTO trials VALUES (1, 0, 1, 'COMPLETE', NULL);");
}

TEST(ImporterTable, AFolderOfEveryFormatListsEachOnce) {
  ScratchDir dir("every-format");
  writeEveryFormat(dir.path());
  const RunSearch search = searchRuns(dir.path());
  EXPECT_TRUE(search.notRead.empty());
  std::map<SourceKind, int> count;
  for (const RunSource& source : search.runs) {
    ++count[source.kind];
    EXPECT_NO_THROW(readRun(source)) << source.name;
  }
  for (const SourceKind kind : kEveryKind) EXPECT_EQ(count[kind], 1) << sourceKindName(kind);
}

}  // namespace
}  // namespace traindeck
