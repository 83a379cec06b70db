#pragma once
// metagrad: tinygrad's system as a header-only C++20 library. This header includes all of it.
#include "core/arg.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/fixed_string.hpp"
#include "core/ops.hpp"
#include "core/print.hpp"
#include "core/uop.hpp"
#include "core/walk.hpp"
#include "pattern/graph_rewrite.hpp"
#include "pattern/rules.hpp"
#include "pattern/upat.hpp"
#include "static/graph.hpp"
