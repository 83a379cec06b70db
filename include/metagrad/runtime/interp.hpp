#pragma once
// INTERP: runs a Program by interpreting its linear UOps, as tinygrad's PYTHON device does
// (runtime/ops_python.py). It is the oracle compiled backends are tested against, so it checks
// everything it can: the program's structure once up front (sources come first, RANGE/END and
// IF/ENDIF nest, dtypes agree), every LOAD and STORE against its buffer's size while it runs.
// ALU ops go through exec_alu and casts through cast_value, the code that folds constants, so INTERP
// agrees with the symbolic rules and the reference evaluator to the last bit.
//
// Values live in one flat array of Args (dtype.count slots per uop, laid out once), pointers in a
// parallel array of (memory, element offset, gate): running a kernel allocates nothing per element.
// Offsets count scalar elements of the buffer, so a float4 LOAD through a pointer CAST to float4 reads
// elements off..off+3, and an INDEX into a vector-typed pointer steps by the vector's width (as LLVM
// does).
#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "../codegen/program.hpp"
#include "../core/alu.hpp"
#include "../core/eval.hpp"
#include "../core/extern_engine.hpp"
#include "../core/ptr_map.hpp"
#include "../symbolic/decompositions.hpp"  // threefry2x32_value

namespace mg {

namespace detail {

// a memory a pointer can point into: a PARAM's buffer, a DEFINE_REG's registers, a DEFINE_LOCAL
struct InterpMem {
  std::byte* base = nullptr;
  std::int64_t size = 0;  // in scalar elements
  DType dtype;            // the scalar dtype of its elements
  std::string name;       // "buffer 1", "register 0", "local 0", for errors
  std::vector<std::byte> owned;  // registers and locals
};
struct InterpPtr {
  int mem = -1;
  std::int64_t off = 0;  // in scalar elements
  bool gate = true;      // false: an INDEX gated off, nothing is loaded or stored through it
};

template <class = void> bool interp_truthy(const Arg& a) { return a.is_float() ? a.as_float() != 0 : a.is_number() && a.as_int() != 0; }

template <std::same_as<UOp> U>
class Interpreter {
 public:
  explicit Interpreter(const Program& p) : p_(p) { plan(); }

  void run(std::span<void* const> bufs, std::span<const std::int64_t> vals) {
    if (vals.size() != p_.vars.size())
      throw Error("INTERP: " + p_.name + " takes " + std::to_string(p_.vars.size()) + " variable values, got " + std::to_string(vals.size()));
    for (std::size_t j = 0; j < p_.vars.size(); ++j) check_var(p_.vars[j], vals[j]);
    for (std::size_t i = 0; i < steps_.size(); ++i) {
      if (steps_[i].op != Ops::PARAM) continue;
      const std::int64_t slot = p_.uops[i].arg().as_param().slot;
      if (slot < 0 || std::size_t(slot) >= bufs.size() || !bufs[std::size_t(slot)])
        throw Error("INTERP: " + p_.name + " has no buffer for PARAM slot " + std::to_string(slot) + " (" + std::to_string(bufs.size()) +
                    " given)");
      mems_[std::size_t(steps_[i].aux)].base = static_cast<std::byte*>(bufs[std::size_t(slot)]);
    }
    const int core = p_.core_id_slot();
    if (core >= 0 && p_.threads < 1) throw Error("INTERP: " + p_.name + " has threads = " + std::to_string(p_.threads));
    std::vector<std::int64_t> v(vals.begin(), vals.end());
    for (std::int64_t t = 0; t < (core >= 0 ? p_.threads : 1); ++t) {
      if (core >= 0) {
        v[std::size_t(core)] = t;
        check_var(p_.vars[std::size_t(core)], t);
      }
      run_specials(v);
    }
  }

 private:
  // one uop as the interpreter sees it: sources as positions, where its value lives
  struct Step {
    Ops op;
    DType dtype;
    int count = 0;   // value slots (0 for pointers and void)
    int vpos = 0;    // first slot in vals_
    int src = 0;     // first source in srcs_
    int nsrc = 0;
    int jump = -1;   // RANGE: where to go when it is done; END: the RANGE it goes back to
    int aux = -1;    // PARAM/DEFINE_*: its memory; DEFINE_VAR: its index in vars; SPECIAL: its index in specials_
  };

  const Program& p_;
  std::vector<Step> steps_;
  std::vector<int> srcs_;
  std::vector<InterpMem> mems_;
  std::vector<int> specials_;  // positions of the SPECIAL uops
  std::vector<Arg> vals_;
  std::vector<InterpPtr> ptrs_;
  std::vector<std::int64_t> range_val_;
  std::vector<char> range_on_;
  std::vector<std::int64_t> special_val_;

  [[noreturn]] void bad(std::size_t i, const std::string& why) const {
    throw Error("INTERP: " + p_.name + ": uop " + std::to_string(i) + " (" + op_repr(p_.uops[i].op()) + ", " + p_.uops[i].dtype().repr() +
                "): " + why);
  }
  const Step& src(const Step& s, int k) const { return steps_[std::size_t(srcs_[std::size_t(s.src + k)])]; }
  int srcpos(const Step& s, int k) const { return srcs_[std::size_t(s.src + k)]; }
  const Arg& val(const Step& s, int k = 0) const { return vals_[std::size_t(s.vpos + k)]; }
  // element k of a source: a scalar broadcasts
  const Arg& elem(const Step& s, int k) const { return vals_[std::size_t(s.vpos + (s.count > 1 ? k : 0))]; }

  void check_var(const UOp& var, std::int64_t v) const {
    const Arg& a = var.arg();
    if (v < a[1].as_int() || v > a[2].as_int())
      throw Error("INTERP: " + p_.name + ": variable " + py_str_repr(a[0].as_str()) + " = " + std::to_string(v) + " is outside [" +
                  a[1].repr() + ", " + a[2].repr() + "]");
  }

  // ***** the checks and the layout, once per program *****

  void plan() {
    const std::vector<UOp>& uops = p_.uops;
    const std::size_t n = uops.size();
    if (n == 0) throw Error("INTERP: " + p_.name + " has no uops");
    PtrMap<int> pos(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (!uops[i]) throw Error("INTERP: " + p_.name + ": uop " + std::to_string(i) + " is null");
      if (pos.find(uops[i].node())) bad(i, "appears twice in the program");
      pos.set(uops[i].node(), int(i));
    }
    steps_.resize(n);
    std::vector<int> open;  // RANGE and IF positions not yet closed
    int nvals = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const UOp& u = uops[i];
      Step& s = steps_[i];
      s.op = u.op();
      s.dtype = u.dtype();
      s.src = int(srcs_.size());
      // a PARAM's sources (metagrad gives it a NOOP) are never read
      if (s.op != Ops::PARAM) {
        for (std::size_t k = 0; k < u.nsrc(); ++k) {
          const int* at = pos.find(u.src(k).node());
          if (!at || *at >= int(i))
            bad(i, "source " + std::to_string(k) + " (" + op_repr(u.src(k).op()) + ") is not earlier in the program");
          srcs_.push_back(*at);
        }
      }
      s.nsrc = int(srcs_.size()) - s.src;
      if (!s.dtype.is_ptr && s.dtype != dtypes::void_) s.count = s.dtype.count;
      s.vpos = nvals;
      nvals += s.count;
      check(i, s);
      // structure: loops and ifs nest
      if (s.op == Ops::RANGE || s.op == Ops::IF) open.push_back(int(i));
      if (s.op == Ops::ENDIF) {
        if (open.empty() || open.back() != srcpos(s, 0)) bad(i, "does not close the innermost open RANGE or IF");
        open.pop_back();
      }
      if (s.op == Ops::END) {
        // its ranges, innermost (latest) first, must be the innermost open ones
        std::vector<int> rs;
        for (int k = 1; k < s.nsrc; ++k) rs.push_back(srcpos(s, k));
        std::sort(rs.rbegin(), rs.rend());
        for (int r : rs) {
          if (open.empty() || open.back() != r) bad(i, "does not close the innermost open RANGE or IF");
          open.pop_back();
        }
        // a finished RANGE goes on to the next outer range this END closes, or past the END
        for (std::size_t k = 0; k < rs.size(); ++k) steps_[std::size_t(rs[k])].jump = k + 1 < rs.size() ? rs[k + 1] : int(i) + 1;
        s.jump = rs[0];
      }
    }
    if (!open.empty()) bad(std::size_t(open.back()), "is never closed (no END or ENDIF for it)");
    vals_.assign(std::size_t(nvals), Arg());
    ptrs_.assign(n, InterpPtr{});
    range_val_.assign(n, 0);
    range_on_.assign(n, 0);
  }

  // per-op checks of sources and dtypes (tinygrad's spec for the linear form, the parts INTERP relies on)
  void check(std::size_t i, Step& s) {
    const UOp& u = p_.uops[i];
    auto need_srcs = [&](int lo, int hi) {
      if (s.nsrc < lo || s.nsrc > hi)
        bad(i, "has " + std::to_string(s.nsrc) + " sources, expected " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)));
    };
    auto need_ptr = [&](int k) {
      if (!src(s, k).dtype.is_ptr) bad(i, "source " + std::to_string(k) + " is not a pointer (" + src(s, k).dtype.repr() + ")");
    };
    auto need_int = [&](int k) {
      const DType d = src(s, k).dtype;
      if (d.is_ptr || !d.is_int() || d.count != 1) bad(i, "source " + std::to_string(k) + " is not a scalar int (" + d.repr() + ")");
    };
    auto need_bool = [&](int k) {
      const DType d = src(s, k).dtype;
      if (d.is_ptr || !d.is_bool()) bad(i, "source " + std::to_string(k) + " is not a bool (" + d.repr() + ")");
    };
    auto need_storage = [&](DType d) {
      if (!has_storage(d.scalar())) bad(i, "INTERP has no storage format for " + d.scalar().repr());
    };
    auto add_mem = [&](std::int64_t size, std::string name) {
      if (!s.dtype.is_ptr) bad(i, "is not a pointer");
      if (size < 0) bad(i, "has no size (INTERP bounds-checks every access)");
      need_storage(s.dtype.base());
      InterpMem m;
      m.size = size * s.dtype.count;
      m.dtype = s.dtype.base().scalar();
      m.name = std::move(name);
      s.aux = int(mems_.size());
      mems_.push_back(std::move(m));
    };
    switch (s.op) {
      case Ops::PARAM: add_mem(s.dtype.size, "buffer " + std::to_string(u.arg().as_param().slot)); break;
      case Ops::DEFINE_REG:
      case Ops::DEFINE_LOCAL: {
        need_srcs(0, 0);
        add_mem(s.dtype.size, (s.op == Ops::DEFINE_REG ? "register " : "local ") + u.arg().repr());
        InterpMem& m = mems_.back();
        m.owned.assign(std::size_t(m.size * m.dtype.itemsize()), std::byte{0});
        m.base = m.owned.data();
        break;
      }
      case Ops::DEFINE_VAR: {
        need_srcs(0, 0);
        for (std::size_t j = 0; j < p_.vars.size(); ++j) if (p_.vars[j] == u) s.aux = int(j);
        if (s.aux < 0) bad(i, "variable " + u.arg().repr() + " is not in the program's vars");
        if (!s.dtype.is_int() || s.count != 1) bad(i, "a variable must be a scalar int");
        break;
      }
      case Ops::SPECIAL:
        need_srcs(1, 1);
        need_int(0);
        s.aux = int(specials_.size());
        specials_.push_back(int(i));
        break;
      case Ops::CONST:
        need_srcs(0, 0);
        if (s.count == 0) bad(i, "a CONST needs a value dtype");
        if (u.arg().is_tuple() && int(u.arg().size()) != s.count) bad(i, "has " + std::to_string(u.arg().size()) + " values");
        if (!u.arg().is_tuple() && !u.arg().is_number() && !u.arg().is<Invalid>()) bad(i, "value " + u.arg().repr() + " is not a number");
        break;
      case Ops::RANGE:
        if (s.nsrc < 1) bad(i, "has no end");
        need_int(0);
        if (s.count != 1 || !s.dtype.is_int()) bad(i, "a RANGE must be a scalar int");
        break;
      case Ops::END:
        if (s.nsrc < 2) bad(i, "closes no RANGE");
        for (int k = 1; k < s.nsrc; ++k) if (src(s, k).op != Ops::RANGE) bad(i, "source " + std::to_string(k) + " is not a RANGE");
        break;
      case Ops::IF: need_srcs(1, 2); need_bool(0); break;
      case Ops::ENDIF: need_srcs(1, 1); if (src(s, 0).op != Ops::IF) bad(i, "source 0 is not an IF"); break;
      case Ops::AFTER:
        if (s.nsrc < 1) bad(i, "has no source");
        if (src(s, 0).dtype != s.dtype) bad(i, "dtype differs from its source's (" + src(s, 0).dtype.repr() + ")");
        break;
      case Ops::INDEX:
        need_srcs(2, 3);
        need_ptr(0);
        need_int(1);
        if (s.nsrc == 3) need_bool(2);
        if (!s.dtype.is_ptr) bad(i, "an INDEX must be a pointer");
        break;
      case Ops::LOAD: {
        const int nv = value_srcs(s);
        if (nv != 1 && nv != 3) bad(i, "has " + std::to_string(nv) + " value sources, expected 1 (INDEX) or 3 (INDEX, alt, gate)");
        need_ptr(0);
        if (s.count == 0) bad(i, "a LOAD needs a value dtype");
        need_storage(s.dtype);
        if (nv == 3) {
          const Step& alt = src(s, first_value_src(s, 1));
          const Step& gate = src(s, first_value_src(s, 2));
          if (alt.dtype.scalar() != s.dtype.scalar() || (alt.count != 1 && alt.count != s.count)) bad(i, "alt value is " + alt.dtype.repr());
          if (!gate.dtype.is_bool() || gate.dtype.is_ptr || (gate.count != 1 && gate.count != s.count)) bad(i, "gate is " + gate.dtype.repr());
        }
        break;
      }
      case Ops::STORE:
        need_srcs(2, 3);
        need_ptr(0);
        if (src(s, 1).count == 0) bad(i, "stores no value");
        need_storage(src(s, 1).dtype);
        if (s.nsrc == 3) need_bool(2);
        break;
      case Ops::CAST:
      case Ops::BITCAST:
        need_srcs(1, 1);
        if (s.op == Ops::CAST && s.dtype.is_ptr) { need_ptr(0); break; }
        if (s.count == 0 || src(s, 0).count == 0) bad(i, "casts between " + src(s, 0).dtype.repr() + " and " + s.dtype.repr());
        if (s.op == Ops::CAST && src(s, 0).count != s.count) bad(i, "casts " + src(s, 0).dtype.repr() + " to a different width");
        if (s.op == Ops::BITCAST && src(s, 0).dtype.itemsize() != s.dtype.itemsize()) bad(i, "bitcasts " + src(s, 0).dtype.repr() + ": itemsize differs");
        break;
      case Ops::GEP: {
        need_srcs(1, 1);
        const Arg& a = u.arg();
        if (!a.is_tuple() || int(a.size()) != s.count) bad(i, "arg " + a.repr() + " does not give " + std::to_string(s.count) + " indices");
        for (const Arg& e : a.as_tuple())
          if (!e.is_int() || e.as_int() < 0 || e.as_int() >= src(s, 0).count) bad(i, "index " + e.repr() + " is out of range for " + src(s, 0).dtype.repr());
        break;
      }
      case Ops::STACK: {
        int total = 0;
        for (int k = 0; k < s.nsrc; ++k) total += src(s, k).count;
        if (total != s.count || s.nsrc == 0) bad(i, "sources give " + std::to_string(total) + " elements");
        break;
      }
      case Ops::WMMA: check_wmma(i, s); break;
      case Ops::SINK:
      case Ops::NOOP:
      case Ops::BARRIER:
      case Ops::GROUP: break;
      default:
        if (!GroupOp::ALU.contains(s.op)) bad(i, "INTERP does not run this op");
        need_srcs(op_arity(s.op), op_arity(s.op));
        if (s.count == 0) bad(i, "an ALU op needs a value dtype");
        for (int k = 0; k < s.nsrc; ++k) {
          const DType d = src(s, k).dtype;
          if (d.is_ptr || d.count != s.count) bad(i, "source " + std::to_string(k) + " is " + d.repr() + ", expected " + std::to_string(s.count) + " elements");
          // tinygrad's rule: sources have the op's dtype, but a comparison gives bool and WHERE takes a bool
          const bool cond = s.op == Ops::WHERE && k == 0;
          const DType want = GroupOp::Comparison.contains(s.op) ? src(s, 0).dtype : s.dtype;
          if (cond ? !d.is_bool() : d != want) bad(i, "source " + std::to_string(k) + " is " + d.repr());
        }
        if (GroupOp::Comparison.contains(s.op) && !s.dtype.is_bool()) bad(i, "a comparison gives bool");
        if (s.op == Ops::THREEFRY && s.dtype.scalar() != dtypes::uint64) bad(i, "THREEFRY works on uint64");
        if (s.op == Ops::FDIV && !s.dtype.is_float()) bad(i, "FDIV works on floats");
    }
  }

  // LOAD's sources that carry values (ops_python drops the void ones: a STORE or BARRIER it waits for)
  static bool is_void_op(Ops o) {
    return o == Ops::END || o == Ops::BARRIER || o == Ops::IF || o == Ops::ENDIF || o == Ops::SINK || o == Ops::NOOP || o == Ops::GROUP ||
           o == Ops::STORE;
  }
  int value_srcs(const Step& s) const {
    int c = 0;
    for (int k = 0; k < s.nsrc; ++k) c += !is_void_op(src(s, k).op);
    return c;
  }
  int first_value_src(const Step& s, int nth) const {  // the source index of the nth value source
    for (int k = 0; k < s.nsrc; ++k)
      if (!is_void_op(src(s, k).op) && nth-- == 0) return k;
    return -1;
  }

  // tinygrad's WMMA arg: (name, dims, dtype_in, dtype_out, device, threads, upcast_axes, reduce_axes)
  void check_wmma(std::size_t i, const Step& s) const {
    const Arg& a = p_.uops[i].arg();
    const bool cpu = a.is_tuple() && a.size() > 5 && a[4].is<std::string>() && a[4].as_str() == "CPU";
    if (!cpu) bad(i, "INTERP emulates only the CPU (AMX) tensor core, not " + (a.is_tuple() && a.size() > 4 ? a[4].repr() : a.repr()));
    if (s.nsrc != 3 || src(s, 0).count != 16 || src(s, 1).count != 16 || src(s, 2).count != 256 || s.count != 256)
      bad(i, "the CPU tensor core takes 16, 16 and 256 elements and gives 256");
  }

  // ***** running *****

  // every combination of the SPECIAL (GPU index) values, the last SPECIAL fastest
  void run_specials(std::span<const std::int64_t> v) {
    if (specials_.empty()) return run_once(v);
    std::map<std::string, Arg> vars;
    for (std::size_t j = 0; j < p_.vars.size(); ++j) vars.emplace(p_.vars[j].expr(), Arg(v[j]));
    std::vector<std::int64_t> sizes;
    bool locals = false;
    for (int at : specials_) {
      const UOp& sp = p_.uops[std::size_t(at)];
      const Arg sz = evaluate(sp.src(0), vars);
      if (!sz.is_int()) bad(std::size_t(at), "size " + sz.repr() + " is not an int");
      sizes.push_back(sz.as_int());
      locals = locals || (sz.as_int() > 1 && sp.arg().is<std::string>() && !sp.arg().as_str().empty() && sp.arg().as_str()[0] == 'l');
    }
    if (locals)
      for (std::size_t i = 0; i < steps_.size(); ++i)
        if (steps_[i].op == Ops::BARRIER) bad(i, "INTERP runs GPU threads one after another, so it cannot wait at a BARRIER for local threads");
    for (std::int64_t s : sizes) if (s <= 0) return;
    special_val_.assign(sizes.size(), 0);
    for (;;) {
      run_once(v);
      std::size_t k = sizes.size();
      while (k > 0 && ++special_val_[k - 1] == sizes[k - 1]) special_val_[--k] = 0;
      if (k == 0) return;
    }
  }

  void run_once(std::span<const std::int64_t> v) {
    std::fill(range_on_.begin(), range_on_.end(), 0);
    for (InterpMem& m : mems_) if (!m.owned.empty()) std::fill(m.owned.begin(), m.owned.end(), std::byte{0});
    std::vector<char> mask{1};  // IF nesting: stores happen while the top is true
    std::array<Arg, 3> ops;
    const std::size_t n = steps_.size();
    std::size_t i = 0;
    try {
      while (i < n) {
        const Step& s = steps_[i];
        const UOp& u = p_.uops[i];
        switch (s.op) {
          case Ops::PARAM:
          case Ops::DEFINE_LOCAL: ptrs_[i] = {s.aux, 0, true}; break;
          case Ops::DEFINE_REG: {
            InterpMem& m = mems_[std::size_t(s.aux)];
            std::fill(m.owned.begin(), m.owned.end(), std::byte{0});  // registers start at zero each time
            ptrs_[i] = {s.aux, 0, true};
            break;
          }
          case Ops::DEFINE_VAR: vals_[std::size_t(s.vpos)] = Arg(v[std::size_t(s.aux)]); break;
          case Ops::SPECIAL: vals_[std::size_t(s.vpos)] = Arg(special_val_[std::size_t(s.aux)]); break;
          case Ops::CONST: {
            const Arg& a = u.arg();
            for (int k = 0; k < s.count; ++k) vals_[std::size_t(s.vpos + k)] = a.is_tuple() ? a[std::size_t(k)] : a;
            break;
          }
          case Ops::RANGE: {
            const Arg& end = val(src(s, 0));
            if (!end.is_int()) bad(i, "end " + end.repr() + " is not an int");
            std::int64_t& r = range_val_[i];
            r = range_on_[i] ? r + 1 : 0;
            range_on_[i] = 1;
            if (r >= end.as_int()) {
              range_on_[i] = 0;
              i = std::size_t(s.jump);
              continue;
            }
            vals_[std::size_t(s.vpos)] = Arg(r);
            break;
          }
          case Ops::END:
            if (!range_on_[std::size_t(s.jump)]) bad(i, "its RANGE is not running");
            i = std::size_t(s.jump);
            continue;
          case Ops::IF: mask.push_back(mask.back() && interp_truthy(val(src(s, 0)))); break;
          case Ops::ENDIF: mask.pop_back(); break;
          case Ops::AFTER: copy_value(s, src(s, 0), int(i), srcpos(s, 0)); break;
          case Ops::INDEX: {
            const Step& b = src(s, 0);
            const Arg& idx = val(src(s, 1));
            InterpPtr pt = ptrs_[std::size_t(srcpos(s, 0))];
            if (!idx.is_int()) bad(i, "index " + idx.repr() + " is not an int (an Invalid index must become a gate first)");
            if (pt.mem < 0) bad(i, "its pointer was never set");
            std::int64_t step;
            if (__builtin_mul_overflow(idx.as_int(), std::int64_t(b.dtype.count), &step) || __builtin_add_overflow(pt.off, step, &pt.off))
              bad(i, "index " + idx.repr() + " overflows int64");
            if (s.nsrc == 3) pt.gate = pt.gate && interp_truthy(val(src(s, 2)));
            ptrs_[i] = pt;
            break;
          }
          case Ops::LOAD: load(i, s); break;
          case Ops::STORE: store(i, s, mask.back() != 0); break;
          case Ops::CAST:
            if (s.dtype.is_ptr) {
              ptrs_[i] = ptrs_[std::size_t(srcpos(s, 0))];
              break;
            }
            for (int k = 0; k < s.count; ++k)
              vals_[std::size_t(s.vpos + k)] = detail::cast_value(val(src(s, 0), k), src(s, 0).dtype.scalar(), s.dtype.scalar());
            break;
          case Ops::BITCAST: bitcast(s); break;
          case Ops::GEP: {
            const Step& x = src(s, 0);
            for (int k = 0; k < s.count; ++k) vals_[std::size_t(s.vpos + k)] = val(x, int(u.arg()[std::size_t(k)].as_int()));
            break;
          }
          case Ops::STACK: {
            int at = s.vpos;
            for (int k = 0; k < s.nsrc; ++k) {
              const Step& x = src(s, k);
              for (int e = 0; e < x.count; ++e) vals_[std::size_t(at++)] = val(x, e);
            }
            break;
          }
          case Ops::WMMA: wmma(s); break;
          case Ops::SINK:
          case Ops::NOOP:
          case Ops::BARRIER:
          case Ops::GROUP: break;
          case Ops::THREEFRY:
            for (int k = 0; k < s.count; ++k)
              vals_[std::size_t(s.vpos + k)] = Arg(std::int64_t(
                  threefry2x32_value(std::uint64_t(val(src(s, 0), k).as_int()), std::uint64_t(val(src(s, 1), k).as_int()))));
            break;
          case Ops::FDIV:  // python_alu has no FDIV: IEEE division in double, rounded once to the dtype
            for (int k = 0; k < s.count; ++k)
              vals_[std::size_t(s.vpos + k)] =
                  Arg(truncate_float(s.dtype.scalar(), val(src(s, 0), k).as_float() / val(src(s, 1), k).as_float()));
            break;
          default: {  // the ALU ops (the plan rejected anything else)
            const DType od = src(s, s.op == Ops::WHERE ? 1 : 0).dtype.scalar(), dt = s.dtype.scalar();
            for (int k = 0; k < s.count; ++k) {
              for (int j = 0; j < s.nsrc; ++j) ops[std::size_t(j)] = val(src(s, j), k);
              auto r = exec_alu(s.op, dt, std::span<const Arg>(ops.data(), std::size_t(s.nsrc)), od);
              if (!r) {
                std::string args;
                for (int j = 0; j < s.nsrc; ++j) args += (j ? ", " : "") + ops[std::size_t(j)].repr();
                bad(i, "the result of (" + args + ") overflows int64");
              }
              vals_[std::size_t(s.vpos + k)] = std::move(*r);
            }
          }
        }
        ++i;
      }
    } catch (const Error& e) {
      const std::string what = e.what();
      if (what.rfind("INTERP: ", 0) == 0) throw;
      bad(i, what);
    }
  }

  void copy_value(const Step& s, const Step& from, int to_pos, int from_pos) {
    if (s.dtype.is_ptr) ptrs_[std::size_t(to_pos)] = ptrs_[std::size_t(from_pos)];
    for (int k = 0; k < s.count; ++k) vals_[std::size_t(s.vpos + k)] = val(from, k);
  }

  [[noreturn]] void out_of_range(const char* what, const InterpMem& m, std::int64_t e) const {
    throw Error(std::string("INTERP: ") + what + " of " + m.name + " at element " + std::to_string(e) + ", size " + std::to_string(m.size));
  }
  // element k after off; past int64 it saturates (out of range) instead of wrapping
  static std::int64_t element(std::int64_t off, int k) {
    std::int64_t e;
    return __builtin_add_overflow(off, std::int64_t(k), &e) ? std::numeric_limits<std::int64_t>::max() : e;
  }
  const InterpMem& mem_for(std::size_t i, const InterpPtr& pt, DType dt) const {
    if (pt.mem < 0) bad(i, "its pointer was never set");
    const InterpMem& m = mems_[std::size_t(pt.mem)];
    if (m.dtype != dt.scalar()) bad(i, "accesses " + m.name + " of " + m.dtype.repr() + " as " + dt.scalar().repr());
    return m;
  }

  void load(std::size_t i, const Step& s) {
    const InterpPtr pt = ptrs_[std::size_t(srcpos(s, 0))];
    const int ka = first_value_src(s, 1), kg = first_value_src(s, 2);
    const DType dt = s.dtype.scalar();
    const InterpMem& m = mem_for(i, pt, dt);
    const std::size_t isz = std::size_t(dt.itemsize());
    for (int k = 0; k < s.count; ++k) {
      Arg& out = vals_[std::size_t(s.vpos + k)];
      if (kg >= 0 && !interp_truthy(elem(src(s, kg), k))) {
        out = elem(src(s, ka), k);
        continue;
      }
      if (!pt.gate) {  // gated off by its INDEX: the value a masked load gives
        out = dt.is_float() ? Arg(0.0) : dt.is_bool() ? Arg(false) : Arg(std::int64_t(0));
        continue;
      }
      const std::int64_t e = element(pt.off, k);
      if (e < 0 || e >= m.size) out_of_range("LOAD", m, e);
      out = load_element(dt, m.base + std::size_t(e) * isz);
    }
  }

  void store(std::size_t i, const Step& s, bool on) {
    const InterpPtr pt = ptrs_[std::size_t(srcpos(s, 0))];
    if (!on || !pt.gate || (s.nsrc == 3 && !interp_truthy(val(src(s, 2))))) return;
    const Step& x = src(s, 1);
    const DType dt = x.dtype.scalar();
    const InterpMem& m = mem_for(i, pt, dt);
    const std::size_t isz = std::size_t(dt.itemsize());
    for (int k = 0; k < x.count; ++k) {
      const std::int64_t e = element(pt.off, k);
      if (e < 0 || e >= m.size) out_of_range("STORE", m, e);
      store_element(dt, val(x, k), m.base + std::size_t(e) * isz);
    }
  }

  void bitcast(const Step& s) {
    const Step& x = src(s, 0);
    Arg in;
    if (x.count == 1) in = val(x);
    else in = Arg(ArgTuple(vals_.begin() + x.vpos, vals_.begin() + x.vpos + x.count));
    const Arg r = detail::bitcast_value(in, x.dtype, s.dtype);
    for (int k = 0; k < s.count; ++k) vals_[std::size_t(s.vpos + k)] = s.count == 1 ? r : r[std::size_t(k)];
  }

  // the CPU (AMX) tensor core as ops_python models it: D[e] = C[e] + A[e / 16] * B[e % 16], an outer
  // product accumulated in double (Python floats) and rounded once to the output dtype
  void wmma(const Step& s) {
    const Step &a = src(s, 0), &b = src(s, 1), &c = src(s, 2);
    const DType dt = s.dtype.scalar();
    for (int e = 0; e < 256; ++e) {
      const double d = val(c, e).as_float() + val(a, e / 16).as_float() * val(b, e % 16).as_float();
      vals_[std::size_t(s.vpos + e)] = dt.is_float() ? Arg(truncate_float(dt, d)) : Arg(std::int64_t(d));
    }
  }
};

}  // namespace detail

// Runs p: bufs[i] is the base address of PARAM slot i's memory (in the dtype's storage format),
// vals[j] the value of p.vars[j]. A kernel split over threads (a "core_id" var) runs once per core_id
// in [0, p.threads), one after another. Throws mg::Error for a malformed program, a buffer or value
// that is missing or out of range, and an access outside a buffer; the buffers may then hold a
// partial result.
template <class = void>
void interp_run(const Program& p, std::span<void* const> bufs, std::span<const std::int64_t> vals) {
  detail::Interpreter<UOp>(p).run(bufs, vals);
}

MG_ENGINE_TEMPLATE(void interp_run<void>(const Program&, std::span<void* const>, std::span<const std::int64_t>))

}  // namespace mg
