#pragma once
// verify: tinygrad's spec_program (uop/spec.py) for the linear form, as direct checks: every uop is one
// a backend can render (ops, dtypes, sources), its sources come before it, RANGE/END and IF/ENDIF nest,
// and the list ends in the SINK. Throws mg::Error naming the first bad uop and its position.
#include <string>
#include <vector>

#include "../core/ptr_map.hpp"
#include "program.hpp"

namespace mg {

namespace detail {
template <class = void> std::string spec_where(std::size_t i, const UOp& u) {
  std::string s = "verify: uop " + std::to_string(i) + " " + op_repr(u.op()) + " " + u.dtype().repr();
  if (!u.arg().is_none()) s += " arg " + u.arg().repr();
  return s;
}
template <class = void> bool is_index_like(const UOp& u) { return u.op() == Ops::INDEX || (u.op() == Ops::CAST && u.nsrc() == 1 && u.src(0).op() == Ops::INDEX); }
}  // namespace detail

template <class = void> void verify(const Program& p) {
  using namespace detail;
  if (p.uops.empty() || p.uops.back().op() != Ops::SINK) throw Error("verify: program " + p.name + " does not end in a SINK");
  PtrMap<std::size_t> pos(p.uops.size());
  std::vector<UOp> open_ranges, open_ifs;
  for (std::size_t i = 0; i < p.uops.size(); ++i) {
    const UOp& u = p.uops[i];
    auto bad = [&](const std::string& why) { throw Error(spec_where(i, u) + ": " + why); };
    if (pos.contains(u.node())) bad("appears twice");
    for (std::size_t k = 0; k < u.nsrc(); ++k)
      if (!pos.contains(u.src(k).node())) bad("source " + std::to_string(k) + " (" + op_repr(u.src(k).op()) + ") does not come before it");
    pos.set(u.node(), i);
    const DType dt = u.dtype();
    if (dt.scalar_ == Scalar::weakint) bad("weakint is not allowed in a program");
    const Ops o = u.op();
    if (GroupOp::Movement.contains(o)) bad("movement ops are not allowed in a program");
    auto src_dt = [&](std::size_t k) { return u.src(k).dtype(); };
    switch (o) {
      case Ops::SINK: if (i + 1 != p.uops.size()) bad("SINK before the end"); break;
      case Ops::NOOP: case Ops::BARRIER: break;
      case Ops::PARAM: if (!u.arg().is<ParamArg>() || !dt.is_ptr) bad("PARAM needs a ParamArg and a pointer dtype"); break;
      case Ops::DEFINE_VAR: if (u.arg().size() != 3 || !dt.is_int()) bad("DEFINE_VAR needs (name, min, max) and an int dtype"); break;
      case Ops::DEFINE_REG: case Ops::DEFINE_LOCAL: if (!dt.is_ptr || u.nsrc() != 0) bad("needs a pointer dtype and no sources"); break;
      case Ops::CONST:
        if (u.arg().is<Invalid>()) bad("Invalid is not allowed in a program");
        if (u.nsrc() != 0 || dt.vcount() != 1) bad("CONST must be scalar with no sources");
        break;
      case Ops::RANGE:
        if (u.nsrc() < 1 || !dt.is_int() || src_dt(0) != dt) bad("RANGE needs an int end of its own dtype");
        if (u.arg().size() < 2 || !u.arg()[u.arg().size() - 1].is<AxisType>()) bad("RANGE arg must be (axis..., AxisType)");
        open_ranges.push_back(u);
        break;
      case Ops::END:
        if (u.nsrc() != 2 || u.src(1).op() != Ops::RANGE) bad("END needs (value, RANGE)");
        if (open_ranges.empty() || open_ranges.back() != u.src(1)) bad("END does not close the innermost open RANGE");
        open_ranges.pop_back();
        break;
      case Ops::IF:
        if (u.nsrc() != 2 || src_dt(0) != dtypes::bool_ || !is_index_like(u.src(1))) bad("IF needs (bool gate, INDEX)");
        open_ifs.push_back(u);
        break;
      case Ops::ENDIF:
        if (u.nsrc() != 1 || open_ifs.empty() || open_ifs.back() != u.src(0)) bad("ENDIF does not close the open IF");
        open_ifs.pop_back();
        break;
      case Ops::AFTER:
        if (u.nsrc() < 1 || dt != src_dt(0)) bad("AFTER must have its first source's dtype");
        break;
      case Ops::GROUP: break;
      case Ops::INDEX:
        if (!dt.is_ptr || u.nsrc() < 2 || !src_dt(0).is_ptr) bad("INDEX must be a pointer into a pointer");
        for (std::size_t k = 1; k < u.nsrc(); ++k) if (!src_dt(k).is_int()) bad("INDEX offsets must be ints");
        break;
      case Ops::LOAD:
        if (!(u.nsrc() == 1 || u.nsrc() == 3) || !is_index_like(u.src(0)) || !src_dt(0).is_ptr) bad("LOAD needs (INDEX) or (INDEX, alt, gate)");
        if (dt != src_dt(0).base()) bad("LOAD dtype differs from its pointer's " + src_dt(0).repr());
        if (u.nsrc() == 3 && (src_dt(1) != dt || (src_dt(2) != dtypes::bool_ && src_dt(2) != dtypes::bool_.vec(dt.count))))
          bad("LOAD alt must have the load's dtype and gate be bool (or a bool per lane)");
        break;
      case Ops::STORE:
        if (u.nsrc() != 2 || !is_index_like(u.src(0)) || !src_dt(0).is_ptr || dt != dtypes::void_) bad("STORE needs (INDEX, value)");
        if (src_dt(0).base() != src_dt(1)) bad("STORE value " + src_dt(1).repr() + " does not match " + src_dt(0).repr());
        break;
      case Ops::CAST: case Ops::BITCAST: if (u.nsrc() != 1 || !u.arg().is_none()) bad("CAST takes one source and no arg"); break;
      case Ops::STACK:
        if (u.nsrc() < 2 || int(u.nsrc()) != dt.vcount()) bad("STACK must have one source per lane");
        for (const UOp& s : u.src()) if (s.dtype().vec(int(u.nsrc())) != dt) bad("STACK source dtype does not match");
        break;
      case Ops::GEP: if (u.nsrc() != 1 || dt != src_dt(0).scalar()) bad("GEP must pick one lane"); break;
      default:
        if (!GroupOp::ALU.contains(o)) bad("not allowed in a program");
        if (o == Ops::WHERE) {
          if (src_dt(0).scalar() != dtypes::bool_ || dt != src_dt(1) || dt != src_dt(2)) bad("WHERE needs (bool, x, y) of its dtype");
        } else if (GroupOp::Comparison.contains(o)) {
          if (dt.scalar() != dtypes::bool_ || src_dt(0).base() != src_dt(1).base()) bad("comparison needs equal source dtypes and a bool result");
        } else if (o == Ops::SHL || o == Ops::SHR) {
          if (dt != src_dt(0) || (src_dt(1) != dt && src_dt(1) != dtypes::uint32)) bad("shift dtypes do not match");
        } else {
          if ((o == Ops::CDIV || o == Ops::CMOD || o == Ops::FLOORDIV || o == Ops::FLOORMOD) && !dt.is_int()) bad("integer division on a non-int dtype");
          for (const UOp& s : u.src()) if (s.dtype().base() != dt.base()) bad("source dtype " + s.dtype().repr() + " differs");
        }
    }
  }
  if (!open_ranges.empty()) throw Error("verify: program " + p.name + " leaves RANGE " + open_ranges.back().arg().repr() + " open");
  if (!open_ifs.empty()) throw Error("verify: program " + p.name + " leaves an IF open");
}

}  // namespace mg
