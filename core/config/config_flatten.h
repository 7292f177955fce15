// Any YAML mapping as dotted keys and value texts ("strategy.micro_batch" -> "8", lists as
// flow text "[0.9, 0.95]"), in document order: what a diff of several runs' configs compares.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace traindeck {

struct FlatConfig {
  std::vector<std::pair<std::string, std::string>> entries;  // document order
  std::string error;                                         // empty when the text was read
};

FlatConfig flattenYaml(const std::string& text);

}  // namespace traindeck
