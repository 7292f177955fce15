// Text-level helpers for the Setup page: a form edit becomes a minimal edit of the YAML (one
// value replaced, or one key inserted) so that comments and key order survive, and a saved
// config's text is split back into one YAML value per field for the form's editors.
#pragma once

#include <QMap>
#include <QString>
#include <map>
#include <optional>
#include <string>

#include "config/config_io.h"

namespace traindeck {

// `value` as a YAML scalar: plain when a reader would take it back as this text, else quoted.
QString yamlScalar(const QString& value);

// The text of a YAML scalar as written in a saved config (quotes removed, escapes undone).
QString unquoteYaml(const QString& scalar);

// `text` with the value of `path` ("strategy.micro_batch") set to `valueYaml`. `places` are the
// places a load of `text` found. nullopt when the value cannot be edited in place (a value that
// spans lines); the caller then regenerates the whole text.
std::optional<QString> withFieldValue(const QString& text, const std::map<std::string, SourcePlace>& places,
                                      const QString& path, const QString& valueYaml);

// One YAML value per field path, as saveConfigText writes it for `config`.
QMap<QString, QString> fieldValueTexts(const RunConfig& config);

}  // namespace traindeck
