#pragma once
// The part of LLVM's C API (llvm-c/, stable in LLVM 19) that the CPU runtime uses, opened at run time
// with dlopen as tinygrad does through ctypes: a program that includes metagrad builds with plain
// `g++ -std=c++20` and links nothing, LLVM's headers are never on the user's include path, and a machine
// without libLLVM gets an error naming the Debian package instead of a link failure.
// The opaque ref types are pointers and the enums plain ints in the C ABI, so declaring them here
// matches the library exactly.
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "../core/mutex.hpp"
#include "../core/error.hpp"

namespace mg::detail::llvmc {

using Bool = int;
using ContextRef = struct OpaqueContext*;
using ModuleRef = struct OpaqueModule*;
using MemoryBufferRef = struct OpaqueMemoryBuffer*;
using DiagnosticInfoRef = struct OpaqueDiagnosticInfo*;
using ErrorRef = struct OpaqueError*;
using TargetRef = struct OpaqueTarget*;
using TargetMachineRef = struct OpaqueTargetMachine*;
using TargetDataRef = struct OpaqueTargetData*;
using PassBuilderOptionsRef = struct OpaquePassBuilderOptions*;
using LLJITRef = struct OpaqueLLJIT*;
using LLJITBuilderRef = struct OpaqueLLJITBuilder*;
using ExecutionSessionRef = struct OpaqueExecutionSession*;
using JITDylibRef = struct OpaqueJITDylib*;
using ResourceTrackerRef = struct OpaqueResourceTracker*;
using DefinitionGeneratorRef = struct OpaqueDefinitionGenerator*;
using SymbolStringPoolEntryRef = struct OpaqueSymbolStringPoolEntry*;
using ExecutorAddress = std::uint64_t;

using DiagnosticHandler = void (*)(DiagnosticInfoRef, void*);
using SymbolPredicate = int (*)(void*, SymbolStringPoolEntryRef);
using ErrorReporter = void (*)(void*, ErrorRef);

enum DiagnosticSeverity : int { DSError, DSWarning, DSRemark, DSNote };
enum VerifierFailureAction : int { AbortProcessAction, PrintMessageAction, ReturnStatusAction };
enum CodeGenOptLevel : int { CodeGenLevelNone, CodeGenLevelLess, CodeGenLevelDefault, CodeGenLevelAggressive };
enum RelocMode : int { RelocDefault, RelocStatic, RelocPIC };
enum CodeModel : int { CodeModelDefault, CodeModelJITDefault };
enum CodeGenFileType : int { AssemblyFile, ObjectFile };
enum LookupKind : int { LookupKindStatic, LookupKindDLSym };
enum JITDylibLookupFlags : int { MatchExportedSymbolsOnly, MatchAllSymbols };
enum SymbolLookupFlags : int { RequiredSymbol, WeaklyReferencedSymbol };

struct JITSymbolFlags {
  std::uint8_t generic, target;
};
struct EvaluatedSymbol {
  ExecutorAddress address;
  JITSymbolFlags flags;
};
struct SymbolMapPair {
  SymbolStringPoolEntryRef name;
  EvaluatedSymbol sym;
};
struct SearchOrderElement {
  JITDylibRef jd;
  JITDylibLookupFlags flags;
};
struct LookupSetElement {
  SymbolStringPoolEntryRef name;
  SymbolLookupFlags flags;
};
using LookupHandleResult = void (*)(ErrorRef, SymbolMapPair*, std::size_t, void*);

// X(name, return type, parameter types...): every function the runtime calls, resolved by name.
// The target initializers are the host's (LLVMInitializeNativeTarget is a static inline in llvm-c).
#if defined(__x86_64__)
#define MG_LLVM_TARGET "X86"
#elif defined(__aarch64__)
#define MG_LLVM_TARGET "AArch64"
#else
#define MG_LLVM_TARGET ""  // open_libllvm says so at run time; including this header still works
#endif
#define MG_LLVM_API(X)                                                                                                 \
  X(LLVMContextCreate, ContextRef)                                                                                     \
  X(LLVMContextDispose, void, ContextRef)                                                                              \
  X(LLVMContextSetDiagnosticHandler, void, ContextRef, DiagnosticHandler, void*)                                       \
  X(LLVMGetDiagInfoDescription, char*, DiagnosticInfoRef)                                                              \
  X(LLVMGetDiagInfoSeverity, DiagnosticSeverity, DiagnosticInfoRef)                                                    \
  X(LLVMDisposeMessage, void, char*)                                                                                   \
  X(LLVMCreateMemoryBufferWithMemoryRange, MemoryBufferRef, const char*, std::size_t, const char*, Bool)               \
  X(LLVMCreateMemoryBufferWithMemoryRangeCopy, MemoryBufferRef, const char*, std::size_t, const char*)                 \
  X(LLVMGetBufferStart, const char*, MemoryBufferRef)                                                                  \
  X(LLVMGetBufferSize, std::size_t, MemoryBufferRef)                                                                   \
  X(LLVMDisposeMemoryBuffer, void, MemoryBufferRef)                                                                    \
  X(LLVMParseIRInContext, Bool, ContextRef, MemoryBufferRef, ModuleRef*, char**)                                       \
  X(LLVMVerifyModule, Bool, ModuleRef, VerifierFailureAction, char**)                                                  \
  X(LLVMDisposeModule, void, ModuleRef)                                                                                \
  X(LLVMSetTarget, void, ModuleRef, const char*)                                                                       \
  X(LLVMSetModuleDataLayout, void, ModuleRef, TargetDataRef)                                                           \
  X(LLVMGetErrorMessage, char*, ErrorRef)                                                                              \
  X(LLVMDisposeErrorMessage, void, char*)                                                                              \
  X(LLVMGetDefaultTargetTriple, char*)                                                                                 \
  X(LLVMGetHostCPUName, char*)                                                                                         \
  X(LLVMGetHostCPUFeatures, char*)                                                                                     \
  X(LLVMGetTargetFromTriple, Bool, const char*, TargetRef*, char**)                                                    \
  X(LLVMCreateTargetMachine, TargetMachineRef, TargetRef, const char*, const char*, const char*, CodeGenOptLevel,      \
    RelocMode, CodeModel)                                                                                              \
  X(LLVMDisposeTargetMachine, void, TargetMachineRef)                                                                  \
  X(LLVMCreateTargetDataLayout, TargetDataRef, TargetMachineRef)                                                       \
  X(LLVMDisposeTargetData, void, TargetDataRef)                                                                        \
  X(LLVMTargetMachineEmitToMemoryBuffer, Bool, TargetMachineRef, ModuleRef, CodeGenFileType, char**, MemoryBufferRef*) \
  X(LLVMCreatePassBuilderOptions, PassBuilderOptionsRef)                                                               \
  X(LLVMDisposePassBuilderOptions, void, PassBuilderOptionsRef)                                                        \
  X(LLVMPassBuilderOptionsSetLoopUnrolling, void, PassBuilderOptionsRef, Bool)                                         \
  X(LLVMPassBuilderOptionsSetLoopVectorization, void, PassBuilderOptionsRef, Bool)                                     \
  X(LLVMPassBuilderOptionsSetSLPVectorization, void, PassBuilderOptionsRef, Bool)                                      \
  X(LLVMRunPasses, ErrorRef, ModuleRef, const char*, TargetMachineRef, PassBuilderOptionsRef)                          \
  X(LLVMOrcCreateLLJIT, ErrorRef, LLJITRef*, LLJITBuilderRef)                                                          \
  X(LLVMOrcLLJITGetExecutionSession, ExecutionSessionRef, LLJITRef)                                                    \
  X(LLVMOrcLLJITGetGlobalPrefix, char, LLJITRef)                                                                       \
  X(LLVMOrcLLJITMangleAndIntern, SymbolStringPoolEntryRef, LLJITRef, const char*)                                      \
  X(LLVMOrcLLJITAddObjectFileWithRT, ErrorRef, LLJITRef, ResourceTrackerRef, MemoryBufferRef)                          \
  X(LLVMOrcExecutionSessionCreateBareJITDylib, JITDylibRef, ExecutionSessionRef, const char*)                          \
  X(LLVMOrcExecutionSessionLookup, void, ExecutionSessionRef, LookupKind, SearchOrderElement*, std::size_t,            \
    LookupSetElement*, std::size_t, LookupHandleResult, void*)                                                         \
  X(LLVMOrcJITDylibCreateResourceTracker, ResourceTrackerRef, JITDylibRef)                                             \
  X(LLVMOrcJITDylibAddGenerator, void, JITDylibRef, DefinitionGeneratorRef)                                            \
  X(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess, ErrorRef, DefinitionGeneratorRef*, char, SymbolPredicate,    \
    void*)                                                                                                             \
  X(LLVMOrcResourceTrackerRemove, ErrorRef, ResourceTrackerRef)                                                        \
  X(LLVMOrcReleaseResourceTracker, void, ResourceTrackerRef)                                                           \
  X(LLVMOrcExecutionSessionSetErrorReporter, void, ExecutionSessionRef, ErrorReporter, void*)                          \
  X(LLVMConsumeError, void, ErrorRef)                                                                                  \
  X(LLVMGetVersion, void, unsigned*, unsigned*, unsigned*)

// The functions, as pointers filled by dlsym.
struct Api {
#define MG_LLVM_FIELD(name, ret, ...) ret (*name)(__VA_ARGS__) = nullptr;
  MG_LLVM_API(MG_LLVM_FIELD)
#undef MG_LLVM_FIELD
  void (*init_target_info)() = nullptr;
  void (*init_target)() = nullptr;
  void (*init_target_mc)() = nullptr;
  void (*init_asm_printer)() = nullptr;
  void (*init_asm_parser)() = nullptr;  // inline asm in a kernel goes through the integrated assembler
  void* handle = nullptr;
  std::string path;  // the library that was opened, for messages
};

template <class = void> void* resolve(void* handle, const char* name, const std::string& path) {
  ::dlerror();
  void* p = ::dlsym(handle, name);
  if (!p) throw Error("CPU device: " + path + " has no symbol " + name + ": it is not LLVM 19's libLLVM");
  return p;
}

// Opens libLLVM at `path` (a file name dlopen searches for, or a path) and resolves every function;
// throws naming what failed. The handle is never closed: compiled kernels and LLVM's own statics
// live until the process ends.
template <class = void> Api open_libllvm(const std::string& path) {
  Api api;
  api.path = path;
  if (!*MG_LLVM_TARGET) throw Error("CPU device: metagrad knows the LLVM target of x86-64 and AArch64 hosts only");
  api.handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api.handle) {
    const char* why = ::dlerror();
    throw Error("CPU device: " + (why ? std::string(why) : path + ": dlopen failed"));
  }
  try {
#define MG_LLVM_RESOLVE(name, ...) api.name = reinterpret_cast<decltype(api.name)>(resolve(api.handle, #name, path));
    MG_LLVM_API(MG_LLVM_RESOLVE)
#undef MG_LLVM_RESOLVE
    auto init = [&](const char* what) {
      const std::string name = std::string("LLVMInitialize") + MG_LLVM_TARGET + what;
      return reinterpret_cast<void (*)()>(resolve(api.handle, name.c_str(), path));
    };
    api.init_target_info = init("TargetInfo");
    api.init_target = init("Target");
    api.init_target_mc = init("TargetMC");
    api.init_asm_printer = init("AsmPrinter");
    api.init_asm_parser = init("AsmParser");
  } catch (...) {
    ::dlclose(api.handle);
    throw;
  }
  return api;
}

// The names Debian's llvm-19 ships libLLVM under; MG_LIBLLVM, when set, is the only one tried.
inline constexpr const char* libllvm_names[] = {"libLLVM.so.19.1", "libLLVM-19.so",
                                                "/usr/lib/llvm-19/lib/libLLVM.so.19.1",
                                                "/usr/lib/x86_64-linux-gnu/libLLVM.so.19.1", "libLLVM.so.1"};

// Finds libLLVM: only `override_path` when given (MG_LIBLLVM), else Debian's names in turn. The error
// names every path tried, why each failed, and the package to install.
template <class = void> Api find_libllvm(const char* override_path) {
  std::string tried;
  auto attempt = [&](const std::string& path, Api& out) {
    try {
      out = open_libllvm(path);
      return true;
    } catch (const Error& e) {
      const std::string why = e.what();
      tried += (tried.empty() ? "" : "; ") + why.substr(why.find(": ") + 2);  // drop "CPU device: "
      return false;
    }
  };
  Api api;
  if (override_path && *override_path) {
    if (attempt(override_path, api)) return api;
  } else {
    for (const char* name : libllvm_names)
      if (attempt(name, api)) return api;
  }
  throw Error(std::string("CPU device: cannot load libLLVM 19 (tried ") +
              (override_path && *override_path ? "MG_LIBLLVM=" : "") + tried +
              "): install the Debian package libllvm19");
}

// The process's libLLVM, opened on first use and initialized for the host target. A failure is not
// remembered: installing the package (or fixing MG_LIBLLVM) and retrying works without a restart.
// (These are templates so that only a translation unit that compiles kernels compiles them.)
template <class = void> const Api& libllvm() {
  static detail::Mutex mu;
  static Api* api = nullptr;  // never freed: kernels may run until exit
  detail::LockGuard lock(mu);
  if (api) return *api;
  api = new Api(find_libllvm(std::getenv("MG_LIBLLVM")));
  api->init_target_info();
  api->init_target();
  api->init_target_mc();
  api->init_asm_printer();
  api->init_asm_parser();
  return *api;
}

}  // namespace mg::detail::llvmc

#undef MG_LLVM_API
#undef MG_LLVM_TARGET
