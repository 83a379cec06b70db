#pragma once
// Layers: tinygrad's nn/__init__.py. Each holds its tensors as public members named as tinygrad's,
// applies itself with operator(), and names its members in visit(f) for get_state_dict (nn/state.hpp).
// Parameters start as buffers of their own (tinygrad's Tensor.ones/zeros make buffers too): two layers'
// equal initial constants would otherwise be one graph node, sharing gradients.
//
//   nn::Linear fc(784, 10);
//   Tensor logits = fc(x.flatten(1));          // x @ weight.T + bias
#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/cmath.hpp"
#include "../core/error.hpp"
#include "../tensor/tensor.hpp"

namespace mg::nn {

// While one is alive on this thread, the layers constructed get Tensor::empty parameters and buffers (of
// the shape, dtype and device they would have had) and compute no initial values: for a model whose
// weights are loaded next, or one that is only compiled (tinygrad's benchmarks replace every parameter
// by Tensor.empty; nn::replace_empty does that to a model already made).
//
//   nn::EmptyInit empty;
//   auto net = nn::models::ResNet50();   // 25M parameters, no time spent drawing them
using EmptyInit = mg::detail::ThreadSwitch<struct EmptyInitTag>;

namespace detail {
// a buffer holding t's value, computed on the host by the reference evaluator: constructors stay free
// of the engine, so a translation unit that only declares layers does not compile it. Under EmptyInit,
// a buffer of t's shape whose value is never computed.
template <class = void> Tensor param(const Tensor& t) {
  if (EmptyInit::active()) return Tensor::empty(t.shape(), t.dtype(), t.device());
  return Tensor::from_host(reference_eval(t.uop()), t.device());
}
// param(init()) of a drawn initial value (float32, default device), without building the draw's graph
// under EmptyInit: a random graph per layer costs more than scheduling the model
template <class F>
Tensor drawn_param(const Shape& shape, F&& init) {
  return EmptyInit::active() ? Tensor::empty(shape) : param(init());
}
template <class = void> Tensor state_buffer(const Tensor& t) {  // running statistics: written by assign, never trained
  Tensor b = param(t);
  b.requires_grad(false);
  return b;
}
template <class = void> std::optional<Tensor> param_if(bool keep, const Tensor& t) { return keep ? std::optional<Tensor>(param(t)) : std::nullopt; }
// 1, -1, 1, ...: a per-channel vector reshaped to broadcast along axis 1 of an ndim tensor
template <class = void> Shape channel_shape(std::int64_t ndim) {
  Shape s(std::size_t(std::max<std::int64_t>(ndim, 2)), 1);
  s[1] = -1;
  return s;
}
}  // namespace detail

// y = x @ weight.T + bias; weight (out, in) and bias uniform on +-1/sqrt(in)
class Linear {
 public:
  Tensor weight;
  std::optional<Tensor> bias;
  template <class = void> Linear(std::int64_t in_features, std::int64_t out_features, bool has_bias = true)
      : weight(detail::drawn_param({out_features, in_features}, [&] { return Tensor::uniform({out_features, in_features}, -bound(in_features), bound(in_features)); })) {
    if (has_bias) bias = detail::drawn_param({out_features}, [&] { return Tensor::uniform({out_features}, -bound(in_features), bound(in_features)); });
  }
  template <class = void> Tensor operator()(const Tensor& x) const { return x.linear(weight.transpose(), bias); }
  void visit(auto&& f) { f("weight", weight), f("bias", bias); }

 private:
  static double bound(std::int64_t in) { return 1 / cmath::sqrt(double(in)); }
};

// Conv2d's padding: sizes (one for all, one per spatial dim, or (left, right, top, bottom, ...)) or "same"
struct ConvPadding {
  Sizes sizes = 0;
  bool same = false;
  ConvPadding(std::int64_t p) : sizes(p) {}
  ConvPadding(Sizes p) : sizes(std::move(p)) {}
  ConvPadding(std::initializer_list<std::int64_t> p) : sizes(p) {}
  ConvPadding(std::string_view s) : same(s == "same" || s == "SAME" || s == "Same") {
    if (!same) throw Error("Conv2d: invalid padding string \"" + std::string(s) + "\", only \"same\" is supported");
  }
  template <std::size_t N>
  ConvPadding(const char (&s)[N]) : ConvPadding(std::string_view(s)) {}
};

// a convolution over the trailing dims (as many as kernel_size has; an int is 2-d); weight
// (out, in/groups, *kernel_size) and bias uniform on +-1/sqrt(in * prod(kernel_size))
class Conv2d {
 public:
  std::vector<std::int64_t> kernel_size;
  Sizes stride, dilation, padding;
  std::int64_t groups;
  Tensor weight;
  std::optional<Tensor> bias;

  template <class = void> Conv2d(std::int64_t in_channels, std::int64_t out_channels, Sizes kernel_size, Sizes stride = 1, ConvPadding padding = 0,
         Sizes dilation = 1, std::int64_t groups = 1, bool has_bias = true)
      : kernel_size(kernel(kernel_size)), stride(std::move(stride)), dilation(std::move(dilation)), groups(groups),
        weight(draw(in_channels, {out_channels, in_channels / groups})) {
    if (has_bias) bias = draw(in_channels, {out_channels}, false);
    this->padding = padding.same ? same_padding() : padding.sizes;
  }
  template <class = void> Tensor operator()(const Tensor& x) const { return x.conv2d(weight, bias, groups, stride, dilation, padding); }
  void visit(auto&& f) { f("weight", weight), f("bias", bias); }

 protected:
  // tinygrad's make_tuple(kernel_size, 2)
  static std::vector<std::int64_t> kernel(const Sizes& k) { return k.scalar ? std::vector<std::int64_t>{k.v[0], k.v[0]} : k.v; }
  // uniform on +-1/sqrt(in * prod(kernel_size)), of shape lead followed by the kernel size (when with_kernel)
  template <class = void> Tensor draw(std::int64_t in_channels, Shape lead, bool with_kernel = true) const {
    const double scale = 1 / cmath::sqrt(double(in_channels * shape_prod(kernel_size)));
    if (with_kernel) lead.insert(lead.end(), kernel_size.begin(), kernel_size.end());
    return detail::drawn_param(lead, [&] { return Tensor::uniform(lead, -scale, scale); });
  }

 private:
  // tinygrad's: d*(k-1) split with the extra on the right, the last dim first, dilations in the given order
  template <class = void> Sizes same_padding() const {
    const auto& s = stride.v;
    if (std::any_of(s.begin(), s.end(), [](std::int64_t v) { return v != 1; })) throw Error("Conv2d: padding \"same\" is not supported for strided convolutions");
    std::vector<std::int64_t> d = dilation.v.size() == 1 ? std::vector<std::int64_t>(kernel_size.size(), dilation.v[0]) : dilation.v, out;
    for (std::size_t i = 0; i < std::min(d.size(), kernel_size.size()); ++i) {
      const std::int64_t total = d[i] * (kernel_size[kernel_size.size() - 1 - i] - 1);
      out.push_back(total / 2), out.push_back(total - total / 2);
    }
    return out;
  }
};

// the transpose (gradient) of a convolution; weight (in, out/groups, *kernel_size)
class ConvTranspose2d : public Conv2d {
 public:
  Sizes output_padding;
  template <class = void> ConvTranspose2d(std::int64_t in_channels, std::int64_t out_channels, Sizes kernel_size, Sizes stride = 1, Sizes padding = 0,
                  Sizes output_padding = 0, Sizes dilation = 1, std::int64_t groups = 1, bool has_bias = true)
      : Conv2d(in_channels, out_channels, std::move(kernel_size), std::move(stride), std::move(padding), std::move(dilation), groups, has_bias),
        output_padding(std::move(output_padding)) {
    // tinygrad draws Conv2d's weight and bias, then this weight: the same draws give the same values
    weight = draw(in_channels, {in_channels, out_channels / groups});
  }
  template <class = void> Tensor operator()(const Tensor& x) const { return x.conv_transpose2d(weight, bias, groups, stride, dilation, padding, output_padding); }
};

// tinygrad's Conv1d and ConvTranspose1d: the 2-d layers with a one-dim kernel (over the last axis)
template <class = void> Conv2d Conv1d(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size, std::int64_t stride = 1,
                     ConvPadding padding = 0, std::int64_t dilation = 1, std::int64_t groups = 1, bool has_bias = true) {
  return Conv2d(in_channels, out_channels, Sizes{kernel_size}, stride, std::move(padding), dilation, groups, has_bias);
}
template <class = void> ConvTranspose2d ConvTranspose1d(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size,
                                       std::int64_t stride = 1, std::int64_t padding = 0, std::int64_t output_padding = 0,
                                       std::int64_t dilation = 1, std::int64_t groups = 1, bool has_bias = true) {
  return ConvTranspose2d(in_channels, out_channels, Sizes{kernel_size}, stride, padding, output_padding, dilation, groups, has_bias);
}

// batch normalization over axis 1 (https://arxiv.org/abs/1502.03167v3). While Tensor::training, it
// normalizes by the batch's statistics and folds them into the running ones; otherwise by the running
// ones (when it tracks them)
class BatchNorm {
 public:
  double eps;
  bool track_running_stats;
  double momentum;
  std::optional<Tensor> weight, bias;
  Tensor num_batches_tracked;
  std::optional<Tensor> running_mean, running_var;

  template <class = void> explicit BatchNorm(std::int64_t sz, double eps = 1e-5, bool affine = true, bool track_running_stats = true, double momentum = 0.1)
      : eps(eps), track_running_stats(track_running_stats), momentum(momentum),
        weight(detail::param_if(affine, Tensor::ones({sz}))), bias(detail::param_if(affine, Tensor::zeros({sz}))),
        num_batches_tracked(detail::state_buffer(Tensor::zeros({}, dtypes::int64))) {
    if (track_running_stats) running_mean = detail::state_buffer(Tensor::zeros({sz})), running_var = detail::state_buffer(Tensor::ones({sz}));
  }
  // the mean and variance to normalize by
  template <class = void> std::pair<Tensor, Tensor> calc_stats(const Tensor& x) const {
    if (x.ndim() < 2) throw Error("BatchNorm: needs an input of at least 2 dims (batch, channels, ...), got " + shape_str(x.shape()));
    const Shape mask = detail::channel_shape(x.ndim());
    if (track_running_stats && !Tensor::training) return {*running_mean, running_var->reshape(mask).expand(x.shape())};
    std::vector<std::int64_t> axes;
    for (std::int64_t i = 0; i < x.ndim(); ++i)
      if (i != 1) axes.push_back(i);
    const Tensor batch_mean = x.mean(axes);
    const Tensor y = x - batch_mean.detach().reshape(mask);  // d(var)/d(mean) = 0
    return {batch_mean, (y * y).mean(axes)};
  }
  template <class T = void>
  Tensor operator()(const Tensor& x) {
    const auto [batch_mean, batch_var] = calc_stats(x);
    if (track_running_stats && Tensor::training) {
      const double n = double(x.numel()), unbias = momentum * n / (n - double(x.shape()[1]));  // the running variance is unbiased
      running_mean->template assign<T>(ConstType(1 - momentum) * *running_mean + ConstType(momentum) * batch_mean.detach());
      running_var->template assign<T>(ConstType(1 - momentum) * *running_var + ConstType(unbias) * batch_var.detach());
      num_batches_tracked.template assign<T>(num_batches_tracked + 1);
    }
    return x.batchnorm(weight, bias, batch_mean, (batch_var + ConstType(eps)).rsqrt());
  }
  void visit(auto&& f) {
    f("weight", weight), f("bias", bias), f("num_batches_tracked", num_batches_tracked);
    f("running_mean", running_mean), f("running_var", running_var);
  }
};
using BatchNorm2d = BatchNorm;
using BatchNorm3d = BatchNorm;

// layer normalization over the trailing normalized_shape (https://arxiv.org/abs/1607.06450v1)
class LayerNorm {
 public:
  Shape normalized_shape;
  std::vector<std::int64_t> axis;
  double eps;
  std::optional<Tensor> weight, bias;

  template <class = void> explicit LayerNorm(Sizes normalized_shape, double eps = 1e-5, bool elementwise_affine = true)
      : normalized_shape(normalized_shape.v), eps(eps),
        weight(detail::param_if(elementwise_affine, Tensor::ones(normalized_shape.v))),
        bias(detail::param_if(elementwise_affine, Tensor::zeros(normalized_shape.v))) {
    for (std::size_t i = 0; i < this->normalized_shape.size(); ++i) axis.push_back(-1 - std::int64_t(i));
  }
  // LayerNorm({2, 3}) is a shape, not a copy of LayerNorm{2, 3}
  template <class = void> explicit LayerNorm(std::initializer_list<std::int64_t> normalized_shape, double eps = 1e-5, bool elementwise_affine = true)
      : LayerNorm(Sizes(normalized_shape), eps, elementwise_affine) {}
  template <class = void> Tensor operator()(const Tensor& x) const {
    const Shape& s = x.shape();
    if (s.size() < normalized_shape.size() || !std::equal(normalized_shape.begin(), normalized_shape.end(), s.end() - std::ptrdiff_t(normalized_shape.size())))
      throw Error("LayerNorm: the last dimensions of " + shape_str(s) + " must match " + shape_str(normalized_shape));
    const Tensor y = x.layernorm(axis, eps);
    return weight && bias ? y * *weight + *bias : y;
  }
  void visit(auto&& f) { f("weight", weight), f("bias", bias); }
};

// group normalization: channels (axis 1) in num_groups groups (https://arxiv.org/abs/1803.08494v3)
class GroupNorm {
 public:
  std::int64_t num_groups, num_channels;
  double eps;
  std::optional<Tensor> weight, bias;

  template <class = void> GroupNorm(std::int64_t num_groups, std::int64_t num_channels, double eps = 1e-5, bool affine = true)
      : num_groups(num_groups), num_channels(num_channels), eps(eps),
        weight(detail::param_if(affine, Tensor::ones({num_channels}))), bias(detail::param_if(affine, Tensor::zeros({num_channels}))) {}
  template <class = void> Tensor operator()(const Tensor& x) const {
    if (x.ndim() < 2) throw Error("GroupNorm: needs an input of at least 2 dims (batch, channels, ...), got " + shape_str(x.shape()));
    const Tensor y = x.reshape({x.shape()[0], num_groups, -1}).layernorm({-1}, eps).reshape(x.shape());
    if (!weight || !bias) return y;
    const Shape c = detail::channel_shape(x.ndim());
    return y * weight->reshape(c) + bias->reshape(c);
  }
  void visit(auto&& f) { f("weight", weight), f("bias", bias); }
};

// root mean square normalization over the last axis, in float32 (https://arxiv.org/abs/1910.07467)
class RMSNorm {
 public:
  double eps;
  std::optional<Tensor> weight;

  template <class = void> explicit RMSNorm(std::int64_t dim, double eps = 1e-6, bool elementwise_affine = true)
      : eps(eps), weight(detail::param_if(elementwise_affine, Tensor::ones({dim}))) {}
  template <class = void> Tensor operator()(const Tensor& x) const {
    const Tensor f = x.cast(dtypes::float32);
    const Tensor y = (f * (f.square().mean(-1, true) + ConstType(eps)).rsqrt()).cast(x.dtype());
    return weight ? y * *weight : y;
  }
  void visit(auto&& f) { f("weight", weight); }
};

// a lookup table: row idx of weight (vocab_size, embed_size) for each int of idx; glorot-uniform init
class Embedding {
 public:
  Tensor weight;
  template <class = void> Embedding(std::int64_t vocab_size, std::int64_t embed_size) : weight(detail::drawn_param({vocab_size, embed_size}, [&] { return Tensor::glorot_uniform({vocab_size, embed_size}); })) {}
  template <class = void> Tensor operator()(const Tensor& idx) const {
    if (!idx.dtype().is_int()) throw Error("Embedding: expected an integer dtype for the index, got " + idx.dtype().repr());
    const Tensor hit = Tensor::arange(weight.shape()[0], std::nullopt, 1, std::nullopt, weight.device()) == idx.unsqueeze(-1);
    return hit.unsqueeze(-1).where(weight, ConstType(0)).sum({-2}, false, weight.dtype());
  }
  void visit(auto&& f) { f("weight", weight); }
};

// zeroes each element with probability p while Tensor::training (Tensor::dropout); no tensors
class Dropout {
 public:
  double p;
  explicit Dropout(double p = 0.5) : p(p) {}
  template <class = void> Tensor operator()(const Tensor& x) const { return x.dropout(p); }
  void visit(auto&&) {}
};

}  // namespace mg::nn
