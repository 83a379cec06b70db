#pragma once
// reference_eval: the value of a tensor graph, computed op by op on host arrays, with no scheduler
// and no codegen. It is the oracle every compiled backend is tested against, so it is written to be
// plainly right rather than fast: each element of an ALU op goes through exec_alu (the code that
// folds constants), each CAST through cast_value, each THREEFRY through threefry2x32_value (the
// numbers of the decomposition symbolic folds), and each movement op is an index map from output to
// source.
//
// Reductions accumulate wide and round once, at the end: floats in double (so a float64 sum is a
// plain double sum), ints in their own dtype through exec_alu, whose wraparound after each step is
// the exact sum or product wrapped once (arithmetic mod 2^n), bools as Python's ints truncated to
// bool (ADD and MAX are OR, MUL is AND). Each starts at tinygrad's identity_element (0 for ADD, 1 for
// MUL, the dtype's min, -inf for floats, for MAX), which is what an empty reduction gives. Elements
// are taken in row-major order, acc = op(acc, x); MAX is Python's max(acc, x), so a NaN does not win.
// A backend that adds float32 in float32 can differ in the last bits (ten 0.1s: tinygrad gives
// 1.0000001192092896, this 1.0), so float reductions compare with a tolerance.
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "../core/cmath.hpp"
#include "../core/alu.hpp"
#include "../core/error.hpp"
#include "../core/eval.hpp"
#include "../core/ptr_map.hpp"
#include "../core/uop.hpp"
#include "../symbolic/decompositions.hpp"
#include "graph.hpp"

namespace mg {

// A host array: a dtype, a shape, and the elements row-major in the dtype's storage format (what a
// BUFFER holds; see store_element).
struct HostArray {
  DType dtype = dtypes::float32;
  Shape shape;
  std::vector<std::byte> bytes;

  HostArray() = default;
  template <class = void> HostArray(DType dt, Shape s) : dtype(dt), shape(std::move(s)) {  // zero-filled
    if (!has_storage(dtype)) throw Error("HostArray: " + dtype.repr() + " has no storage format");
    for (std::int64_t d : shape) if (d < 0) throw Error("HostArray: negative size in shape " + shape_str(shape));
    bytes.resize(std::size_t(numel()) * std::size_t(dtype.itemsize()));
  }
  std::int64_t numel() const { return shape_prod(shape); }
  // element i (row-major) as a bool, an int (a uint64 as its bit pattern) or a double
  template <class = void> Arg at(std::int64_t i) const { return load_element(dtype, ptr(i, "at")); }
  // stores v in element i: an int wraps to the dtype, a float rounds to it
  template <class = void> void set(std::int64_t i, const Arg& v) { store_element(dtype, v, const_cast<std::byte*>(ptr(i, "set"))); }
  // the elements converted as static_cast converts them (a uint64 element as unsigned); a float
  // element for an integer T must be finite and in T's range
  template <class T>
    requires(std::is_arithmetic_v<T>)
  std::vector<T> to_vector() const {
    std::vector<T> out;
    for (std::int64_t i = 0; i < numel(); ++i) {
      const Arg v = at(i);
      if constexpr (std::is_same_v<T, bool>) out.push_back(v.as_float() != 0);
      else if (v.is_float() && std::is_integral_v<T>) {
        const double d = cmath::trunc(v.as_float());
        if (!(d >= double(std::numeric_limits<T>::min()) && d < double(std::numeric_limits<T>::max()) + 1.0))
          throw Error("HostArray::to_vector: " + v.repr() + " does not fit the integer type");
        out.push_back(T(d));
      } else if (v.is_float()) out.push_back(T(v.as_float()));
      else if (dtype == dtypes::uint64) out.push_back(T(std::uint64_t(v.as_int())));
      else out.push_back(T(v.as_int()));
    }
    return out;
  }

 private:
  const std::byte* ptr(std::int64_t i, const char* who) const {
    if (i < 0 || i >= numel())
      throw Error(std::string("HostArray::") + who + ": index " + std::to_string(i) + " out of range for shape " + shape_str(shape));
    return bytes.data() + i * dtype.itemsize();
  }
};

namespace detail {
// row-major strides of a shape, in elements
template <class = void> Shape strides_of(const Shape& s) {
  Shape st(s.size(), 1);
  for (std::size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}
// calls f(idx, flat) for each index of shape in row-major order
template <class F>
void for_each_index(const Shape& shape, F&& f) {
  const std::int64_t n = shape_prod(shape);
  Shape idx(shape.size(), 0);
  for (std::int64_t flat = 0; flat < n; ++flat) {
    f(static_cast<const Shape&>(idx), flat);
    for (std::size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}
// the source's flat index of each output index (a movement op); -1 means padding, which is 0
template <class F>
HostArray gather(const HostArray& src, const Shape& out_shape, F&& src_index) {
  HostArray out(src.dtype, out_shape);
  const std::size_t isz = std::size_t(src.dtype.itemsize());
  for_each_index(out_shape, [&](const Shape& idx, std::int64_t flat) {
    const std::int64_t j = src_index(idx);
    if (j >= 0) std::memcpy(out.bytes.data() + std::size_t(flat) * isz, src.bytes.data() + std::size_t(j) * isz, isz);
  });
  return out;
}
// the strides that read a source of shape s broadcast to out (aligned at the right, a size-1 axis repeats)
template <class = void> Shape broadcast_strides(const Shape& s, const Shape& out) {
  const Shape st = strides_of(s);
  Shape b(out.size(), 0);
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] != 1) b[out.size() - s.size() + i] = st[i];
  return b;
}
template <class = void> std::int64_t dot(const Shape& idx, const Shape& strides) {
  std::int64_t r = 0;
  for (std::size_t i = 0; i < idx.size(); ++i) r += idx[i] * strides[i];
  return r;
}
// out[i] = f(the sources' elements at i), the sources broadcast to out's shape
template <class F>
HostArray elementwise(DType dt, const Shape& out_shape, const std::vector<const HostArray*>& srcs, F&& f) {
  HostArray out(dt, out_shape);
  std::vector<Shape> strides;
  for (const HostArray* s : srcs) strides.push_back(broadcast_strides(s->shape, out_shape));
  std::vector<Arg> operands(srcs.size());
  for_each_index(out_shape, [&](const Shape& idx, std::int64_t flat) {
    for (std::size_t k = 0; k < srcs.size(); ++k) operands[k] = srcs[k]->at(dot(idx, strides[k]));
    out.set(flat, f(static_cast<const std::vector<Arg>&>(operands)));
  });
  return out;
}

// exec_alu's value, which every dtype with a storage format has
template <class = void> Arg alu_value(Ops op, DType dt, std::span<const Arg> operands, DType operand_dtype) {
  if (auto r = exec_alu(op, dt, operands, operand_dtype)) return std::move(*r);
  throw Error(op_repr(op) + " on " + dt.repr() + " has no value");
}

// the value of a REDUCE of x over axes (see the header comment for the accumulation)
template <std::same_as<HostArray> H> H reduce(const H& x, Ops op, const Shape& out_shape) {
  if (op != Ops::ADD && op != Ops::MUL && op != Ops::MAX)
    throw Error("reduce op " + op_repr(op) + " is not ADD, MUL or MAX");
  const DType dt = x.dtype, acc_dt = dt.is_float() ? dtypes::float64 : dt;
  std::vector<Arg> acc(std::size_t(shape_prod(out_shape)), identity_element(op, acc_dt));
  const Shape out_strides = broadcast_strides(out_shape, x.shape);  // a reduced axis has size 1: stride 0
  for_each_index(x.shape, [&](const Shape& idx, std::int64_t flat) {
    Arg& a = acc[std::size_t(dot(idx, out_strides))];
    const Arg operands[2] = {a, x.at(flat)};
    a = alu_value(op, acc_dt, operands, acc_dt);
  });
  HostArray out(dt, out_shape);
  for (std::size_t i = 0; i < acc.size(); ++i) out.set(std::int64_t(i), cast_value(acc[i], acc_dt, dt));
  return out;
}

template <class = void> Arg threefry_value(const Arg& x, const Arg& key) {
  return Arg(std::int64_t(threefry2x32_value(std::uint64_t(x.as_int()), std::uint64_t(key.as_int()))));
}

// how many of u's sources carry values (the rest are shape arguments, devices, uniques)
template <class = void> std::size_t value_srcs(const UOp& u) {
  const Ops op = u.op();
  std::size_t n = 1;
  if (op == Ops::BUFFER || op == Ops::CONST) n = 0;
  else if (GroupOp::ALU.contains(op)) n = std::size_t(op_arity(op));
  else if (!GroupOp::Movement.contains(op) && op != Ops::REDUCE && op != Ops::CAST && op != Ops::BITCAST && op != Ops::CONTIGUOUS &&
           op != Ops::CONTIGUOUS_BACKWARD && op != Ops::DETACH && op != Ops::COPY)
    throw Error("reference_eval: no reference evaluation for " + op_repr(op) + " (" + u.dtype().repr() + ")");
  if (u.nsrc() < n || (GroupOp::ALU.contains(op) && u.nsrc() != n))
    throw Error("reference_eval: " + op_repr(op) + " has " + std::to_string(u.nsrc()) + " sources, " + std::to_string(n) + " expected");
  return n;
}

// the value of node u of shape `shape` from its sources' values
template <std::same_as<UOp> U> HostArray eval_node(const U& u, const Shape& shape, const std::vector<const HostArray*>& src) {
  const Ops op = u.op();
  const DType dt = u.dtype();
  if (dt.count != 1 || dt.is_ptr) throw Error("vector and pointer dtypes are not supported");
  if (op == Ops::BUFFER) {
    HostArray out(dt, shape);
    const auto& bytes = host_buffer(u).bytes;
    if (bytes.size() != out.bytes.size())
      throw Error("host bytes hold " + std::to_string(bytes.size()) + " bytes, " + std::to_string(out.bytes.size()) + " expected");
    out.bytes.assign(bytes.begin(), bytes.end());
    return out;
  }
  if (op == Ops::CONST) {
    HostArray out(dt, shape);
    if (out.numel() != 1) throw Error("a CONST of shape " + shape_str(shape));
    out.set(0, u.arg());
    return out;
  }
  const HostArray& x = *src[0];
  if (GroupOp::ALU.contains(op) && op != Ops::THREEFRY) {
    const DType od = u.src(op == Ops::WHERE ? 1 : 0).dtype();
    return elementwise(dt, shape, src, [&](const std::vector<Arg>& v) { return alu_value(op, dt, v, od); });
  }
  switch (op) {
    case Ops::THREEFRY:
      if (dt != dtypes::uint64 || x.dtype != dtypes::uint64 || src[1]->dtype != dtypes::uint64)
        throw Error("THREEFRY needs uint64 operands and result");
      return elementwise(dt, shape, src, [](const std::vector<Arg>& v) { return threefry_value(v[0], v[1]); });
    case Ops::CAST:
      return elementwise(dt, shape, src, [&](const std::vector<Arg>& v) { return cast_value(v[0], x.dtype, dt, "reference_eval"); });
    case Ops::BITCAST: {  // the same bytes read as the new dtype; a bool byte becomes 0 or 1
      HostArray out(dt, shape);
      if (out.bytes.size() != x.bytes.size())
        throw Error("bitcast of " + std::to_string(x.bytes.size()) + " bytes to " + std::to_string(out.bytes.size()) + " bytes");
      out.bytes = x.bytes;
      if (dt.is_bool()) for (std::byte& b : out.bytes) b = std::byte(b != std::byte{0});
      return out;
    }
    case Ops::CONTIGUOUS: case Ops::CONTIGUOUS_BACKWARD: case Ops::DETACH: case Ops::COPY: return x;
    case Ops::RESHAPE: {
      HostArray out = x;
      out.shape = shape;
      return out;
    }
    case Ops::EXPAND: {
      const Shape st = broadcast_strides(x.shape, shape);
      return gather(x, shape, [&](const Shape& idx) { return dot(idx, st); });
    }
    case Ops::PERMUTE: {
      const Shape xst = strides_of(x.shape);
      Shape st;
      for (const Arg& a : u.arg().as_tuple()) st.push_back(xst[std::size_t(a.as_int())]);
      return gather(x, shape, [&](const Shape& idx) { return dot(idx, st); });
    }
    case Ops::FLIP: {
      const Shape st = strides_of(x.shape);
      const ArgTuple& flip = u.arg().as_tuple();
      return gather(x, shape, [&](const Shape& idx) {
        std::int64_t j = 0;
        for (std::size_t i = 0; i < idx.size(); ++i) j += (flip[i].as_bool() ? shape[i] - 1 - idx[i] : idx[i]) * st[i];
        return j;
      });
    }
    case Ops::PAD: case Ops::SHRINK: {
      const Shape st = strides_of(x.shape);
      const auto pairs = mop_pairs(u);
      const bool pad = op == Ops::PAD;
      return gather(x, shape, [&](const Shape& idx) {
        std::int64_t j = 0;
        for (std::size_t i = 0; i < idx.size(); ++i) {
          const std::int64_t k = pad ? idx[i] - pairs[i].first : idx[i] + pairs[i].first;
          if (k < 0 || k >= x.shape[i]) return std::int64_t(-1);
          j += k * st[i];
        }
        return j;
      });
    }
    case Ops::REDUCE: return reduce(x, u.arg()[0].as_op(), shape);
    default: throw Error("no reference evaluation");
  }
}
}  // namespace detail

// Evaluates the tensor graph at root: each node once, sources first. The root must have a shape.
// Throws mg::Error naming the op, its dtype and shapes for anything unsupported or malformed: an op
// with no reference evaluation, an invalid movement or broadcast (shape_of's checks), a BUFFER whose
// host bytes have the wrong size, a value an op refuses (a nan cast to an int).
template <std::same_as<UOp> U> HostArray reference_eval(const U& root) {
  if (!root) throw Error("reference_eval: null UOp");
  // the nodes whose values are needed, in toposort order: shape arguments and devices are left out
  detail::PtrMap<std::size_t> index;
  std::vector<UOp> order;
  {
    std::vector<UOp> stack{root};
    detail::PtrMap<std::uint8_t> needed;
    while (!stack.empty()) {
      const UOp u = stack.back();
      stack.pop_back();
      if (needed.contains(u.node())) continue;
      needed.set(u.node(), 1);
      const std::size_t n = detail::value_srcs(u);
      for (std::size_t i = 0; i < n; ++i) stack.push_back(u.src(i));
    }
    for (const UOp& u : root.toposort())
      if (needed.contains(u.node())) index.set(u.node(), order.size()), order.push_back(u);
  }

  std::vector<std::optional<Shape>> shapes(order.size());
  std::vector<HostArray> values(order.size());
  static const std::optional<Shape> no_shape;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const UOp& u = order[k];
    const std::size_t nv = detail::value_srcs(u);
    std::vector<const std::optional<Shape>*> src_shapes(u.nsrc(), &no_shape);
    std::vector<const HostArray*> src_values;
    for (std::size_t i = 0; i < nv; ++i) {
      const std::size_t j = *index.find(u.src(i).node());
      src_shapes[i] = &shapes[j];
      src_values.push_back(&values[j]);
    }
    shapes[k] = detail::node_shape(u, src_shapes);
    if (!shapes[k]) throw Error("reference_eval: " + op_repr(u.op()) + " has no shape");
    try {
      values[k] = detail::eval_node(u, *shapes[k], src_values);
    } catch (const Error& e) {
      std::string srcs;
      for (const HostArray* s : src_values) srcs += (srcs.empty() ? "" : ", ") + s->dtype.repr() + " " + shape_str(s->shape);
      throw Error("reference_eval: " + op_repr(u.op()) + " (" + u.dtype().repr() + " " + shape_str(*shapes[k]) + ", sources: " +
                  (srcs.empty() ? "none" : srcs) + "): " + e.what());
    }
  }
  return values.back();
}

}  // namespace mg
