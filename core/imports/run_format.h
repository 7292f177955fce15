// One format of runs as the importer table holds it: whether a folder or a file is its own,
// which runs it holds there, and how to read one. run_formats.cpp lists every format; a new
// format is a reader file with its RunFormat and one line in that table.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "imports/imported_run.h"

namespace traindeck {

struct RunSource {
  SourceKind kind = SourceKind::TrainDeck;
  std::string name;            // the path below the searched folder ("tb/run1"), or a store's run name
  std::filesystem::path path;  // the run's folder, or its file (an MLflow store, a CSV, main.log)
  std::string key;             // which run of a folder or store holding several (MLflow's run_uuid)
  // The tool's own name for the run where the search knows it (MLflow's run_name), made unique
  // among the runs of its store or experiment ("SVM (4f2c9a1b)"); readRun() names the run so.
  std::string displayName;
  std::string id;  // the tool's id of the run (MLflow's run_uuid), for the unique name; may be empty
};

// Something a search found that looks like a run's file but was not read, and why.
struct NotRead {
  std::filesystem::path path;
  std::string reason;  // a sentence that says what to do where there is something to do
};

// What a search has found so far; formats add to it.
struct FoundRuns {
  std::filesystem::path root;
  std::vector<RunSource> runs;
  std::vector<NotRead> notRead;
  // How many runs of a scope (an MLflow experiment's folder) bear each name: taken once a search.
  std::map<std::filesystem::path, std::map<std::string, int>> namesInScope;

  // `path` below the root ("tb/run1"), or its own name when it is the root.
  std::string nameOf(const std::filesystem::path& path) const;
  void add(SourceKind kind, const std::filesystem::path& path, std::string key = {}, std::string name = {});
};

class RunFormat {
 public:
  virtual ~RunFormat() = default;
  virtual SourceKind kind() const = 0;
  virtual std::string_view name() const = 0;   // "tensorboard": a log line's, --read's
  virtual std::string_view badge() const = 0;  // "TensorBoard": the run list's Source column
  // What on disk is a sign of it ("trainer_state.json"), for the messages that name the formats.
  virtual std::string_view signs() const = 0;
  // A folder that is a run of this format (or holds several, as sessions): adds them and returns
  // true, and the search goes no deeper. A folder format's runs may be none (a deleted run).
  virtual bool findInFolder(const std::filesystem::path& /*folder*/, FoundRuns& /*found*/) const { return false; }
  // A file that holds runs of this format (a store, a log): adds them and returns true.
  virtual bool findInFile(const std::filesystem::path& /*file*/, FoundRuns& /*found*/) const { return false; }
  // Throws ImportError when the run cannot be read at all.
  virtual ImportedRun read(const RunSource& source) const = 0;
};

// A format whose run is one folder or one file, told by a test of its path, read by a function of
// its path and name: most formats are one of these.
class PathFormat final : public RunFormat {
 public:
  struct Spec {
    SourceKind kind = SourceKind::TrainDeck;
    std::string_view name, badge, signs;
    bool (*isRunFolder)(const std::filesystem::path&) = nullptr;  // null: not a folder format
    bool (*isRunFile)(const std::filesystem::path&) = nullptr;    // null: not a file format
    ImportedRun (*read)(const std::filesystem::path&, std::string name) = nullptr;
  };
  explicit PathFormat(Spec spec) : m_spec(spec) {}
  SourceKind kind() const override { return m_spec.kind; }
  std::string_view name() const override { return m_spec.name; }
  std::string_view badge() const override { return m_spec.badge; }
  std::string_view signs() const override { return m_spec.signs; }
  bool findInFolder(const std::filesystem::path& folder, FoundRuns& found) const override;
  bool findInFile(const std::filesystem::path& file, FoundRuns& found) const override;
  ImportedRun read(const RunSource& source) const override { return m_spec.read(source.path, source.name); }

 private:
  Spec m_spec;
};

// Runs of one scope (a store's, an experiment's) that share a name are shown with their id's first
// 8 characters beside it ("SVM (4f2c9a1b)"), or a number where they have none. The scope, not the
// search, decides, so a run is named alike whatever folder was searched. `from`: the scope's
// first run in `runs`.
void makeNamesUnique(std::vector<RunSource>& runs, std::size_t from);
std::string uniqueName(const std::string& name, const std::string& id);

// Every format, in the order a folder or file is asked.
const std::vector<const RunFormat*>& runFormats();
// The formats read, for a message that says what was looked for: each badge once with the signs
// of its formats, TrainDeck's own first ("TrainDeck (run.json, metrics.jsonl), HF Trainer
// (trainer_state.json), MLflow (mlruns/, mlflow.db), …").
std::string runFormatsRead();
// The format of `kind`; nullptr for none (never, for a kind in the enum).
const RunFormat* runFormatOf(SourceKind kind);

}  // namespace traindeck
