#pragma once
// MG_EXTERN_ENGINE: a program of many translation units can compile the engine once. The scheduler,
// codegen, the renderer, the runtimes, simplify and differentiation are function templates (so that a
// translation unit that never uses one compiles none of it); MG_ENGINE_TEMPLATE(declaration), written
// after each of their definitions, turns into
//  - an explicit instantiation in the one translation unit that defines MG_ENGINE_INSTANCE,
//  - an extern template declaration where MG_EXTERN_ENGINE is defined (the rest of the program),
//  - nothing otherwise (a single-file program instantiates what it uses).
// Without it a GCC -O2 test file that realizes tensors spends about two minutes compiling the engine
// again; with it, about 30 seconds (tests/meson.build does this, tests/engine/engine_instance.cpp).
#if defined(MG_ENGINE_INSTANCE)
#define MG_ENGINE_TEMPLATE(...) template __VA_ARGS__;
#elif defined(MG_EXTERN_ENGINE)
#define MG_ENGINE_TEMPLATE(...) extern template __VA_ARGS__;
#else
#define MG_ENGINE_TEMPLATE(...)
#endif
