#pragma once
// MG_EXTERN_ENGINE: a program of many translation units can compile the engine once. The scheduler,
// codegen, the renderer, the runtimes, simplify and differentiation are function templates (so that a
// translation unit that never uses one compiles none of it); MG_ENGINE_TEMPLATE(declaration), written
// after each of their definitions, turns into
//  - an explicit instantiation in the one translation unit that defines MG_ENGINE_INSTANCE,
//  - an extern template declaration where MG_EXTERN_ENGINE is defined (the rest of the program),
//  - nothing otherwise (a single-file program instantiates what it uses).
// include/metagrad/engine_instance.cpp is that translation unit; meson's metagrad_engine_dep (the
// `metagrad-engine` dependency) compiles it into a library and defines MG_EXTERN_ENGINE for its users, as
// the test suite does (docs/devices.md). An engine template not listed here is compiled again in every
// translation unit that reaches it.
#if defined(MG_ENGINE_INSTANCE)
#define MG_ENGINE_TEMPLATE(...) template __VA_ARGS__;
#elif defined(MG_EXTERN_ENGINE)
#define MG_ENGINE_TEMPLATE(...) extern template __VA_ARGS__;
#else
#define MG_ENGINE_TEMPLATE(...)
#endif
