// A Jupyter notebook (nbformat 4.5) from cells: what Colab and Kaggle open.
#pragma once

#include <string>
#include <vector>

namespace traindeck {

struct NotebookCell {
  enum class Kind { Markdown, Code } kind;
  std::string source;
};

// `accelerator` ("GPU", "TPU" or empty) is the runtime Colab offers to start for it.
std::string notebookJson(const std::vector<NotebookCell>& cells, const std::string& accelerator);

}  // namespace traindeck
