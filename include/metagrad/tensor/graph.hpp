#pragma once
// The tensor graph: the UOps a Tensor is made of, as tinygrad's ops.py builds them. Buffers
// (BUFFER of UNIQUE and DEVICE, arg = element count), constants on a device, the movement ops with
// their shape arguments as sources (tinygrad's _mop / shape_to_shape_arg), reductions over axes
// (tinygrad's _rop), and shape inference with tinygrad's checks (UOp._shape). Shapes are concrete
// here; symbolic sizes come with symbolic shapes later.
//
// A BUFFER's host bytes are attached to its node (UOp::attach) and die with it.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../core/error.hpp"
#include "../core/ptr_map.hpp"
#include "../core/uop.hpp"
#include "../runtime/allocator.hpp"

namespace mg {

using Shape = std::vector<std::int64_t>;

// Python's repr of a tuple of ints: (2, 3), (4,), ()
template <class = void> std::string shape_str(const Shape& s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}
template <class = void> std::int64_t shape_prod(const Shape& s) {
  std::int64_t p = 1;
  for (std::int64_t d : s) p *= d;
  return p;
}

// ---- devices, buffers, constants ----

template <class = void> UOp device_uop(const std::string& device) { return UOp(Ops::DEVICE, dtypes::void_, {}, Arg(device)); }
// a node no other is equal to: what makes two buffers of the same size and dtype different buffers
template <class = void> UOp unique_uop() {
  static std::atomic<std::int64_t> next{0};
  return UOp(Ops::UNIQUE, dtypes::void_, {}, Arg(next.fetch_add(1, std::memory_order_relaxed)));
}
template <class = void> UOp new_buffer(const std::string& device, std::int64_t size, DType dtype) {
  if (size < 0) throw Error("new_buffer: negative size " + std::to_string(size));
  return UOp(Ops::BUFFER, dtype, {unique_uop(), device_uop(device)}, Arg(size));
}

namespace detail {
// tinygrad's UOp.base: below the movement ops
template <class = void> const UOp& view_base(const UOp& u) {
  const UOp* b = &u;
  while (GroupOp::Movement.contains(b->op())) b = &b->src(0);
  return *b;
}

// 64-byte aligned storage from the host allocator's cache (runtime/allocator.hpp), so compiled kernels
// may use aligned vector loads on a buffer and a freed buffer is reused. resize() leaves new bytes
// unset (construct without arguments default-initializes): host_buffer zeroes where it must.
template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U> AlignedAllocator(const AlignedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(host_alloc<>(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { host_free<>(p, n * sizeof(T)); }
  template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
  template <class U, class... A> void construct(U* p, A&&... a) { ::new (static_cast<void*>(p)) U(std::forward<A>(a)...); }
  template <class U> bool operator==(const AlignedAllocator<U>&) const noexcept { return true; }
};
}  // namespace detail
using AlignedBytes = std::vector<std::byte, detail::AlignedAllocator<std::byte>>;

// The bytes of a BUFFER on the host, attached to its node: allocated on first use, zeroed (so
// Tensor::empty reads as zero here) unless the caller is about to write all of it (`zero` false: the
// engine, for the outputs its kernels write whole). Every device here (CPU, INTERP, NULL) keeps its
// buffers in host memory.
struct HostBuffer final : detail::Attachment {
  AlignedBytes bytes;
};
template <class = void> HostBuffer& host_buffer(const UOp& buf, bool zero = true) {
  if (buf.op() != Ops::BUFFER) throw Error("host_buffer: " + op_repr(buf.op()) + " is not a BUFFER");
  if (auto* h = dynamic_cast<HostBuffer*>(buf.attachment())) return *h;
  auto fresh = std::make_unique<HostBuffer>();
  fresh->bytes.resize(std::size_t(buf.arg().as_int()) * std::size_t(buf.dtype().itemsize()));
  if (zero && !fresh->bytes.empty()) std::memset(fresh->bytes.data(), 0, fresh->bytes.size());
  return dynamic_cast<HostBuffer&>(*buf.attach(std::move(fresh)));
}

// ---- movement ops ----

// tinygrad's shape_to_shape_arg: a weakint vector constant (one CONST when all sizes are equal)
template <class = void> UOp shape_arg(const Shape& s) {
  if (s.empty()) return UOp(Ops::STACK, dtypes::weakint.vec(0));
  if (s.size() == 1) return UOp::const_(dtypes::weakint, Arg(s[0]));
  ArgTuple t;
  for (std::int64_t d : s) t.emplace_back(d);
  return UOp::const_(dtypes::weakint.vec(int(s.size())), Arg(std::move(t)));
}
// the sizes a shape argument holds (tinygrad's sgep over it)
template <class = void> Shape shape_arg_values(const UOp& a) {
  const int n = a.dtype().count;
  Shape out;
  for (int i = 0; i < n; ++i) {
    const UOp& e = a.op() == Ops::STACK ? a.src(std::size_t(i)) : a;
    if (e.op() != Ops::CONST || !e.arg().is_int()) throw Error("shape argument: " + op_repr(e.op()) + " is not an int constant");
    out.push_back(e.arg().as_int());
  }
  return out;
}

namespace detail {
template <class = void> ArgTuple int_tuple(const std::vector<std::int64_t>& v) {
  ArgTuple t;
  for (std::int64_t x : v) t.emplace_back(x);
  return t;
}
}  // namespace detail

template <class = void> UOp mop_reshape(const UOp& x, const Shape& s) { return UOp(Ops::RESHAPE, x.dtype(), {x, shape_arg(s)}); }
template <class = void> UOp mop_expand(const UOp& x, const Shape& s) { return UOp(Ops::EXPAND, x.dtype(), {x, shape_arg(s)}); }
template <class = void> UOp mop_permute(const UOp& x, const std::vector<std::int64_t>& order) {
  return UOp(Ops::PERMUTE, x.dtype(), {x}, Arg(detail::int_tuple(order)));
}
template <class = void> UOp mop_flip(const UOp& x, const std::vector<bool>& axes) {
  ArgTuple t;
  for (bool b : axes) t.emplace_back(b);
  return UOp(Ops::FLIP, x.dtype(), {x}, Arg(std::move(t)));
}
// PAD takes (offset of the old data in the new, new size) per axis; SHRINK takes (start, size)
template <class = void> UOp mop_pad(const UOp& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& arg) {
  Shape a, b;
  for (auto [o, sz] : arg) a.push_back(o), b.push_back(sz);
  return UOp(Ops::PAD, x.dtype(), {x, shape_arg(a), shape_arg(b)});
}
template <class = void> UOp mop_shrink(const UOp& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& arg) {
  Shape a, b;
  for (auto [o, sz] : arg) a.push_back(o), b.push_back(sz);
  return UOp(Ops::SHRINK, x.dtype(), {x, shape_arg(a), shape_arg(b)});
}
// tinygrad's marg for PAD / SHRINK: the (offset, size) pairs
template <class = void> std::vector<std::pair<std::int64_t, std::int64_t>> mop_pairs(const UOp& m) {
  const Shape a = shape_arg_values(m.src(1)), b = shape_arg_values(m.src(2));
  if (a.size() != b.size())
    throw Error(op_repr(m.op()) + ": " + std::to_string(a.size()) + " offsets but " + std::to_string(b.size()) + " sizes");
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (std::size_t i = 0; i < a.size(); ++i) out.emplace_back(a[i], b[i]);
  return out;
}
// a reduction over axes (tinygrad's _rop at the tensor level: REDUCE with arg (op, axes))
template <class = void> UOp rop(const UOp& x, Ops op, std::vector<std::int64_t> axes) {
  std::sort(axes.begin(), axes.end());
  if (axes.empty()) return x;
  return UOp(Ops::REDUCE, x.dtype(), {x}, Arg(ArgTuple{Arg(op), Arg(detail::int_tuple(axes))}));
}

// ---- shapes ----

// tinygrad's _broadcast_shape: sizes align at the right, 1 stretches, a size-0 axis wins
template <class = void> Shape broadcast_shape(const std::vector<Shape>& shapes, const std::string& op = "broadcast") {
  std::size_t n = 0;
  for (const Shape& s : shapes) n = std::max(n, s.size());
  Shape out(n, 1);
  for (std::size_t i = 0; i < n; ++i) {
    for (const Shape& s : shapes) {
      if (i + s.size() < n) continue;
      const std::int64_t d = s[i + s.size() - n];
      if (d == out[i] || d == 1) continue;
      if (out[i] != 1) {
        std::string all;
        for (const Shape& t : shapes) all += (all.empty() ? "" : ", ") + shape_str(t);
        throw Error(op + ": shapes " + all + " cannot broadcast together");
      }
      out[i] = d;
    }
  }
  return out;
}

namespace detail {
// the shape of one node from its sources' shapes (tinygrad's UOp._shape); nullopt: no shape
template <class = void> std::optional<Shape> node_shape(const UOp& u, const std::vector<const std::optional<Shape>*>& src) {
  auto need = [&](std::size_t i) -> const Shape& {
    if (!*src[i]) throw Error(op_repr(u.op()) + ": source " + std::to_string(i) + " (" + op_repr(u.src(i).op()) + ") has no shape");
    return **src[i];
  };
  const Ops op = u.op();
  switch (op) {
    case Ops::UNIQUE: case Ops::DEVICE: case Ops::SINK: case Ops::NOOP: return std::nullopt;
    case Ops::BUFFER: return Shape{u.arg().as_int()};
    case Ops::CONST: case Ops::DEFINE_VAR: return u.dtype().count > 1 ? Shape{u.dtype().count} : Shape{};
    case Ops::BIND: return Shape{};
    case Ops::STACK: return u.nsrc() == 0 ? Shape{} : [&] { Shape s{std::int64_t(u.nsrc())}; auto& r = need(0); s.insert(s.end(), r.begin(), r.end()); return s; }();
    case Ops::CONTIGUOUS: case Ops::CONTIGUOUS_BACKWARD: case Ops::DETACH: case Ops::COPY: return need(0);
    case Ops::RESHAPE: {
      const Shape& ps = need(0);
      Shape ns = shape_arg_values(u.src(1));
      for (std::int64_t d : ns) if (d < 0) throw Error("reshape: shape can't contain negative numbers " + shape_str(ns));
      if (shape_prod(ps) != shape_prod(ns)) throw Error("reshape: bad reshape " + shape_str(ps) + " -> " + shape_str(ns));
      return ns;
    }
    case Ops::EXPAND: {
      const Shape& ps = need(0);
      Shape ns = shape_arg_values(u.src(1));
      bool ok = ps.size() == ns.size();
      for (std::size_t i = 0; ok && i < ps.size(); ++i) ok = ps[i] == ns[i] || (ps[i] == 1 && ns[i] >= 0);
      if (!ok) throw Error("expand: bad expand " + shape_str(ps) + " -> " + shape_str(ns));
      return ns;
    }
    case Ops::PERMUTE: {
      const Shape& ps = need(0);
      const ArgTuple& t = u.arg().as_tuple();
      std::vector<bool> seen(ps.size(), false);
      Shape ns;
      for (const Arg& a : t) {
        const std::int64_t i = a.as_int();
        if (t.size() != ps.size() || i < 0 || i >= std::int64_t(ps.size()) || seen[std::size_t(i)])
          throw Error("permute: invalid permutation " + u.arg().repr() + " of " + shape_str(ps));
        seen[std::size_t(i)] = true;
        ns.push_back(ps[std::size_t(i)]);
      }
      if (t.size() != ps.size()) throw Error("permute: invalid permutation " + u.arg().repr() + " of " + shape_str(ps));
      return ns;
    }
    case Ops::FLIP: {
      const Shape& ps = need(0);
      if (u.arg().as_tuple().size() != ps.size()) throw Error("flip: bad flip " + u.arg().repr() + " on " + shape_str(ps));
      return ps;
    }
    case Ops::PAD: case Ops::SHRINK: {
      const Shape& ps = need(0);
      auto pairs = mop_pairs(u);
      bool ok = pairs.size() == ps.size();
      for (std::size_t i = 0; ok && i < ps.size(); ++i) {
        auto [o, sz] = pairs[i];
        ok = op == Ops::PAD ? (sz >= 0 && o >= 0 && o + ps[i] <= sz) : (o >= 0 && sz >= 0 && o + sz <= ps[i]);
      }
      if (!ok) {
        std::string a;
        for (auto [o, sz] : pairs) a += (a.empty() ? "" : ", ") + ("(" + std::to_string(o) + ", " + std::to_string(sz) + ")");
        throw Error(std::string(op == Ops::PAD ? "pad" : "shrink") + ": invalid " + (op == Ops::PAD ? "pad" : "shrink") + " ((" + a + ")) for " + shape_str(ps));
      }
      Shape ns;
      for (auto [o, sz] : pairs) ns.push_back(sz);
      return ns;
    }
    case Ops::REDUCE: {
      const Shape& ps = need(0);
      Shape ns = ps;
      for (const Arg& a : u.arg()[1].as_tuple()) {
        const std::int64_t i = a.as_int();
        if (i < 0 || i >= std::int64_t(ps.size())) throw Error("reduce: axis " + std::to_string(i) + " out of range for " + shape_str(ps));
        ns[std::size_t(i)] = 1;
      }
      return ns;
    }
    case Ops::CAST: case Ops::BITCAST:
      if (op == Ops::BITCAST && u.dtype().itemsize() != u.src(0).dtype().itemsize()) {
        Shape s = need(0);
        if (!s.empty()) s.back() = s.back() * u.src(0).dtype().itemsize() / u.dtype().itemsize();
        return s;
      }
      return need(0);
    default: break;
  }
  if (GroupOp::Unary.contains(op)) return need(0);
  if (GroupOp::Broadcastable.contains(op) || GroupOp::ALU.contains(op)) {
    std::vector<Shape> shapes;
    for (std::size_t i = 0; i < u.nsrc(); ++i) shapes.push_back(need(i));
    return broadcast_shape(shapes, op_repr(op));
  }
  throw Error("shape: no shape rule for " + op_repr(op));
}
}  // namespace detail

// The shape of a tensor-graph node, or nullopt for nodes without one (DEVICE, SINK, ...). Throws an
// mg::Error naming the op and the shapes when a movement or broadcast in the graph is invalid.
template <class = void> std::optional<Shape> shape_of(const UOp& u) {
  detail::PtrMap<std::optional<Shape>> memo;
  std::optional<Shape> out;
  for (const UOp& n : u.toposort()) {
    std::vector<const std::optional<Shape>*> src;
    for (const UOp& s : n.src()) src.push_back(memo.find(s.node()));
    out = detail::node_shape(n, src);
    memo.set(n.node(), out);
  }
  return out;
}

}  // namespace mg
