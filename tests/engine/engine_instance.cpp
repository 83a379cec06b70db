// The one translation unit of the test suite that compiles the engine (see MG_EXTERN_ENGINE in
// engine/realize.hpp); the others only declare it.
#define MG_ENGINE_INSTANCE
#include <metagrad/metagrad.hpp>
