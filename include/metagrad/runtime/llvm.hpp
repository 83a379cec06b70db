#pragma once
// The CPU device's compiler and loader (tinygrad's split: a compiler makes bytes, a runtime loads them).
//   mg::llvm::compile(ir, name)         LLVM IR text -> an object file for the host CPU, at O2
//   mg::llvm::compile_cached(ir, name)  the same, through the disk cache
//   mg::llvm::Jit::instance().load(object, symbol) -> the symbol's address in the process
// libLLVM 19 is opened with dlopen (runtime/llvm_api.hpp), so nothing here needs link flags.
// A kernel LLVM rejects raises mg::Error with LLVM's message and the source; nothing crashes or leaks.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "../core/mutex.hpp"
#include "../core/error.hpp"
#include "disk_cache.hpp"
#include "llvm_api.hpp"

namespace mg::llvm {

// What the renderer's wrapper function is called as: bufs[i] is PARAM slot i's buffer, vals[j] the
// value of Program::vars[j] (codegen/program.hpp).
using KernelFn = void (*)(void** bufs, const std::int64_t* vals);

// The host as LLVM sees it; objects are compiled for exactly this (AVX-512 where the CPU has it).
struct HostTarget {
  std::string triple, cpu, features, llvm_version;
};

namespace detail {
using namespace mg::detail::llvmc;

// runs f at scope exit: every LLVM object is disposed on every path, throwing ones included
template <class F>
struct Defer {
  F f;
  ~Defer() { f(); }
};
template <class F>
Defer(F) -> Defer<F>;

// an LLVM-allocated message as a std::string, freed
template <class = void> std::string take_message(const Api& api, char* m) {
  std::string s = m ? m : "";
  if (m) api.LLVMDisposeMessage(m);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}
template <class = void> std::string take_error(const Api& api, ErrorRef e) {
  char* m = api.LLVMGetErrorMessage(e);  // consumes e
  std::string s = m ? m : "";
  if (m) api.LLVMDisposeErrorMessage(m);
  return s;
}

struct Host {
  HostTarget info;
  TargetRef target = nullptr;
};
template <class = void> const Host& host() {
  static const Host h = [] {
    const Api& api = libllvm();
    Host r;
    r.info.triple = take_message(api, api.LLVMGetDefaultTargetTriple());
    r.info.cpu = take_message(api, api.LLVMGetHostCPUName());
    r.info.features = take_message(api, api.LLVMGetHostCPUFeatures());
    unsigned major = 0, minor = 0, patch = 0;
    api.LLVMGetVersion(&major, &minor, &patch);
    r.info.llvm_version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    char* err = nullptr;
    if (api.LLVMGetTargetFromTriple(r.info.triple.c_str(), &r.target, &err))
      throw Error("CPU device: LLVM has no target for " + r.info.triple + ": " + take_message(api, err));
    take_message(api, err);
    return r;
  }();
  return h;
}

// LLVM reports some errors (e.g. from instruction selection) to the context's diagnostic handler,
// whose default prints and calls exit(1); collecting them keeps the process alive.
struct Diagnostics {
  const Api* api;
  std::string errors;
  static void handle(DiagnosticInfoRef di, void* self) {
    auto& d = *static_cast<Diagnostics*>(self);
    if (d.api->LLVMGetDiagInfoSeverity(di) != DSError) return;
    d.errors += (d.errors.empty() ? "" : "\n") + take_message(*d.api, d.api->LLVMGetDiagInfoDescription(di));
  }
};

[[noreturn]] inline void fail(const std::string& message, const std::string& ir) {
  throw Error("LLVM: " + message + "\n--- source ---\n" + ir);
}
}  // namespace detail

template <class = void> const HostTarget& host_target() { return detail::host().info; }

namespace detail {
// set once a compile() has finished. ThreadSanitizer saw libLLVM make a lock of its pass timers on first
// use while another thread used it, so the first compile of a process runs alone (the engine's parallel
// compiles wait for it); after that, compiles on separate contexts run on several threads at once
template <class = void> std::atomic<bool>& warmed_flag() {
  static std::atomic<bool> f = false;
  return f;
}
}  // namespace detail
// some compile() has run to its end in this process, so others may run on several threads at once
template <class = void> bool warmed_up() { return detail::warmed_flag().load(std::memory_order_acquire); }

// LLVM IR text -> object file bytes for the host: parse, verify, the new pass manager's default<O2>
// pipeline, then codegen at the aggressive level with PIC relocations. `name` labels the module in
// LLVM's messages. Throws mg::Error("LLVM: <message>\n--- source ---\n<ir>") when LLVM rejects it.
// (Everything here is a template, so that only a translation unit that compiles kernels compiles it.)
template <class = void> std::string compile(const std::string& ir, const std::string& name) {
  using namespace detail;
  const Api& api = libllvm();
  const Host& h = host();
  ContextRef ctx = api.LLVMContextCreate();
  Defer ctx_guard{[&] { api.LLVMContextDispose(ctx); }};
  Diagnostics diags{&api, {}};
  api.LLVMContextSetDiagnosticHandler(ctx, &Diagnostics::handle, &diags);
  auto check_diags = [&] {
    if (!diags.errors.empty()) fail(diags.errors, ir);
  };

  // the parser takes the buffer; std::string's data is null terminated as LLVM's lexer wants
  MemoryBufferRef src = api.LLVMCreateMemoryBufferWithMemoryRange(ir.c_str(), ir.size(), name.c_str(), 1);
  ModuleRef mod = nullptr;
  char* err = nullptr;
  if (api.LLVMParseIRInContext(ctx, src, &mod, &err)) fail(take_message(api, err), ir);
  take_message(api, err);
  Defer mod_guard{[&] { api.LLVMDisposeModule(mod); }};  // before ctx_guard runs: the module lives in ctx
  check_diags();

  err = nullptr;
  const bool broken = api.LLVMVerifyModule(mod, ReturnStatusAction, &err);
  std::string verify_message = take_message(api, err);
  if (broken) fail(verify_message.empty() ? "the module does not verify" : verify_message, ir);

  TargetMachineRef tm =
      api.LLVMCreateTargetMachine(h.target, h.info.triple.c_str(), h.info.cpu.c_str(), h.info.features.c_str(),
                                  CodeGenLevelAggressive, RelocPIC, CodeModelDefault);
  if (!tm) fail("cannot create a target machine for " + h.info.triple + " (" + h.info.cpu + ")", ir);
  Defer tm_guard{[&] { api.LLVMDisposeTargetMachine(tm); }};
  api.LLVMSetTarget(mod, h.info.triple.c_str());
  TargetDataRef layout = api.LLVMCreateTargetDataLayout(tm);
  api.LLVMSetModuleDataLayout(mod, layout);
  api.LLVMDisposeTargetData(layout);

  PassBuilderOptionsRef opts = api.LLVMCreatePassBuilderOptions();
  Defer opts_guard{[&] { api.LLVMDisposePassBuilderOptions(opts); }};
  // as tinygrad: the vectorizers and the unroller on, as clang has them at -O2
  api.LLVMPassBuilderOptionsSetLoopUnrolling(opts, 1);
  api.LLVMPassBuilderOptionsSetLoopVectorization(opts, 1);
  api.LLVMPassBuilderOptionsSetSLPVectorization(opts, 1);
  if (ErrorRef e = api.LLVMRunPasses(mod, "default<O2>", tm, opts)) fail(take_error(api, e), ir);
  check_diags();

  MemoryBufferRef obj = nullptr;
  err = nullptr;
  if (api.LLVMTargetMachineEmitToMemoryBuffer(tm, mod, ObjectFile, &err, &obj)) {
    if (obj) api.LLVMDisposeMemoryBuffer(obj);
    fail(take_message(api, err), ir);
  }
  take_message(api, err);
  Defer obj_guard{[&] { api.LLVMDisposeMemoryBuffer(obj); }};
  check_diags();
  std::string out(api.LLVMGetBufferStart(obj), api.LLVMGetBufferSize(obj));
  detail::warmed_flag().store(true, std::memory_order_release);
  return out;
}

// One ORC LLJIT for the process, made on first use. Each loaded object goes into a JITDylib of its
// own (kernels of different sources may share a name) that also sees the process's symbols, so
// libcalls LLVM lowers intrinsics to (memset, __truncsfhf2, ...) resolve. Loading the same object
// and symbol again returns the same address; a kernel lives until the process ends or until
// release() has been called as many times as load(). (Jit is JitT<>: a template, instantiated only
// by a translation unit that loads kernels.)
template <class = void>
class JitT {
 public:
  static JitT& instance() {
    // never destroyed: kernels may still run while other statics are torn down at exit
    static JitT* jit = new JitT();
    return *jit;
  }

  void* load(const std::string& object, const std::string& symbol) {
    using namespace detail;
    mg::detail::LockGuard lock(mu_);
    const std::string key = mg::detail::hash_hex(object) + ":" + symbol;
    if (auto it = loaded_.find(key); it != loaded_.end()) {
      ++it->second.refs;
      return it->second.fn;
    }
    const Api& api = *api_;
    const std::string jd_name = "mg_kernel_" + std::to_string(next_id_++);
    JITDylibRef jd = api.LLVMOrcExecutionSessionCreateBareJITDylib(es_, jd_name.c_str());
    DefinitionGeneratorRef gen = nullptr;
    if (ErrorRef e = api.LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
            &gen, api.LLVMOrcLLJITGetGlobalPrefix(jit_), nullptr, nullptr))
      throw Error("CPU device: cannot make the process's symbols visible to kernels: " + take_error(api, e));
    api.LLVMOrcJITDylibAddGenerator(jd, gen);  // the JITDylib owns it now
    ResourceTrackerRef rt = api.LLVMOrcJITDylibCreateResourceTracker(jd);
    auto drop = [&] {
      if (ErrorRef e = api.LLVMOrcResourceTrackerRemove(rt)) api.LLVMConsumeError(e);
      api.LLVMOrcReleaseResourceTracker(rt);
    };
    // the JIT takes the buffer, on failure too
    MemoryBufferRef buf = api.LLVMCreateMemoryBufferWithMemoryRangeCopy(object.data(), object.size(), jd_name.c_str());
    if (ErrorRef e = api.LLVMOrcLLJITAddObjectFileWithRT(jit_, rt, buf)) {
      const std::string msg = take_error(api, e);
      drop();
      throw Error("CPU device: cannot load the object for " + symbol + ": " + msg);
    }
    std::string msg;
    const ExecutorAddress addr = lookup(jd, symbol, msg);
    if (!addr) {
      drop();
      throw Error("CPU device: cannot find symbol " + symbol + " in its kernel object: " + msg);
    }
    void* fn = reinterpret_cast<void*>(addr);
    loaded_[key] = Loaded{fn, rt, 1};
    key_of_[fn] = key;
    return fn;
  }

  // Frees the kernel at fn once every load of it has been released; an unknown fn is an error.
  void release(void* fn) {
    mg::detail::LockGuard lock(mu_);
    auto k = key_of_.find(fn);
    if (k == key_of_.end()) throw Error("CPU device: release of a kernel address the JIT did not load");
    auto it = loaded_.find(k->second);
    if (--it->second.refs > 0) return;
    if (detail::ErrorRef e = api_->LLVMOrcResourceTrackerRemove(it->second.rt)) api_->LLVMConsumeError(e);
    api_->LLVMOrcReleaseResourceTracker(it->second.rt);
    loaded_.erase(it);
    key_of_.erase(k);
  }

  std::size_t loaded_count() {
    mg::detail::LockGuard lock(mu_);
    return loaded_.size();
  }

 private:
  struct Loaded {
    void* fn;
    detail::ResourceTrackerRef rt;
    int refs;
  };

  JitT() : api_(&detail::libllvm()) {
    detail::host();  // the native target is initialized before LLJIT detects the host
    if (detail::ErrorRef e = api_->LLVMOrcCreateLLJIT(&jit_, nullptr))
      throw Error("CPU device: cannot create LLVM's JIT: " + detail::take_error(*api_, e));
    es_ = api_->LLVMOrcLLJITGetExecutionSession(jit_);
    api_->LLVMOrcExecutionSessionSetErrorReporter(es_, &JitT::report, this);
  }

  // ORC reports linking failures both to the lookup and to the session; keep the session's words
  // for the lookup's message instead of letting ORC print them to stderr
  static void report(void* self, detail::ErrorRef e) {
    auto& jit = *static_cast<JitT*>(self);
    std::string msg = detail::take_error(*jit.api_, e);
    mg::detail::LockGuard lock(jit.report_mu_);
    jit.session_errors_ += (jit.session_errors_.empty() ? "" : "; ") + msg;
  }

  // ORC's lookup answers through a callback, maybe on another thread; wait for it. The result is shared
  // with the callback, which may still be inside notify_all() when the wait returns. (An atomic's
  // wait/notify rather than a condition_variable: <condition_variable> costs every includer of
  // metagrad.hpp noticeable compile time.)
  detail::ExecutorAddress lookup(detail::JITDylibRef jd, const std::string& symbol, std::string& msg) {
    using namespace detail;
    struct Result {
      const Api* api = nullptr;
      std::atomic<bool> done{false};
      ExecutorAddress addr = 0;
      std::string error;
    };
    auto shared = std::make_shared<Result>();
    shared->api = api_;
    {
      mg::detail::LockGuard l(report_mu_);
      session_errors_.clear();
    }
    SearchOrderElement order[] = {{jd, MatchAllSymbols}};
    // the lookup owns the interned name from here on
    LookupSetElement names[] = {{api_->LLVMOrcLLJITMangleAndIntern(jit_, symbol.c_str()), RequiredSymbol}};
    api_->LLVMOrcExecutionSessionLookup(
        es_, LookupKindStatic, order, 1, names, 1,
        [](ErrorRef e, SymbolMapPair* syms, std::size_t n, void* ctx) {
          const std::unique_ptr<std::shared_ptr<Result>> hold(static_cast<std::shared_ptr<Result>*>(ctx));
          Result& r = **hold;
          if (e)
            r.error = take_error(*r.api, e);
          else if (n > 0)
            r.addr = syms[0].sym.address;
          r.done.store(true, std::memory_order_release);
          r.done.notify_all();
        },
        new std::shared_ptr<Result>(shared));
    const Result& res = *shared;
    res.done.wait(false, std::memory_order_acquire);
    msg = res.error;
    mg::detail::LockGuard rl(report_mu_);
    if (!session_errors_.empty() && msg.find(session_errors_) == std::string::npos)
      msg += (msg.empty() ? "" : "; ") + session_errors_;
    return res.addr;
  }

  const detail::Api* api_;
  detail::LLJITRef jit_ = nullptr;
  detail::ExecutionSessionRef es_ = nullptr;
  mg::detail::Mutex mu_, report_mu_;
  std::string session_errors_;
  std::uint64_t next_id_ = 0;
  std::map<std::string, Loaded> loaded_;
  std::map<void*, std::string> key_of_;
};
using Jit = JitT<>;

namespace detail {
// the disk cache key of a source: the object is only right for this LLVM and this exact host CPU
template <class = void> std::string object_cache_key(const std::string& ir, const std::string& name) {
  const HostTarget& h = host_target();
  return mg::detail::hash_hex(h.llvm_version + "\n" + h.triple + "\n" + h.cpu + "\n" + h.features + "\n" + name + "\n" +
                              ir);
}
}  // namespace detail

// compile() through the disk cache (table "llvm"; CACHELEVEL=0 turns it off). A truncated or corrupt
// file reads as a miss and is rewritten. There is no in-memory layer: the engine keeps each kernel it
// compiled, keyed by its AST.
template <class = void> std::string compile_cached(const std::string& ir, const std::string& name) {
  const std::string key = detail::object_cache_key(ir, name);
  if (std::optional<std::string> hit = disk_cache_get("llvm", key)) return std::move(*hit);
  std::string obj = compile(ir, name);
  disk_cache_put("llvm", key, obj);
  return obj;
}

}  // namespace mg::llvm
