#pragma once
// tinygrad's codegen/late/gater.py: an INDEX gated by cond.where(idx, Invalid) cannot be rendered, so
// the gate moves to the LOAD (which reads an alternative value, 0, where the gate is false) or the
// STORE (which does not happen). A WHERE on the same gate around a gated load becomes its alternative.
#include "../pattern/graph_rewrite.hpp"
#include "../symbolic/symbolic.hpp"

namespace mg {

namespace detail {
template <class D_ = void>
struct pm_move_gates_from_index_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    auto gated = [] { return index(var<"buf">, where(var<"gate">, var<"idx">, op<Ops::CONST>.arg(Invalid{}))); };
    return rules(
        rule(load(or_casted<"cast">(gated())).named("l"_n), [](const UOp& l, const UOp& cast, const UOp& buf, const UOp& gate, const UOp& idx) {
          return UOp(Ops::LOAD, l.dtype(), {buf.index({idx}, true).cast(cast.dtype()), l.const_like(0), gate});
        }),
        rule(store(or_casted<"cast">(gated()), var<"data">), [](const UOp& cast, const UOp& buf, const UOp& gate, const UOp& idx, const UOp& data) {
          return buf.index({idx}, true).cast(cast.dtype()).store(data, gate);
        }),
        // a WHERE after a gated load becomes the load's alternative value
        rule(where(var<"gate">, or_casted(op<Ops::LOAD>(upat, upat, var<"gate">.dtype(dtypes::bool_)).named("l"_n)), var<"a">),
             [](const UOp& gate, const UOp& l, const UOp& a) {
               (void)gate;
               UOp alt_v = a.op() == Ops::CAST && a.src(0).dtype() == l.dtype() ? a.src(0) : a.cast(l.dtype());
               return l.replace({.src = std::vector<UOp>{l.src(0), alt_v, l.src(2)}}).cast(a.dtype());
             }),
        rule(where(var<"gate">, var<"a">, or_casted(op<Ops::LOAD>(upat, upat, ne(var<"gate">.dtype(dtypes::bool_), true)).named("l"_n))),
             [](const UOp& gate, const UOp& a, const UOp& l) {
               (void)gate;
               UOp alt_v = a.op() == Ops::CAST && a.src(0).dtype() == l.dtype() ? a.src(0) : a.cast(l.dtype());
               return l.replace({.src = std::vector<UOp>{l.src(0), alt_v, l.src(2)}}).cast(a.dtype());
             }));
  }
};
}  // namespace detail

inline constexpr LazyRules<detail::pm_move_gates_from_index_def<>> pm_move_gates_from_index{};

}  // namespace mg
