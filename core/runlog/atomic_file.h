// Whole-file writes that a crash or a kill can never leave half done: write a temporary file
// beside the target, fsync it, rename it over the target, fsync the folder.
#pragma once

#include <string>

namespace traindeck {

// Returns an empty string on success, else one sentence saying what failed.
std::string writeFileAtomically(const std::string& path, const std::string& contents);

}  // namespace traindeck
