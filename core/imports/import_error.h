// The importers' one error type: a run that cannot be read at all (a file gone, a store that is
// not MLflow's, trainer_state.json that is not JSON). Damage inside a file that leaves records
// readable is not thrown: it goes into ImportedRun::problems.
#pragma once

#include <stdexcept>

namespace traindeck {

class ImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace traindeck
