// Text-level edits of a job's YAML: one key's value set where it stands (or the key added to its
// section), so that comments, key order and each section's style, block or flow
// (`strategy: {kind: zero1, nnodes: 1}`), survive; and a config's values as one YAML text per
// key, for the form's editors.
#pragma once

#include <QMap>
#include <QString>
#include <optional>

#include "config/run_config.h"

namespace traindeck {

// `value` as a YAML scalar: plain when a reader would take it back as this text, else quoted.
QString yamlScalar(const QString& value);

// The text of a YAML scalar as written in a saved config (quotes removed, escapes undone).
QString unquoteYaml(const QString& scalar);

// `text` with the value of `path` ("strategy.micro_batch", or a top-level "name") set to
// `valueYaml`, written in the style of its section. nullopt when the text cannot be edited in
// place (a flow map over several lines, a section that is not a map); the caller then decides.
std::optional<QString> withKeyValue(const QString& text, const QString& path, const QString& valueYaml);

// One YAML value per field path, as saveConfigText writes it for `config`.
QMap<QString, QString> fieldValueTexts(const RunConfig& config);

}  // namespace traindeck
