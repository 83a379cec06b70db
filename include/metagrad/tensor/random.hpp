#pragma once
// Tensor's random numbers: tinygrad's counter-based threefry generator with manual_seed.
#include "tensor.hpp"
