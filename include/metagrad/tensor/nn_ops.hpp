#pragma once
// Tensor's NN ops: linear, convolutions, pooling, normalization, attention and losses, built from
// movement ops, elementwise ops and reductions as tinygrad builds them (so they differentiate through
// the ordinary gradient rules). A convolution is a pool (_pool: sliding windows as new axes, made
// with repeat, shrink and reshape only) multiplied by the weight and summed.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../core/cmath.hpp"
#include "tensor.hpp"

namespace mg {
namespace detail {

using PadPairs = std::vector<std::pair<std::int64_t, std::int64_t>>;

// Python's -(a // -b): a / b rounded up, for any signs
template <class = void> std::int64_t ceildiv(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return q + ((a % b != 0) && ((a < 0) == (b < 0)) ? 1 : 0);
}

// tinygrad's make_tuple: one value repeated for every spatial dim, or one value per dim
template <class = void> std::vector<std::int64_t> make_tuple(const char* who, const char* what, const Sizes& s, std::size_t dims,
                                            std::int64_t least = 1) {
  if (s.v.size() != 1 && s.v.size() != dims)
    throw Error(std::string(who) + ": " + what + " " + shape_str(s.v) + " needs 1 or " + std::to_string(dims) + " values");
  for (std::int64_t x : s.v)
    if (x < least) throw Error(std::string(who) + ": " + what + " " + shape_str(s.v) + " must be >= " + std::to_string(least));
  return s.v.size() == 1 ? std::vector<std::int64_t>(dims, s.v[0]) : s.v;
}

// tinygrad's resolve_pool_pads then flat_to_grouped: (before, after) for each spatial dim, in order.
// An int pads every side; one value per dim pads both its sides; 2*dims values are (left, right,
// top, bottom, ...), the last dim first.
template <class = void> PadPairs pool_pads(const char* who, const Sizes& padding, std::size_t dims) {
  const std::vector<std::int64_t>& p = padding.v;
  if (p.size() == 1) return PadPairs(dims, {p[0], p[0]});
  if (p.size() == 2 * dims) {
    PadPairs g;
    for (std::size_t i = dims; i-- > 0;) g.emplace_back(p[2 * i], p[2 * i + 1]);
    return g;
  }
  if (p.size() == dims) {
    PadPairs g;
    for (std::int64_t x : p) g.emplace_back(x, x);
    return g;
  }
  throw Error(std::string(who) + ": padding " + shape_str(p) + " needs 1, " + std::to_string(dims) + " or " +
              std::to_string(2 * dims) + " values for " + std::to_string(dims) + " spatial dims");
}

// tinygrad's _apply_ceil_mode: more padding after each spatial dim so that a last, partial window is
// pooled, but never a window that starts in the padding alone
template <class = void> PadPairs ceil_mode_pads(const PadPairs& pads, const Shape& in, const std::vector<std::int64_t>& k,
                               const std::vector<std::int64_t>& s, const std::vector<std::int64_t>& d) {
  PadPairs out = pads;
  for (std::size_t j = 0; j < k.size(); ++j) {
    const auto [pb, pa] = pads[j];
    const std::int64_t i = in[j], span = d[j] * (k[j] - 1) + 1;
    const std::int64_t o = ceildiv(i + pb + pa - span, s[j]) + 1;
    out[j].second = pa + s[j] * (o - 1) + span - (i + pb + pa) - std::max<std::int64_t>(s[j] * (o - 1) - (pb + i - 1), 0);
  }
  return out;
}

// the trailing `dims` sizes of a shape
template <class = void> Shape spatial(const Shape& s, std::size_t dims) { return Shape(s.end() - std::ptrdiff_t(dims), s.end()); }
// pad's argument for pads on the trailing axes only
template <class = void> std::vector<AxisPair> trailing(std::size_t ndim, const PadPairs& p) {
  std::vector<AxisPair> r(ndim - p.size());
  r.insert(r.end(), p.begin(), p.end());
  return r;
}

}  // namespace detail

// tinygrad's _pool: x (..., *i) -> (..., *o, *k), the window of each output position on the last axes
template <class D> Tensor TensorT<D>::pool_(const std::vector<std::int64_t>& k, const std::vector<std::int64_t>& s,
                            const std::vector<std::int64_t>& d) const {
  const std::size_t n = k.size(), lead = d_->shape.size() - n;
  const Shape noop(d_->shape.begin(), d_->shape.begin() + std::ptrdiff_t(lead)), i = detail::spatial(d_->shape, n);
  for (std::size_t j = 0; j < n; ++j)
    if (d[j] * (k[j] - 1) + 1 > i[j])
      throw Error("pool: kernel " + shape_str(k) + " with dilation " + shape_str(d) + " is larger than the input " + shape_str(d_->shape));
  auto shrink_to = [](const Tensor& x, const Shape& to) {
    std::vector<AxisPair> r;
    for (std::int64_t z : to) r.emplace_back(std::pair<std::int64_t, std::int64_t>{0, z});
    return x.shrink(r);
  };
  std::vector<std::int64_t> reps(lead, 1);
  Shape tiled = noop, split = noop, strided = noop, by_step = noop, first = noop, windows = noop;
  for (std::size_t j = 0; j < n; ++j) {
    const std::int64_t o = detail::ceildiv(i[j] - d[j] * (k[j] - 1), s[j]);
    const std::int64_t f = std::max<std::int64_t>(1, detail::ceildiv(o * s[j] - d[j], i[j]));  // room to shrink for the stride
    const std::int64_t row = i[j] * f + d[j];  // k rows of this length, each shifted by d against the input
    reps.push_back(detail::ceildiv(k[j] * row, i[j]));
    tiled.push_back(k[j] * row);
    split.insert(split.end(), {k[j], row});
    strided.insert(strided.end(), {k[j], o * s[j]});
    by_step.insert(by_step.end(), {k[j], o, s[j]});
    first.insert(first.end(), {k[j], o, 1});
    windows.insert(windows.end(), {k[j], o});
  }
  const Tensor x = shrink_to(shrink_to(shrink_to(repeat(reps), tiled).reshape(split), strided).reshape(by_step), first).reshape(windows);
  std::vector<std::int64_t> order;
  for (std::size_t j = 0; j < lead; ++j) order.push_back(std::int64_t(j));
  for (std::size_t j = 0; j < n; ++j) order.push_back(std::int64_t(lead + 2 * j + 1));
  for (std::size_t j = 0; j < n; ++j) order.push_back(std::int64_t(lead + 2 * j));
  return x.permute(order);
}

template <class D> Tensor TensorT<D>::do_reduction_(Reduction reduction) const {
  switch (reduction) {
    case Reduction::none: return *this;
    case Reduction::sum: return sum();
    case Reduction::mean: return mean();
  }
  throw Error("loss: unknown reduction");
}

template <class D> Tensor TensorT<D>::linear(const Tensor& weight, const std::optional<Tensor>& bias) const {
  const Tensor x = weight.ndim() == 1 ? *this * weight : dot(weight);
  return bias ? x + *bias : x;
}

template <class D> Tensor TensorT<D>::conv2d(const Tensor& weight, const std::optional<Tensor>& bias, std::int64_t groups, Sizes stride,
                             Sizes dilation, Sizes padding) const {
  const Shape &xs = d_->shape, &ws = weight.shape();
  if (ws.size() < 3 || xs.size() != ws.size())
    throw Error("conv2d: input " + shape_str(xs) + " and weight " + shape_str(ws) + " need the same number of dims, at least 3 (batch, channels, spatial...)");
  if (groups < 1) throw Error("conv2d: groups must be >= 1, got " + std::to_string(groups));
  const std::int64_t bs = xs[0], cin_all = xs[1], cout = ws[0], cin = ws[1];
  if (groups * cin != cin_all)
    throw Error("conv2d: input " + shape_str(xs) + " does not match weight " + shape_str(ws) + " with groups=" + std::to_string(groups) + " (" +
                std::to_string(groups * cin) + " input channels expected, got " + std::to_string(cin_all) + ")");
  if (cout % groups != 0)
    throw Error("conv2d: " + std::to_string(cout) + " output channels of weight " + shape_str(ws) + " do not split into groups=" + std::to_string(groups));
  const std::size_t dims = ws.size() - 2;
  const Shape hw(ws.begin() + 2, ws.end());
  for (std::int64_t k : hw) if (k < 1) throw Error("conv2d: weight " + shape_str(ws) + " has an empty kernel");
  if (bias && bias->numel() != cout)
    throw Error("conv2d: bias " + shape_str(bias->shape()) + " does not fit the " + std::to_string(cout) + " output channels of weight " + shape_str(ws));
  const auto s = detail::make_tuple("conv2d", "stride", stride, dims), d = detail::make_tuple("conv2d", "dilation", dilation, dims);
  const Tensor x = pad(detail::trailing(xs.size(), detail::pool_pads("conv2d", padding, dims))).pool_(hw, s, d);  // (bs, cin_all, *oyx, *hw)
  const std::int64_t rcout = cout / groups;
  const Shape oyx(x.shape().begin() + 2, x.shape().begin() + 2 + std::ptrdiff_t(dims));
  // (bs, groups, cin, 1, *oyx, *hw) -> (bs, groups, rcout, *oyx, cin, *hw), times the weight, summed over (cin, *hw)
  Shape grouped{bs, groups, cin, 1}, wide{bs, groups, cin, rcout}, wshape{1, groups, rcout}, out{bs, cout};
  grouped.insert(grouped.end(), oyx.begin(), oyx.end()), grouped.insert(grouped.end(), hw.begin(), hw.end());
  wide.insert(wide.end(), oyx.begin(), oyx.end()), wide.insert(wide.end(), hw.begin(), hw.end());
  wshape.insert(wshape.end(), dims, 1), wshape.push_back(cin), wshape.insert(wshape.end(), hw.begin(), hw.end());
  out.insert(out.end(), oyx.begin(), oyx.end());
  std::vector<std::int64_t> order{0, 1, 3}, axes;
  for (std::size_t j = 0; j < dims; ++j) order.push_back(std::int64_t(4 + j));
  order.push_back(2);
  for (std::size_t j = 0; j < dims; ++j) order.push_back(std::int64_t(4 + dims + j));
  for (std::size_t j = 0; j <= dims; ++j) axes.push_back(-1 - std::int64_t(j));
  const Tensor ret = (x.reshape(grouped).expand(wide).permute(order) * weight.reshape(wshape)).sum(axes, true).reshape(out);
  if (!bias) return ret;
  Shape bshape{1, -1};
  bshape.insert(bshape.end(), dims, 1);
  return ret + bias->reshape(bshape);
}

// a conv2d of the input with zeros put between its elements (the stride) by the flipped weight,
// its channel axes swapped per group, padded so that each input touches the outputs it made
template <class D> Tensor TensorT<D>::conv_transpose2d(const Tensor& weight, const std::optional<Tensor>& bias, std::int64_t groups,
                                       Sizes stride, Sizes dilation, Sizes padding, Sizes output_padding) const {
  const Shape &xs = d_->shape, &ws = weight.shape();
  if (ws.size() < 3 || xs.size() != ws.size())
    throw Error("conv_transpose2d: input " + shape_str(xs) + " and weight " + shape_str(ws) + " need the same number of dims, at least 3 (batch, channels, spatial...)");
  if (groups < 1) throw Error("conv_transpose2d: groups must be >= 1, got " + std::to_string(groups));
  if (ws[0] != xs[1] || ws[0] % groups != 0)
    throw Error("conv_transpose2d: input " + shape_str(xs) + " does not match weight " + shape_str(ws) + " with groups=" + std::to_string(groups) +
                " (the weight's first axis must be the " + std::to_string(xs[1]) + " input channels, split into groups)");
  if (bias && bias->numel() != ws[1] * groups)
    throw Error("conv_transpose2d: bias " + shape_str(bias->shape()) + " does not fit the " + std::to_string(ws[1] * groups) +
                " output channels of weight " + shape_str(ws) + " with groups=" + std::to_string(groups));
  const std::size_t dims = ws.size() - 2;
  const Shape hw(ws.begin() + 2, ws.end());
  const auto s = detail::make_tuple("conv_transpose2d", "stride", stride, dims);
  const auto d = detail::make_tuple("conv_transpose2d", "dilation", dilation, dims);
  const auto op = detail::make_tuple("conv_transpose2d", "output_padding", output_padding, dims, 0);
  const detail::PadPairs p = detail::pool_pads("conv_transpose2d", padding, dims);
  std::vector<std::int64_t> flips;
  for (std::size_t j = 0; j < dims; ++j) flips.push_back(std::int64_t(3 + j));
  const Tensor w = weight.unflatten(0, {groups, -1}).transpose(1, 2).flip(flips).flatten(0, 1);
  Tensor x = *this;
  if (std::any_of(s.begin(), s.end(), [](std::int64_t v) { return v > 1; })) {
    // (k) -> (k, 1) -> pad -> (k, s) -> (k*s) -> shrink to k*s-(s-1)
    Shape pairs{xs[0], xs[1]}, flat{xs[0], xs[1]};
    std::vector<AxisPair> gaps(2), keep(2);
    for (std::size_t j = 0; j < dims; ++j) {
      const std::int64_t k = xs[2 + j];
      pairs.insert(pairs.end(), {k, 1});
      flat.push_back(k * s[j]);
      gaps.emplace_back(std::nullopt), gaps.emplace_back(std::pair<std::int64_t, std::int64_t>{0, s[j] - 1});
      keep.emplace_back(std::pair<std::int64_t, std::int64_t>{0, k * s[j] - (s[j] - 1)});
    }
    x = x.reshape(pairs).pad(gaps).reshape(flat).shrink(keep);
  }
  std::vector<std::int64_t> pads;  // (left, right, top, bottom, ...) form: the last dim first
  for (std::size_t j = dims; j-- > 0;) {
    pads.push_back((hw[j] - 1) * d[j] - p[j].first);
    pads.push_back((hw[j] - 1) * d[j] - p[j].second + op[j]);
  }
  return x.conv2d(w, bias, groups, 1, d, pads);
}

namespace detail {
// a pool's arguments, resolved for the trailing spatial dims (an int kernel size is square over 2)
struct PoolArgs {
  std::vector<std::int64_t> k, s, d, axes;  // axes: the window axes pool_ adds, to reduce over
  PadPairs reg, pads;                       // the given padding; and with ceil_mode's extra
};
template <class = void> PoolArgs pool_args(const char* who, const Shape& in, const Sizes& kernel_size, const Sizes& stride, const Sizes& dilation,
                          const Sizes& padding, bool ceil_mode) {
  if (kernel_size.v.empty()) throw Error(std::string(who) + ": no kernel size");
  const std::size_t dims = kernel_size.scalar ? 2 : kernel_size.v.size();
  if (in.size() < dims) throw Error(std::string(who) + ": can't pool " + shape_str(in) + " with kernel " + shape_str(kernel_size.v));
  PoolArgs a;
  a.k = make_tuple(who, "kernel_size", kernel_size, dims);
  a.s = make_tuple(who, "stride", stride.v.empty() ? Sizes(a.k) : stride, dims);
  a.d = make_tuple(who, "dilation", dilation, dims);
  a.reg = pool_pads(who, padding, dims);
  a.pads = ceil_mode ? ceil_mode_pads(a.reg, spatial(in, dims), a.k, a.s, a.d) : a.reg;
  for (std::size_t j = 0; j < dims; ++j) a.axes.push_back(-1 - std::int64_t(j));
  return a;
}
}  // namespace detail

template <class D> Tensor TensorT<D>::max_pool2d(Sizes kernel_size, Sizes stride, Sizes dilation, Sizes padding, bool ceil_mode) const {
  const detail::PoolArgs a = detail::pool_args("max_pool2d", d_->shape, kernel_size, stride, dilation, padding, ceil_mode);
  // padded with the dtype's minimum, which never wins the max
  const ConstType lowest = dtype().is_float() ? ConstType(-std::numeric_limits<double>::infinity())
                           : dtype().is_bool()  ? ConstType(false)
                                                : ConstType(dtype().imin());
  return pad(detail::trailing(d_->shape.size(), a.pads), PadMode::constant, lowest).pool_(a.k, a.s, a.d).max(a.axes);
}

template <class D> Tensor TensorT<D>::avg_pool2d(Sizes kernel_size, Sizes stride, Sizes dilation, Sizes padding, bool ceil_mode,
                                 bool count_include_pad) const {
  const detail::PoolArgs a = detail::pool_args("avg_pool2d", d_->shape, kernel_size, stride, dilation, padding, ceil_mode);
  auto pool = [&](const Tensor& x, const detail::PadPairs& p) { return x.pad(detail::trailing(x.shape().size(), p)).pool_(a.k, a.s, a.d); };
  if (!count_include_pad) return pool(*this, a.pads).sum(a.axes) / pool(ones_like(), a.pads).sum(a.axes);
  if (!ceil_mode) return pool(*this, a.pads).mean(a.axes);
  // ceil_mode counts the regular padding but not the extra padding it adds
  detail::PadPairs extra;
  for (std::size_t j = 0; j < a.pads.size(); ++j) extra.emplace_back(a.pads[j].first - a.reg[j].first, a.pads[j].second - a.reg[j].second);
  return pool(*this, a.pads).sum(a.axes) / pool(pad(detail::trailing(d_->shape.size(), a.reg)).ones_like(), extra).sum(a.axes);
}

template <class D> Tensor TensorT<D>::layernorm(std::vector<std::int64_t> axes, double eps) const {
  const Tensor y = *this - mean(axes, true);
  return y * ((y * y).mean(axes, true) + ConstType(eps)).rsqrt();
}

template <class D> Tensor TensorT<D>::batchnorm(const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, const Tensor& mean,
                                const Tensor& invstd, std::vector<std::int64_t> axes) const {
  Shape shape(d_->shape.size(), 1);
  for (std::int64_t& a : axes) {
    a = resolve_dim("batchnorm", a);
    shape[std::size_t(a)] = d_->shape[std::size_t(a)];
  }
  auto shaped = [&](const char* what, const Tensor& t) {
    if (t.numel() != shape_prod(shape))
      throw Error(std::string("batchnorm: ") + what + " " + shape_str(t.shape()) + " does not fit the axes " + shape_str(axes) + " of " + shape_str(d_->shape));
    return t.reshape(shape);
  };
  Tensor x = *this - shaped("mean", mean);
  if (weight) x = x * shaped("weight", *weight);
  const Tensor ret = x * (std::size_t(invstd.ndim()) == axes.size() ? shaped("invstd", invstd) : invstd);
  return bias ? ret + shaped("bias", *bias) : ret;
}

template <class D> Tensor TensorT<D>::scaled_dot_product_attention(const Tensor& key, const Tensor& value, const std::optional<Tensor>& attn_mask,
                                                   double dropout_p, bool is_causal) const {
  if (ndim() < 2 || key.ndim() < 2 || value.ndim() < 2)
    throw Error("scaled_dot_product_attention: query " + shape_str(d_->shape) + ", key " + shape_str(key.shape()) + " and value " +
                shape_str(value.shape()) + " need at least 2 dims");
  if (is_causal && attn_mask) throw Error("scaled_dot_product_attention: cannot set attn_mask when is_causal is true");
  const DType acc = least_upper_dtype(dtype(), key.dtype(), dtypes::float32);
  Tensor qk = dot(key.transpose(-2, -1), acc) / ConstType(cmath::sqrt(double(d_->shape.back())));
  std::optional<Tensor> mask = attn_mask;
  if (is_causal) mask = qk.full_like(true, dtypes::bool_).tril();
  if (mask) {
    if (mask->dtype().is_bool()) mask = mask->where(Tensor::full({}, 0.0, std::nullopt, device()), -std::numeric_limits<double>::infinity());
    qk = qk + *mask;
  }
  const Tensor p = qk.cast(dtype()).softmax(-1);
  return p.dropout(dropout_p).dot(value);  // dropout acts only while Tensor::training
}

template <class D> Tensor TensorT<D>::cross_entropy(const Tensor& Y, Reduction reduction, double label_smoothing) const {
  if (!(label_smoothing >= 0 && label_smoothing <= 1))
    throw Error("cross_entropy: label_smoothing " + std::to_string(label_smoothing) + " must be in [0, 1]");
  if (ndim() == 0) throw Error("cross_entropy: the logits need at least 1 dim, got shape ()");
  const std::int64_t classes_dim = ndim() == 1 ? 0 : 1;
  Tensor y = Y;
  if (Y.shape() != d_->shape) {
    Shape labels = d_->shape;
    labels.erase(labels.begin() + classes_dim);
    if (Y.shape() != labels)
      throw Error("cross_entropy: target " + shape_str(Y.shape()) + " fits neither the logits " + shape_str(d_->shape) + " nor their labels " + shape_str(labels));
    y = Y.unsqueeze(classes_dim).one_hot_along_dim(d_->shape[std::size_t(classes_dim)], classes_dim);
  }
  y = ConstType(1 - label_smoothing) * y + ConstType(label_smoothing / double(y.shape()[std::size_t(classes_dim)]));
  return -(log_softmax(classes_dim) * y).sum(classes_dim).do_reduction_(reduction);
}

template <class D> Tensor TensorT<D>::sparse_categorical_crossentropy(const Tensor& Y, std::int64_t ignore_index, double label_smoothing,
                                                      Reduction reduction) const {
  if (!(label_smoothing >= 0 && label_smoothing <= 1))
    throw Error("sparse_categorical_crossentropy: label_smoothing " + std::to_string(label_smoothing) + " must be in [0, 1]");
  if (ndim() == 0) throw Error("sparse_categorical_crossentropy: the logits need at least 1 dim, got shape ()");
  const Shape labels(d_->shape.begin(), d_->shape.end() - 1);
  if (Y.shape() != labels)
    throw Error("sparse_categorical_crossentropy: labels " + shape_str(Y.shape()) + " do not fit logits " + shape_str(d_->shape) + " (want " + shape_str(labels) + ")");
  if (Y.device() != device())
    throw Error("sparse_categorical_crossentropy: labels on " + Y.device() + ", logits on " + device());
  const Tensor log_probs = log_softmax();
  // as in tinygrad, ignore_index = -1 ignores nothing
  const Tensor loss_mask = ignore_index != -1 ? Y != ConstType(ignore_index) : Y.full_like(true, dtypes::bool_);
  const Tensor y = Y.unsqueeze(-1).one_hot_along_dim(d_->shape.back(), -1) * loss_mask.unsqueeze(-1);
  const Tensor smoothing = ConstType(label_smoothing) * (log_probs.mean(-1) * loss_mask);
  const Tensor unreduced = ConstType(1 - label_smoothing) * (log_probs * y).sum(-1) + smoothing;
  return reduction == Reduction::mean ? -unreduced.sum() / loss_mask.sum() : -unreduced.do_reduction_(reduction);
}

template <class D> Tensor TensorT<D>::binary_crossentropy(const Tensor& Y, Reduction reduction) const {
  broadcast_shape({d_->shape, Y.shape()}, "binary_crossentropy");
  return (-Y * log() - (ConstType(1) - Y) * (ConstType(1) - *this).log()).do_reduction_(reduction);
}

template <class D> Tensor TensorT<D>::binary_crossentropy_logits(const Tensor& Y, Reduction reduction, const std::optional<Tensor>& pos_weight) const {
  broadcast_shape({d_->shape, Y.shape()}, "binary_crossentropy_logits");
  const Tensor log_p = logsigmoid(), log_1_minus_p = (-*this).logsigmoid();
  const Tensor pos = pos_weight ? *pos_weight * Y : Y;
  return (-(pos * log_p + (ConstType(1) - Y) * log_1_minus_p)).do_reduction_(reduction);
}

}  // namespace mg
