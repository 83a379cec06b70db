#pragma once
// Optimizers: tinygrad's nn/optim.py. SGD is LARS without the trust ratio; Adam and AdamW are LAMB
// without it (AdamW with weight decay added to the update, decoupled from the moments). The math is
// tinygrad's, op for op, so float32 results match it.
//
//   auto opt = nn::Adam(nn::get_parameters(model), {.lr = 1e-3});
//   Tensor::Train train;                      // step() wants Tensor::training, as tinygrad does
//   opt.zero_grad();
//   loss(model).backward();
//   opt.step();
#include <algorithm>
#include <concepts>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../core/error.hpp"
#include "../tensor/tensor.hpp"

namespace mg::nn {

// a learning rate: a number, or a float tensor of one element that the optimizer shares (assign to it
// to schedule the rate)
struct LearningRate {
  std::optional<Tensor> tensor;
  double value = 0.001;
  LearningRate(double v) : value(v) {}
  template <std::same_as<Tensor> T> LearningRate(T t) : tensor(std::move(t)) {}
};

class Optimizer {
 public:
  std::vector<Tensor> params;   // the tensors step() updates: the given ones without requires_grad(false)
  std::vector<Tensor> buffers;  // the others, realized with the gradients (their assigns are pending)
  Tensor lr;                    // float32 of shape (1,), as tinygrad stores it

  virtual ~Optimizer() = default;

  // forgets every parameter's gradient
  template <class = void> void zero_grad() {
    for (Tensor& p : params) p.clear_grad();
  }
  // one update from the gradients backward() left: every update is computed from the current values
  // before any parameter is written, as tinygrad's one schedule computes them
  // `with`: tensors realized in the same schedule as the gradients (the loss, as tinygrad's
  // loss.realize(*opt.schedule_step())), so the forward pass they share runs once
  template <class T = void>
  void step(const std::vector<Tensor>& with = {}) {
    if (!Tensor::training)
      throw Error("Optimizer::step: Tensor::training is false; set it (or hold a Tensor::Train) while training, as tinygrad requires");
    std::vector<Tensor> grads;
    for (const Tensor& p : params) {
      std::optional<Tensor> g = p.grad();
      if (!g) throw Error("Optimizer::step: a parameter of shape " + shape_str(p.shape()) + " has no gradient; call backward() on a loss that uses it");
      grads.push_back(*g);
    }
    // the gradients, `with` and the buffers (BatchNorm's pending running statistics) in one schedule
    std::vector<Tensor> first = grads;
    first.insert(first.end(), with.begin(), with.end());
    first.insert(first.end(), buffers.begin(), buffers.end());
    Tensor::realize<T>(first);
    pending_.clear();
    std::vector<Tensor> updates = step_updates(params, grads);
    // assigns are lazy: every new value (state and parameter) is computed from the current ones in one
    // schedule, then written
    for (auto& [state, value] : pending_) state->template assign<T>(value);
    pending_.clear();
    for (std::size_t i = 0; i < params.size(); ++i) params[i].template assign<T>((params[i].detach() - updates[i]).reshape(params[i].shape()));
    Tensor::realize<T>(params);
  }

 protected:
  template <class = void> Optimizer(const std::vector<Tensor>& ps, const LearningRate& rate) : lr(make_lr(rate)) {
    for (std::size_t i = 0; i < ps.size(); ++i) {
      const Tensor& t = ps[i];
      if (std::any_of(ps.begin(), ps.begin() + std::ptrdiff_t(i), [&](const Tensor& o) { return o.uop() == t.uop(); })) continue;  // dedup, as tinygrad does
      if (t.requires_grad() == false) { buffers.push_back(t); continue; }
      Tensor p = t;
      p.requires_grad(true);  // tinygrad's optimizers turned requires_grad None into True
      params.push_back(p);
    }
    if (params.empty()) throw Error("Optimizer: no parameters (every tensor given has requires_grad(false))");
  }
  // tinygrad's _step: the amount each parameter goes down by (cast to its dtype); updates the state
  virtual std::vector<Tensor> step_updates(const std::vector<Tensor>& ps, const std::vector<Tensor>& grads) = 0;
  // state buffers of the params' shapes, zero, float32 (tinygrad's OPTIM_DTYPE)
  template <class = void> std::vector<Tensor> new_state() const {
    std::vector<Tensor> s;
    for (const Tensor& p : params) s.push_back(fresh(Tensor::zeros(p.shape(), dtypes::float32, p.device())));
    return s;
  }
  // a buffer of its own: equal constants are one node, which would share gradients and writes
  template <class = void> static Tensor fresh(const Tensor& t) { return Tensor::from_host(reference_eval(t.uop()), t.device()); }
  // a state tensor's next value: step() writes it once every update is computed, as tinygrad's single
  // schedule does; the update formula goes on with the value returned
  template <class = void> Tensor next(Tensor& state, const Tensor& value) {
    pending_.emplace_back(&state, value);
    return value;
  }
  // lr broadcasts as tinygrad's (1,) does, but keeps a scalar parameter's update scalar
  template <class = void> Tensor lr_() const { return lr.reshape({}); }

 private:
  std::vector<std::pair<Tensor*, Tensor>> pending_;  // (state, next value), written by step()

 private:
  template <class = void> Tensor make_lr(const LearningRate& rate) const {
    if (rate.tensor) {
      if (rate.tensor->numel() != 1 || !rate.tensor->dtype().is_float())
        throw Error("Optimizer: a learning rate tensor must be one float, got " + rate.tensor->dtype().repr() + " " + shape_str(rate.tensor->shape()));
      return *rate.tensor;
    }
    if (rate.value < 0) throw Error("Optimizer: invalid learning rate " + std::to_string(rate.value));
    return Tensor::from({rate.value}, {1}, dtypes::float32);
  }
};

// ---- LARS, and SGD as LARS without the trust ratio ----

struct LARSOptions {
  LearningRate lr = 0.001;
  double momentum = 0.9, weight_decay = 1e-4;
  bool nesterov = false, classic = true;
  double tcoef = 0.001;  // trust coefficient; 0 is plain SGD
};

// Layer-wise Adaptive Rate Scaling (https://arxiv.org/abs/1708.03888v3)
template <class = void>
class LARST : public Optimizer {
 public:
  double momentum, wd, tcoef;
  bool nesterov, classic;
  std::vector<Tensor> b;  // momentum buffers (none without momentum)

  explicit LARST(const std::vector<Tensor>& ps, const LARSOptions& o = {})
      : Optimizer(ps, o.lr), momentum(o.momentum), wd(o.weight_decay), tcoef(o.tcoef), nesterov(o.nesterov), classic(o.classic) {
    if (momentum < 0) throw Error("LARS: invalid momentum " + std::to_string(momentum));
    if (momentum != 0) b = new_state();
  }

 protected:
  std::vector<Tensor> step_updates(const std::vector<Tensor>& ps, const std::vector<Tensor>& grads) override {
    std::vector<Tensor> out;
    const Tensor lr = lr_();
    for (std::size_t i = 0; i < ps.size(); ++i) {
      const Tensor t = ps[i].detach();
      Tensor g = grads[i];
      std::optional<Tensor> r;  // the trust ratio; none is 1.0
      if (tcoef != 0) {
        const Tensor r1 = t.square().sum().sqrt(), r2 = g.square().sum().sqrt();
        r = (r1 > 0).where((r2 > 0).where(ConstType(tcoef) * r1 / (r2 + ConstType(wd) * r1), ConstType(1.0)), ConstType(1.0));
      }
      if (wd > 0) g = g + ConstType(wd) * t;
      auto scaled = [&](const Tensor& x) { return (r ? x * *r : x * ConstType(1.0)) * lr; };
      if (classic) g = scaled(g);  // classic momentum scales by lr before the momentum
      if (momentum != 0) {
        // zero at first, so no special first step; cast to the float32 buffer (tinygrad's assign refuses float64)
        const Tensor nb = next(b[i], (ConstType(momentum) * b[i] + g).cast(b[i].dtype()));
        g = nesterov ? g + ConstType(momentum) * nb : nb;
      }
      if (!classic) g = scaled(g);
      out.push_back(g.cast(t.dtype()));
    }
    return out;
  }
};
using LARS = LARST<>;

struct SGDOptions {
  LearningRate lr = 0.001;
  double momentum = 0.0, weight_decay = 0.0;
  bool nesterov = false, classic = false;
};
// Stochastic gradient descent, with momentum (classic: the update rule that scales by lr before the
// momentum), Nesterov momentum and weight decay
template <class = void> LARS SGD(const std::vector<Tensor>& ps, const SGDOptions& o = {}) {
  return LARS(ps, {.lr = o.lr, .momentum = o.momentum, .weight_decay = o.weight_decay, .nesterov = o.nesterov, .classic = o.classic, .tcoef = 0.0});
}

// ---- LAMB, and Adam / AdamW as LAMB without the trust ratio ----

struct LAMBOptions {
  LearningRate lr = 0.001;
  double b1 = 0.9, b2 = 0.999, eps = 1e-6, weight_decay = 0.0;
  bool adam = false;  // no trust ratio
};

// LAMB (https://arxiv.org/abs/1904.00962)
template <class = void>
class LAMBT : public Optimizer {
 public:
  double b1, b2, eps, wd;
  bool adam;
  Tensor b1_t, b2_t;       // b1^t and b2^t, float32 (1,)
  std::vector<Tensor> m, v;  // first and second moments

  explicit LAMBT(const std::vector<Tensor>& ps, const LAMBOptions& o = {})
      : Optimizer(ps, o.lr), b1(o.b1), b2(o.b2), eps(o.eps), wd(o.weight_decay), adam(o.adam),
        b1_t(fresh(Tensor::ones({1}, dtypes::float32, lr.device()))), b2_t(fresh(Tensor::ones({1}, dtypes::float32, lr.device()))),
        m(new_state()), v(new_state()) {
    if (wd < 0) throw Error("LAMB: invalid weight_decay " + std::to_string(wd));
    b1_t.requires_grad(false), b2_t.requires_grad(false);
  }

 protected:
  std::vector<Tensor> step_updates(const std::vector<Tensor>& ps, const std::vector<Tensor>& grads) override {
    std::vector<Tensor> out;
    const Tensor lr = lr_();
    const Tensor nb1 = next(b1_t, b1_t * ConstType(b1)), nb2 = next(b2_t, b2_t * ConstType(b2));
    for (std::size_t i = 0; i < ps.size(); ++i) {
      const Tensor t = ps[i].detach(), &g = grads[i];
      const Tensor nm = next(m[i], (ConstType(b1) * m[i] + ConstType(1.0 - b1) * g).cast(m[i].dtype()));
      const Tensor nv = next(v[i], (ConstType(b2) * v[i] + ConstType(1.0 - b2) * (g * g)).cast(v[i].dtype()));
      const Tensor m_hat = nm / (ConstType(1.0) - nb1.reshape({})), v_hat = nv / (ConstType(1.0) - nb2.reshape({}));
      const Tensor up = m_hat / (v_hat.sqrt() + ConstType(eps)) + ConstType(wd) * t;
      Tensor step = lr * ConstType(1.0);
      if (!adam) {
        const Tensor r1 = t.square().sum().sqrt(), r2 = up.square().sum().sqrt();
        step = lr * (r1 > 0).where((r2 > 0).where(r1 / r2, ConstType(1.0)), ConstType(1.0));
      }
      out.push_back((step * up).cast(t.dtype()));
    }
    return out;
  }
};
using LAMB = LAMBT<>;

struct AdamOptions {
  LearningRate lr = 0.001;
  double b1 = 0.9, b2 = 0.999, eps = 1e-8;
};
struct AdamWOptions {
  LearningRate lr = 0.001;
  double b1 = 0.9, b2 = 0.999, eps = 1e-8, weight_decay = 0.01;
};
// Adam (https://arxiv.org/abs/1412.6980)
template <class = void> LAMB Adam(const std::vector<Tensor>& ps, const AdamOptions& o = {}) {
  return LAMB(ps, {.lr = o.lr, .b1 = o.b1, .b2 = o.b2, .eps = o.eps, .weight_decay = 0.0, .adam = true});
}
// AdamW: Adam with decoupled weight decay (https://arxiv.org/abs/1711.05101v3)
template <class = void> LAMB AdamW(const std::vector<Tensor>& ps, const AdamWOptions& o = {}) {
  return LAMB(ps, {.lr = o.lr, .b1 = o.b1, .b2 = o.b2, .eps = o.eps, .weight_decay = o.weight_decay, .adam = true});
}

}  // namespace mg::nn
