// What an export is for: the framework its script trains with, and the place it runs, with
// the devices that place really gives (Colab: one GPU or one TPU chip per runtime, whatever a
// config asks; docs/tutorial.md has the sources).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace traindeck {

enum class ExportFramework { TrainDeck, PytorchDdp, TorchXla, KerasGpu, KerasTpu, KerasJax };
enum class ExportPlace { ColabGpu, ColabTpu, KaggleT4x2, KaggleV5e8, Vm };

struct FrameworkInfo {
  ExportFramework framework;
  std::string name;   // "pytorch-ddp", as the command line spells it
  std::string title;  // "PyTorch DDP"
  bool tpu;           // trains on TPU chips (else GPUs, or CPUs on a VM)
  bool testedHere;    // run by our tests against the native trainer (else: from the documented API)
  // Expected to run on the 2026 images of the places it is offered for; false for keras-tpu,
  // whose TensorFlow for TPUs neither Colab's nor Kaggle's TPU image has (docs/tutorial.md).
  bool expectedToWork;
  std::vector<std::string> parts;  // resources/exports/*.py, in the order the script joins them
};

struct PlaceInfo {
  ExportPlace place;
  std::string name;   // "colab-gpu"
  std::string title;  // "Colab (GPU runtime)"
  bool tpu;
  int devices;          // what one runtime has; 0: the config's strategy.nproc_per_node (a VM)
  std::string note;     // one sentence on what the place really offers
  std::string dataDir;  // where the notebook expects the prepared dataset ("" : as the config says)
};

const std::vector<FrameworkInfo>& exportFrameworks();
const std::vector<PlaceInfo>& exportPlaces();
std::optional<FrameworkInfo> frameworkNamed(const std::string& name);
std::optional<PlaceInfo> placeNamed(const std::string& name);
// Why `framework` cannot run on `place` ("torch-xla trains on TPU chips; colab-gpu has GPUs:
// ..."), or empty.
std::string targetProblem(const FrameworkInfo& framework, const PlaceInfo& place);

}  // namespace traindeck
