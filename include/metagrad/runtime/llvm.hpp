#pragma once
// The CPU device's compiler and loader (tinygrad's split: a compiler makes bytes, a runtime loads them).
//   mg::llvm::compile(ir, name)         LLVM IR text -> an object file for the host CPU, at O2
//   mg::llvm::compile_cached(ir, name)  the same, through the disk cache
//   mg::llvm::Jit::instance().load(object, symbol) -> the symbol's address in the process
// libLLVM 19 is opened with dlopen (runtime/llvm_api.hpp), so nothing here needs link flags. It is
// opened only to compile: objects are linked by metagrad's own ELF loader (runtime/elf.hpp; ORC's
// LLJIT for an object that loader does not handle), and the disk cache's keys come from a record of
// the host target a previous process stored, so a program whose kernels are all in the disk cache
// never loads libLLVM.
// A kernel LLVM rejects raises mg::Error with LLVM's message and the source; nothing crashes or leaks.
#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "../core/mutex.hpp"
#include "../core/error.hpp"
#include "disk_cache.hpp"
#include "elf.hpp"
#include "llvm_api.hpp"

namespace mg::llvm {

// What the renderer's wrapper function is called as: bufs[i] is PARAM slot i's buffer, vals[j] the
// value of Program::vars[j] (codegen/program.hpp).
using KernelFn = void (*)(void** bufs, const std::int64_t* vals);

// The host as LLVM sees it; objects are compiled for exactly this (AVX-512 where the CPU has it).
struct HostTarget {
  std::string triple, cpu, features, llvm_version;
  friend bool operator==(const HostTarget&, const HostTarget&) = default;
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
// use while another thread used it, so compiles run one at a time until one has finished (compile()
// below); after that, compiles on separate contexts run on several threads at once
template <class = void> std::atomic<bool>& warmed_flag() {
  static std::atomic<bool> f = false;
  return f;
}
}  // namespace detail
// some compile() has run to its end in this process, so others may run on several threads at once
template <class = void> bool warmed_up() { return detail::warmed_flag().load(std::memory_order_acquire); }

namespace detail {
template <class = void> std::string compile_module(const std::string& ir, const std::string& name) {
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
}  // namespace detail

// LLVM IR text -> object file bytes for the host: parse, verify, the new pass manager's default<O2>
// pipeline, then codegen at the aggressive level with PIC relocations. `name` labels the module in
// LLVM's messages. Throws mg::Error("LLVM: <message>\n--- source ---\n<ir>") when LLVM rejects it.
// Thread-safe; the first compiles of a process wait for each other until one has finished.
// (Everything here is a template, so that only a translation unit that compiles kernels compiles it.)
template <class = void> std::string compile(const std::string& ir, const std::string& name) {
  if (warmed_up()) return detail::compile_module(ir, name);
  static mg::detail::Mutex first_mu;
  mg::detail::LockGuard lock(first_mu);
  return detail::compile_module(ir, name);
}

// How an object is linked into the process: metagrad's own ELF loader (runtime/elf.hpp: x86-64 objects,
// no libLLVM needed), ORC's LLJIT, or Auto: the ELF loader, and ORC for an object it does not handle
// (another machine, a relocation it does not know).
enum class Linker { Auto, Elf, Orc };

// The CPU device's loader of compiled kernels, one for the process. An object linked by the ELF loader
// gets a mapping of its own; one linked by ORC goes into a JITDylib of its own (kernels of different
// sources may share a name). Either way the process's symbols are visible, so libcalls LLVM lowers
// intrinsics to (memset, exp2f, ...) resolve. Loading the same object and symbol again returns the same
// address; a kernel lives until the process ends or until release() has been called as many times as
// load(). ORC's LLJIT (and with it libLLVM) is made only when an object needs it. (Jit is JitT<>: a
// template, instantiated only by a translation unit that loads kernels.)
template <class = void>
class JitT {
 public:
  static JitT& instance() {
    // never destroyed: kernels may still run while other statics are torn down at exit
    static JitT* jit = new JitT();
    return *jit;
  }

  void* load(const std::string& object, const std::string& symbol, Linker how = Linker::Auto) {
    using namespace detail;
    mg::detail::LockGuard lock(mu_);
    const std::string base_key = mg::detail::hash_hex(object) + ":" + symbol;
    for (Linker k : {Linker::Elf, Linker::Orc})
      if (how == Linker::Auto || how == k)
        if (auto it = loaded_.find(base_key + tag(k)); it != loaded_.end()) {
          ++it->second.refs;
          return it->second.fn;
        }
    if (how != Linker::Orc) {
      mg::detail::elf::Failure failure;
      if (std::optional<mg::detail::elf::Image> img = mg::detail::elf::link(object, failure)) {
        void* fn = img->symbol(symbol);
        if (!fn)
          throw Error("CPU device: cannot find symbol " + symbol + " in its kernel object: not found among its " +
                      std::to_string(img->symbol_count()) + " symbols");
        auto held = std::make_shared<mg::detail::elf::Image>(std::move(*img));
        return remember(base_key + tag(Linker::Elf), Loaded{fn, nullptr, std::move(held), 1});
      }
      if (how == Linker::Elf || !failure.unsupported)
        throw Error("CPU device: cannot load the object for " + symbol + ": " + failure.why);
    }
    return load_orc(object, symbol, base_key + tag(Linker::Orc));
  }

  // Frees the kernel at fn once every load of it has been released; an unknown fn is an error.
  void release(void* fn) {
    mg::detail::LockGuard lock(mu_);
    auto k = key_of_.find(fn);
    if (k == key_of_.end()) throw Error("CPU device: release of a kernel address the JIT did not load");
    auto it = loaded_.find(k->second);
    if (--it->second.refs > 0) return;
    if (it->second.rt) {
      if (detail::ErrorRef e = api_->LLVMOrcResourceTrackerRemove(it->second.rt)) api_->LLVMConsumeError(e);
      api_->LLVMOrcReleaseResourceTracker(it->second.rt);
    }
    loaded_.erase(it);  // an ELF image is unmapped here
    key_of_.erase(k);
  }

  std::size_t loaded_count() {
    mg::detail::LockGuard lock(mu_);
    return loaded_.size();
  }

 private:
  struct Loaded {
    void* fn;
    detail::ResourceTrackerRef rt;                   // ORC's
    std::shared_ptr<mg::detail::elf::Image> image;  // the ELF loader's
    int refs;
  };
  static const char* tag(Linker k) { return k == Linker::Orc ? ":orc" : ":elf"; }

  void* remember(const std::string& key, Loaded l) {
    void* fn = l.fn;
    loaded_[key] = std::move(l);
    key_of_[fn] = key;
    return fn;
  }

  // ORC's LLJIT, made on first use
  void start_orc() {
    if (jit_) return;
    api_ = &detail::libllvm();
    detail::host();  // the native target is initialized before LLJIT detects the host
    if (detail::ErrorRef e = api_->LLVMOrcCreateLLJIT(&jit_, nullptr))
      throw Error("CPU device: cannot create LLVM's JIT: " + detail::take_error(*api_, e));
    es_ = api_->LLVMOrcLLJITGetExecutionSession(jit_);
    api_->LLVMOrcExecutionSessionSetErrorReporter(es_, &JitT::report, this);
  }

  void* load_orc(const std::string& object, const std::string& symbol, const std::string& key) {
    using namespace detail;
    start_orc();
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
    return remember(key, Loaded{reinterpret_cast<void*>(addr), rt, nullptr, 1});
  }

  JitT() = default;

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

  const detail::Api* api_ = nullptr;
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
// What identifies the host's compile target without asking LLVM, as a hash: on x86-64, the CPU's
// identification and feature words (cpuid; the APIC id is left out) and the register state the OS
// enables (xgetbv), from which LLVM derives its host CPU name and features; and the libLLVM files
// that could be opened (path, size, time), so that a new LLVM reads as a new host. Empty on other
// machines: their cache keys ask LLVM.
template <class = void> std::string host_fingerprint() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  std::string s = "x86-64";
  auto cpuid = [](std::uint32_t leaf, std::uint32_t sub, std::uint32_t r[4]) {
    __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
  };
  auto add = [&](std::uint32_t v) { s += " " + std::to_string(v); };
  std::uint32_t r[4];
  cpuid(0, 0, r);
  const std::uint32_t max_leaf = r[0];
  add(r[0]), add(r[1]), add(r[2]), add(r[3]);  // the vendor
  cpuid(1, 0, r);
  add(r[0]), add(r[2]), add(r[3]);  // family, model, stepping; feature words (r[1] holds the APIC id)
  const bool osxsave = (r[2] >> 27) & 1;
  for (std::uint32_t sub = 0; max_leaf >= 7 && sub < 2; ++sub) {
    cpuid(7, sub, r);
    add(r[0]), add(r[1]), add(r[2]), add(r[3]);
  }
  if (max_leaf >= 0xd) cpuid(0xd, 1, r), add(r[0]);
  if (max_leaf >= 0x14) cpuid(0x14, 0, r), add(r[1]);
  cpuid(0x80000000u, 0, r);
  const std::uint32_t max_ext = r[0];
  for (std::uint32_t leaf = 0x80000001u; leaf <= std::min(max_ext, 0x80000004u); ++leaf) {
    cpuid(leaf, 0, r);
    add(r[0]), add(r[1]), add(r[2]), add(r[3]);  // extended features, then the brand string
  }
  if (max_ext >= 0x80000008u) cpuid(0x80000008u, 0, r), add(r[1]);
  if (osxsave) {
    std::uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    add(lo), add(hi);
  }
  const char* override_path = std::getenv("MG_LIBLLVM");
  s += std::string("\nMG_LIBLLVM=") + (override_path ? override_path : "");
  for (const char* name : mg::detail::llvmc::libllvm_names) {
    struct stat st;
    if (name[0] == '/' && ::stat(name, &st) == 0)
      s += std::string("\n") + name + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
  }
  return mg::detail::hash_hex(s);
#else
  return {};
#endif
}

template <class = void> std::string host_record(const HostTarget& h) {
  return h.llvm_version + "\n" + h.triple + "\n" + h.cpu + "\n" + h.features;
}
template <class = void> std::optional<HostTarget> parse_host_record(const std::string& s) {
  HostTarget h;
  std::string* fields[] = {&h.llvm_version, &h.triple, &h.cpu, &h.features};
  std::size_t at = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::size_t end = i < 3 ? s.find('\n', at) : s.size();
    if (end == std::string::npos) return std::nullopt;
    *fields[i] = s.substr(at, end - at);
    at = end + 1;
  }
  if (h.llvm_version.empty() || h.triple.empty() || h.cpu.empty()) return std::nullopt;
  return h;
}

// The host target the disk cache's keys are made of, fixed for the process on first use: the record a
// previous process stored under this host's fingerprint (table "llvm-host"), so that looking up a cached
// kernel does not load libLLVM; without one, LLVM's answer (libLLVM loaded now), stored for the next
// process. compile_cached() corrects a record LLVM contradicts.
struct KeyHost {
  mg::detail::Mutex mu;
  std::optional<HostTarget> host;
};
template <class = void> KeyHost& key_host_slot() {
  static KeyHost k;
  return k;
}
template <class = void> HostTarget key_host() {
  KeyHost& k = key_host_slot();
  mg::detail::LockGuard lock(k.mu);
  if (k.host) return *k.host;
  const std::string fp = host_fingerprint();
  if (!fp.empty())
    if (std::optional<std::string> rec = disk_cache_get("llvm-host", fp))
      if ((k.host = parse_host_record(*rec))) return *k.host;
  k.host = host_target();
  if (!fp.empty()) disk_cache_put("llvm-host", fp, host_record(*k.host));
  return *k.host;
}
// LLVM's answer differs from the record the keys were made from: store LLVM's, and key with it from now on
template <class = void> void correct_key_host(const HostTarget& h) {
  KeyHost& k = key_host_slot();
  mg::detail::LockGuard lock(k.mu);
  k.host = h;
  if (const std::string fp = host_fingerprint(); !fp.empty()) disk_cache_put("llvm-host", fp, host_record(h));
}

// the disk cache key of a source: the object is only right for this LLVM and this exact host CPU
template <class = void> std::string object_cache_key(const HostTarget& h, const std::string& ir, const std::string& name) {
  return mg::detail::hash_hex(h.llvm_version + "\n" + h.triple + "\n" + h.cpu + "\n" + h.features + "\n" + name + "\n" +
                              ir);
}
template <class = void> std::string object_cache_key(const std::string& ir, const std::string& name) {
  return object_cache_key(key_host(), ir, name);
}
}  // namespace detail

// compile() through the disk cache (table "llvm"; CACHELEVEL=0 turns it off). A truncated or corrupt
// file reads as a miss and is rewritten. A hit needs no libLLVM (the key's host target comes from the
// disk cache too, detail::key_host). There is no in-memory layer: the engine keeps each kernel it
// compiled, keyed by its AST.
template <class = void> std::string compile_cached(const std::string& ir, const std::string& name) {
  if (!mg::detail::disk_cache_enabled()) return compile(ir, name);
  const HostTarget kh = detail::key_host();
  const std::string key = detail::object_cache_key(kh, ir, name);
  if (std::optional<std::string> hit = disk_cache_get("llvm", key)) return std::move(*hit);
  std::string obj = compile(ir, name);
  if (host_target() == kh)
    disk_cache_put("llvm", key, obj);
  else  // a stale record: this object was made for the host LLVM sees, not the one the key names
    detail::correct_key_host(host_target());
  return obj;
}

}  // namespace mg::llvm
