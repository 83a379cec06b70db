#pragma once
// Tensor: tinygrad's lazy Tensor. A handle on a UOp graph (tensor/graph.hpp) and its shape; nothing
// computes until realize(), to_vector<T>() or item<T>(), which schedule the graph into kernels and run
// them on the tensor's device (engine/realize.hpp). The reference evaluator (tensor/reference.hpp)
// stays as the oracle the devices are tested against.
//
// Everything that realizes is a template (or calls through a dependent type, detail::dep_t), so that a
// translation unit compiles the scheduler, codegen and runtimes only if it computes something.
//
//   Tensor a = Tensor::from({1, 2, 3, 4, 5, 6}, {2, 3});      // int32, shape (2, 3)
//   Tensor b = (a * 2 + 1).sum(1);                              // lazy
//   std::vector<int> v = b.to_vector<int>();                    // {9, 27}
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include <limits>

#include "../core/cmath.hpp"
#include "../core/mutex.hpp"
#include "../core/ptr_map.hpp"
#include "../core/alu.hpp"
#include "../core/env.hpp"
#include "../core/error.hpp"
#include "../core/uop.hpp"
#include "graph.hpp"
#include "gradient.hpp"
#include "reference.hpp"
#include "../engine/realize.hpp"

namespace mg {
namespace detail {
// X, as a type that depends on T: a call through it inside a template is compiled only when the
// template is, which keeps the engine out of translation units that never realize anything
template <class T, class X> struct dep_s { using type = X; };
template <class T, class X = void> using dep_t = typename dep_s<T, X>::type;
}  // namespace detail

// the dtype tinygrad gives a C++ value of type T (dtypes.from_py for bool, int and float)
template <class T> constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return dtypes::bool_;
  else if constexpr (std::is_same_v<T, std::int8_t>) return dtypes::int8;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return dtypes::uint8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return dtypes::int16;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return dtypes::uint16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return dtypes::int32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return dtypes::uint32;
  else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, long long>) return dtypes::int64;
  else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, unsigned long long>) return dtypes::uint64;
  else if constexpr (std::is_same_v<T, float>) return dtypes::float32;
  else if constexpr (std::is_same_v<T, double>) return dtypes::float64;
  else static_assert(std::is_same_v<T, bool>, "Tensor: no dtype for this element type");
}

// a scalar operand of a Tensor operation: bool, int or float, as a Python scalar
struct ConstType {
  Arg v;
  template <class T> requires std::is_arithmetic_v<T>
  ConstType(T x) : v(std::is_same_v<T, bool> ? Arg(bool(x)) : std::is_floating_point_v<T> ? Arg(double(x)) : Arg(std::int64_t(x))) {}
  // tinygrad's dtypes.from_py
  DType py_dtype() const { return v.is_bool() ? dtypes::bool_ : v.is_float() ? dtypes::default_float : dtypes::default_int; }
};

// an int or a list of ints, as tinygrad's `int|tuple[int, ...]` arguments (kernel size, stride,
// padding); empty where an argument defaults to another (a pool's stride to its kernel size)
struct Sizes {
  std::vector<std::int64_t> v;
  bool scalar = false;  // one int, which stands for every dim (tinygrad's int); {k} is a list of one
  Sizes() = default;
  Sizes(std::int64_t x) : v{x}, scalar(true) {}
  Sizes(std::initializer_list<std::int64_t> l) : v(l) {}
  Sizes(std::vector<std::int64_t> l) : v(std::move(l)) {}
};
// one axis of pad or shrink: (before, after) or (start, end); none leaves the axis. Written {1, 2},
// std::pair{1, 2} or std::nullopt.
struct AxisPair : std::optional<std::pair<std::int64_t, std::int64_t>> {
  using std::optional<std::pair<std::int64_t, std::int64_t>>::optional;
  AxisPair(std::int64_t a, std::int64_t b) : std::optional<std::pair<std::int64_t, std::int64_t>>(std::pair{a, b}) {}
};
// pad/shrink's argument that touches one axis: (a, b) at dim, nothing on the other ndim - 1 axes
template <class = void> std::vector<AxisPair> on_axis(std::size_t ndim, std::size_t dim, std::int64_t a, std::int64_t b) {
  std::vector<AxisPair> r(ndim);
  r[dim] = AxisPair(a, b);
  return r;
}
// pad's modes, as tinygrad's pad(mode=...)
enum class PadMode { constant, reflect, replicate, circular };
// how a loss reduces over its elements
enum class Reduction { none, sum, mean };
template <class = void> class IndexT;  // getitem's index (tensor/index.hpp)
using Index = IndexT<>;

// Tensor is a class template with one instance, so that a member's body is compiled only in a translation
// unit that uses it (an include of metagrad.hpp compiles none of them)
template <class = void> class TensorT;
using Tensor = TensorT<>;
namespace detail {
// What a Tensor handle points to. Copies of a Tensor share it, as Python references to one tinygrad
// Tensor do: realize() and the gradient are seen through every copy.
struct TensorData {
  UOp uop;
  Shape shape;
  std::string device;                       // found once, when the graph is first wrapped
  std::optional<bool> requires_grad;        // tinygrad's None / True / False
  std::shared_ptr<TensorData> grad;         // filled by backward()
  template <class = void> static std::shared_ptr<TensorData> make(UOp u, Shape s, std::string device);
};
// Every live tensor, weakly: backward() finds the tensors in a graph here, as tinygrad's all_tensors.
struct TensorRegistry {
  detail::Mutex m;
  std::vector<std::weak_ptr<TensorData>> all;
  std::size_t sweep_at = 1024;
  template <class = void> static TensorRegistry& get() {
    static TensorRegistry* r = new TensorRegistry();  // never destroyed: tensors in statics may die at exit
    return *r;
  }
  template <class = void> void add(const std::shared_ptr<TensorData>& d) {
    detail::LockGuard lock(m);
    if (all.size() >= sweep_at) {  // drop the dead, amortized
      std::erase_if(all, [](const std::weak_ptr<TensorData>& w) { return w.expired(); });
      sweep_at = std::max<std::size_t>(1024, all.size() * 2);
    }
    all.push_back(d);
  }
  template <class = void> std::vector<std::shared_ptr<TensorData>> live() {
    detail::LockGuard lock(m);
    std::vector<std::shared_ptr<TensorData>> out;
    for (const auto& w : all) if (auto d = w.lock()) out.push_back(std::move(d));
    return out;
  }
};
// Assigns not computed yet (tinygrad's STORE+AFTER on a buffer): the BUFFER written and the tensor
// whose graph is the new value. The next computation on that device computes them with its own roots,
// so an assign costs no schedule of its own (BatchNorm's running statistics are computed with the
// gradients, from the same forward pass).
struct PendingAssigns {
  struct Entry {
    UOp target;
    std::shared_ptr<TensorData> holder;
  };
  detail::Mutex m;
  std::vector<Entry> list;
  template <class = void> static PendingAssigns& get() {
    static PendingAssigns* p = new PendingAssigns();  // never destroyed, as the registry
    return *p;
  }
  template <class = void> void add(Entry e) {
    detail::LockGuard lock(m);
    list.push_back(std::move(e));
  }
  // removes and returns the entries on device
  template <class = void> std::vector<Entry> take(const std::string& device) {
    detail::LockGuard lock(m);
    std::vector<Entry> out;
    std::erase_if(list, [&](Entry& e) { return e.holder->device == device ? (out.push_back(std::move(e)), true) : false; });
    return out;
  }
  template <class = void> std::vector<UOp> targets(const std::string& device) {
    detail::LockGuard lock(m);
    std::vector<UOp> out;
    for (const Entry& e : list) if (e.holder->device == device) out.push_back(e.target);
    return out;
  }
};
// whether a graph in roots reads one of the buffers in targets other than inside a graph in `inside`
template <class = void> bool reads_outside(const std::vector<UOp>& roots, const std::vector<UOp>& targets, const std::vector<UOp>& inside) {
  if (targets.empty()) return false;
  PtrMap<char> seen;
  for (const UOp& u : inside) seen.set(u.node(), 1);
  std::vector<const UOp*> stack;
  for (const UOp& r : roots) stack.push_back(&r);
  while (!stack.empty()) {
    const UOp& u = *stack.back();
    stack.pop_back();
    if (seen.contains(u.node())) continue;
    seen.set(u.node(), 1);
    if (u.op() == Ops::BUFFER && std::find(targets.begin(), targets.end(), u) != targets.end()) return true;
    for (const UOp& s : u.src()) stack.push_back(&s);
  }
  return false;
}
}  // namespace detail

template <class> class TensorT {
 public:
  inline static std::string default_device = [] {
    const char* d = std::getenv("DEV");  // tinygrad's DEV=CPU / DEV=INTERP
    return std::string(d && *d ? d : "CPU");
  }();

  // A Tensor is a handle: copies share the graph. Assigning to a temporary (`t[1] = x`) is a compile
  // error rather than a silent no-op; setitem and assign write values.
  TensorT(const TensorT&) = default;
  TensorT(TensorT&&) noexcept = default;
  TensorT& operator=(const TensorT&) & = default;
  TensorT& operator=(TensorT&&) & noexcept = default;
  ~TensorT() = default;

  // ---- creation ----
  // a tensor viewing a UOp graph (its shape is inferred)
  explicit TensorT(UOp u) {
    auto s = shape_of(u);
    if (!s) throw Error("Tensor: " + op_repr(u.op()) + " has no shape");
    std::string dev = default_device;  // the first DEVICE the graph starts from
    for (const UOp& n : u.toposort())
      if (n.op() == Ops::DEVICE) { dev = n.arg().as_str(); break; }
    d_ = detail::TensorData::make(std::move(u), std::move(*s), std::move(dev));
  }
  // a 0-d tensor holding one value
  TensorT(ConstType x, std::optional<DType> dtype = std::nullopt) : TensorT(UOp::const_(dtype.value_or(x.py_dtype()), x.v)) {}

  // data in row-major order with its shape (empty shape: the data's length). The dtype defaults to T's;
  // double is a Python float, so it defaults to dtypes::default_float (float32) as in tinygrad.
  template <class T>
  static Tensor from(std::span<const T> data, Shape shape = {}, std::optional<DType> dtype = std::nullopt,
                     const std::string& device = default_device) {
    if (shape.empty()) shape = {std::int64_t(data.size())};  // a list is 1-d, as Tensor([x]) is (1,)
    check_shape("Tensor::from", shape);
    if (shape_prod(shape) != std::int64_t(data.size()))
      throw Error("Tensor::from: " + std::to_string(data.size()) + " values for shape " + shape_str(shape));
    const DType dt = dtype.value_or(std::is_same_v<T, double> ? dtypes::default_float : dtype_of<T>());
    HostArray a(dt, shape);
    for (std::size_t i = 0; i < data.size(); ++i) a.set(std::int64_t(i), ConstType(data[i]).v);
    return from_host(a, device);
  }
  template <class T>
  static Tensor from(const std::vector<T>& data, Shape shape = {}, std::optional<DType> dtype = std::nullopt,
                     const std::string& device = default_device) {
    if constexpr (std::is_same_v<T, bool>) {  // vector<bool> has no contiguous storage
      std::vector<std::uint8_t> b(data.begin(), data.end());
      return from(std::span<const std::uint8_t>(b), std::move(shape), dtype.value_or(dtypes::bool_), device);
    } else return from(std::span<const T>(data), std::move(shape), dtype, device);
  }
  template <class T>
  static Tensor from(std::initializer_list<T> data, Shape shape = {}, std::optional<DType> dtype = std::nullopt,
                     const std::string& device = default_device) {
    return from(std::vector<T>(data), std::move(shape), dtype, device);
  }
  // a host array copied into a new buffer on device
  static Tensor from_host(const HostArray& a, const std::string& device = default_device) {
    UOp buf = new_buffer(device, a.numel(), a.dtype);
    host_buffer(buf).bytes.assign(a.bytes.begin(), a.bytes.end());
    return Tensor(a.shape == Shape{a.numel()} ? buf : mop_reshape(buf, a.shape));
  }
  // tinygrad's Tensor.full / zeros / ones: a constant, reshaped and expanded (no memory)
  static Tensor full(const Shape& shape, ConstType value, std::optional<DType> dtype = std::nullopt, const std::string& device = default_device) {
    check_shape("Tensor::full", shape);
    UOp c = UOp(Ops::CONST, dtype.value_or(value.py_dtype()), {device_uop(device)}, normalize_const(dtype.value_or(value.py_dtype()), value.v));
    if (shape.empty()) return Tensor(c);
    const Shape ones(shape.size(), 1);
    return Tensor(shape == ones ? mop_reshape(c, ones) : mop_expand(mop_reshape(c, ones), shape));
  }
  static Tensor zeros(const Shape& shape, DType dtype = dtypes::default_float, const std::string& device = default_device) {
    return full(shape, 0, dtype, device);
  }
  static Tensor ones(const Shape& shape, DType dtype = dtypes::default_float, const std::string& device = default_device) {
    return full(shape, 1, dtype, device);
  }
  // tinygrad's Tensor.empty: a buffer whose contents are not set (here: zero)
  static Tensor empty(const Shape& shape, DType dtype = dtypes::default_float, const std::string& device = default_device) {
    check_shape("Tensor::empty", shape);
    UOp buf = new_buffer(device, shape_prod(shape), dtype);
    return Tensor(shape == Shape{shape_prod(shape)} ? buf : mop_reshape(buf, shape));
  }
  // tinygrad's Tensor.arange: start, start+step, ... below stop (above it for a negative step). An int
  // tensor when all three are ints, else default_float. (Built from host data here; tinygrad builds it lazily.)
  static Tensor arange(ConstType start, std::optional<ConstType> stop = std::nullopt, ConstType step = 1,
                       std::optional<DType> dtype = std::nullopt, const std::string& device = default_device) {
    if (!stop) stop = start, start = ConstType(0);
    const bool ints = !start.v.is_float() && !stop->v.is_float() && !step.v.is_float();
    const double a = start.v.as_float(), b = stop->v.as_float(), d = step.v.as_float();
    if (d == 0) throw Error("arange: step is 0");
    const std::int64_t n = std::max<std::int64_t>(0, std::int64_t(cmath::ceil((b - a) / d)));
    const DType dt = dtype.value_or(ints ? dtypes::default_int : dtypes::default_float);
    if (n == 0) return full({0}, 0, dt, device);
    // lazy, as tinygrad's: a running sum of steps (a pool of n over n-1 zeros and the steps), which the
    // scheduler's reduce collapse folds to start + i*step inside the kernels that read it
    const Tensor run = full({n}, step, dt, device).pad(std::vector<AxisPair>{AxisPair(n - 1, 0)}).pool_({n}, {1}, {1}).sum(std::vector<std::int64_t>{-1});
    return (run + (ints ? ConstType(start.v.as_int() - step.v.as_int()) : ConstType(a - d))).cast(dt);
  }
  // tinygrad's Tensor.eye: ones on the diagonal of an n x m matrix
  static Tensor eye(std::int64_t n, std::optional<std::int64_t> m = std::nullopt, DType dtype = dtypes::default_float,
                    const std::string& device = default_device) {
    const Tensor r = arange(n, std::nullopt, 1, std::nullopt, device).reshape({n, 1});
    const Tensor c = arange(m.value_or(n), std::nullopt, 1, std::nullopt, device).reshape({1, m.value_or(n)});
    return (r == c).cast(dtype);
  }
  // tinygrad's Tensor.linspace: steps points from start to stop, both included
  static Tensor linspace(double start, double stop, std::int64_t steps, DType dtype = dtypes::default_float,
                         const std::string& device = default_device) {
    if (steps < 0) throw Error("linspace: number of steps " + std::to_string(steps) + " is negative");
    if (steps == 1) return full({1}, start, dtype, device);
    return (arange(0, steps, 1, dtypes::float64, device) * ((stop - start) / double(steps - 1)) + start).cast(dtype);
  }
  Tensor full_like(ConstType value, std::optional<DType> dtype = std::nullopt) const { return full(d_->shape, value, dtype.value_or(dtype_()), device()); }
  Tensor zeros_like(std::optional<DType> dtype = std::nullopt) const { return full_like(0, dtype); }
  Tensor ones_like(std::optional<DType> dtype = std::nullopt) const { return full_like(1, dtype); }

  // ---- properties ----
  const UOp& uop() const { return d_->uop; }
  const Shape& shape() const { return d_->shape; }
  DType dtype() const { return d_->uop.dtype(); }
  std::int64_t ndim() const { return std::int64_t(d_->shape.size()); }
  std::int64_t numel() const { return shape_prod(d_->shape); }
  // the device of the buffers or constants the graph starts from (the default when it has none)
  const std::string& device() const { return d_->device; }

  // ---- autograd ----
  // backward() fills grad() for the float tensors in the graph (tinygrad's rule: every live float
  // tensor the loss depends on, except constants), skipping those with requires_grad(false) and those
  // made inside a NoGrad scope.
  Tensor& requires_grad(bool r) { d_->requires_grad = r; return *this; }
  std::optional<bool> requires_grad() const { return d_->requires_grad; }
  std::optional<Tensor> grad() const {
    if (!d_->grad) return std::nullopt;
    return Tensor(d_->grad);
  }
  void set_grad(const Tensor& g) { d_->grad = g.d_; }
  void clear_grad() { d_->grad.reset(); }
  // the same values, with no gradient flowing back through them
  Tensor detach() const { return view(UOp(Ops::DETACH, dtype(), {d_->uop}), d_->shape); }
  // a marker where the scheduler materializes the values (a CONTIGUOUS node); the same values
  Tensor contiguous() const { return view(UOp(Ops::CONTIGUOUS, dtype(), {d_->uop}), d_->shape); }
  // the same values; the gradient flowing back through it is made contiguous
  Tensor contiguous_backward() const { return view(UOp(Ops::CONTIGUOUS_BACKWARD, dtype(), {d_->uop}), d_->shape); }
  // the tensor on another device (a COPY; the gradient is copied back); the same tensor when it is there
  Tensor to(const std::string& device) const {
    if (device == d_->device) return *this;
    Tensor r(UOp(Ops::COPY, dtype(), {d_->uop, device_uop(device)}), d_->shape, device);
    if (d_->grad) r.d_->grad = Tensor(d_->grad).to(device).d_;
    return r;
  }
  // While one is alive on this thread, new tensors do not take gradients.
  using NoGrad = detail::ThreadSwitch<struct NoGradTag>;
  // tinygrad's gradient(): d(this)/d(target) for each target; gradient defaults to 1 for a scalar
  template <class = void>  // a template: only files that differentiate compile pm_gradient
  std::vector<Tensor> gradient(const std::vector<Tensor>& targets, const std::optional<Tensor>& gradient = std::nullopt) const {
    if (!gradient && !d_->shape.empty())
      throw Error("gradient: without a gradient argument, backward needs a scalar; this tensor has shape " + shape_str(d_->shape));
    if (!dtype().is_float()) throw Error("gradient: only float tensors have gradients, this one is " + dtype().repr());
    for (const Tensor& t : targets)
      if (!t.dtype().is_float()) throw Error("gradient: only float tensors have gradients, a target is " + t.dtype().repr());
    const Tensor g = gradient ? *gradient : Tensor::full({}, 1.0, dtype(), device());
    if (g.shape() != d_->shape) throw Error("gradient: the gradient has shape " + shape_str(g.shape()) + ", the tensor " + shape_str(d_->shape));
    std::vector<UOp> tu;
    for (const Tensor& t : targets) tu.push_back(t.d_->uop);
    const auto grads = compute_gradient(d_->uop, g.d_->uop, tu);
    std::vector<Tensor> out;
    for (const Tensor& t : targets) {
      auto it = grads.find(t.d_->uop);
      out.push_back(it == grads.end() ? t.zeros_like() : t.view(it->second, t.d_->shape));
    }
    return out;
  }
  template <class = void>
  Tensor& backward(const std::optional<Tensor>& gradient = std::nullopt) {
    std::vector<UOp> topo = d_->uop.toposort();
    detail::PtrMap<char> in_graph;
    for (const UOp& u : topo) in_graph.set(u.node(), 1);
    std::vector<Tensor> need;
    for (auto& d : detail::TensorRegistry::get().live())
      if (in_graph.contains(d->uop.node()) && d->uop.dtype().is_float() && d->uop.op() != Ops::CONST && d->requires_grad != false)
        need.push_back(Tensor(std::move(d)));
    const std::vector<Tensor> gs = this->gradient(need, gradient);
    for (std::size_t i = 0; i < need.size(); ++i) {
      if (need[i].d_->grad) need[i].set_grad(Tensor(need[i].d_->grad) + gs[i]);
      else need[i].set_grad(gs[i]);
    }
    return *this;
  }

  // ---- realizing ----
  // computes the graph into a new buffer (an assigned tensor: into its own); the tensor then views it
  template <class T = void>
  Tensor& realize() {
    realize<T>(std::vector<Tensor>{*this});
    return *this;
  }
  // tinygrad's Tensor.realize(*lst): computes every tensor in one schedule (per device), so the work
  // they share (the forward pass that every gradient reads) runs once instead of once per tensor
  template <class T = void>
  static void realize(const std::vector<Tensor>& ts) {
    std::vector<std::string> devices;
    for (const Tensor& t : ts)
      if (!t.is_realized() && std::find(devices.begin(), devices.end(), t.device()) == devices.end()) devices.push_back(t.device());
    for (const std::string& dev : devices) {
      std::vector<std::shared_ptr<detail::TensorData>> todo;
      std::vector<UOp> roots;
      for (const Tensor& t : ts)
        if (!t.is_realized() && t.device() == dev) todo.push_back(t.d_), roots.push_back(t.d_->uop);
      const std::vector<UOp> bufs = compute<T>(roots, dev);
      for (std::size_t i = 0; i < todo.size(); ++i) todo[i]->uop = buffer_view(bufs[i], todo[i]->shape);
    }
  }
  // the tensor's value, computed on its device, copied into a host array
  template <class T = void>
  HostArray to_host() const {
    const UOp buf = compute<T>({d_->uop}, device())[0];
    HostArray a(dtype_(), d_->shape);
    const auto& bytes = host_buffer(buf).bytes;
    if (bytes.size() != a.bytes.size())
      throw Error("Tensor::to_host: the buffer holds " + std::to_string(bytes.size()) + " bytes, " + std::to_string(a.bytes.size()) + " expected");
    std::copy(bytes.begin(), bytes.end(), a.bytes.begin());
    return a;
  }
  // tinygrad's assign: x (broadcast to this shape; same dtype and device) is written into this tensor's
  // buffer, which every tensor viewing that buffer then sees. As in tinygrad it is lazy: this tensor
  // holds the value's graph until the next computation on its device, which computes it together with
  // its own work and writes it into the buffer (a tensor that reads the buffer directly is computed
  // after that write: values are what an eager assign would give). A view of a realized buffer
  // (movement ops on it, no pad) writes the elements it views at once, with one kernel that stores
  // through the view (two where the value reads the buffer at other elements: into a new buffer, then
  // through the view; on the host where the view expands); any other unrealized tensor is realized into
  // a new buffer.
  template <class T = void>
  Tensor& assign(const Tensor& x) {
    if (x.d_->uop == d_->uop) return *this;
    std::optional<Tensor> bx;
    try {
      bx = x.d_->shape == d_->shape ? x : x.expand(d_->shape);
    } catch (const Error&) {
      throw Error("assign: shape mismatch " + shape_str(d_->shape) + " != " + shape_str(x.d_->shape));
    }
    const Tensor& v = *bx;
    if (v.dtype() != dtype()) throw Error("assign: dtype mismatch " + dtype().repr() + " != " + v.dtype().repr());
    if (v.device() != device()) throw Error("assign: device mismatch " + device() + " != " + v.device());
    // assigned again before the last assign was computed (a tensor made in between may hold that value),
    // or the value reads an assigned buffer directly rather than through its pending value: those first
    if (pending_target() || detail::reads_outside({v.d_->uop}, detail::PendingAssigns::get().targets(device()), pending_values(device())))
      compute<T>({}, device());
    const UOp buf = detail::view_base(d_->uop);
    if (buf.op() == Ops::BUFFER && is_realized()) {
      if (v.is_realized()) {  // a copy of another buffer: nothing to compute, written now
        if (!detail::PendingAssigns::get().targets(device()).empty()) compute<T>({}, device());  // they read the old values
        const UOp& from = detail::view_base(v.d_->uop);
        if (from != buf) std::memcpy(host_buffer(buf).bytes.data(), host_buffer(from).bytes.data(), host_buffer(buf).bytes.size());
        return *this;
      }
      d_->uop = v.d_->uop;
      detail::PendingAssigns::get().add({buf, d_});
      return *this;
    }
    // a view of a buffer: one kernel computes the value and stores it through the view, at once, where
    // that is safe (store_view_ok, and the value reads the buffer only at the elements it writes)
    if (buf.op() == Ops::BUFFER && detail::store_view_ok(d_->uop)) {
      if (!detail::PendingAssigns::get().targets(device()).empty()) compute<T>({}, device());  // they may read or write buf
      const UOp root = v.is_realized() ? v.contiguous().d_->uop : v.d_->uop;  // a buffer is copied by a kernel
      if (realize_uops_into<T>({root}, {d_->uop}, device())) return *this;
      // the value reads buf at other elements than it writes (w[0:2].assign(w[1:3])): it is computed into
      // a buffer of its own first, and that is assigned as a realized value, one more kernel (tinygrad's
      // fix_store_hazard)
      if (!v.is_realized()) return assign<T>(v.contiguous().template realize<T>());
    }
    HostArray a = v.to_host<T>();
    if (buf.op() != Ops::BUFFER) d_->uop = from_host(a, device()).d_->uop;
    else write_through_view(buf, a);
    return *this;
  }
  template <class T = void>
  Tensor& assign(ConstType x) { return assign<T>(full(d_->shape, x, dtype(), device())); }
  template <class T> std::vector<T> to_vector() const { return to_host<detail::dep_t<T>>().template to_vector<T>(); }
  template <class T> T item() const {
    if (numel() != 1) throw Error("Tensor::item: the tensor has " + std::to_string(numel()) + " elements, shape " + shape_str(d_->shape));
    return to_vector<T>()[0];
  }

  // ---- movement ----
  // a size of -1 is inferred from the others
  Tensor reshape(Shape shape) const {
    std::int64_t known = 1, infer = -1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == -1) {
        if (infer >= 0) throw Error("reshape: more than one -1 in " + shape_str(shape));
        infer = std::int64_t(i);
      } else if (shape[i] < 0) throw Error("reshape: negative size in " + shape_str(shape));
      else known *= shape[i];
    }
    if (infer >= 0) shape[std::size_t(infer)] = known == 0 ? 0 : numel() / known;
    if (shape_prod(shape) != numel()) throw Error("reshape: size mismatch, can't reshape " + shape_str(d_->shape) + " -> " + shape_str(shape));
    if (shape == d_->shape) return *this;
    return view(mop_reshape(d_->uop, shape), shape);
  }
  // sizes of -1 keep the axis; new axes can be added on the left
  Tensor expand(Shape shape) const {
    if (shape.size() < d_->shape.size()) throw Error("expand: cannot expand " + shape_str(d_->shape) + " to fewer dims " + shape_str(shape));
    const std::size_t off = shape.size() - d_->shape.size();
    Shape from(off, 1);
    from.insert(from.end(), d_->shape.begin(), d_->shape.end());
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == -1) shape[i] = from[i];
      if (from[i] != shape[i] && from[i] != 1) throw Error("expand: cannot broadcast " + shape_str(d_->shape) + " to " + shape_str(shape));
    }
    const Tensor r = reshape(from);
    if (shape == from) return r;
    return r.view(mop_expand(r.d_->uop, shape), shape);
  }
  Tensor permute(const std::vector<std::int64_t>& order) const {
    std::vector<std::int64_t> o;
    for (std::int64_t d : order) o.push_back(resolve_dim("permute", d));
    std::vector<std::int64_t> sorted = o;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i)
      if (sorted.size() != d_->shape.size() || sorted[i] != std::int64_t(i)) throw Error("permute: " + shape_str(order) + " is not a valid permutation of " + shape_str(d_->shape));
    if (sorted.size() != d_->shape.size()) throw Error("permute: " + shape_str(order) + " is not a valid permutation of " + shape_str(d_->shape));
    bool identity = true;
    for (std::size_t i = 0; i < o.size(); ++i) identity = identity && o[i] == std::int64_t(i);
    if (identity) return *this;
    Shape s;
    for (std::int64_t d : o) s.push_back(d_->shape[std::size_t(d)]);
    return view(mop_permute(d_->uop, o), s);
  }
  // tinygrad's pad (tensor/index.hpp): (before, after) per axis, nullopt leaves the axis; or torch's flat
  // list, last axis first. Negative pads cut. Modes: constant (value), reflect, replicate, circular.
  Tensor pad(const std::vector<AxisPair>& arg, PadMode mode = PadMode::constant,
             ConstType value = 0) const;
  Tensor pad(std::initializer_list<std::int64_t> flat, PadMode mode = PadMode::constant, ConstType value = 0) const {
    return pad_flat(std::span<const std::int64_t>(flat.begin(), flat.size()), mode, value);
  }
  // the flat form from a std::vector<std::int64_t> (a template, so that {{1, 2}} stays one pair)
  template <class V>
    requires std::same_as<V, std::vector<std::int64_t>>
  Tensor pad(const V& flat, PadMode mode = PadMode::constant, ConstType value = 0) const {
    return pad_flat(flat, mode, value);
  }
  // (start, end) per axis; nullopt keeps the axis
  Tensor shrink(const std::vector<AxisPair>& arg) const {
    if (arg.size() != d_->shape.size()) throw Error("shrink: " + std::to_string(arg.size()) + " ranges for " + shape_str(d_->shape));
    std::vector<std::pair<std::int64_t, std::int64_t>> m;
    Shape s;
    bool any = false;
    for (std::size_t i = 0; i < arg.size(); ++i) {
      auto [b, e] = arg[i].value_or(std::pair<std::int64_t, std::int64_t>{0, d_->shape[i]});
      if (b < 0 || e < b || e > d_->shape[i])
        throw Error("shrink: range (" + std::to_string(b) + ", " + std::to_string(e) + ") out of bounds for axis " + std::to_string(i) + " of " + shape_str(d_->shape));
      any = any || b != 0 || e != d_->shape[i];
      m.emplace_back(b, e - b);
      s.push_back(e - b);
    }
    if (!any) return *this;
    return view(mop_shrink(d_->uop, m), s);
  }
  Tensor flip(const std::vector<std::int64_t>& axes) const {
    std::vector<bool> f(d_->shape.size(), false);
    for (std::int64_t a : axes) {
      const std::int64_t d = resolve_dim("flip", a);
      if (f[std::size_t(d)]) throw Error("flip: axis " + std::to_string(a) + " appears twice");
      f[std::size_t(d)] = true;
    }
    if (std::none_of(f.begin(), f.end(), [](bool b) { return b; })) return *this;
    return view(mop_flip(d_->uop, f), d_->shape);
  }
  Tensor transpose(std::int64_t a = 1, std::int64_t b = 0) const {
    std::vector<std::int64_t> o(d_->shape.size());
    for (std::size_t i = 0; i < o.size(); ++i) o[i] = std::int64_t(i);
    std::swap(o[std::size_t(resolve_dim("transpose", a))], o[std::size_t(resolve_dim("transpose", b))]);
    return permute(o);
  }
  Tensor T() const { return transpose(); }
  Tensor flatten(std::int64_t start = 0, std::int64_t end = -1) const {
    if (d_->shape.empty()) return reshape({1});
    const std::int64_t s = resolve_dim("flatten", start), e = resolve_dim("flatten", end);
    Shape n(d_->shape.begin(), d_->shape.begin() + s);
    n.push_back(shape_prod(Shape(d_->shape.begin() + s, d_->shape.begin() + e + 1)));
    n.insert(n.end(), d_->shape.begin() + e + 1, d_->shape.end());
    return reshape(n);
  }
  // tinygrad's unflatten: dim split into sizes (one of them may be -1)
  Tensor unflatten(std::int64_t dim, const Shape& sizes) const {
    const std::size_t d = std::size_t(resolve_dim("unflatten", dim));
    Shape n(d_->shape.begin(), d_->shape.begin() + std::ptrdiff_t(d));
    n.insert(n.end(), sizes.begin(), sizes.end());
    n.insert(n.end(), d_->shape.begin() + std::ptrdiff_t(d) + 1, d_->shape.end());
    return reshape(n);
  }
  // the lower (tril) or upper (triu) triangle of the last two axes; diagonal > 0 moves it up
  Tensor triu(std::int64_t diagonal = 0) const { return tri("triu", diagonal, false); }
  Tensor tril(std::int64_t diagonal = 0) const { return tri("tril", diagonal, true); }
  Tensor unsqueeze(std::int64_t dim) const {
    const std::int64_t d = dim < 0 ? dim + ndim() + 1 : dim;
    if (d < 0 || d > ndim()) throw Error("unsqueeze: dim " + std::to_string(dim) + " out of range for " + shape_str(d_->shape));
    Shape n = d_->shape;
    n.insert(n.begin() + d, 1);
    return reshape(n);
  }
  // drops size-1 axes (all of them, or just dim)
  Tensor squeeze(std::optional<std::int64_t> dim = std::nullopt) const {
    Shape n;
    if (!dim) {
      for (std::int64_t s : d_->shape) if (s != 1) n.push_back(s);
      return reshape(n);
    }
    if (d_->shape.empty()) return *this;
    const std::int64_t d = resolve_dim("squeeze", *dim);
    if (d_->shape[std::size_t(d)] != 1) return *this;
    n = d_->shape;
    n.erase(n.begin() + d);
    return reshape(n);
  }

  // tinygrad's cat: each tensor padded into its place along dim, then summed
  static Tensor cat(const std::vector<Tensor>& ts, std::int64_t dim = 0) {
    if (ts.empty()) throw Error("cat: no tensors");
    const Tensor& first = ts[0];
    const std::int64_t d = first.resolve_dim("cat", dim);
    std::vector<std::int64_t> starts{0};
    for (const Tensor& t : ts) {
      bool ok = t.ndim() == first.ndim();
      for (std::int64_t i = 0; ok && i < t.ndim(); ++i) ok = i == d || t.d_->shape[std::size_t(i)] == first.d_->shape[std::size_t(i)];
      if (!ok) throw Error("cat: shapes " + shape_str(first.d_->shape) + " and " + shape_str(t.d_->shape) + " differ off dim " + std::to_string(d));
      starts.push_back(starts.back() + t.d_->shape[std::size_t(d)]);
    }
    std::optional<Tensor> out;
    for (std::size_t k = 0; k < ts.size(); ++k) {
      const Tensor padded = ts[k].pad(on_axis(std::size_t(first.ndim()), std::size_t(d), starts[k], starts.back() - starts[k + 1]));
      out = out ? *out + padded : padded;
    }
    return *out;
  }
  Tensor cat(const Tensor& other, std::int64_t dim = 0) const { return cat(std::vector<Tensor>{*this, other}, dim); }
  static Tensor stack(const std::vector<Tensor>& ts, std::int64_t dim = 0) {
    if (ts.empty()) throw Error("stack: no tensors");
    std::vector<Tensor> u;
    for (const Tensor& t : ts) u.push_back(t.unsqueeze(dim));
    return cat(u, dim);
  }
  // pieces of the given sizes along dim (the last may be smaller when one size is given)
  std::vector<Tensor> split(const std::vector<std::int64_t>& sizes, std::int64_t dim = 0) const {
    const std::int64_t d = resolve_dim("split", dim);
    std::int64_t total = 0;
    for (std::int64_t z : sizes) {
      if (z < 0) throw Error("split: negative size " + std::to_string(z));
      total += z;
    }
    if (total != d_->shape[std::size_t(d)])
      throw Error("split: sizes add up to " + std::to_string(total) + ", dim " + std::to_string(d) + " of " + shape_str(d_->shape) + " has " + std::to_string(d_->shape[std::size_t(d)]));
    std::vector<Tensor> out;
    std::int64_t at = 0;
    for (std::int64_t z : sizes) {
      out.push_back(shrink(on_axis(d_->shape.size(), std::size_t(d), at, at + z)));
      at += z;
    }
    return out;
  }
  std::vector<Tensor> split(std::int64_t size, std::int64_t dim = 0) const {
    if (size <= 0) throw Error("split: size " + std::to_string(size) + " must be positive");
    const std::int64_t n = d_->shape[std::size_t(resolve_dim("split", dim))];
    std::vector<std::int64_t> sizes;
    for (std::int64_t i = 0; i < std::max<std::int64_t>(1, n); i += size) sizes.push_back(std::min(size, n - i));
    return split(sizes, dim);
  }
  std::vector<Tensor> chunk(std::int64_t chunks, std::int64_t dim = 0) const {
    if (chunks <= 0) throw Error("chunk: " + std::to_string(chunks) + " chunks");
    const std::int64_t n = d_->shape[std::size_t(resolve_dim("chunk", dim))];
    if (n == 0) return split(std::vector<std::int64_t>(std::size_t(chunks), 0), dim);
    return split((n + chunks - 1) / chunks, dim);
  }
  // tinygrad's repeat: tile the tensor repeats[i] times along each axis (extra leading axes allowed)
  Tensor repeat(const std::vector<std::int64_t>& repeats) const {
    if (repeats.size() < d_->shape.size())
      throw Error("repeat: " + std::to_string(repeats.size()) + " repeats for shape " + shape_str(d_->shape));
    Shape base(repeats.size() - d_->shape.size(), 1);
    base.insert(base.end(), d_->shape.begin(), d_->shape.end());
    Shape unsq, expd, fin;
    for (std::size_t i = 0; i < base.size(); ++i) {
      if (repeats[i] < 0) throw Error("repeat: negative repeat " + std::to_string(repeats[i]));
      if (repeats[i] != 1) unsq.push_back(1), expd.push_back(repeats[i]);
      unsq.push_back(base[i]), expd.push_back(base[i]);
      fin.push_back(base[i] * repeats[i]);
    }
    return reshape(unsq).expand(expd).reshape(fin);
  }

  // ---- elementwise ----
  Tensor cast(DType dt) const { return dt == dtype() ? *this : view(d_->uop.cast(dt), d_->shape); }
  Tensor bitcast(DType dt) const {
    if (dt.itemsize() != dtype().itemsize())
      throw Error("bitcast: " + dtype().repr() + " to " + dt.repr() + " changes the item size");
    return dt == dtype() ? *this : view(UOp(Ops::BITCAST, dt, {d_->uop}), d_->shape);
  }
  Tensor alu(Ops op) const { return view(d_->uop.alu(op), d_->shape); }

  // tinygrad's _broadcasted: the scalar takes this tensor's dtype when it fits it, then both sides
  // broadcast to one shape and promote to one dtype
  std::pair<Tensor, Tensor> broadcasted(const Tensor& y, bool reverse = false) const {
    Tensor a = reverse ? y : *this, b = reverse ? *this : y;
    const Shape out = broadcast_shape({a.d_->shape, b.d_->shape}, "broadcast");
    a = a.expand(out), b = b.expand(out);
    if (a.dtype() == b.dtype()) return {a, b};
    const DType dt = least_upper_dtype(a.dtype(), b.dtype());
    return {a.cast(dt), b.cast(dt)};
  }
  Tensor ufix(const ConstType& x) const {
    const bool keep = dtype().is_float() || (dtype().is_int() && x.v.is_int());
    return full(d_->shape, x, keep ? dtype() : x.py_dtype(), device());
  }
  Tensor binop(Ops op, const Tensor& y, bool reverse = false) const {
    auto [a, b] = broadcasted(y, reverse);
    return a.view(a.d_->uop.alu(op, b.d_->uop), a.d_->shape);
  }

  Tensor add(const Tensor& y) const { return binop(Ops::ADD, y); }
  Tensor mul(const Tensor& y) const { return binop(Ops::MUL, y); }
  Tensor sub(const Tensor& y) const { auto [a, b] = broadcasted(y); return a + (-b); }
  // true division (a float result); idiv is Python's // on ints (tinygrad's div rounding_mode="floor")
  Tensor div(const Tensor& y) const {
    auto [a, b] = broadcasted(y);
    return a.ensure_float() * b.reciprocal();
  }
  Tensor idiv(const Tensor& y) const {
    auto [a, b] = broadcasted(y);
    if (!a.dtype().is_int()) throw Error("idiv: needs int tensors, got " + a.dtype().repr());
    return a.view(a.d_->uop.alu(Ops::FLOORDIV, b.d_->uop), a.d_->shape);
  }
  Tensor mod(const Tensor& y) const {
    auto [a, b] = broadcasted(y);
    if (a.dtype().is_int()) return a.view(a.d_->uop.alu(Ops::FLOORMOD, b.d_->uop), a.d_->shape);
    return a - b * (a / b).floor();  // Python's % on floats: the sign of the divisor
  }
  Tensor maximum(const Tensor& y) const { return binop(Ops::MAX, y); }
  Tensor minimum(const Tensor& y) const { auto [a, b] = broadcasted(y); return -((-a).maximum(-b)); }
  // a scalar branch takes the other branch's dtype when it fits it (tinygrad's ufix through the tensor branch)
  Tensor where(const Tensor& x, ConstType y) const { return where(x, x.ufix(y)); }
  Tensor where(ConstType x, const Tensor& y) const { return where(y.ufix(x), y); }
  Tensor where(const Tensor& x, const Tensor& y) const {
    auto [xb, yb] = x.broadcasted(y);
    const Shape out = broadcast_shape({d_->shape, xb.d_->shape}, "where");
    const Tensor c = cast(dtypes::bool_).expand(out), xe = xb.expand(out), ye = yb.expand(out);
    return c.view(c.d_->uop.alu(Ops::WHERE, xe.d_->uop, ye.d_->uop), out);
  }
  Tensor cmplt(const Tensor& y) const { return binop(Ops::CMPLT, y); }
  Tensor cmpne(const Tensor& y) const { return binop(Ops::CMPNE, y); }
  Tensor cmpeq(const Tensor& y) const { return cmpne(y).logical_not(); }
  Tensor logical_not() const { return cast(dtypes::bool_).cmpne(Tensor::full(d_->shape, true, dtypes::bool_, device())); }
  Tensor bitwise(Ops op, const Tensor& y) const {
    auto [a, b] = broadcasted(y);
    if (a.dtype().is_float()) throw Error(op_repr(op) + ": bitwise ops need int or bool tensors, got " + a.dtype().repr());
    return a.view(a.d_->uop.alu(op, b.d_->uop), a.d_->shape);
  }
  Tensor bitwise_and(const Tensor& y) const { return bitwise(Ops::AND, y); }
  Tensor bitwise_or(const Tensor& y) const { return bitwise(Ops::OR, y); }
  Tensor bitwise_xor(const Tensor& y) const { return bitwise(Ops::XOR, y); }
  Tensor bitwise_not() const {
    if (dtype().is_float()) throw Error("bitwise_not: bitwise ops need int or bool tensors, got " + dtype().repr());
    if (dtype().is_bool()) return logical_not();
    return bitwise_xor(full_like(-1));  // -1 wraps to all ones in an unsigned dtype
  }
  // arithmetic shifts of an int tensor (SHL, SHR)
  Tensor lshift(const Tensor& y) const { return shift(Ops::SHL, y); }
  Tensor rshift(const Tensor& y) const { return shift(Ops::SHR, y); }
  Tensor isnan() const { return *this != *this; }
  Tensor isinf(bool detect_positive = true, bool detect_negative = true) const {
    const Tensor f = Tensor::full(d_->shape, false, dtypes::bool_, device());
    return (detect_positive ? *this == ConstType(std::numeric_limits<double>::infinity()) : f) | (detect_negative ? *this == ConstType(-std::numeric_limits<double>::infinity()) : f);
  }
  Tensor isfinite() const { return (isinf() | isnan()).logical_not(); }
  Tensor neg() const { return dtype().is_bool() ? logical_not() : *this * ConstType(-1); }
  Tensor reciprocal() const { return ensure_float().alu(Ops::RECIPROCAL); }
  Tensor sqrt() const { return ensure_float().alu(Ops::SQRT); }
  Tensor exp2() const { return ensure_float().alu(Ops::EXP2); }
  Tensor log2() const { return ensure_float().alu(Ops::LOG2); }
  Tensor sin() const { return ensure_float().alu(Ops::SIN); }
  Tensor trunc() const { return dtype().is_float() ? alu(Ops::TRUNC) : *this; }
  // tinygrad's floor / ceil: the truncation moved by one where it went the wrong way
  Tensor floor() const { const Tensor t = trunc(); return (*this < t).where(t - ConstType(1), t); }
  Tensor ceil() const { const Tensor t = trunc(); return (*this > t).where(t + ConstType(1), t); }
  Tensor exp() const { return (ensure_float() * ConstType(1 / std::numbers::ln2)).exp2(); }
  Tensor log() const { return ensure_float().log2() * ConstType(std::numbers::ln2); }
  Tensor relu() const { return (*this > ConstType(0)).where(*this, ConstType(0)); }
  Tensor sigmoid() const { return (ConstType(1) + (*this * ConstType(-1 / std::numbers::ln2)).exp2()).reciprocal(); }
  Tensor sign() const {
    return cmpne(ufix(0)).where((*this < ConstType(0)).where(ufix(-1), ufix(1)), ufix(0));
  }
  Tensor abs() const { return *this * sign(); }
  Tensor cos() const {
    if (dtype().is_float()) return (ConstType(std::numbers::pi / 2) - cast(least_upper_dtype(dtype(), dtypes::float32))).sin().cast(dtype());
    return (ConstType(std::numbers::pi / 2) - *this).sin();
  }
  Tensor tan() const { return sin() / cos(); }
  Tensor tanh() const { return ConstType(2.0) * (ConstType(2.0) * *this).sigmoid() - ConstType(1.0); }
  Tensor rsqrt() const { return sqrt().reciprocal(); }
  // round half to even, as tinygrad (and Python) do
  Tensor round() const {
    const Tensor b = trunc() / ConstType(2.0);
    return ((*this > ConstType(0)) == (b.trunc() == b)).where((*this - ConstType(0.5)).ceil(), (*this + ConstType(0.5)).floor());
  }
  Tensor clip(std::optional<ConstType> lo, std::optional<ConstType> hi) const {
    if (!lo && !hi) throw Error("clip: at least one of min and max must be given");
    const Tensor r = lo ? (*this < *lo).where(ufix(*lo), *this) : *this;
    return hi ? (r > *hi).where(r.ufix(*hi), r) : r;
  }
  Tensor pow(const Tensor& e) const {
    auto [b, x] = broadcasted(e);
    const Tensor r = b.view(b.d_->uop.alu(Ops::POW, x.d_->uop), b.d_->shape);
    // pow(int, float) is rounded back to the int dtype, as tinygrad does
    return !dtype().is_float() && e.dtype().is_float() ? r.round().cast(dtype()) : r;
  }
  Tensor pow(ConstType e) const {
    if (!dtype().is_float() && !(e.v.is_int() && e.v.as_int() >= 0)) throw Error("pow: base needs to be float, got " + dtype().repr());
    return pow(ufix(e));
  }
  Tensor lerp(const Tensor& end, const Tensor& weight) const { return *this + (end - *this) * weight; }
  Tensor lerp(const Tensor& end, ConstType weight) const { return *this + (end - *this) * weight; }
  Tensor logaddexp(const Tensor& o) const {
    auto [a, b] = broadcasted(o);
    const Tensor m = a.maximum(b);
    return ((a - m).exp() + (b - m).exp()).log() + m;
  }
  // activations (tinygrad's formulas)
  Tensor relu6() const { return relu() - (*this - ConstType(6)).relu(); }
  Tensor leaky_relu(double neg_slope = 0.01) const { return (*this < ConstType(0)).where(*this * ConstType(neg_slope), *this); }
  Tensor elu(double alpha = 1.0) const { return relu() - ConstType(alpha) * (ConstType(1) - exp()).relu(); }
  Tensor celu(double alpha = 1.0) const {
    return maximum(ufix(0)) + (ConstType(alpha) * ((*this / ConstType(alpha)).exp() - ConstType(1))).minimum(ufix(0));
  }
  Tensor selu(double alpha = 1.67326, double gamma = 1.0507) const {
    return ConstType(gamma) * (*this >= ConstType(0)).where(*this, ConstType(alpha) * (exp() - ConstType(1)));
  }
  Tensor softplus(double beta = 1.0) const { return ConstType(1 / beta) * (*this * ConstType(beta)).logaddexp(ufix(0.0)); }
  Tensor mish() const { return *this * softplus().tanh(); }
  Tensor swish() const { return *this * sigmoid(); }
  Tensor silu() const { return swish(); }
  Tensor gelu() const {  // the tanh approximation
    return ConstType(0.5) * *this * (ConstType(1) + (ConstType(cmath::sqrt(2 / std::numbers::pi)) * (*this + ConstType(0.044715) * *this * *this * *this)).tanh());
  }
  Tensor quick_gelu() const { return *this * (*this * ConstType(1.702)).sigmoid(); }
  Tensor hardsigmoid(double alpha = 1.0 / 6, double beta = 0.5) const {
    return (ConstType(alpha) * *this + ConstType(beta)).relu() - (ConstType(alpha) * *this + ConstType(beta - 1)).relu();
  }
  Tensor hardtanh(double lo = -1, double hi = 1) const { return clip(lo, hi); }
  Tensor hardswish() const { return *this * (*this + ConstType(3)).relu6() * ConstType(1.0 / 6); }
  Tensor softsign() const { return *this / (ConstType(1) + abs()); }
  Tensor logsigmoid() const { return -(-*this).softplus(); }
  Tensor square() const { return *this * *this; }
  Tensor ensure_float() const { return dtype().is_float() ? *this : cast(least_upper_float(dtype())); }

  // operators: a ConstType on either side wraps into a tensor as tinygrad's ufix does
#define MG_TENSOR_BINOP(SYM, FN)                                                                           \
  friend Tensor operator SYM(const Tensor& a, const Tensor& b) { return a.FN(b); }                          \
  friend Tensor operator SYM(const Tensor& a, ConstType b) { return a.FN(a.ufix(b)); }                         \
  friend Tensor operator SYM(ConstType a, const Tensor& b) { return b.ufix(a).FN(b); }
  MG_TENSOR_BINOP(+, add) MG_TENSOR_BINOP(*, mul) MG_TENSOR_BINOP(-, sub) MG_TENSOR_BINOP(/, div)
  MG_TENSOR_BINOP(%, mod) MG_TENSOR_BINOP(<, cmplt) MG_TENSOR_BINOP(!=, cmpne) MG_TENSOR_BINOP(==, cmpeq)
#undef MG_TENSOR_BINOP
  friend Tensor operator>(const Tensor& a, const Tensor& b) { return b.cmplt(a); }
  friend Tensor operator>(const Tensor& a, ConstType b) { return a.ufix(b).cmplt(a); }
  friend Tensor operator>=(const Tensor& a, const Tensor& b) { return (a < b).logical_not(); }
  friend Tensor operator>=(const Tensor& a, ConstType b) { return (a < b).logical_not(); }
  friend Tensor operator<=(const Tensor& a, const Tensor& b) { return (a > b).logical_not(); }
  friend Tensor operator<=(const Tensor& a, ConstType b) { return (a > b).logical_not(); }
  friend Tensor operator&(const Tensor& a, const Tensor& b) { return a.bitwise(Ops::AND, b); }
  friend Tensor operator|(const Tensor& a, const Tensor& b) { return a.bitwise(Ops::OR, b); }
  friend Tensor operator^(const Tensor& a, const Tensor& b) { return a.bitwise(Ops::XOR, b); }
  friend Tensor operator&(const Tensor& a, ConstType b) { return a.bitwise(Ops::AND, a.ufix(b)); }
  friend Tensor operator|(const Tensor& a, ConstType b) { return a.bitwise(Ops::OR, a.ufix(b)); }
  friend Tensor operator^(const Tensor& a, ConstType b) { return a.bitwise(Ops::XOR, a.ufix(b)); }
  friend Tensor operator<<(const Tensor& a, const Tensor& b) { return a.lshift(b); }
  friend Tensor operator<<(const Tensor& a, ConstType b) { return a.lshift(a.ufix(b)); }
  friend Tensor operator>>(const Tensor& a, const Tensor& b) { return a.rshift(b); }
  friend Tensor operator>>(const Tensor& a, ConstType b) { return a.rshift(a.ufix(b)); }
  friend Tensor operator~(const Tensor& a) { return a.bitwise_not(); }
  friend Tensor operator-(const Tensor& a) { return a.neg(); }

  // ---- reductions ----
  // axes may be negative; none = all. keepdim keeps the reduced axes as size 1.
  Tensor sum(std::vector<std::int64_t> axes = {}, bool keepdim = false, std::optional<DType> acc = std::nullopt) const {
    const Tensor r = cast(acc.value_or(sum_acc_dtype(dtype()))).reduce(Ops::ADD, std::move(axes), keepdim);
    const DType d = dtype().scalar();
    return !acc && (d == dtypes::float16 || d == dtypes::bfloat16 || d.is_fp8()) ? r.cast(dtype()) : r;
  }
  Tensor sum(std::int64_t axis, bool keepdim = false) const { return sum(std::vector<std::int64_t>{axis}, keepdim); }
  Tensor prod(std::vector<std::int64_t> axes = {}, bool keepdim = false) const { return reduce(Ops::MUL, std::move(axes), keepdim); }
  Tensor max(std::vector<std::int64_t> axes = {}, bool keepdim = false) const { return reduce(Ops::MAX, std::move(axes), keepdim); }
  Tensor max(std::int64_t axis, bool keepdim = false) const { return max(std::vector<std::int64_t>{axis}, keepdim); }
  Tensor min(std::vector<std::int64_t> axes = {}, bool keepdim = false) const { return -((-*this).max(std::move(axes), keepdim)); }
  Tensor min(std::int64_t axis, bool keepdim = false) const { return min(std::vector<std::int64_t>{axis}, keepdim); }
  Tensor prod(std::int64_t axis, bool keepdim = false) const { return prod(std::vector<std::int64_t>{axis}, keepdim); }
  Tensor mean(std::vector<std::int64_t> axes = {}, bool keepdim = false) const {
    const DType out = dtype().is_float() ? dtype() : dtypes::float32;
    const Tensor s = cast(sum_acc_dtype(dtype())).sum(axes, keepdim);
    const std::int64_t n = numel() / std::max<std::int64_t>(1, s.numel());
    return (s / ConstType(n)).cast(out);
  }
  Tensor mean(std::int64_t axis, bool keepdim = false) const { return mean(std::vector<std::int64_t>{axis}, keepdim); }
  Tensor any(std::vector<std::int64_t> axes = {}, bool keepdim = false) const { return cast(dtypes::bool_).max(std::move(axes), keepdim); }
  Tensor all(std::vector<std::int64_t> axes = {}, bool keepdim = false) const { return cast(dtypes::bool_).prod(std::move(axes), keepdim); }
  Tensor any(std::int64_t axis, bool keepdim = false) const { return any(std::vector<std::int64_t>{axis}, keepdim); }
  Tensor all(std::int64_t axis, bool keepdim = false) const { return all(std::vector<std::int64_t>{axis}, keepdim); }

  // tinygrad's softmax family: shifted by the max along the axis for stability
  Tensor softmax(std::int64_t axis = -1) const {
    const Tensor m = *this - max(axis, true), e = m.exp();
    return e / e.sum(axis, true);
  }
  Tensor log_softmax(std::int64_t axis = -1) const {
    const Tensor m = *this - max(axis, true);
    return m - m.exp().sum(axis, true).log();
  }
  Tensor logsumexp(std::int64_t axis, bool keepdim = false) const {
    const Tensor m = max(axis, true);
    const Tensor r = (*this - m).exp().sum(axis, true).log() + m;
    return keepdim ? r : r.squeeze(axis);
  }
  // variance with Bessel's correction by default, over the reduced elements
  Tensor var(std::vector<std::int64_t> axes = {}, bool keepdim = false, std::int64_t correction = 1) const {
    const Tensor sq = (*this - mean(axes, true)).square();
    const Tensor s = sq.sum(axes, keepdim);
    const std::int64_t n = numel() / std::max<std::int64_t>(1, sq.sum(axes, true).numel());
    return s / ConstType(double(std::max<std::int64_t>(0, n - correction)));
  }
  Tensor var(std::int64_t axis, bool keepdim = false, std::int64_t correction = 1) const {
    return var(std::vector<std::int64_t>{axis}, keepdim, correction);
  }
  Tensor std(std::vector<std::int64_t> axes = {}, bool keepdim = false, std::int64_t correction = 1) const {
    return var(std::move(axes), keepdim, correction).sqrt();
  }
  Tensor std(std::int64_t axis, bool keepdim = false, std::int64_t correction = 1) const { return var(axis, keepdim, correction).sqrt(); }
  // the index of the first maximum (over the flattened tensor when no axis is given), int32
  Tensor argmax(std::optional<std::int64_t> axis = std::nullopt, bool keepdim = false) const {
    if (!axis) return flatten().argmax(0);
    const std::int64_t ax = resolve_dim("argmax", *axis), n = d_->shape[std::size_t(ax)];
    Shape s(d_->shape.size(), 1);
    s[std::size_t(ax)] = n;
    const Tensor down = arange(n, 0, -1, dtypes::int32, device()).reshape(s);  // n, n-1, ..., 1
    const Tensor idx = (*this == max(ax, true)).cast(dtypes::int32) * down;
    return (Tensor::full({}, n, dtypes::int32, device()) - idx.max(ax, keepdim)).cast(dtypes::int32);
  }
  Tensor argmin(std::optional<std::int64_t> axis = std::nullopt, bool keepdim = false) const { return (-*this).argmax(axis, keepdim); }
  // running sum along an axis (tinygrad's cumsum): each output sums the inputs at or before it
  Tensor cumsum(std::int64_t axis = 0) const {
    if (d_->shape.empty()) return *this;
    const std::int64_t ax = resolve_dim("cumsum", axis), last = ndim() - 1, n = d_->shape[std::size_t(ax)];
    const Tensor x = transpose(ax, last);
    const Tensor mask = arange(n, std::nullopt, 1, std::nullopt, device()).reshape({n, 1}) >=
                        arange(n, std::nullopt, 1, std::nullopt, device()).reshape({1, n});
    return (x.unsqueeze(-2) * mask.cast(x.dtype())).sum(-1).transpose(ax, last);
  }
  // tinygrad's dot / matmul: the last axis of this against the second-to-last of w (the only one of a 1-d w)
  Tensor dot(const Tensor& w, std::optional<DType> acc = std::nullopt) const {
    const std::int64_t dx = ndim(), dw = w.ndim();
    if (dx == 0 || dw == 0) throw Error("dot: both tensors need to be at least 1-D, got " + shape_str(d_->shape) + " and " + shape_str(w.d_->shape));
    const std::int64_t axis_w = -std::min<std::int64_t>(dw, 2);
    if (d_->shape.back() != w.d_->shape[std::size_t(dw + axis_w)])
      throw Error("dot: cannot dot " + shape_str(d_->shape) + " and " + shape_str(w.d_->shape));
    const std::int64_t ones = std::min<std::int64_t>({dx - 1, dw - 1, 1});
    Shape xs(d_->shape.begin(), d_->shape.end() - 1), ws(w.d_->shape.begin(), w.d_->shape.end() - std::min<std::int64_t>(dw, 2));
    xs.insert(xs.end(), std::size_t(ones), 1), xs.push_back(d_->shape.back());
    ws.insert(ws.end(), std::size_t(ones), 1), ws.insert(ws.end(), w.d_->shape.end() + axis_w, w.d_->shape.end());
    const Tensor x = reshape(xs), wt = w.reshape(ws).transpose(-1, axis_w);
    return (x * wt).sum(std::vector<std::int64_t>{-1}, false, acc).cast(acc.value_or(least_upper_dtype(dtype(), w.dtype())));
  }
  Tensor matmul(const Tensor& w) const { return dot(w); }


  // ==== random: defined in tensor/random.hpp ====
  // tinygrad's generators, number for number: the same seed and the same draws (per device, in
  // order, of the same sizes) give the same values
  static void manual_seed(std::uint64_t seed = 0);  // the seed's low 32 bits count, as in tinygrad
  // uniform on [0, 1), a float dtype
  static Tensor rand(const Shape& shape, DType dtype = dtypes::default_float, const std::string& device = default_device);
  // standard normal (Box-Muller on one rand draw of twice the size, in float32, then cast)
  static Tensor randn(const Shape& shape, DType dtype = dtypes::default_float, const std::string& device = default_device);
  // ints uniform on [low, high)
  static Tensor randint(const Shape& shape, std::int64_t low = 0, std::int64_t high = 10, DType dtype = dtypes::int32,
                        const std::string& device = default_device);
  static Tensor uniform(const Shape& shape, double low = 0.0, double high = 1.0, DType dtype = dtypes::default_float,
                        const std::string& device = default_device);
  static Tensor normal(const Shape& shape, double mean = 0.0, double std_dev = 1.0, DType dtype = dtypes::default_float,
                       const std::string& device = default_device);
  // initializers: uniform on [-prod(shape)^-0.5, prod(shape)^-0.5); Glorot's and Kaiming's (fan-in:
  // the sizes after the first)
  static Tensor scaled_uniform(const Shape& shape, DType dtype = dtypes::default_float, const std::string& device = default_device);
  static Tensor glorot_uniform(const Shape& shape, DType dtype = dtypes::default_float, const std::string& device = default_device);
  static Tensor kaiming_uniform(const Shape& shape, double a = 0.01, DType dtype = dtypes::default_float,
                                const std::string& device = default_device);
  static Tensor kaiming_normal(const Shape& shape, double a = 0.01, DType dtype = dtypes::default_float,
                               const std::string& device = default_device);
  // this tensor's shape and device; the dtype defaults to this tensor's
  Tensor rand_like(std::optional<DType> dtype = std::nullopt) const;
  Tensor randn_like(std::optional<DType> dtype = std::nullopt) const;
  // tinygrad's Tensor.training: dropout and friends act only while it is set
  inline static bool training = false;
  // zeroes each element with probability p and scales the rest by 1/(1-p), while training; else the identity
  Tensor dropout(double p = 0.5) const;
  // While one is alive, Tensor::training is `mode` (tinygrad's `with Tensor.train():`).
  class Train {
   public:
    explicit Train(bool mode = true) : prev_(std::exchange(training, mode)) {}
    ~Train() { training = prev_; }
    Train(const Train&) = delete;
    Train& operator=(const Train&) = delete;
   private:
    bool prev_;
  };
  // ==== end random ====

  // ==== indexing: defined in tensor/index.hpp ====
  // numpy's / tinygrad's indexing: ints, slices, newaxis, ellipsis and int tensors (advanced indexing).
  // t[i] and t[{i, j}] read; setitem writes (t[i] = x does not compile: a Tensor is a handle).
  // (templates, like the rest of indexing: a translation unit that does not index does not compile it)
  template <class T = void> Tensor operator[](const Index& i) const;
  template <class T = void> Tensor operator[](std::initializer_list<Index> i) const;
  template <class T = void> Tensor getitem(const std::vector<Index>& indices) const;
  template <class T = void> Tensor& setitem(const std::vector<Index>& indices, const Tensor& v);
  template <class T = void> Tensor& setitem(const std::vector<Index>& indices, ConstType v);
  // out[i][j][k] = this[index[i][j][k]][j][k] for dim 0 (likewise for the others)
  template <class T = void> Tensor gather(std::int64_t dim, const Tensor& index) const;
  // int32 one-hot vectors along a new last axis; -1 classes: max + 1 (computes the tensor)
  template <class T = void> Tensor one_hot(std::int64_t num_classes = -1) const;

 private:
  template <class T> Tensor getitem_(const std::vector<Index>& indices, const Tensor* v) const;
  Tensor one_hot_along_dim(std::int64_t n, std::int64_t dim) const;
  Tensor pad_zeros(const std::vector<std::pair<std::int64_t, std::int64_t>>& p) const;
  Tensor pad_pairs(const std::vector<std::pair<std::int64_t, std::int64_t>>& p, PadMode mode, ConstType value) const;

 public:
  // ==== end indexing ====

  // ==== nn ops: defined in tensor/nn_ops.hpp ====
  // tinygrad's functional nn ops. Convolutions and pools work over any number of spatial dims (the
  // trailing ones); padding is an int, one per spatial dim, or (left, right, top, bottom, ...).
  Tensor linear(const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt) const;
  Tensor conv2d(const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt, std::int64_t groups = 1, Sizes stride = 1, Sizes dilation = 1, Sizes padding = 0) const;
  Tensor conv_transpose2d(const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt, std::int64_t groups = 1, Sizes stride = 1, Sizes dilation = 1, Sizes padding = 0, Sizes output_padding = 0) const;
  Tensor max_pool2d(Sizes kernel_size = {2, 2}, Sizes stride = {}, Sizes dilation = 1, Sizes padding = 0, bool ceil_mode = false) const;
  Tensor avg_pool2d(Sizes kernel_size = {2, 2}, Sizes stride = {}, Sizes dilation = 1, Sizes padding = 0, bool ceil_mode = false, bool count_include_pad = true) const;
  Tensor layernorm(std::vector<std::int64_t> axes = {-1}, double eps = 1e-5) const;
  Tensor batchnorm(const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& invstd, std::vector<std::int64_t> axes = {1}) const;
  Tensor scaled_dot_product_attention(const Tensor& key, const Tensor& value, const std::optional<Tensor>& attn_mask = std::nullopt, double dropout_p = 0.0, bool is_causal = false) const;
  Tensor cross_entropy(const Tensor& Y, Reduction reduction = Reduction::mean, double label_smoothing = 0.0) const;
  Tensor sparse_categorical_crossentropy(const Tensor& Y, std::int64_t ignore_index = -1, double label_smoothing = 0.0, Reduction reduction = Reduction::mean) const;
  Tensor binary_crossentropy(const Tensor& Y, Reduction reduction = Reduction::mean) const;
  Tensor binary_crossentropy_logits(const Tensor& Y, Reduction reduction = Reduction::mean, const std::optional<Tensor>& pos_weight = std::nullopt) const;

 private:
  Tensor pool_(const std::vector<std::int64_t>& k, const std::vector<std::int64_t>& s, const std::vector<std::int64_t>& d) const;
  Tensor do_reduction_(Reduction reduction) const;

 public:
  // ==== end nn ops ====

 private:
  TensorT(UOp u, Shape s, std::string device) : d_(detail::TensorData::make(std::move(u), std::move(s), std::move(device))) {}
  explicit TensorT(std::shared_ptr<detail::TensorData> d) : d_(std::move(d)) {}
  Tensor view(UOp u, Shape s) const { return Tensor(std::move(u), std::move(s), d_->device); }  // same device
  DType dtype_() const { return dtype(); }
  // The one way from the Tensor layer into the engine: computes roots on dev together with dev's pending
  // assigns (written into their buffers, their tensors then view them); returns each root's BUFFER
  template <class T>
  static std::vector<UOp> compute(std::vector<UOp> roots, const std::string& dev) {
    std::vector<detail::PendingAssigns::Entry> pending = detail::PendingAssigns::get().take(dev);
    if (pending.empty()) return roots.empty() ? roots : realize_uops<T>(roots, dev);
    std::vector<UOp> targets, values;
    for (const auto& e : pending) targets.push_back(e.target), values.push_back(e.holder->uop);
    // a root that reads an assigned buffer directly must see the written values: the assigns run first
    try {
      if (detail::reads_outside(roots, targets, values)) {
        const std::vector<std::pair<UOp, UOp>> map = written_map(pending);
        write_assigns<T>(pending, {}, dev);
        for (UOp& r : roots) r = r.substitute(map, /*walk=*/true);
        return roots.empty() ? roots : realize_uops<T>(roots, dev);
      }
      return write_assigns<T>(pending, roots, dev);
    } catch (...) {  // nothing was written: the assigns stay pending
      for (auto& e : pending) if (e.holder->uop != buffer_view(e.target, e.holder->shape)) detail::PendingAssigns::get().add(std::move(e));
      throw;
    }
  }
  // computes the pending values with roots in one schedule (every kernel reads the buffers as they were)
  // and writes the values into their buffers; every live tensor whose graph holds a value then reads
  // the buffer instead. Returns the roots' buffers.
  template <class T>
  static std::vector<UOp> write_assigns(const std::vector<detail::PendingAssigns::Entry>& pending, const std::vector<UOp>& roots, const std::string& dev) {
    std::vector<UOp> all, targets;
    for (const auto& e : pending) all.push_back(e.holder->uop), targets.push_back(e.target);
    all.insert(all.end(), roots.begin(), roots.end());
    targets.resize(all.size());
    // in place where that is safe, else computed into new buffers and copied
    std::optional<std::vector<UOp>> into = realize_uops_into<T>(all, targets, dev);
    const std::vector<UOp> bufs = into ? std::move(*into) : realize_uops<T>(all, dev);
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if (bufs[i] == pending[i].target) continue;
      const auto& from = host_buffer(bufs[i]).bytes;
      auto& to = host_buffer(pending[i].target).bytes;
      if (from.size() != to.size())
        throw Error("assign: the value has " + std::to_string(from.size()) + " bytes, the buffer " + std::to_string(to.size()));
      std::memcpy(to.data(), from.data(), to.size());
    }
    const std::vector<std::pair<UOp, UOp>> map = written_map(pending);
    // one pass (walk): a replaced value's buffer read may look like the value itself (a + 1 over a + 1)
    for (const auto& d : detail::TensorRegistry::get().live()) d->uop = d->uop.substitute(map, /*walk=*/true);
    std::vector<UOp> out(bufs.begin() + std::ptrdiff_t(pending.size()), bufs.end());
    for (std::size_t r = 0; r < roots.size(); ++r)  // a root that is a pending value: its buffer
      for (std::size_t i = 0; i < pending.size(); ++i) if (roots[r] == all[i]) out[r] = pending[i].target;
    return out;
  }
  // each written value, to the view of its buffer that replaces it
  static std::vector<std::pair<UOp, UOp>> written_map(const std::vector<detail::PendingAssigns::Entry>& pending) {
    std::vector<std::pair<UOp, UOp>> map;
    for (const auto& e : pending) map.emplace_back(e.holder->uop, buffer_view(e.target, e.holder->shape));
    return map;
  }
  static UOp buffer_view(const UOp& buf, const Shape& shape) { return shape == Shape{buf.arg().as_int()} ? buf : mop_reshape(buf, shape); }
  static std::vector<UOp> pending_values(const std::string& dev) {
    std::vector<UOp> out;
    detail::PendingAssigns& p = detail::PendingAssigns::get();
    detail::LockGuard lock(p.m);
    for (const auto& e : p.list) if (e.holder->device == dev) out.push_back(e.holder->uop);
    return out;
  }
  // the buffer this tensor's pending assign writes, or null
  UOp pending_target() const {
    detail::PendingAssigns& p = detail::PendingAssigns::get();
    detail::LockGuard lock(p.m);
    for (const auto& e : p.list) if (e.holder == d_) return e.target;
    return {};
  }
  bool is_realized() const {
    const UOp& u = d_->uop.op() == Ops::RESHAPE ? d_->uop.src(0) : d_->uop;
    return u.op() == Ops::BUFFER;
  }
  static void check_shape(const char* who, const Shape& s) {
    for (std::int64_t d : s) if (d < 0) throw Error(std::string(who) + ": negative size in shape " + shape_str(s));
  }
  std::int64_t resolve_dim(const char* who, std::int64_t d) const {
    const std::int64_t n = std::max<std::int64_t>(ndim(), 1);
    if (d < -n || d >= n) throw Error(std::string(who) + ": dim " + std::to_string(d) + " out of range for shape " + shape_str(d_->shape));
    return d < 0 ? d + n : d;
  }
  // assign into a view of buf on the host (a value that reads buf elsewhere, or an expanded view): the
  // view's movement ops, replayed on the buffer's element indices, say which buffer element each of a's
  // elements goes to (the last of repeats wins, as an expand's)
  void write_through_view(const UOp& buf, const HostArray& a) const {
    std::vector<UOp> chain;  // the movement ops, top to bottom
    for (const UOp* u = &d_->uop; u->op() != Ops::BUFFER; u = &u->src(0)) {
      if (u->op() == Ops::PAD) throw Error("assign: can't write through a padded view of a buffer, shape " + shape_str(d_->shape));
      chain.push_back(*u);
    }
    std::vector<std::int64_t> ids(std::size_t(buf.arg().as_int()));
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = std::int64_t(i);
    UOp idx = from(ids, {std::int64_t(ids.size())}, dtypes::int64, device()).d_->uop;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      std::vector<UOp> src(it->src().begin(), it->src().end());
      src[0] = idx;
      idx = UOp(it->op(), dtypes::int64, src, it->arg());
    }
    const std::vector<std::int64_t> to = reference_eval(idx).to_vector<std::int64_t>();
    AlignedBytes& bytes = host_buffer(buf).bytes;
    const std::size_t isz = std::size_t(dtype().itemsize());
    for (std::size_t i = 0; i < to.size(); ++i)
      std::memcpy(bytes.data() + std::size_t(to[i]) * isz, a.bytes.data() + i * isz, isz);
  }
  Tensor pad_flat(std::span<const std::int64_t> flat, PadMode mode, ConstType value) const;
  Tensor shift(Ops op, const Tensor& y) const {
    auto [a, b] = broadcasted(y);
    if (!a.dtype().is_int()) throw Error(op_repr(op) + ": shifts need int tensors, got " + a.dtype().repr());
    return a.view(a.d_->uop.alu(op, b.d_->uop), a.d_->shape);
  }
  Tensor tri(const char* who, std::int64_t diagonal, bool lower) const {
    if (ndim() < 2) throw Error(std::string(who) + ": needs at least 2 dims, got shape " + shape_str(d_->shape));
    const std::int64_t r = d_->shape[d_->shape.size() - 2], c = d_->shape.back();
    const Tensor rows = arange(r, std::nullopt, 1, dtypes::default_int, device()).unsqueeze(-1);
    const Tensor cols = arange(c, std::nullopt, 1, dtypes::default_int, device());
    const Tensor keep = lower ? cols <= rows + ConstType(diagonal) : rows + ConstType(diagonal) <= cols;
    return keep.where(*this, full_like(0));
  }
  Tensor reduce(Ops op, std::vector<std::int64_t> axes, bool keepdim) const {
    std::vector<std::int64_t> ax;
    if (axes.empty()) for (std::int64_t i = 0; i < ndim(); ++i) ax.push_back(i);
    for (std::int64_t a : axes) {
      const std::int64_t d = resolve_dim("reduce", a);
      if (std::find(ax.begin(), ax.end(), d) != ax.end()) throw Error("reduce: axis " + std::to_string(a) + " appears twice");
      ax.push_back(d);
    }
    if (ndim() == 0) ax.clear();
    Shape kept = d_->shape, dropped;
    std::vector<std::int64_t> real;  // tinygrad's _rop skips axes of size 1
    for (std::int64_t a : ax) {
      if (d_->shape[std::size_t(a)] != 1) real.push_back(a);
      kept[std::size_t(a)] = 1;
    }
    const Tensor r = real.empty() ? *this : view(rop(d_->uop, op, real), kept);
    for (std::size_t i = 0; i < d_->shape.size(); ++i)
      if (std::find(ax.begin(), ax.end(), std::int64_t(i)) == ax.end()) dropped.push_back(d_->shape[i]);
    return keepdim ? r : r.reshape(dropped);
  }

  std::shared_ptr<detail::TensorData> d_;
};

namespace detail {
template <class> std::shared_ptr<TensorData> TensorData::make(UOp u, Shape s, std::string device) {
  auto d = std::make_shared<TensorData>(TensorData{std::move(u), std::move(s), std::move(device), std::nullopt, nullptr});
  if (Tensor::NoGrad::active()) d->requires_grad = false;
  TensorRegistry::get().add(d);
  return d;
}
}  // namespace detail

}  // namespace mg

#include "index.hpp"
#include "nn_ops.hpp"
#include "random.hpp"
