// TensorBoard's HParams plugin data (tensorboard/plugins/hparams/plugin_data.proto), as the
// plugin_data content of a summary: HParamsPluginData{version=1, experiment=2,
// session_start_info=3{hparams=1 map<string, google.protobuf.Value>, group_name=4}, session_end_info=4}.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace traindeck {

// Calls `onHparam(name, value as text)` for each hyperparameter of a session start (numbers as
// the shortest text that reads back, strings bare, booleans true/false); the experiment and
// session end carry none. False when the bytes are not the plugin's data.
bool parseHparamsPluginData(std::string_view content,
                            const std::function<void(std::string_view, std::string)>& onHparam);

}  // namespace traindeck
