// The importer table: every format TrainDeck reads, in the order a folder or file is asked.
// Folder formats come first in the order of how sure their sign is (run.json before an event
// file); a new format is its reader file and one line here.
#include <algorithm>
#include <utility>

#include "imports/csv_logs_reader.h"
#include "imports/dvclive_reader.h"
#include "imports/hf_trainer_reader.h"
#include "imports/llmc_log_reader.h"
#include "imports/mlflow_files_reader.h"
#include "imports/mlflow_store_reader.h"
#include "imports/native_run_reader.h"
#include "imports/optuna_reader.h"
#include "imports/run_format.h"
#include "imports/tensorboard_reader.h"
#include "imports/trackio_reader.h"
#include "imports/wandb_reader.h"

namespace traindeck {

const std::vector<const RunFormat*>& runFormats() {
  static const std::vector<const RunFormat*> table = {
      &nativeRunFormat(),    &hfTrainerFormat(), &mlflowFolderFormat(), &wandbFormat(),
      &lightningCsvFormat(), &dvcLiveFormat(),   &tensorBoardFormat(),  &mlflowStoreFormat(),
      &trackioFormat(),      &optunaFormat(),    &kerasCsvFormat(),     &llmcLogFormat(),
  };
  return table;
}

std::string runFormatsRead() {
  std::vector<std::pair<std::string, std::string>> signsOfBadge;  // in the table's order
  for (const RunFormat* format : runFormats()) {
    const std::string badge = format->badge().empty() ? "TrainDeck" : std::string(format->badge());
    const auto same =
        std::find_if(signsOfBadge.begin(), signsOfBadge.end(), [&](const auto& entry) { return entry.first == badge; });
    if (same == signsOfBadge.end())
      signsOfBadge.emplace_back(badge, format->signs());
    else if (!format->signs().empty() && same->second != format->signs())
      same->second.append(", ").append(format->signs());
  }
  std::string text;
  for (const auto& [badge, signs] : signsOfBadge) {
    if (!text.empty()) text += ", ";
    text += signs.empty() ? badge : badge + " (" + signs + ")";
  }
  return text;
}

const RunFormat* runFormatOf(SourceKind kind) {
  for (const RunFormat* format : runFormats())
    if (format->kind() == kind) return format;
  return nullptr;
}

}  // namespace traindeck
