#pragma once
// Tensor's NN ops: linear, convolutions, pooling, normalization, attention and losses.
#include "tensor.hpp"
