#pragma once
// tinygrad's pm_lower_index_dtype (uop/ops.py): index math is done in weakint until here; each weakint
// node becomes int32, or int64 where its bounds overflow int32, with CASTs back to weakint that the
// next node up absorbs, until the last ones are dropped under INDEX, SINK, END and NOOP.
#include <vector>

#include "../pattern/graph_rewrite.hpp"
#include "../symbolic/symbolic.hpp"

namespace mg {

namespace detail {
template <class = void> DType select_index_dtype(const UOp& u) {
  return (u.overflows(dtypes::int32) ? dtypes::int64 : dtypes::int32).vec(u.dtype().count);
}
template <class = void> DType index_upper(DType a, DType b, DType c) { return least_upper_dtype(a.scalar(), b.scalar(), c.scalar()); }

template <class D_ = void>
struct pm_lower_index_dtype_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    auto wcast = [](auto p) { return cast(p, dtypes::weakint); };
    auto ints = [](auto p) {
      return p.dtype(dtypes::int8, dtypes::int16, dtypes::int32, dtypes::int64, dtypes::uint8, dtypes::uint16, dtypes::uint32, dtypes::uint64);
    };
    return rules(
        // there are no unary ops in index math at this point
        rule(op<GroupOp::Binary>(wcast(var<"x">), wcast(var<"y">)).named("u"_n), [](const UOp& u, const UOp& x, const UOp& y) {
          const DType sel = select_index_dtype(u);
          const DType dt = index_upper(sel, x.dtype(), y.dtype()).vec(u.dtype().count);
          return x.cast(dt).alu(u.op(), y.cast(dt)).cast(u.dtype());
        }),
        rule(op<Ops::CONST>.dtype(dtypes::weakint).named("u"_n), [](const UOp& u) -> std::optional<UOp> {
          if (u.arg().is<Invalid>()) return std::nullopt;
          return u.replace({.dtype = select_index_dtype(u)}).cast(u.dtype());
        }),
        rule(op<Ops::WHERE>(var<"cond">, wcast(var<"x">), wcast(var<"y">)).dtype(dtypes::weakint), [](const UOp& cond, const UOp& x, const UOp& y) {
          const DType dt = least_upper_dtype(x.dtype().scalar(), y.dtype().scalar()).vec(x.dtype().count);
          return cond.where(x.cast(dt), y.cast(dt)).cast(dtypes::weakint);
        }),
        rule(op<Ops::RANGE>(wcast(var<"end">)).named("r"_n), [](const UOp& r, const UOp& end) {
          return r.replace({.dtype = end.dtype(), .src = std::vector<UOp>{end}}).cast(dtypes::weakint);
        }),
        rule(op<Ops::STACK>(repeat(op<Ops::CAST>.dtype(dtypes::weakint))).named("v"_n), [](const UOp& v) {
          const DType dt = select_index_dtype(v);
          std::vector<UOp> src;
          for (const UOp& s : v.src()) src.push_back(s.src(0).cast(dt.scalar()));
          return v.replace({.dtype = dt, .src = std::move(src)}).cast(dtypes::weakint);
        }),
        // SPECIAL is int32
        rule(op<Ops::SPECIAL>(wcast(var<"var">)).named("u"_n), [](const UOp& u, const UOp& var) {
          return u.replace({.dtype = dtypes::int32, .src = std::vector<UOp>{var}}).cast(dtypes::weakint);
        }),
        rule(op<Ops::DEFINE_VAR>.dtype(dtypes::weakint).named("u"_n), [](const UOp& u) {
          return u.replace({.dtype = dtypes::int32}).cast(dtypes::weakint);
        }),
        rule(op<Ops::BIND>(wcast(var<"var">), wcast(cvar<"val">)), [](const UOp& var, const UOp& val) {
          return UOp(Ops::BIND, var.dtype(), {var, val}).cast(dtypes::weakint);
        }),
        // remove hanging casts
        rule(op<Ops::INDEX>(var<"buf">, cast(ints(var<"idx">))), [](const UOp& buf, const UOp& idx) { return buf.index({idx}, true); }),
        rule(op<Ops::INDEX>(var<"buf">, where(var<"gate">, cast(ints(var<"idx">)), op<Ops::CONST>.arg(Invalid{}))),
             [](const UOp& buf, const UOp& gate, const UOp& idx) { return buf.index({gate.where(idx, idx.const_like(Invalid{}))}, true); }),
        rule(op<Ops::SINK, Ops::NOOP, Ops::END>.named("n"_n), [](const UOp& n) {
          std::vector<UOp> src;
          for (const UOp& s : n.src()) src.push_back(s.op() == Ops::CAST && s.dtype() == dtypes::weakint ? s.src(0) : s);
          return n.replace({.src = std::move(src)});
        }));
  }
};
}  // namespace detail

inline constexpr LazyRules<detail::pm_lower_index_dtype_def<>> pm_lower_index_dtype{};

}  // namespace mg
