// The one translation unit of the test suite that compiles the engine (see MG_EXTERN_ENGINE in
// core/extern_engine.hpp); the others only declare it. First in tests/meson.build: its compile is the longest.
#define MG_ENGINE_INSTANCE
#include <metagrad/metagrad.hpp>
