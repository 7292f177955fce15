// The Python the exports are made of (resources/exports/*.py), compiled in at build time.
#pragma once

#include <span>
#include <string_view>

namespace traindeck {

struct ExportTemplate {
  std::string_view name;  // "pytorch_ddp.py"
  std::string_view text;
};

std::span<const ExportTemplate> exportTemplates();
// The named template's text; throws std::out_of_range for a name that is not compiled in.
std::string_view exportTemplate(std::string_view name);

}  // namespace traindeck
