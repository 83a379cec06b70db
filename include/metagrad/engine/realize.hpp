#pragma once
// Running schedules (tinygrad's engine/realize.py): every kernel of a schedule is turned into a Program
// once (codegen), compiled once per device (the cache is keyed by the kernel AST, which is interned, so
// identical kernels share one entry), and run on its buffers.
//
// Devices, all keeping their buffers in host memory:
//   CPU     LLVM IR through ORC, kernels split over THREADS threads (default: all cores)
//   INTERP  the linear UOps interpreted (runtime/interp.hpp), the oracle for compiled backends
//   NULL    schedules and compiles (to linear UOps), runs nothing: for benchmarks of the compiler
// Memory: realize_uops runs the memory planner (engine/memory.hpp) on the schedule, so intermediates
// share an arena; a kernel's output is allocated without zeroing (every kernel writes its whole output),
// from the host allocator's cache of freed buffers (runtime/allocator.hpp, tinygrad's LRUAllocator).
// DEBUG (environment, read once): 2 prints a line per kernel run with its time, GFLOP/s and GB/s, 3 the
// kernel ASTs, 4 the generated source, 5 the linear UOps.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../core/extern_engine.hpp"
#include "../core/mutex.hpp"
#include "memory.hpp"
#include "worker_pool.hpp"
#include "../codegen/to_program.hpp"
#include "../core/clock.hpp"
#include "../core/env.hpp"
#include "../core/error.hpp"
#include "../core/uop_map.hpp"
#include "../render/llvmir.hpp"
#include "../runtime/interp.hpp"
#include "../runtime/llvm.hpp"
#include "../schedule/rangeify.hpp"
#include "../tensor/graph.hpp"

namespace mg {

enum class DeviceKind : std::uint8_t { CPU, INTERP, NULL_ };

// the kind of a device name ("CPU", "INTERP", "NULL"; a ":n" suffix names one of several)
template <class = void> DeviceKind device_kind(const std::string& device) {
  const std::string base = device.substr(0, device.find(':'));
  if (base == "CPU") return DeviceKind::CPU;
  if (base == "INTERP" || base == "PYTHON") return DeviceKind::INTERP;
  if (base == "NULL") return DeviceKind::NULL_;
  throw Error("unknown device " + device + " (known: CPU, INTERP, NULL)");
}

namespace detail {

template <class = void> std::int64_t debug_level() {
  static const std::int64_t d = getenv_int("DEBUG", 0);
  return d;
}

// the codegen target of a device kind (a template only so that a translation unit that never compiles a
// kernel does not instantiate the LLVM extra matcher it points to)
template <class = void> Target device_target(DeviceKind k) {
  if (k == DeviceKind::INTERP) return interp_target();
  Target t;
  t.device = k == DeviceKind::CPU ? "CPU" : "NULL";
  t.ops = llvm_supported_ops | llvm_intrinsic_ops;
  // llvmir.py's supported_dtypes(): no fp8, so codegen emulates them (NULL lowers kernels but never renders them: native)
  if (k == DeviceKind::CPU) t.supported_dtypes.remove(dtypes::fp8e4m3).remove(dtypes::fp8e5m2);
  t.extra_matcher = &detail::llvm_extra_rewrite<UOp>;
  // NULL picks opts as tinygrad's NULL device does: its renderer's defaults (float4 vectors, tinygrad's heuristic
  // alone, no threads), so its kernels have tinygrad's shapes (ops it lacks decompose as for LLVM, above). What
  // follows is metagrad's for the CPU it runs on.
  if (k == DeviceKind::NULL_) return t;
  t.unaligned_vectors = true;
  t.masked_loads = true;
  t.float_lanes = 8;
  t.register_blocking = true;
  t.partial_sums = 96;  // accumulators in at most 12 of the 16 AVX2 vector registers
  t.inputs_axis_outermost = true;
  t.threads = getenv_int("THREADS", cpu_count());
  if (t.threads < 1) throw Error("THREADS=" + std::to_string(t.threads) + ": must be at least 1");
  return t;
}

struct CompiledKernel {
  Program prog;
  using Fn = void (*)(void* const*, const std::int64_t*);
  Fn fn = nullptr;  // CPU: the kernel's <name>_call entry
};

template <class T = void>
class Engine {
 public:
  static Engine& instance() {
    static Engine* e = new Engine();  // never destroyed: kernels outlive other statics
    return *e;
  }

  // the compiled form of a kernel AST on a device kind (made on first use)
  std::shared_ptr<const CompiledKernel> get(const UOp& ast, DeviceKind k) {
    {
      detail::LockGuard lock(mu_);
      auto& c = cache_[std::size_t(k)];
      if (auto it = c.find(ast); it != c.end()) return it->second;
    }
    auto ck = std::make_shared<CompiledKernel>();
    if (debug_level() >= 3) std::printf("%s\n", ast.repr().c_str());
    ck->prog = to_program(ast, device_target(k));
    if (debug_level() >= 5)
      for (const UOp& u : ck->prog.uops) std::printf("%s %s %s\n", op_repr(u.op()).c_str(), u.dtype().repr().c_str(), u.arg().repr().c_str());
    if (k == DeviceKind::CPU) {
      const std::string ir = render_llvm(ck->prog);
      if (debug_level() >= 4) std::printf("%s\n", ir.c_str());
      const std::string obj = llvm::compile_cached(ir, ck->prog.name);
      ck->fn = reinterpret_cast<CompiledKernel::Fn>(llvm::Jit::instance().load(obj, ck->prog.name + "_call"));
    }
    detail::LockGuard lock(mu_);
    auto& c = cache_[std::size_t(k)];
    return c.try_emplace(ast, std::move(ck)).first->second;
  }

  void run(const Schedule& s) {
    precompile(s);
    for (const ScheduleItem& item : s.items) run_item(item);
  }
  // kernels run so far, copies included (tinygrad's GlobalCounters.kernel_count)
  std::int64_t kernel_count() const { return runs_.load(std::memory_order_relaxed); }

  std::size_t cached_kernels() {
    detail::LockGuard lock(mu_);
    std::size_t n = 0;
    for (const auto& c : cache_) n += c.size();
    return n;
  }

 private:
  detail::Mutex mu_;
  UOpMap<std::shared_ptr<const CompiledKernel>> cache_[3];  // per device kind, keyed by the kernel AST
  std::atomic<std::int64_t> runs_ = 0;

  // Compiles the CPU kernels of s that are not cached yet on the worker threads, before any runs: a first
  // step's kernels (a hundred or so) compile in parallel instead of one by one between the runs. Each LLVM
  // compile has a context of its own, and interning and the rewrite engines are thread-safe. A kernel that
  // fails to compile here is left out; run_item compiles it again and reports the error where it runs.
  void precompile(const Schedule& s) {
    std::vector<UOp> todo;
    {
      detail::LockGuard lock(mu_);
      const auto& c = cache_[std::size_t(DeviceKind::CPU)];
      for (const ScheduleItem& item : s.items)
        if (item.ast.op() != Ops::COPY && device_kind(item.device) == DeviceKind::CPU && !c.contains(item.ast) &&
            std::find(todo.begin(), todo.end(), item.ast) == todo.end())
          todo.push_back(item.ast);
    }
    // a step whose kernels are all cached (every step after the first) stops here, before reading THREADS
    if (todo.size() < 2) return;
    const std::int64_t threads = device_target(DeviceKind::CPU).threads;
    if (threads < 2) return;
    // (llvm::compile runs the first compiles of a process one at a time until one has finished)
    std::atomic<std::size_t> next = 0;
    auto task = [&](std::int64_t) {
      for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < todo.size();) try {
          get(todo[i], DeviceKind::CPU);
        } catch (...) {
        }
    };
    WorkerPool<T>::instance().run(std::min<std::int64_t>(threads, std::int64_t(todo.size())), task);
  }

  void run_item(const ScheduleItem& item) {
    const DeviceKind k = device_kind(item.device);
    const std::int64_t run = ++runs_;
    if (item.ast.op() == Ops::COPY) {  // every device keeps host memory: a copy is a memcpy
      if (k == DeviceKind::NULL_ || device_kind(item.bufs[1].src(1).arg().as_str()) == DeviceKind::NULL_) return;
      auto& dst = host_buffer(item.bufs[0], /*zero=*/false).bytes;  // written whole
      const auto& src = host_buffer(item.bufs[1]).bytes;
      if (dst.size() != src.size())
        throw Error("COPY: " + std::to_string(src.size()) + " bytes into a buffer of " + std::to_string(dst.size()));
      if (!src.empty()) std::memcpy(dst.data(), src.data(), src.size());
      return;
    }
    const std::shared_ptr<const CompiledKernel> ck = get(item.ast, k);
    if (k == DeviceKind::NULL_) return;
    const Program& p = ck->prog;
    std::vector<void*> bufs;
    for (std::size_t i = 0; i < item.bufs.size(); ++i) {
      // the output is written whole by the kernel (rangeify's stores cover the shape): no zeroing
      auto& bytes = host_buffer(item.bufs[i], /*zero=*/i != 0).bytes;
      bufs.push_back(bytes.data() + (item.offsets.empty() ? 0 : item.offsets[i]));
    }
    for (const UOp& prm : p.params)
      if (prm.arg().as_param().slot >= std::int64_t(bufs.size()))
        throw Error("kernel " + p.name + ": PARAM slot " + std::to_string(prm.arg().as_param().slot) + " but " + std::to_string(bufs.size()) + " buffers");
    std::vector<std::int64_t> vals(p.vars.size(), 0);
    const double t0 = monotonic_seconds();
    if (k == DeviceKind::INTERP) interp_run(p, bufs, vals);
    else run_threads(*ck, bufs, vals);
    if (debug_level() >= 2) {
      const double us = (monotonic_seconds() - t0) * 1e6;
      std::printf("*** %-6s %6lld %-32s arg %2zu  tm %10.2fus (%8.2f GFLOPS %8.2f GB/s)\n", item.device.c_str(),
                  static_cast<long long>(run), p.name.c_str(), bufs.size(), us, double(p.ops) / (us * 1e3), double(p.mem) / (us * 1e3));
    }
  }

  // runs a CPU kernel once per core_id (tinygrad's CPU device: one call per thread)
  static void run_threads(const CompiledKernel& ck, const std::vector<void*>& bufs, const std::vector<std::int64_t>& vals) {
    const int slot = ck.prog.core_id_slot();
    const std::int64_t n = slot < 0 ? 1 : ck.prog.threads;
    std::vector<std::vector<std::int64_t>> per(std::size_t(n), vals);
    auto task = [&](std::int64_t t) {
      if (slot >= 0) per[std::size_t(t)][std::size_t(slot)] = t;
      ck.fn(bufs.data(), per[std::size_t(t)].data());
    };
    if (n == 1) task(0);
    else WorkerPool<T>::instance().run(n, task);
  }
};

}  // namespace detail

// Runs every item of a schedule, in order. Not inline, so that MG_EXTERN_ENGINE can keep it out of a
// translation unit.
template <class T>
void run_schedule(const Schedule& s) {
  detail::Engine<T>::instance().run(s);
}

// Computes roots (tensor-graph nodes) on their devices; returns, for each root, the BUFFER holding its
// value (row-major in its shape; a root that is a BUFFER is returned as it is).
// Nodes with no device of their own (a bare CONST) compute on `device`.
template <class T = void>
std::vector<UOp> realize_uops(const std::vector<UOp>& roots, const std::string& device = "CPU") {
  Schedule s = create_schedule<void>(roots, device);
  memory_plan<T>(s);
  run_schedule<void>(s);
  return s.outputs;
}

// tinygrad's assign: computes roots as realize_uops does, the kernel of roots[i] storing into targets[i]
// (where not null: a BUFFER, or a view of one, see create_schedule_into), in place. Runs nothing and returns nullopt when that is not safe: every
// kernel must see the targets as they were, so a target may be written by one kernel only, read by no
// kernel after that one, and read by that one only at the element it writes (an elementwise update such
// as w - lr * g; tinygrad's fix_store_hazard computes the other cases into a temporary; so does the caller).
template <class T = void>
std::optional<std::vector<UOp>> realize_uops_into(const std::vector<UOp>& roots, const std::vector<UOp>& targets, const std::string& device = "CPU") {
  Schedule s = create_schedule_into<void>(roots, targets, device);
  for (std::size_t r = 0; r < roots.size(); ++r) {
    if (!targets[r]) continue;
    const UOp& t = detail::view_base(targets[r]);  // a view target's BUFFER
    if (s.outputs[r] != t) return std::nullopt;  // a buffer itself (a copy): no kernel stores it
    std::optional<std::size_t> writer;
    for (std::size_t k = 0; k < s.items.size(); ++k) {
      const ScheduleItem& item = s.items[k];
      const bool writes = item.bufs[0] == t, reads = std::find(item.bufs.begin() + 1, item.bufs.end(), t) != item.bufs.end();
      if ((writes || reads) && item.ast.op() != Ops::SINK) return std::nullopt;
      if (writes && writer) return std::nullopt;
      if (reads && writer && !writes) return std::nullopt;  // would read the new values
      if (writes) writer = k;
    }
    if (!writer) return std::nullopt;
    // the writer reads the target only at the index it stores at
    const ScheduleItem& w = s.items[*writer];
    std::vector<std::int64_t> slots;
    for (std::size_t i = 0; i < w.bufs.size(); ++i)
      if (w.bufs[i] == t) slots.push_back(std::int64_t(i));
    auto is_target = [&](const UOp& p) {
      return p.op() == Ops::PARAM && std::find(slots.begin(), slots.end(), p.arg().as_param().slot) != slots.end();
    };
    UOp store_idx;
    std::vector<UOp> load_idx;
    for (const UOp& u : w.ast.toposort()) {
      if (u.op() == Ops::STORE && u.src(0).op() == Ops::INDEX && is_target(u.src(0).src(0))) store_idx = u.src(0);
      else if (u.op() == Ops::INDEX && is_target(u.src(0))) load_idx.push_back(u);
    }
    for (const UOp& l : load_idx)
      if (l != store_idx) return std::nullopt;
  }
  memory_plan<T>(s);
  run_schedule<void>(s);
  return s.outputs;
}

MG_ENGINE_TEMPLATE(void run_schedule<void>(const Schedule&))

}  // namespace mg
