#pragma once
// State dicts: tinygrad's get_state_dict / get_parameters / load_state_dict. tinygrad walks a model's
// attributes by reflection; here a model names its members in a visit function, and the walk
// recurses through them:
//
//   struct Net {
//     nn::Linear l1{4, 5}, l2{5, 6};
//     Tensor operator()(const Tensor& x) const { return l2(l1(x).relu()); }
//     void visit(auto&& f) { f("l1", l1); f("l2", l2); }      // "l1.weight", "l1.bias", "l2.weight", ...
//   };
//
// A member given to f may be a Tensor, a std::optional of anything visitable (skipped when empty), a
// type with its own visit, a range of those (named 0, 1, ...), or a map from strings to those (named
// by key), as tinygrad's walk goes through objects, lists and dicts.
#include <algorithm>
#include <concepts>
#include <iterator>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/error.hpp"
#include "../tensor/tensor.hpp"

namespace mg::nn {

// name -> Tensor in insertion order (tinygrad's dict), with lookup by name
// StateDict is StateDictT<>, a class template like Tensor: only a translation unit that uses one compiles it
template <class = void>
class StateDictT {
 public:
  using value_type = std::pair<std::string, Tensor>;
  StateDictT() = default;
  StateDictT(std::initializer_list<value_type> items) {
    for (const auto& [k, v] : items) set(k, v);
  }

  // inserts, or replaces the tensor of an existing name in place
  void set(std::string name, Tensor t) {
    if (const Tensor* have = find(name)) { const_cast<Tensor&>(*have) = std::move(t); return; }
    items_.emplace_back(std::move(name), std::move(t));
  }
  // a linear search: a model's few hundred names cost less than a hash map's code in every file
  const Tensor* find(const std::string& name) const {
    auto it = std::find_if(items_.begin(), items_.end(), [&](const value_type& e) { return e.first == name; });
    return it == items_.end() ? nullptr : &it->second;
  }
  bool contains(const std::string& name) const { return find(name) != nullptr; }
  // the tensor itself (a handle: assign to it to write the model's)
  Tensor at(const std::string& name) const {
    if (const Tensor* t = find(name)) return *t;
    throw Error("StateDict: no tensor named \"" + name + "\"");
  }
  std::vector<std::string> keys() const {
    std::vector<std::string> k;
    for (const auto& [name, t] : items_) k.push_back(name);
    return k;
  }
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  std::vector<value_type> items_;
};
using StateDict = StateDictT<>;

namespace detail {
template <class T> inline constexpr bool is_optional_v = false;
template <class T> inline constexpr bool is_optional_v<std::optional<T>> = true;
template <class T> inline constexpr bool dependent_false_v = false;

template <class T>
concept Visitable = requires(T& m) { m.visit([](std::string_view, auto&&) {}); };
template <class R>
concept Range = requires(R& r) { std::begin(r); std::end(r); };
template <class R>
concept NamedRange = Range<R> && requires(R& r) {
  { (*std::begin(r)).first } -> std::convertible_to<std::string_view>;
  (*std::begin(r)).second;
};

template <class = void> std::string join_name(const std::string& prefix, std::string_view name) {
  if (prefix.empty() || prefix.back() == '.') return prefix + std::string(name);
  return prefix + "." + std::string(name);
}

// calls leaf(name, tensor) for each tensor reachable from m, in the order the visits name them
template <class M, class Leaf>
void walk_state(M& m, const std::string& name, Leaf& leaf) {
  using T = std::remove_const_t<M>;
  if constexpr (std::is_same_v<T, Tensor>) {
    leaf(name, m);
  } else if constexpr (is_optional_v<T>) {
    if (m) walk_state(*m, name, leaf);
  } else if constexpr (Visitable<T>) {
    m.visit([&](std::string_view member, auto&& x) { walk_state(x, join_name(name, member), leaf); });
  } else if constexpr (NamedRange<T>) {
    for (auto&& [k, x] : m) walk_state(x, join_name(name, k), leaf);
  } else if constexpr (Range<T>) {
    std::size_t i = 0;
    for (auto&& x : m) walk_state(x, join_name(name, std::to_string(i++)), leaf);
  } else {
    static_assert(dependent_false_v<T>,
                  "nn: a model member must be a Tensor, a std::optional, a range or a string-keyed map of members, "
                  "or a type with a member `void visit(auto&& f)` that calls f(\"name\", member) for each member");
  }
}
}  // namespace detail

// tinygrad's get_state_dict: every tensor of the model by its dotted name ("l1.weight"); prefix is
// joined with a dot in front of each name
template <class M>
StateDict get_state_dict(M& model, const std::string& prefix = "") {
  StateDict sd;
  auto leaf = [&](const std::string& name, const Tensor& t) { sd.set(name, t); };
  detail::walk_state(model, prefix, leaf);
  return sd;
}

// tinygrad's get_parameters: the state dict's tensors, each once
template <class M>
std::vector<Tensor> get_parameters(M& model) {
  std::vector<Tensor> out;
  for (const auto& [name, t] : get_state_dict(model))
    if (std::none_of(out.begin(), out.end(), [&](const Tensor& o) { return o.uop() == t.uop(); })) out.push_back(t);
  return out;
}

// tinygrad's `for p in get_parameters(model): p.replace(Tensor.empty(p.shape))`, over the whole state
// dict: every tensor of the model becomes a Tensor::empty of its shape, dtype and device (requires_grad
// kept; a tensor named twice stays one tensor). The model's members are rebound: handles taken before
// (an optimizer's parameter list) keep the old tensors. Returns the number of tensors replaced.
template <class M>
std::size_t replace_empty(M& model) {
  std::vector<std::pair<Tensor, Tensor>> done;  // old -> new, so tied names stay tied
  auto leaf = [&](const std::string&, Tensor& t) {
    auto it = std::find_if(done.begin(), done.end(), [&](const auto& e) { return e.first.uop() == t.uop() || e.second.uop() == t.uop(); });
    if (it != done.end()) { t = it->second; return; }  // a tied name, or the same member named again
    Tensor e = Tensor::empty(t.shape(), t.dtype(), t.device());
    if (const auto r = t.requires_grad()) e.requires_grad(*r);
    done.emplace_back(t, e);
    t = e;
  };
  detail::walk_state(model, "", leaf);
  return done.size();
}

// tinygrad's load_state_dict: writes each of the model's tensors from the dict entry of its name
// (Tensor::assign, so everything viewing the model's buffers sees the new values; a value of another
// dtype is cast to the model's). Checked before anything is written: a shape mismatch throws (shapes ()
// and (1,) load into each other, as in tinygrad); strict, a name missing from the dict or a dict entry
// the model has no tensor for throws too, naming them. Returns the model's tensors it wrote.
template <class M>
std::vector<Tensor> load_state_dict(M& model, const StateDict& dict, bool strict = true) {
  const StateDict mine = get_state_dict(model);
  std::vector<std::pair<Tensor, Tensor>> writes;
  std::vector<std::string> missing, unexpected;
  for (const auto& [name, t] : mine) {
    const Tensor* v = dict.find(name);
    if (!v) { missing.push_back(name); continue; }
    Tensor x = *v;
    if (x.shape() != t.shape()) {
      if (x.numel() == 1 && t.numel() == 1 && x.ndim() + t.ndim() == 1) x = x.reshape(t.shape());
      else throw Error("load_state_dict: shape mismatch for \"" + name + "\": the model has " + shape_str(t.shape()) +
                       ", the state dict " + shape_str(x.shape()));
    }
    writes.emplace_back(t, x.cast(t.dtype()));
  }
  for (const auto& [name, t] : dict)
    if (!mine.contains(name)) unexpected.push_back(name);
  auto list = [](const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "\"" : ", \"") + n + "\"";
    return s;
  };
  if (strict && !missing.empty()) throw Error("load_state_dict: missing from the state dict: " + list(missing));
  if (strict && !unexpected.empty()) throw Error("load_state_dict: not in the model: " + list(unexpected));
  std::vector<Tensor> out;
  for (auto& [t, x] : writes) {
    t.template assign<mg::detail::dep_t<M>>(x);
    out.push_back(t);
  }
  return out;
}

}  // namespace mg::nn
