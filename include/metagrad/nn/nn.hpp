#pragma once
// mg::nn: tinygrad's nn module. Layers (layers.hpp), optimizers (optim.hpp), state dicts (state.hpp)
// and safetensors files (safetensors.hpp). See docs/nn.md.
#include "layers.hpp"
#include "optim.hpp"
#include "safetensors.hpp"
#include "state.hpp"
