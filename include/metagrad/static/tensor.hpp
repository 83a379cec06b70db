#pragma once
// The tensor side of a static kernel: tensors whose shape and dtype are part of their type, and the
// expression a kernel's lambda builds from them. Every op checks its shapes when the user's program
// compiles; lowering turns the expression into index arithmetic over RANGEs in a ct::Graph, as
// tinygrad's rangeify does for a kernel: movement ops become index math, a reduce opens a range of
// its own, an input becomes a LOAD at the index its view computes.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../core/dtype.hpp"
#include "../core/fixed_string.hpp"
#include "../core/ops.hpp"
#include "graph.hpp"

namespace mg {

// a static shape: mg::shape<4096, 512>
template <std::int64_t... D>
struct shape {
  static constexpr std::size_t ndim = sizeof...(D);
  static constexpr std::array<std::int64_t, ndim> dims{D...};
  static constexpr std::int64_t numel = (std::int64_t(1) * ... * D);
};
// axes of a reduce, a permute's order, a flip: mg::axes<0, 1>; negative axes count from the end
template <int... A> struct axes {};
// (before, after) per dimension for pad, (begin, end) per dimension for shrink: mg::pairs<0, 0, 1, 1>
template <std::int64_t... P> struct pairs {};
inline constexpr struct keepdim_t {} keepdim{};
// an element type as a value: x.cast(mg::as<std::int32_t>)
template <class T> inline constexpr std::type_identity<T> as{};

namespace st {
using ct::CArg;
using mg::detail::TupLeaf;

// ---- dtypes of C++ element types ----
template <class T> constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return dtypes::bool_;
  else if constexpr (std::is_same_v<T, float>) return dtypes::float32;
  else if constexpr (std::is_same_v<T, double>) return dtypes::float64;
  else if constexpr (std::is_same_v<T, std::int8_t>) return dtypes::int8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return dtypes::int16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return dtypes::int32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return dtypes::int64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return dtypes::uint8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return dtypes::uint16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return dtypes::uint32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return dtypes::uint64;
  else static_assert(mg::detail::always_false<T>, "static kernel: element types are bool, (u)int8..64, float and double");
}
template <Scalar S> struct ctype_of_t;
template <> struct ctype_of_t<Scalar::bool_> { using type = bool; };
template <> struct ctype_of_t<Scalar::int8> { using type = std::int8_t; };
template <> struct ctype_of_t<Scalar::int16> { using type = std::int16_t; };
template <> struct ctype_of_t<Scalar::int32> { using type = std::int32_t; };
template <> struct ctype_of_t<Scalar::int64> { using type = std::int64_t; };
template <> struct ctype_of_t<Scalar::weakint> { using type = std::int64_t; };
template <> struct ctype_of_t<Scalar::uint8> { using type = std::uint8_t; };
template <> struct ctype_of_t<Scalar::uint16> { using type = std::uint16_t; };
template <> struct ctype_of_t<Scalar::uint32> { using type = std::uint32_t; };
template <> struct ctype_of_t<Scalar::uint64> { using type = std::uint64_t; };
template <> struct ctype_of_t<Scalar::float32> { using type = float; };
template <> struct ctype_of_t<Scalar::float64> { using type = double; };
template <DType D> struct ctype_t { using type = typename ctype_of_t<D.scalar_>::type; };
template <DType D> using ctype = typename ctype_t<D>::type;

// ---- compile-time errors: the struct's name and template arguments are the sentence ----
template <fixed_string Op, class A, class B> struct shapes_do_not_broadcast {
  static_assert(mg::detail::always_false<A>, "static kernel: this op's two shapes do not broadcast (op and shapes above)");
};
template <fixed_string Op, class A, class B> struct shape_mismatch {
  static_assert(mg::detail::always_false<A>, "static kernel: this op's shapes do not fit (op and shapes above)");
};
template <fixed_string Op, class S, int... A> struct axis_out_of_range {
  static_assert(mg::detail::always_false<S>, "static kernel: an axis is outside the shape (op, shape and axes above)");
};

namespace detail {
template <auto A, class = std::make_index_sequence<A.size()>> struct shape_of_array_t;
template <auto A, std::size_t... I> struct shape_of_array_t<A, std::index_sequence<I...>> { using type = shape<A[I]...>; };
template <auto A> using shape_of_array = typename shape_of_array_t<A>::type;

template <class A, class B> constexpr bool broadcastable() {
  constexpr std::size_t n = A::ndim > B::ndim ? A::ndim : B::ndim;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t a = i < n - A::ndim ? 1 : A::dims[i - (n - A::ndim)];
    const std::int64_t b = i < n - B::ndim ? 1 : B::dims[i - (n - B::ndim)];
    if (a != b && a != 1 && b != 1) return false;
  }
  return true;
}
template <class A, class B> constexpr auto broadcast_dims() {
  constexpr std::size_t n = A::ndim > B::ndim ? A::ndim : B::ndim;
  std::array<std::int64_t, n> out{};
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t a = i < n - A::ndim ? 1 : A::dims[i - (n - A::ndim)];
    const std::int64_t b = i < n - B::ndim ? 1 : B::dims[i - (n - B::ndim)];
    out[i] = a == 1 ? b : a;
  }
  return out;
}
constexpr int norm_axis(int a, std::size_t n) { return a < 0 ? a + int(n) : a; }
template <class S, int... A> constexpr bool axes_ok() { return ((norm_axis(A, S::ndim) >= 0 && norm_axis(A, S::ndim) < int(S::ndim)) && ... && true); }
}  // namespace detail

// ---- the expression: one node type per op; lowered into a ct::Graph ----
using Idx = std::int64_t;
inline constexpr std::size_t graph_cap = 1024;
using CG = ct::Graph<graph_cap>;
using CN = ct::Node<graph_cap>;
template <std::size_t N> using Idxs = std::array<CN, N>;

template <class S> constexpr CN linear_index(CG& g, const Idxs<S::ndim>& idx) {
  CN out = g.const_(dtypes::weakint, Idx(0));
  Idx stride = 1;
  for (std::size_t i = S::ndim; i-- > 0;) {
    if (S::dims[i] != 1) out = idx[i] * stride + out;
    stride *= S::dims[i];
  }
  return out;
}

// an input tensor: slot k of the kernel's arguments
template <int Slot, DType D, class S> struct InputE {
  static constexpr DType dtype = D;
  using shape_t = S;
  static constexpr int height = 0;
  constexpr CN lower(CG& g, const Idxs<S::ndim>& idx) const {
    CN buf = g.make(Ops::PARAM, D.ptr(S::numel), {}, CArg(Slot));
    return g.make(Ops::LOAD, D, {g.make(Ops::INDEX, D.ptr(S::numel), {buf, linear_index<S>(g, idx)})});
  }
};
template <DType D, class S> struct ConstE {
  static constexpr DType dtype = D;
  using shape_t = S;
  static constexpr int height = 0;
  CArg v;
  constexpr CN lower(CG& g, const Idxs<S::ndim>&) const { return g.const_(D, v); }
};
template <Ops O, DType D, class... A> struct AluE {
  static constexpr DType dtype = D;
  using shape_t = typename std::tuple_element_t<0, std::tuple<A...>>::shape_t;
  static constexpr int height = std::max({A::height...});
  Tup<A...> src;
  constexpr CN lower(CG& g, const Idxs<shape_t::ndim>& idx) const {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      CN s[] = {static_cast<const TupLeaf<I, A>&>(src).v.lower(g, idx)...};
      if constexpr (sizeof...(A) == 1) return g.make(O, D, {s[0]});
      else if constexpr (sizeof...(A) == 2) return g.make(O, D, {s[0], s[1]});
      else return g.make(O, D, {s[0], s[1], s[2]});
    }(std::index_sequence_for<A...>{});
  }
};
template <class S, class A> struct ReshapeE {
  static constexpr DType dtype = A::dtype;
  using shape_t = S;
  static constexpr int height = A::height;
  A a;
  constexpr CN lower(CG& g, const Idxs<S::ndim>& idx) const {
    using SA = typename A::shape_t;
    const CN flat = linear_index<S>(g, idx);
    Idxs<SA::ndim> in{};
    Idx stride = 1;
    for (std::size_t i = SA::ndim; i-- > 0;) {
      CN v = stride == 1 ? flat : flat / stride;
      in[i] = i == 0 ? v : v % SA::dims[i];
      stride *= SA::dims[i];
    }
    return a.lower(g, in);
  }
};
template <class S, class A, std::array<int, S::ndim> P> struct PermuteE {
  static constexpr DType dtype = A::dtype;
  using shape_t = S;
  static constexpr int height = A::height;
  A a;
  constexpr CN lower(CG& g, const Idxs<S::ndim>& idx) const {
    Idxs<S::ndim> in{};
    for (std::size_t i = 0; i < S::ndim; ++i) in[std::size_t(P[i])] = idx[i];
    return a.lower(g, in);
  }
};
template <class S, class A> struct ExpandE {
  static constexpr DType dtype = A::dtype;
  using shape_t = S;
  static constexpr int height = A::height;
  A a;
  constexpr CN lower(CG& g, const Idxs<S::ndim>& idx) const {
    Idxs<S::ndim> in{};
    for (std::size_t i = 0; i < S::ndim; ++i) in[i] = A::shape_t::dims[i] == 1 ? g.const_(dtypes::weakint, Idx(0)) : idx[i];
    return a.lower(g, in);
  }
};
// pad (begin = -before) and shrink (begin) are one view: in = out + begin, valid where 0 <= in < dim
template <class S, class A, std::array<Idx, S::ndim> Begin> struct OffsetE {
  static constexpr DType dtype = A::dtype;
  using shape_t = S;
  static constexpr int height = A::height;
  A a;
  constexpr CN lower(CG& g, const Idxs<S::ndim>& idx) const {
    Idxs<S::ndim> in{};
    CN valid{};
    for (std::size_t i = 0; i < S::ndim; ++i) {
      in[i] = Begin[i] == 0 ? idx[i] : idx[i] + Begin[i];
      if (Begin[i] < 0 || Begin[i] + S::dims[i] > A::shape_t::dims[i]) {  // padded: some outputs read nothing
        CN ok = !(Begin[i] < 0) ? g.const_(dtypes::bool_, true) : (in[i] < 0).logical_not();
        if (Begin[i] + S::dims[i] > A::shape_t::dims[i]) ok = ok & (in[i] < A::shape_t::dims[i]);
        valid = valid ? (valid & ok) : ok;
      }
    }
    CN v = a.lower(g, in);
    return valid ? valid.where(v, g.const_(dtype, dtype.is_float() ? CArg(0.0) : CArg(Idx(0)))) : v;
  }
};
template <class S, class A, std::uint64_t F> struct FlipE {
  static constexpr DType dtype = A::dtype;
  using shape_t = S;
  static constexpr int height = A::height;
  A a;
  constexpr CN lower(CG& g, const Idxs<S::ndim>& idx) const {
    Idxs<S::ndim> in{};
    for (std::size_t i = 0; i < S::ndim; ++i) in[i] = (F >> i & 1) ? (S::dims[i] - 1) + -idx[i] : idx[i];
    return a.lower(g, in);
  }
};
// a reduce of one axis, the axis kept with size 1. Its range is named by the reduce's height (how
// many reduces nest below it) and axis: a reduce nested in another never shares its range, and two
// copies of one expression (softmax's x.max() twice) lower to the same nodes, so it is computed once
template <Ops O, int Axis, class S, class A> struct ReduceE {
  static constexpr DType dtype = A::dtype;
  using shape_t = S;
  static constexpr int height = A::height + 1;
  A a;
  constexpr CN lower(CG& g, const Idxs<S::ndim>& idx) const {
    constexpr Idx n = A::shape_t::dims[std::size_t(Axis)];
    Idxs<S::ndim> in = idx;
    CN r = g.make(Ops::RANGE, dtypes::weakint, {g.const_(dtypes::weakint, n)}, CArg(Idx(64 * height + Axis)));
    in[std::size_t(Axis)] = r;
    return g.make(Ops::REDUCE, dtype, {a.lower(g, in), r}, CArg(O));
  }
};

template <class E> class Tensor;
template <class T> struct is_tensor : std::false_type {};
template <class E> struct is_tensor<Tensor<E>> : std::true_type {};

namespace detail {
template <DType D, class E> constexpr auto cast_expr(const E& e) {
  if constexpr (E::dtype == D) return e;
  else return AluE<Ops::CAST, D, E>{make_tup(e)};
}
template <class S, class E> constexpr auto expand_to(const E& e) {
  using SE = typename E::shape_t;
  if constexpr (std::is_same_v<SE, S>) return e;
  else {
    // broadcasting aligns the right ends: reshape to S's rank with leading 1s, then expand
    constexpr auto dims = [] {
      std::array<Idx, S::ndim> d{};
      for (std::size_t i = 0; i < S::ndim; ++i) d[i] = i < S::ndim - SE::ndim ? 1 : SE::dims[i - (S::ndim - SE::ndim)];
      return d;
    }();
    using R = shape_of_array<dims>;
    auto r = [&] {
      if constexpr (std::is_same_v<R, SE>) return e;
      else return ReshapeE<R, E>{e};
    }();
    if constexpr (std::is_same_v<R, S>) return r;
    else return ExpandE<S, decltype(r)>{r};
  }
}
// Axis sets are bit masks: GCC 12 takes two std::array<bool, N> template arguments that differ for
// the same one, and reuses the wrong instantiation.
// which axes a reduce covers (none named: all of them)
template <std::size_t N, int... A> constexpr std::uint64_t reduce_mask() {
  if constexpr (sizeof...(A) == 0) return (std::uint64_t(1) << N) - 1;
  else return ((std::uint64_t(1) << norm_axis(A, N)) | ...);
}
template <class S, std::uint64_t Mask> constexpr auto drop_axes() {
  constexpr std::size_t n = S::ndim - std::size_t(std::popcount(Mask));
  std::array<Idx, n> out{};
  std::size_t k = 0;
  for (std::size_t i = 0; i < S::ndim; ++i)
    if (!(Mask >> i & 1)) out[k++] = S::dims[i];
  return out;
}
// one ReduceE per reduced axis, the last axis innermost (its loop is the fastest)
template <Ops O, std::uint64_t Mask, std::size_t I, class X> constexpr auto reduce_axes(const X& x) {
  if constexpr (I == 0) return x;
  else if constexpr (!(Mask >> (I - 1) & 1)) return reduce_axes<O, Mask, I - 1>(x);
  else {
    using SX = typename X::shape_t;
    constexpr auto dims = [] {
      auto r = SX::dims;
      r[I - 1] = 1;
      return r;
    }();
    return reduce_axes<O, Mask, I - 1>(ReduceE<O, int(I - 1), shape_of_array<dims>, X>{x});
  }
}
}  // namespace detail

// tinygrad's dtype of a Python scalar combined with a tensor of dtype D
template <class C> constexpr DType scalar_dtype(DType d) {
  if constexpr (std::is_same_v<C, bool>) return d;
  else if constexpr (std::is_floating_point_v<C>) return d.is_float() ? d : dtypes::default_float;
  else return d.is_float() || d.is_int() ? d : dtypes::default_int;
}

template <class E>
class Tensor {
 public:
  using expr_t = E;
  using shape_t = typename E::shape_t;
  static constexpr DType dtype = E::dtype;
  using value_type = ctype<E::dtype>;
  E e;

  constexpr Tensor(E x) : e(x) {}
  static constexpr std::size_t ndim = shape_t::ndim;

  // ---- elementwise ----
  template <DType D> constexpr auto cast() const { return Tensor<decltype(detail::cast_expr<D>(e))>{detail::cast_expr<D>(e)}; }
  template <class T> constexpr auto cast() const { return cast<dtype_of<T>()>(); }
  // in a generic lambda, x.cast(mg::as<int>) reads better than x.template cast<int>()
  template <class T> constexpr auto cast(std::type_identity<T>) const { return cast<dtype_of<T>()>(); }
  template <Ops O> constexpr auto unary() const { return Tensor<AluE<O, dtype, E>>{{make_tup(e)}}; }
  constexpr auto float_() const { return cast<least_upper_float(dtype)>(); }
  template <class C> requires std::is_arithmetic_v<C> constexpr auto full_like(C c) const {
    constexpr DType d = scalar_dtype<C>(dtype);
    return Tensor<ConstE<d, shape_t>>{{d.is_float() ? CArg(double(c)) : d.is_bool() ? CArg(bool(c)) : CArg(std::int64_t(c))}};
  }
  constexpr auto exp2() const { return float_().template unary<Ops::EXP2>(); }
  constexpr auto log2() const { return float_().template unary<Ops::LOG2>(); }
  constexpr auto sqrt() const { return float_().template unary<Ops::SQRT>(); }
  constexpr auto sin() const { return float_().template unary<Ops::SIN>(); }
  constexpr auto reciprocal() const { return float_().template unary<Ops::RECIPROCAL>(); }
  constexpr auto exp() const { return (float_() * (1.0 / 0.6931471805599453)).exp2(); }
  constexpr auto log() const { return float_().log2() * 0.6931471805599453; }
  constexpr auto relu() const { return (*this > 0).where(*this, 0); }
  constexpr auto sigmoid() const { return (1.0 + (*this * (-1.0 / 0.6931471805599453)).exp2()).reciprocal(); }
  constexpr auto abs() const { return (*this < 0).where(-*this, *this); }
  constexpr auto square() const { return *this * *this; }
  template <class B> constexpr auto maximum(const B& b) const;
  template <class B> constexpr auto minimum(const B& b) const { return -((-*this).maximum(-b)); }
  template <class A, class B> constexpr auto where(const A& a, const B& b) const;

  // ---- reduce ----
  template <int... A> constexpr auto sum(axes<A...> = {}) const { return reduce<Ops::ADD, false>(axes<A...>{}); }
  template <int... A> constexpr auto sum(axes<A...>, keepdim_t) const { return reduce<Ops::ADD, true>(axes<A...>{}); }
  template <int... A> constexpr auto max(axes<A...> = {}) const { return reduce<Ops::MAX, false>(axes<A...>{}); }
  template <int... A> constexpr auto max(axes<A...>, keepdim_t) const { return reduce<Ops::MAX, true>(axes<A...>{}); }
  template <int... A> constexpr auto mean(axes<A...> = {}) const { return mean_<false>(axes<A...>{}); }
  template <int... A> constexpr auto mean(axes<A...>, keepdim_t) const { return mean_<true>(axes<A...>{}); }
  template <int A = -1> constexpr auto softmax(axes<A> = {}) const {
    auto m = float_() - float_().max(axes<A>{}, keepdim);
    auto e = m.exp();
    return e / e.sum(axes<A>{}, keepdim);
  }
  template <int A = -1> constexpr auto log_softmax(axes<A> = {}) const {
    auto m = float_() - float_().max(axes<A>{}, keepdim);
    return m - m.exp().sum(axes<A>{}, keepdim).log();
  }
  template <class B> constexpr auto matmul(const Tensor<B>& b) const;
  template <class B> constexpr auto dot(const Tensor<B>& b) const { return matmul(b); }

  // ---- movement ----
  template <Idx... D> constexpr auto reshape(shape<D...>) const {
    using S = shape<D...>;
    if constexpr (S::numel != shape_t::numel) return error<shape_mismatch<"reshape", shape_t, S>>();
    else if constexpr (std::is_same_v<S, shape_t>) return *this;
    else return Tensor<ReshapeE<S, E>>{{e}};
  }
  template <int... P> constexpr auto permute(axes<P...>) const {
    constexpr std::array<int, sizeof...(P)> p{detail::norm_axis(P, ndim)...};
    constexpr bool ok = sizeof...(P) == ndim && [] {
      std::array<bool, ndim> seen{};
      for (int a : {detail::norm_axis(P, ndim)...}) {
        if (a < 0 || a >= int(ndim) || seen[std::size_t(a)]) return false;
        seen[std::size_t(a)] = true;
      }
      return true;
    }();
    if constexpr (!ok) return error<axis_out_of_range<"permute", shape_t, P...>>();
    else return permute_by<p>();
  }
  // axes 0 and 1 swapped, as tinygrad's transpose() (dim0=1, dim1=0)
  constexpr auto transpose() const {
    static_assert(ndim >= 2, "static kernel: transpose needs two axes");
    constexpr auto p = [] {
      std::array<int, ndim> r{};
      for (std::size_t i = 0; i < ndim; ++i) r[i] = int(i);
      r[0] = 1, r[1] = 0;
      return r;
    }();
    return permute_by<p>();
  }
  template <std::array<int, ndim> p> constexpr auto permute_by() const {
    constexpr std::array<Idx, ndim> d = [] {
      std::array<Idx, ndim> r{};
      for (std::size_t i = 0; i < ndim; ++i) r[i] = shape_t::dims[std::size_t(p[i])];
      return r;
    }();
    return Tensor<PermuteE<detail::shape_of_array<d>, E, p>>{{e}};
  }
  template <Idx... D> constexpr auto expand(shape<D...>) const {
    using S = shape<D...>;
    if constexpr (!detail::broadcastable<shape_t, S>() || detail::broadcast_dims<shape_t, S>() != S::dims)
      return error<shape_mismatch<"expand", shape_t, S>>();
    else return Tensor<decltype(detail::expand_to<S>(e))>{detail::expand_to<S>(e)};
  }
  template <Idx... P> constexpr auto pad(pairs<P...>) const {
    constexpr std::array<Idx, sizeof...(P)> p{P...};
    if constexpr (sizeof...(P) != 2 * ndim) return error<shape_mismatch<"pad", shape_t, shape<P...>>>();
    else {
      constexpr auto d = [&] {
        std::array<Idx, ndim> r{};
        for (std::size_t i = 0; i < ndim; ++i) r[i] = shape_t::dims[i] + p[2 * i] + p[2 * i + 1];
        return r;
      }();
      constexpr auto b = [&] {
        std::array<Idx, ndim> r{};
        for (std::size_t i = 0; i < ndim; ++i) r[i] = -p[2 * i];
        return r;
      }();
      if constexpr (((P < 0) || ...)) return error<shape_mismatch<"pad", shape_t, shape<P...>>>();
      else return Tensor<OffsetE<detail::shape_of_array<d>, E, b>>{{e}};
    }
  }
  template <Idx... P> constexpr auto shrink(pairs<P...>) const {
    constexpr std::array<Idx, sizeof...(P)> p{P...};
    constexpr bool ok = sizeof...(P) == 2 * ndim && [&] {
      for (std::size_t i = 0; i < ndim; ++i)
        if (p[2 * i] < 0 || p[2 * i] > p[2 * i + 1] || p[2 * i + 1] > shape_t::dims[i]) return false;
      return true;
    }();
    if constexpr (!ok) return error<shape_mismatch<"shrink", shape_t, shape<P...>>>();
    else {
      constexpr auto d = [&] {
        std::array<Idx, ndim> r{};
        for (std::size_t i = 0; i < ndim; ++i) r[i] = p[2 * i + 1] - p[2 * i];
        return r;
      }();
      constexpr auto b = [&] {
        std::array<Idx, ndim> r{};
        for (std::size_t i = 0; i < ndim; ++i) r[i] = p[2 * i];
        return r;
      }();
      return Tensor<OffsetE<detail::shape_of_array<d>, E, b>>{{e}};
    }
  }
  template <int... A> constexpr auto flip(axes<A...>) const {
    if constexpr (!detail::axes_ok<shape_t, A...>()) return error<axis_out_of_range<"flip", shape_t, A...>>();
    else {
      return Tensor<FlipE<shape_t, E, detail::reduce_mask<ndim, A...>()>>{{e}};
    }
  }

 private:
  template <class Err> static constexpr auto error() {
    (void)sizeof(Err);  // instantiating it is the compile-time error
    return Tensor<ConstE<dtype, shape<>>>{{CArg{}}};
  }
  template <Ops O, bool Keep, int... A> constexpr auto reduce(axes<A...>) const;
  template <bool Keep, int... A> constexpr auto mean_(axes<A...>) const {
    constexpr Idx n = [] {
      if constexpr (sizeof...(A) == 0) return shape_t::numel;
      else return (shape_t::dims[std::size_t(detail::norm_axis(A, ndim))] * ... * Idx(1));
    }();
    return float_().template reduce<Ops::ADD, Keep>(axes<A...>{}) * (1.0 / double(n));
  }
};

// ---- free operators: tensor op tensor, tensor op scalar, scalar op tensor ----
template <class T> constexpr auto as_tensor_like(const auto& like, const T& v) {
  if constexpr (is_tensor<T>::value) return v;
  else return like.full_like(v);
}

template <fixed_string Name, Ops O, bool Cmp, class A, class B>
constexpr auto elementwise(const Tensor<A>& a, const Tensor<B>& b) {
  using SA = typename A::shape_t;
  using SB = typename B::shape_t;
  if constexpr (!detail::broadcastable<SA, SB>()) {
    (void)sizeof(shapes_do_not_broadcast<Name, SA, SB>);
    return a;
  } else {
    using S = detail::shape_of_array<detail::broadcast_dims<SA, SB>()>;
    constexpr DType d = least_upper_dtype(A::dtype, B::dtype);
    auto x = detail::expand_to<S>(detail::cast_expr<d>(a.e));
    auto y = detail::expand_to<S>(detail::cast_expr<d>(b.e));
    return Tensor<AluE<O, Cmp ? dtypes::bool_ : d, decltype(x), decltype(y)>>{{make_tup(x, y)}};
  }
}

template <class T> concept Scalar_ = std::is_arithmetic_v<T>;

#define MG_ST_BINARY(SYM, NAME, OP, CMP)                                                                                    \
  template <class A, class B> constexpr auto operator SYM(const Tensor<A>& a, const Tensor<B>& b) {                         \
    return elementwise<NAME, OP, CMP>(a, b);                                                                                \
  }                                                                                                                         \
  template <class A, Scalar_ C> constexpr auto operator SYM(const Tensor<A>& a, C c) { return a SYM a.full_like(c); }      \
  template <class A, Scalar_ C> constexpr auto operator SYM(C c, const Tensor<A>& a) { return a.full_like(c) SYM a; }
MG_ST_BINARY(+, "add", Ops::ADD, false)
MG_ST_BINARY(*, "mul", Ops::MUL, false)
MG_ST_BINARY(<, "cmplt", Ops::CMPLT, true)
MG_ST_BINARY(!=, "cmpne", Ops::CMPNE, true)
MG_ST_BINARY(&, "and", Ops::AND, false)
MG_ST_BINARY(|, "or", Ops::OR, false)
MG_ST_BINARY(^, "xor", Ops::XOR, false)
#undef MG_ST_BINARY

template <class A> constexpr auto operator-(const Tensor<A>& a) {
  if constexpr (A::dtype.is_bool()) return a != true;
  else return a * a.full_like(-1);
}
template <class A, class B> constexpr auto operator-(const Tensor<A>& a, const Tensor<B>& b) { return a + (-b); }
template <class A, Scalar_ C> constexpr auto operator-(const Tensor<A>& a, C c) { return a - a.full_like(c); }
template <class A, Scalar_ C> constexpr auto operator-(C c, const Tensor<A>& a) { return a.full_like(c) - a; }
template <class A, class B> constexpr auto operator>(const Tensor<A>& a, const Tensor<B>& b) { return b < a; }
template <class A, Scalar_ C> constexpr auto operator>(const Tensor<A>& a, C c) { return a.full_like(c) < a; }
template <class A, class B> constexpr auto operator==(const Tensor<A>& a, const Tensor<B>& b) { return (a != b) != true; }
template <class A, Scalar_ C> constexpr auto operator==(const Tensor<A>& a, C c) { return (a != c) != true; }
// true division, as tinygrad's: both sides as floats, times the reciprocal
template <class A, class B> constexpr auto operator/(const Tensor<A>& a, const Tensor<B>& b) {
  constexpr DType d = least_upper_float(least_upper_dtype(A::dtype, B::dtype));
  return a.template cast<d>() * b.template cast<d>().reciprocal();
}
template <class A, Scalar_ C> constexpr auto operator/(const Tensor<A>& a, C c) { return a / a.full_like(c); }
template <class A, Scalar_ C> constexpr auto operator/(C c, const Tensor<A>& a) { return a.full_like(c) / a; }

template <class E>
template <class B>
constexpr auto Tensor<E>::maximum(const B& b) const {
  return elementwise<"maximum", Ops::MAX, false>(*this, as_tensor_like(*this, b));
}

template <class E>
template <class A, class B>
constexpr auto Tensor<E>::where(const A& a_, const B& b_) const {
  // the branches promote as a binary op would; a scalar branch takes the other branch's dtype
  auto pick = [](const auto& x, const auto& other) {
    using X = std::remove_cvref_t<decltype(x)>;
    if constexpr (is_tensor<X>::value) return x;
    else if constexpr (is_tensor<std::remove_cvref_t<decltype(other)>>::value) return other.full_like(x);
    else return Tensor<ConstE<dtype_of<X>(), shape<>>>{{CArg(x)}};
  };
  auto a = pick(a_, b_);
  auto b = pick(b_, a_);
  using TA = decltype(a);
  using TB = decltype(b);
  using SAB = typename decltype(elementwise<"where", Ops::ADD, false>(a, b))::shape_t;
  if constexpr (!detail::broadcastable<shape_t, SAB>()) {
    (void)sizeof(shapes_do_not_broadcast<"where", shape_t, SAB>);
    return *this;
  } else {
    using S = detail::shape_of_array<detail::broadcast_dims<shape_t, SAB>()>;
    constexpr DType d = least_upper_dtype(TA::dtype, TB::dtype);
    auto c = detail::expand_to<S>(detail::cast_expr<dtypes::bool_>(e));
    auto x = detail::expand_to<S>(detail::cast_expr<d>(a.e));
    auto y = detail::expand_to<S>(detail::cast_expr<d>(b.e));
    return Tensor<AluE<Ops::WHERE, d, decltype(c), decltype(x), decltype(y)>>{{make_tup(c, x, y)}};
  }
}

template <class E>
template <Ops O, bool Keep, int... A>
constexpr auto Tensor<E>::reduce(axes<A...>) const {
  if constexpr (!detail::axes_ok<shape_t, A...>()) return error<axis_out_of_range<O == Ops::ADD ? fixed_string("sum") : fixed_string("max"), shape_t, A...>>();
  else {
    constexpr auto ax = detail::reduce_mask<ndim, A...>();
    // tinygrad's sum accumulates small ints as int32 (uint32 for unsigned), bools as int32
    constexpr DType d = O != Ops::ADD || dtype.is_float() ? dtype
                        : dtype.is_unsigned()             ? least_upper_dtype(dtype, dtypes::uint32)
                                                          : least_upper_dtype(dtype, dtypes::int32);
    auto r = detail::reduce_axes<O, ax, ndim>(detail::cast_expr<d>(e));
    using SR = typename decltype(r)::shape_t;
    if constexpr (Keep) return Tensor<decltype(r)>{r};
    else return Tensor<decltype(r)>{r}.reshape(detail::shape_of_array<detail::drop_axes<SR, ax>()>{});
  }
}

template <class E>
template <class B>
constexpr auto Tensor<E>::matmul(const Tensor<B>& b) const {
  using SA = shape_t;
  using SB = typename B::shape_t;
  if constexpr (SA::ndim != 2 || SB::ndim != 2 || SA::dims[1] != SB::dims[0]) {
    (void)sizeof(shape_mismatch<"matmul", SA, SB>);
    return *this;
  } else {
    constexpr Idx n = SA::dims[0], k = SA::dims[1], m = SB::dims[1];
    // tinygrad's dot: (n,1,k) * (1,m,k), summed over k
    auto x = reshape(shape<n, 1, k>{});
    auto w = b.transpose().reshape(shape<1, m, k>{});
    return (x * w).sum(axes<2>{});
  }
}

// the tensor a kernel's lambda receives for argument k
template <int Slot, class T, Idx... D> constexpr auto input_tensor() {
  return Tensor<InputE<Slot, dtype_of<T>(), shape<D...>>>{{}};
}

}  // namespace st
}  // namespace mg
