#pragma once
// Tensor indexing: getitem, setitem, gather, one_hot, and pad's modes.
#include "tensor.hpp"
