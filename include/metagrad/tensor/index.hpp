#pragma once
// Tensor indexing: getitem, setitem, gather, one_hot, and pad's modes, as tinygrad's tensor.py and
// mixin/movement.py build them. Everything is movement ops, where and sums, so gradients flow
// through the existing rules.
//
//   Tensor t = Tensor::arange(12).reshape({3, 4});
//   t[1];                                           // (4,): row 1
//   t.getitem({slice(0, 2), Slice{.step = 2}});     // t[0:2, ::2]
//   t.getitem({Tensor::from({2, 0}), -1});          // t[[2, 0], -1]: advanced indexing
//   t.setitem({1, slice(1, 3)}, 0);                 // t[1, 1:3] = 0
#include <concepts>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <variant>

#include "tensor.hpp"

namespace mg {

// a Python slice; nullopt is Python's None. Out-of-range bounds clamp, negative ones count from the end.
struct Slice {
  std::optional<std::int64_t> start = std::nullopt, stop = std::nullopt, step = std::nullopt;
};
template <class = void> Slice slice() { return {}; }  // `:`
template <class = void> Slice slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop, std::optional<std::int64_t> step = std::nullopt) {
  return {start, stop, step};
}
// numpy's newaxis (tinygrad's None index) and `...`
struct newaxis_t { explicit constexpr newaxis_t() = default; };
struct ellipsis_t { explicit constexpr ellipsis_t() = default; };
inline constexpr newaxis_t newaxis{};
inline constexpr ellipsis_t ellipsis{};

// one index of getitem / setitem: an int, a Slice, newaxis, ellipsis, or an int Tensor (advanced indexing).
// Index is IndexT<>, a class template like Tensor, so that only a translation unit that indexes compiles
// its variant (and the Tensor copies and destructors in it).
template <class>
class IndexT {
 public:
  template <std::integral T> IndexT(T i) : v(std::int64_t(i)) {}
  IndexT(bool) = delete;  // boolean masks are not indices (tinygrad does not support them either)
  IndexT(Slice s) : v(s) {}
  IndexT(newaxis_t n) : v(n) {}
  IndexT(ellipsis_t e) : v(e) {}
  IndexT(const Tensor& t) : v(t) {}
  std::variant<std::int64_t, Slice, newaxis_t, ellipsis_t, Tensor> v;
};

namespace detail {
// one index after parsing (tinygrad's _parse_view_index): the range [begin, end) of the dim it reads,
// its step, the size it leaves, whether an int removes the dim, and an advanced index's tensor
struct ParsedIndex {
  std::int64_t size = 1, begin = 0, end = 1, step = 1;
  bool collapse = false, newaxis = false;
  std::optional<Tensor> tensor = std::nullopt;
};

// Python's slice.indices(size), then as a range read forwards (flipped after for a negative step)
template <class = void> ParsedIndex parse_slice(const char* who, const Slice& s, std::int64_t size) {
  const std::int64_t step = std::max(s.step.value_or(1), -std::numeric_limits<std::int64_t>::max());
  if (step == 0) throw Error(std::string(who) + ": slice step cannot be 0");
  const std::int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? size - 1 : size;
  auto bound = [&](std::optional<std::int64_t> x, std::int64_t none) {
    return x ? std::clamp(*x < 0 ? *x + size : *x, lower, upper) : none;
  };
  const std::int64_t start = bound(s.start, step < 0 ? upper : lower), stop = bound(s.stop, step < 0 ? lower : upper);
  std::int64_t b = start, e = stop;
  if (step > 0 ? stop < start : stop > start) b = e = 0;
  else if (step < 0) b = stop + 1, e = start + 1;
  const std::int64_t n = e - b, st = step < 0 ? -step : step;
  // a step past the range picks its first element only: clamp it so striding pads no more than it must
  const std::int64_t eff = std::min(st, std::max<std::int64_t>(n, 1));
  return {.size = (n + eff - 1) / eff, .begin = b, .end = e, .step = step < 0 ? -eff : eff};
}

// whether target is in u's graph; memo (1: no, 2: yes) is shared between calls on one target
template <class = void> bool graph_contains(const UOp& u, const UOp& target, PtrMap<char>& memo) {
  std::vector<std::pair<UOp, bool>> stack{{u, false}};
  while (!stack.empty()) {
    auto [n, expanded] = stack.back();
    stack.pop_back();
    if (memo.contains(n.node())) continue;
    if (n == target) {
      memo.set(n.node(), 2);
    } else if (!expanded) {
      stack.emplace_back(n, true);
      for (const UOp& s : n.src()) if (!memo.contains(s.node())) stack.emplace_back(s, false);
    } else {
      char r = 1;
      for (const UOp& s : n.src()) r = std::max(r, *memo.find(s.node()));
      memo.set(n.node(), r);
    }
  }
  return *memo.find(u.node()) == 2;
}
}  // namespace detail

template <class D> template <class T> Tensor TensorT<D>::operator[](const Index& i) const { return getitem_<T>({i}, nullptr); }
template <class D> template <class T> Tensor TensorT<D>::operator[](std::initializer_list<Index> i) const { return getitem_<T>(std::vector<Index>(i), nullptr); }
template <class D> template <class T> Tensor TensorT<D>::getitem(const std::vector<Index>& indices) const { return getitem_<T>(indices, nullptr); }

// tinygrad's _getitem: getitem when v is null; with v, the whole new value of this tensor for setitem
template <class D> template <class T>
Tensor TensorT<D>::getitem_(const std::vector<Index>& indices, const Tensor* v) const {
  const std::string who = v ? "setitem" : "getitem";
  // tinygrad's _normalize_indices: the ellipsis (or the end) stands for the dims no index names
  std::int64_t ellipses = 0, real = 0;
  for (const Index& i : indices) {
    if (std::holds_alternative<ellipsis_t>(i.v)) ++ellipses;
    else if (!std::holds_alternative<newaxis_t>(i.v)) ++real;
  }
  if (ellipses > 1) throw Error(who + ": an index can only have a single ellipsis");
  if (real > ndim()) throw Error(who + ": too many indices (" + std::to_string(real) + ") for shape " + shape_str(d_->shape));

  std::vector<detail::ParsedIndex> parsed;
  std::int64_t dim = 0;
  auto full_dims = [&] {
    for (std::int64_t k = 0; k < ndim() - real; ++k, ++dim) {
      const std::int64_t n = d_->shape[std::size_t(dim)];
      parsed.push_back({.size = n, .begin = 0, .end = n});
    }
  };
  for (const Index& i : indices) {
    if (std::holds_alternative<ellipsis_t>(i.v)) { full_dims(); continue; }
    if (std::holds_alternative<newaxis_t>(i.v)) { parsed.push_back({.newaxis = true}); continue; }
    const std::int64_t n = d_->shape[std::size_t(dim)];
    if (const std::int64_t* x = std::get_if<std::int64_t>(&i.v)) {
      if (*x >= n || *x < -n)
        throw Error(who + ": index " + std::to_string(*x) + " is out of bounds for dim " + std::to_string(dim) + " of shape " + shape_str(d_->shape));
      const std::int64_t b = *x < 0 ? *x + n : *x;
      parsed.push_back({.size = n, .begin = b, .end = b + 1, .collapse = true});
    } else if (const Slice* s = std::get_if<Slice>(&i.v)) {
      parsed.push_back(detail::parse_slice(who.c_str(), *s, n));
    } else {
      const Tensor& t = std::get<Tensor>(i.v);
      if (!t.dtype().is_int()) throw Error(who + ": index tensors need an int dtype, got " + t.dtype().repr());
      if (t.device() != device()) throw Error(who + ": the index tensor is on " + t.device() + ", the tensor on " + device());
      parsed.push_back({.size = n, .begin = 0, .end = n, .tensor = (t < ConstType(0)).where(t + ConstType(n), t)});
    }
    ++dim;
  }
  if (ellipses == 0) full_dims();

  // the view: shrink to the ranges, flip the negative steps, then take every step-th element
  std::vector<detail::ParsedIndex> mops;
  for (const auto& p : parsed) if (!p.newaxis) mops.push_back(p);
  Tensor x = *this;
  if (!mops.empty()) {
    std::vector<AxisPair> range;
    std::vector<std::int64_t> flips;
    for (std::size_t d = 0; d < mops.size(); ++d) {
      range.emplace_back(std::pair{mops[d].begin, mops[d].end});
      if (mops[d].step < 0) flips.push_back(std::int64_t(d));
    }
    x = x.shrink(range).flip(flips);
    if (std::any_of(mops.begin(), mops.end(), [](const auto& m) { return m.step != 1 && m.step != -1; })) {
      std::vector<AxisPair> pads, take;
      Shape split, kept;
      for (std::size_t d = 0; d < mops.size(); ++d) {
        const std::int64_t st = std::abs(mops[d].step), n = (x.d_->shape[d] + st - 1) / st;
        pads.emplace_back(std::pair{std::int64_t(0), n * st - x.d_->shape[d]});
        split.push_back(n), split.push_back(st), kept.push_back(n);
        take.emplace_back(std::pair{std::int64_t(0), n}), take.emplace_back(std::pair{std::int64_t(0), std::int64_t(1)});
      }
      x = x.pad(pads).reshape(split).shrink(take).reshape(kept);
    }
  }
  // newaxis adds a dim of 1, an int removes its dim
  std::vector<const detail::ParsedIndex*> xdims;
  Shape xshape;
  for (const auto& p : parsed)
    if (!p.collapse) xdims.push_back(&p), xshape.push_back(p.size);
  x = x.reshape(xshape);

  std::optional<Tensor> vb;  // setitem: the value, in x's shape
  std::vector<std::int64_t> dims;
  for (std::size_t d = 0; d < xdims.size(); ++d) if (xdims[d]->tensor) dims.push_back(std::int64_t(d));
  if (!dims.empty()) {
    // advanced indexing: one one-hot mask per tensor index, all broadcast together; the masked values
    // are summed over the indexed dims, and the broadcast index shape takes the first indexed dim's place
    std::vector<Shape> shapes;
    for (std::int64_t d : dims) shapes.push_back(xdims[std::size_t(d)]->tensor->shape());
    const Shape big = broadcast_shape(shapes, who + " (tensor indices)");
    const std::int64_t d0 = dims[0], nb = std::int64_t(big.size()), xn = x.ndim();
    Shape pre_reduce(xshape.begin(), xshape.begin() + d0), ones_at = pre_reduce;
    pre_reduce.insert(pre_reduce.end(), big.begin(), big.end());
    pre_reduce.insert(pre_reduce.end(), xshape.begin() + d0, xshape.end());
    ones_at.insert(ones_at.end(), std::size_t(nb), 1);
    ones_at.insert(ones_at.end(), xshape.begin() + d0, xshape.end());
    std::optional<Tensor> mask;
    std::vector<std::int64_t> sum_axes;
    for (std::int64_t d : dims) {
      const Tensor& t = *xdims[std::size_t(d)]->tensor;
      Shape ts = t.shape();
      ts.insert(ts.end(), std::size_t(xn - d0), 1);
      const Tensor m = t.reshape(ts).expand(pre_reduce).one_hot_along_dim(xshape[std::size_t(d)], d - xn);
      mask = mask ? *mask & m : m;
      sum_axes.push_back(d + nb);
    }
    const Tensor x_pre = x;
    x = mask->where(x.reshape(ones_at), full({}, 0, dtype(), device())).sum(sum_axes, false, dtype());
    // numpy: advanced indices split by a slice put the broadcast dims first
    bool consecutive = true;
    for (std::size_t k = 1; k < dims.size(); ++k) consecutive = consecutive && dims[k] == dims[k - 1] + 1;
    const bool permuted = d0 != 0 && !consecutive;
    if (permuted) {
      auto to_front = [&](const Tensor& y) {
        std::vector<std::int64_t> order;
        for (std::int64_t k = d0; k < d0 + nb; ++k) order.push_back(k);
        for (std::int64_t k = 0; k < d0; ++k) order.push_back(k);
        for (std::int64_t k = d0 + nb; k < y.ndim(); ++k) order.push_back(k);
        return y.permute(order);
      };
      mask = to_front(*mask), x = to_front(x);
    }
    if (!v) return x;
    if (shape_prod(big) == 0) return *this;  // nothing to write
    // advanced setitem: each value goes where its index points, the last of repeated indices winning
    Tensor val = v->cast(dtype());
    try {
      val = val.expand(x.shape());
    } catch (const Error&) {
      throw Error("setitem: cannot broadcast a value of shape " + shape_str(v->shape()) + " to " + shape_str(x.shape()));
    }
    for (std::int64_t a : sum_axes) val = val.unsqueeze(a);
    Tensor m = *mask;
    const std::int64_t start = permuted ? 0 : d0;
    for (std::int64_t a = start + nb - 1; a >= start; --a) {  // tinygrad's _masked_merge
      const std::vector<Tensor> ms = m.split(1, a), vals = val.split(1, a);
      m = ms[0], val = vals[0];
      for (std::size_t k = 1; k < ms.size(); ++k) val = ms[k].where(vals[k], val), m = m | ms[k];
    }
    for (std::int64_t a = start + nb - 1; a >= start; --a) m = m.squeeze(a), val = val.squeeze(a);
    vb = m.where(val, x_pre);
  } else if (!v) {
    return x;
  } else {
    try {
      vb = v->cast(dtype()).expand(xshape);
    } catch (const Error&) {
      throw Error("setitem: cannot broadcast a value of shape " + shape_str(v->shape()) + " to " + shape_str(xshape));
    }
  }

  // setitem: put the value back where the view came from (undo the steps, flips and ranges) and keep
  // this tensor's values outside the indexed elements
  Shape mshape;
  for (const auto& p : mops) mshape.push_back(p.collapse ? 1 : p.size);
  Tensor val = vb->reshape(mshape);
  std::optional<Tensor> keep;
  std::vector<std::int64_t> flips;
  std::vector<AxisPair> pads;
  for (std::size_t i = 0; i < mops.size(); ++i) {
    const std::int64_t d = std::int64_t(i), b = mops[i].begin, e = mops[i].end, st = std::abs(mops[i].step), n = d_->shape[i];
    if (st != 1) {  // interleave with zeros: (k,) -> (k, st) -> (k*st,) -> (e-b,)
      val = val.unsqueeze(d + 1).pad(on_axis(std::size_t(val.ndim() + 1), std::size_t(d + 1), 0, st - 1));
      Shape s = val.shape();
      s[i] *= st, s.erase(s.begin() + d + 1);
      val = val.reshape(s).shrink(on_axis(std::size_t(val.ndim() - 1), std::size_t(d), 0, e - b));
    }
    if (mops[i].step < 0) flips.push_back(d);
    pads.emplace_back(std::pair{b, n - e});
    if (b == 0 && e == n && st == 1) continue;
    Shape s(mops.size(), 1);
    s[i] = n;
    const Tensor idx = arange(n, std::nullopt, 1, std::nullopt, device()).reshape(s);
    Tensor in = (idx >= ConstType(b)) & (idx < ConstType(e));
    if (st != 1) in = in & (((mops[i].step < 0 ? ConstType(e - 1) - idx : idx - ConstType(b)) % ConstType(st)) == ConstType(0));
    keep = keep ? *keep & in : in;
  }
  val = val.flip(flips).pad(pads);
  return keep ? keep->where(val, *this) : val;
}

// tinygrad's __setitem__: an unrealized tensor takes the new value's graph (so gradients flow to the
// value and the old contents); a realized one gets the value written into its buffer (assign)
template <class D> template <class T>
Tensor& TensorT<D>::setitem(const std::vector<Index>& indices, const Tensor& v) {
  if (v.dtype() != dtype()) throw Error("setitem: dtype mismatch, the tensor is " + dtype().repr() + ", the value " + v.dtype().repr());
  if (pending_target()) compute<T>({}, device());  // an assigned tensor is realized: its buffer takes the write
  const UOp& base = detail::view_base(d_->uop);
  // as tinygrad: refuse when another live tensor's graph uses this one, where eager and lazy would differ
  // (views of the same realized buffer see the write and are fine; so is the value's own graph)
  const std::vector<UOp> topo = d_->uop.toposort();
  if (std::any_of(topo.begin(), topo.end(), [](const UOp& u) { return u.op() == Ops::BUFFER; })) {
    detail::PtrMap<char> in_v, memo;
    for (const UOp& u : v.d_->uop.toposort()) in_v.set(u.node(), 1);
    for (const auto& t : detail::TensorRegistry::get().live()) {
      if (t == d_ || in_v.contains(t->uop.node())) continue;
      if (base.op() == Ops::BUFFER && detail::view_base(t->uop) == base) continue;
      if (detail::graph_contains(t->uop, d_->uop, memo))
        throw Error("setitem: can't setitem on a tensor with other uses (a live tensor's graph reads it, and would not see the write)");
    }
  }
  const Tensor value = getitem_<T>(indices, &v);
  if (base.op() != Ops::BUFFER) {
    d_->uop = value.d_->uop;
    return *this;
  }
  return assign<T>(value);  // into the buffer, through this tensor's view of it
}
template <class D> template <class T>
Tensor& TensorT<D>::setitem(const std::vector<Index>& indices, ConstType v) { return setitem<T>(indices, full({}, v, dtype(), device())); }

// tinygrad's _one_hot_along_dim: this == arange(n) laid along dim (this tensor's size there broadcasts)
template <class D> Tensor TensorT<D>::one_hot_along_dim(std::int64_t n, std::int64_t dim) const {
  if (!dtype().is_int()) throw Error("one_hot: needs an int tensor, got " + dtype().repr());
  Shape s(std::size_t(ndim() - resolve_dim("one_hot", dim)), 1);
  s[0] = n;
  const DType dt = n > std::numeric_limits<std::int32_t>::max() ? dtypes::int64 : dtypes::int32;
  return *this == arange(n, std::nullopt, 1, dt, device()).reshape(s);
}

template <class D> template <class T>
Tensor TensorT<D>::one_hot(std::int64_t num_classes) const {
  if (!dtype().is_int()) throw Error("one_hot: needs an int tensor, got " + dtype().repr());
  if (num_classes < -1) throw Error("one_hot: num_classes must be -1 (max + 1) or non-negative, got " + std::to_string(num_classes));
  if (num_classes == -1) num_classes = numel() == 0 ? 0 : (max() + ConstType(1)).template item<detail::dep_t<T, std::int64_t>>();
  return unsqueeze(-1).one_hot_along_dim(num_classes, -1).cast(dtypes::default_int);
}

template <class D> template <class T>
Tensor TensorT<D>::gather(std::int64_t dim, const Tensor& index) const {
  if (index.device() != device()) throw Error("gather: the index is on " + index.device() + ", the tensor on " + device());
  if (index.ndim() != ndim())
    throw Error("gather: index shape " + shape_str(index.shape()) + " and tensor shape " + shape_str(d_->shape) + " differ in dims");
  if (!index.dtype().is_int()) throw Error("gather: the index needs an int dtype, got " + index.dtype().repr());
  const std::int64_t d = resolve_dim("gather", dim);
  std::vector<AxisPair> to(d_->shape.size());
  for (std::int64_t k = 0; k < ndim(); ++k) {
    if (k == d) continue;
    if (index.shape()[std::size_t(k)] > d_->shape[std::size_t(k)])
      throw Error("gather: index shape " + shape_str(index.shape()) + " is larger than tensor shape " + shape_str(d_->shape) + " at dim " + std::to_string(k));
    to[std::size_t(k)] = std::pair{std::int64_t(0), index.shape()[std::size_t(k)]};
  }
  const Tensor x = shrink(to).unsqueeze(-1).transpose(-1, d);
  return index.unsqueeze(-1).one_hot_along_dim(d_->shape[std::size_t(d)], -1).where(x, full({}, 0, dtype(), device())).sum(std::vector<std::int64_t>{-1}, false, dtype());
}

// ---- pad ----

template <class D> Tensor TensorT<D>::pad(const std::vector<AxisPair>& arg, PadMode mode, ConstType value) const {
  if (arg.size() != d_->shape.size()) throw Error("pad: " + std::to_string(arg.size()) + " pads for shape " + shape_str(d_->shape));
  std::vector<std::pair<std::int64_t, std::int64_t>> p;
  for (const auto& a : arg) p.push_back(a.value_or(std::pair<std::int64_t, std::int64_t>{0, 0}));
  return pad_pairs(p, mode, value);
}

// torch's flat form: (before, after) of the last dim first, then of the one before it, ...
template <class D> Tensor TensorT<D>::pad_flat(std::span<const std::int64_t> flat, PadMode mode, ConstType value) const {
  if (flat.size() % 2 != 0) throw Error("pad: flat padding needs an even number of pads, got " + std::to_string(flat.size()));
  if (std::int64_t(flat.size() / 2) > ndim())
    throw Error("pad: " + std::to_string(flat.size()) + " flat pads for shape " + shape_str(d_->shape));
  std::vector<std::pair<std::int64_t, std::int64_t>> p(d_->shape.size(), {0, 0});
  for (std::size_t k = 0; k < flat.size() / 2; ++k) p[p.size() - 1 - k] = {flat[2 * k], flat[2 * k + 1]};
  return pad_pairs(p, mode, value);
}

// the PAD movement op: zeros around, every pad >= 0
template <class D> Tensor TensorT<D>::pad_zeros(const std::vector<std::pair<std::int64_t, std::int64_t>>& p) const {
  std::vector<std::pair<std::int64_t, std::int64_t>> m;
  Shape s;
  bool any = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    any = any || p[i].first || p[i].second;
    m.emplace_back(p[i].first, d_->shape[i] + p[i].first + p[i].second);
    s.push_back(m.back().second);
  }
  return any ? view(mop_pad(d_->uop, m), s) : *this;
}

template <class D> Tensor TensorT<D>::pad_pairs(const std::vector<std::pair<std::int64_t, std::int64_t>>& p, PadMode mode, ConstType value) const {
  auto pair_str = [](std::pair<std::int64_t, std::int64_t> x) { return "(" + std::to_string(x.first) + ", " + std::to_string(x.second) + ")"; };
  // a negative pad cuts from that side; cut first (constant, circular) or last (reflect, replicate)
  std::vector<AxisPair> cut;
  std::vector<std::pair<std::int64_t, std::int64_t>> grow;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const auto [b, a] = p[i];
    const std::int64_t n = d_->shape[i];
    if (n + b + a < 0) throw Error("pad: pads " + pair_str(p[i]) + " leave dim " + std::to_string(i) + " of size " + std::to_string(n) + " with a negative size");
    if (mode != PadMode::reflect && mode != PadMode::replicate && (-b > n || -a > n))
      throw Error("pad: pads " + pair_str(p[i]) + " cut more than the " + std::to_string(n) + " elements of dim " + std::to_string(i));
    cut.emplace_back(std::pair{-std::min<std::int64_t>(b, 0), std::min(a + n, n)});
    grow.emplace_back(std::max<std::int64_t>(b, 0), std::max<std::int64_t>(a, 0));
  }
  if (mode == PadMode::constant) {
    const Tensor x = shrink(cut), base = x.pad_zeros(grow);
    if (value.v.as_float() == 0 || base.uop() == x.uop()) return base;
    const Tensor b = base.cast(least_upper_dtype(base.dtype(), value.py_dtype()));
    return full(x.shape(), true, dtypes::bool_, device()).pad_zeros(grow).where(b, value);
  }
  if (mode == PadMode::circular) {
    const Tensor x = shrink(cut);
    std::vector<std::int64_t> reps;
    for (std::size_t i = 0; i < grow.size(); ++i) {
      if (grow[i].first > x.d_->shape[i] || grow[i].second > x.d_->shape[i])
        throw Error("pad: circular padding " + pair_str(p[i]) + " wraps around more than once for dim " + std::to_string(i) + " of size " + std::to_string(x.d_->shape[i]));
      reps.push_back(1 + (grow[i].first > 0) + (grow[i].second > 0));
    }
    const Tensor r = x.repeat(reps);
    std::vector<AxisPair> take;
    for (std::size_t i = 0; i < grow.size(); ++i) {
      const std::int64_t o = x.d_->shape[i], n = r.d_->shape[i];
      take.emplace_back(std::pair{grow[i].first ? o - grow[i].first : 0, grow[i].second ? n - o + grow[i].second : n});
    }
    return r.shrink(take);
  }
  // reflect and replicate see the whole dim before the negative pads cut it
  Tensor x = *this;
  for (std::size_t i = 0; i < grow.size(); ++i) {
    const auto [b, a] = grow[i];
    if (!b && !a) continue;
    const std::int64_t d = std::int64_t(i), n = x.d_->shape[i];
    auto part = [&](std::int64_t from, std::int64_t to) { return x.shrink(on_axis(d_->shape.size(), i, from, to)); };
    std::vector<Tensor> pieces;
    if (mode == PadMode::reflect) {
      if (b >= n || a >= n)
        throw Error("pad: reflect padding " + pair_str(p[i]) + " should be less than the input size " + std::to_string(n) + " of dim " + std::to_string(i));
      if (b) pieces.push_back(part(1, b + 1).flip({d}));
      pieces.push_back(x);
      if (a) pieces.push_back(part(n - 1 - a, n - 1).flip({d}));
    } else {
      if (n == 0) throw Error("pad: replicate padding " + pair_str(p[i]) + " of dim " + std::to_string(i) + ", which is empty");
      auto stretch = [&](const Tensor& t, std::int64_t k) {
        Shape s = t.shape();
        s[i] = k;
        return t.expand(s);
      };
      if (b) pieces.push_back(stretch(part(0, 1), b));
      pieces.push_back(x);
      if (a) pieces.push_back(stretch(part(n - 1, n), a));
    }
    x = cat(pieces, d);
  }
  for (std::size_t i = 0; i < p.size(); ++i) {
    const std::int64_t n = x.d_->shape[i];
    cut[i] = std::pair{-std::min<std::int64_t>(p[i].first, 0), std::min(p[i].second + n, n)};
  }
  return x.shrink(cut);
}

}  // namespace mg
