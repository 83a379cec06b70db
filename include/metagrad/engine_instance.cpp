// The engine compiled once (core/extern_engine.hpp): compile this file, with the same NDEBUG setting as
// the rest of the program, and link it into a program whose translation units define MG_EXTERN_ENGINE.
// Those then compile in seconds instead of minutes. Meson: `dependency('metagrad-engine')` does both.
//
//   g++ -std=c++20 -O2 -I include -c include/metagrad/engine_instance.cpp -o engine.o    # once
//   g++ -std=c++20 -O2 -DMG_EXTERN_ENGINE -I include main.cpp engine.o -o main
#define MG_ENGINE_INSTANCE
#include "metagrad.hpp"
