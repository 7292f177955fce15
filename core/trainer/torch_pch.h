// The precompiled header of every Torch translation unit: <torch/torch.h> costs ~40 s to
// parse, so it is parsed once per target. Nothing outside core/trainer includes this.
#pragma once

#include <torch/torch.h>

#include "torch_compat.h"
