// A job config as a Python literal (`{"model": {"n_layer": 2, ...}, ...}`), for the exported
// scripts' CONFIG: every key with its value, True/False/None and Python string escapes, from the
// same YAML the trainer reads. Path fields come absolute, as this machine resolves them.
#pragma once

#include <string>

#include "config/path_expand.h"
#include "config/run_config.h"

namespace traindeck {

// Throws std::runtime_error when a path field cannot be expanded (an unset ${VAR}).
std::string configAsPython(const RunConfig& config, const std::string& baseDir, const EnvLookup& env);
// `text` as a Python string literal, double-quoted, with escapes for quotes, backslashes and
// every control or non-ASCII character (\uXXXX): valid whatever the bytes were.
std::string pythonString(const std::string& text);
// `text` for a comment or a heading: control characters (line breaks) and bytes that are not
// UTF-8 become '?'; everything else stays as it is.
std::string printableText(const std::string& text);

}  // namespace traindeck
