#pragma once
// evaluate: the value of a constant expression graph, given values for its variables. ALU ops run
// through exec_alu, so the values are exactly what tinygrad's constant folding would give.
// Iterative (sources first, in toposort order) and memoized per node.
#include <concepts>
#include <map>
#include <string>
#include <vector>

#include "alu.hpp"
#include "ptr_map.hpp"
#include "uop.hpp"

namespace mg {

// Values: int64 (uint64 as its bit pattern), double, bool, Invalid; a tuple for a vector dtype.
// A variable takes its value from vars, else from a BIND of it in the graph.
// Throws mg::Error for a variable with no value or one outside its [min, max], an integer result
// that overflows int64 in a weakint op, and ops that have no value (anything but CONST, DEFINE_VAR,
// BIND, CAST, BITCAST, STACK, GEP and the ALU ops).
// (a template: only a translation unit that evaluates compiles it)
template <std::same_as<UOp> U> Arg evaluate(const U& u, const std::map<std::string, Arg>& vars) {
  if (!u) throw Error("evaluate: null UOp");
  const std::vector<UOp> topo = u.toposort();
  // a BIND gives its variable's value (tinygrad's var_vals), here and wherever else the variable is used
  std::map<std::string, Arg> bound;
  for (const UOp& n : topo)
    if (n.op() == Ops::BIND && n.nsrc() == 2 && n.src(0).op() == Ops::DEFINE_VAR && n.src(1).op() == Ops::CONST)
      bound.emplace(n.src(0).expr(), n.src(1).arg());
  detail::PtrMap<Arg> memo(topo.size());
  std::vector<Arg> operands;
  for (const UOp& n : topo) {
    auto val = [&](std::size_t i) -> const Arg& { return *memo.find(n.src(i).node()); };
    const Ops op = n.op();
    const DType dt = n.dtype();
    Arg r;
    if (op == Ops::CONST) {
      r = n.arg();
      if (dt.count > 1 && !r.is_tuple()) r = Arg(ArgTuple(std::size_t(dt.count), r));
    } else if (op == Ops::DEFINE_VAR) {
      const std::string& name = n.expr();
      auto it = vars.find(name);
      if (it == vars.end() && (it = bound.find(name)) == bound.end()) throw Error("evaluate: no value for variable " + py_str_repr(name));
      const Arg &lo = n.arg()[1], &hi = n.arg()[2];
      const detail::Alu alu{Ops::DEFINE_VAR, dt, "evaluate"};
      const detail::PyVal v = alu.from_arg(it->second, dt);
      if (v.kind == detail::PyVal::Inv || detail::Alu::lt(v, alu.from_arg(lo, dt)) || detail::Alu::lt(alu.from_arg(hi, dt), v))
        throw Error("evaluate: variable " + py_str_repr(name) + " = " + it->second.repr() + " is outside [" + lo.repr() + ", " +
                    hi.repr() + "]");
      r = normalize_const(dt, it->second);
    } else if (op == Ops::BIND) {
      r = val(1);
    } else if (op == Ops::CAST) {
      r = detail::cast_value(val(0), n.src(0).dtype(), dt, "evaluate");
    } else if (op == Ops::BITCAST) {
      r = detail::bitcast_value(val(0), n.src(0).dtype(), dt);
    } else if (op == Ops::STACK) {
      ArgTuple t;
      for (std::size_t i = 0; i < n.nsrc(); ++i) t.push_back(val(i));
      r = Arg(std::move(t));
    } else if (op == Ops::GEP) {
      const Arg& v = val(0);
      ArgTuple t;
      for (const Arg& i : n.arg().as_tuple()) t.push_back(v.is_tuple() ? v[std::size_t(i.as_int())] : v);
      r = t.size() == 1 ? t[0] : Arg(std::move(t));
    } else if (GroupOp::ALU.contains(op)) {
      operands.clear();
      for (std::size_t i = 0; i < n.nsrc(); ++i) operands.push_back(val(i));
      const DType od = n.src(op == Ops::WHERE && n.nsrc() > 1 ? 1 : 0).dtype();
      auto res = exec_alu(op, dt, operands, od);
      if (!res) {
        std::string args;
        for (const Arg& a : operands) args += (args.empty() ? "" : ", ") + a.repr();
        throw Error("evaluate: " + op_repr(op) + " on " + dt.repr() + " of (" + args + ") overflows int64");
      }
      r = std::move(*res);
    } else {
      throw Error("evaluate: " + op_repr(op) + " (" + dt.repr() + ") has no value");
    }
    memo.set(n.node(), std::move(r));
  }
  return *memo.find(u.node());
}

}  // namespace mg
