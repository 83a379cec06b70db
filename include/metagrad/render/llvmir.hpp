#pragma once
// render_llvm: a Program's linear uops as LLVM IR text (LLVM 19, opaque pointers), tinygrad's
// renderer/llvmir.py in its CPU flavour (CPULLVMRenderer). One line group per uop, made by a rule set
// (llvm_rewrite) the way llvmir.py's string_rewrite PatternMatcher makes them: the callbacks write the
// text into the render context and return a marker node.
//
// The kernel is `define void @<name>(ptr noalias align 32 %data0, ..., i32 %<var>, ...)` with its
// arguments in the order the PARAMs and DEFINE_VARs appear in the uops, as llvmir.py renders it. Beside
// it, `define void @<name>_call(ptr %bufs, ptr %vals)` is the calling convention every backend shares
// (codegen/program.hpp): it loads bufs[slot] for each PARAM and vals[j] (an i64, truncated to the var's
// type) for each DEFINE_VAR, j being the var's place in Program::vars, and calls the kernel.
//
// Where this departs from llvmir.py's text, on purpose:
//  - opaque `ptr` instead of `float*` (LLVM 19 has no typed pointers);
//  - loads and stores carry `align <element size>`: a vector access is only as aligned as its
//    element, and without it LLVM would assume the vector's own (larger) alignment;
//  - intrinsics are named with their mangled type (llvm.trunc.f32, llvm.exp2.v4f32);
//  - a load with a gate per lane (Target::masked_loads) is llvm.masked.load;
//  - a gated load is select(mask, address, @mg_zero), a load, select(mask, value, alt) instead of
//    llvmir.py's branch and phi: straight-line code (conv2's input gradient, 256 gated loads per tap,
//    ran 40% faster); @mg_zero is a zero constant of the module as wide as the widest gated load, so
//    the load is always valid;
//  - DEFINE_REG allocas go to the entry block (they already come first in tinygrad's linear order);
//  - a few ops tinygrad's CPU renderer leaves to the decompositions render anyway (llvm_intrinsic_ops),
//    for hand-built programs; codegen decomposes them unless it asks for them.
#include <algorithm>
#include <bit>
#include <cctype>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../core/cmath.hpp"
#include "../codegen/program.hpp"
#include "../core/dtype.hpp"
#include "../core/error.hpp"
#include "../core/extern_engine.hpp"
#include "../core/ptr_map.hpp"
#include "../core/uop.hpp"
#include "../pattern/graph_rewrite.hpp"
#include "../pattern/rules.hpp"
#include "../pattern/upat.hpp"

namespace mg {

// The ALU ops the LLVM renderer emits directly: llvmir.py's code_for_op (the keys of its lop tables).
// Codegen's decompositions rewrite every other ALU op into these.
inline constexpr OpSet llvm_supported_ops{Ops::ADD, Ops::MUL, Ops::CDIV, Ops::CMOD, Ops::CMPLT, Ops::CMPNE, Ops::CMPEQ,
                                          Ops::OR,  Ops::AND, Ops::XOR,  Ops::SHL,  Ops::SHR,   Ops::FDIV};
// Ops render_llvm also renders (as LLVM intrinsics, or MAX as tinygrad's compare-and-select) though
// tinygrad's CPU renderer does not claim them. TRUNC is rendered by llvmir.py itself.
inline constexpr OpSet llvm_intrinsic_ops{Ops::EXP2, Ops::LOG2, Ops::SIN, Ops::SQRT, Ops::TRUNC, Ops::MAX};

namespace detail {

// tinygrad's ldt: the LLVM type of a dtype
template <class = void> std::string llvm_type(DType dt) {
  if (dt.is_ptr) return dt.v > 1 ? "<" + std::to_string(dt.v) + " x ptr>" : "ptr";
  if (dt.count > 1) return "<" + std::to_string(dt.count) + " x " + llvm_type(dt.scalar()) + ">";
  switch (dt.kind()) {
    case Scalar::void_: return "void";
    case Scalar::bool_: return "i1";
    case Scalar::int8: case Scalar::uint8: case Scalar::fp8e4m3: case Scalar::fp8e5m2: return "i8";
    case Scalar::int16: case Scalar::uint16: return "i16";
    case Scalar::int32: case Scalar::uint32: return "i32";
    case Scalar::int64: case Scalar::uint64: return "i64";
    case Scalar::float16: return "half";
    case Scalar::bfloat16: return "bfloat";
    case Scalar::float32: return "float";
    case Scalar::float64: return "double";
    default:
      throw Error("render_llvm: " + dt.repr() + " has no LLVM type (codegen lowers the index dtype to int32/int64 first)");
  }
}

// the suffix LLVM mangles an overloaded intrinsic's name with: f32, v4f32, i64
template <class = void> std::string llvm_mangle(DType dt) {
  std::string s;
  switch (dt.kind()) {
    case Scalar::float16: s = "f16"; break;
    case Scalar::bfloat16: s = "bf16"; break;
    case Scalar::float32: s = "f32"; break;
    case Scalar::float64: s = "f64"; break;
    default: s = "i" + std::to_string(dt.scalar().bitsize()); break;
  }
  return dt.count > 1 ? "v" + std::to_string(dt.count) + s : s;
}

// tinygrad's lconst: a scalar constant as LLVM writes it. A float is printed in decimal when that is
// exact for its type (float32/half/bfloat constants are rounded to the type first, as tinygrad's
// truncate does); inf, nan and exponent-only spellings ("1e-05", which LLVM does not read) use the
// hexadecimal double form.
template <class = void> std::string llvm_const_scalar(const Arg& v, DType dt) {
  if (v.is<Invalid>()) throw Error("render_llvm: an Invalid constant of " + dt.repr() + " reached the renderer");
  if (dt.is_float()) {
    if (dt.is_fp8()) return std::to_string(unsigned(float_to_fp8(v.as_float(), dt.kind())));
    const double x = truncate_float(dt, v.as_float());
    const std::string s = py_float_repr(x);
    if (cmath::isfinite(x) && s.find('.') != std::string::npos) return s;
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016llX", static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(x)));
    return buf;
  }
  if (dt.is_bool()) return v.as_float() != 0.0 ? "1" : "0";
  const std::int64_t i = v.is_float() ? std::int64_t(v.as_float()) : v.as_int();
  return dt.kind() == Scalar::uint64 ? std::to_string(std::uint64_t(i)) : std::to_string(i);
}
template <class = void> std::string llvm_const(const Arg& v, DType dt) {
  if (dt.count == 1) return llvm_const_scalar(v, dt);
  // a vector CONST (tinygrad's linear form has none after devectorize; hand-built programs may)
  const std::string t = llvm_type(dt.scalar());
  std::string s = "<";
  for (int i = 0; i < dt.count; ++i)
    s += (i ? ", " : "") + t + " " + llvm_const_scalar(v.is_tuple() ? v[std::size_t(i)] : v, dt.scalar());
  return s + ">";
}

// tinygrad's lcast: the cast instruction from one scalar kind to another
template <class = void> std::string llvm_cast(DType in, DType out) {
  in = in.scalar(), out = out.scalar();
  if (in.is_float()) {
    if (out.is_float()) return out.itemsize() > in.itemsize() ? "fpext" : "fptrunc";
    if (out.is_int()) return out.is_unsigned() ? "fptoui" : "fptosi";
  }
  if (in.is_unsigned() || in.is_bool()) {
    if (out.is_float()) return "uitofp";
    if (out.is_int()) return out.itemsize() < in.itemsize() ? "trunc" : "zext";
  }
  if (in.is_int()) {
    if (out.is_float()) return "sitofp";
    if (out.is_int()) return out.itemsize() < in.itemsize() ? "trunc" : "sext";
  }
  throw Error("render_llvm: cast from " + in.repr() + " to " + out.repr() + " is not implemented");
}

// tinygrad's lop tables: the instruction for a binary op on a scalar kind, or nullptr
template <class = void> const char* llvm_binary(Ops op, DType dt) {
  dt = dt.scalar();
  if (dt.is_float()) {
    switch (op) {
      case Ops::ADD: return "fadd nsz arcp contract afn";
      case Ops::MUL: return "fmul nsz arcp contract afn";
      case Ops::CMPLT: return "fcmp nsz arcp contract afn olt";
      case Ops::CMPNE: return "fcmp nsz arcp contract afn une";
      case Ops::CMPEQ: return "fcmp nsz arcp contract afn oeq";
      case Ops::FDIV: return "fdiv nsz arcp contract afn";
      default: return nullptr;
    }
  }
  if (!dt.is_int() && !dt.is_bool()) return nullptr;
  const bool s = !dt.is_unsigned() && !dt.is_bool();  // bool and the uints take the unsigned table
  switch (op) {
    case Ops::ADD: return s ? "add nsw" : "add";
    case Ops::MUL: return "mul";
    case Ops::CDIV: return s ? "sdiv" : "udiv";
    case Ops::CMOD: return s ? "srem" : "urem";
    case Ops::CMPLT: return s ? "icmp slt" : "icmp ult";
    case Ops::CMPNE: return "icmp ne";
    case Ops::CMPEQ: return "icmp eq";
    case Ops::OR: return "or";
    case Ops::AND: return "and";
    case Ops::XOR: return "xor";
    case Ops::SHL: return "shl";
    case Ops::SHR: return s ? "ashr" : "lshr";
    default: return nullptr;
  }
}

// tinygrad's range_str: a RANGE's axis ids joined by '_', negatives as m<n>
template <class = void> std::string llvm_range_str(const UOp& r) {
  std::string s;
  const auto& a = r.arg();
  for (std::size_t i = 0; i + 1 < a.size(); ++i) {
    if (!a[i].is_int()) continue;
    const std::int64_t x = a[i].as_int();
    s += (s.empty() ? "" : "_") + (x >= 0 ? std::to_string(x) : "m" + std::to_string(-x));
  }
  return s;
}

// What the rules read and write: the name of every rendered uop (tinygrad's r dict), the line group the
// last rule rendered, and the loop labels. A template only so that its containers are instantiated by
// the translation units that render.
template <class = void>
struct LLVMCtxT {
  PtrMap<std::string> r;
  PtrMap<std::string> loop;  // RANGE -> its label suffix
  PtrMap<std::size_t> pos;   // uop -> its place in the linear order
  std::set<std::string> labels;
  std::string out;
  int zero_bytes = 0;  // the size of @mg_zero: the widest gated load's
  UOp done{Ops::NOOP, dtypes::void_, {}, Arg("render_llvm: rendered")};

  // u's name; the reference lasts until the next name is set (r is a PtrMap: entries move when it grows)
  const std::string& operator[](const UOp& u) const {
    const std::string* name = r.find(u.node());
    if (!name)
      throw Error("render_llvm: " + op_repr(u.op()) + " " + u.dtype().repr() + " is used before it is rendered (a source must come before its users)");
    return *name;
  }
  std::string bare(const UOp& u) const { return (*this)[u].substr(1); }  // the name without its %
  std::string typed(const UOp& u) const { return llvm_type(u.dtype()) + " " + (*this)[u]; }
  UOp emit(std::string s) {
    out = std::move(s);
    return done;
  }
  // a copy: the PtrMap's entries move when it grows
  std::string range_label(const UOp& r) {
    if (const std::string* l = loop.find(r.node())) return *l;
    std::string l = llvm_range_str(r);
    if (!labels.insert(l).second) labels.insert(l += "_" + bare(r));  // two RANGEs with one axis id
    return loop.set(r.node(), std::move(l));
  }
};
using LLVMCtx = LLVMCtxT<>;

template <class = void> std::string llvm_align(DType dt) { return ", align " + std::to_string(dt.scalar().itemsize()); }

// MAX as tinygrad's decomposition has it, (a<b).where(b, a): the first of equals (and of a NaN) wins
template <class C> std::string llvm_max(C& ctx, const UOp& x, const UOp& a, const UOp& b) {
  const char* lt = llvm_binary(Ops::CMPLT, a.dtype());
  if (!lt) throw Error("render_llvm: no LLVM comparison for Ops.MAX on " + a.dtype().repr());
  const std::string v = ctx[x], t = llvm_type(a.dtype());
  DType cmp = dtypes::bool_.vec(a.dtype().count);
  return "  " + v + "_lt = " + lt + " " + t + " " + ctx[a] + ", " + ctx[b] + "\n  " + v + " = select " + llvm_type(cmp) + " " +
         v + "_lt, " + t + " " + ctx[b] + ", " + t + " " + ctx[a];
}

template <class = void> const char* llvm_intrinsic_name(Ops op) {
  switch (op) {
    case Ops::EXP2: return "exp2";
    case Ops::LOG2: return "log2";
    case Ops::SIN: return "sin";
    case Ops::SQRT: return "sqrt";
    default: return "trunc";
  }
}

// llvmir.py's base_rewrite (with the extra ops first). Each callback renders one uop into ctx.out.
template <class D_ = void>
struct llvm_rewrite_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    using C = LLVMCtx;
    return rules(
        // ---- beyond tinygrad's CPU set: MAX and the unary intrinsics (llvm_intrinsic_ops) ----
        rule(op<Ops::MAX>(var<"a">, var<"b">).named("x"_n),
             [](C& ctx, const UOp& x, const UOp& a, const UOp& b) { return ctx.emit(llvm_max(ctx, x, a, b)); }),
        rule(op<Ops::EXP2, Ops::LOG2, Ops::SIN, Ops::SQRT, Ops::TRUNC>(var<"y">).named("x"_n),
             [](C& ctx, const UOp& x, const UOp& y) -> std::optional<UOp> {
               if (!x.dtype().is_float()) return std::nullopt;
               return ctx.emit("  " + ctx[x] + " = call " + llvm_type(x.dtype()) + " @llvm." + llvm_intrinsic_name(x.op()) + "." +
                               llvm_mangle(x.dtype()) + "(" + ctx.typed(y) + ")");
             }),

        // ---- memory load/store ----
        rule(op<Ops::INDEX>(var<"buf">, var<"idx">).named("x"_n), [](C& ctx, const UOp& x, const UOp& buf, const UOp& idx) {
          return ctx.emit("  " + ctx[x] + " = getelementptr inbounds " + llvm_type(x.dtype().base()) + ", " + ctx.typed(buf) +
                          ", " + ctx.typed(idx));
        }),
        // a gated load without a branch: where the mask is false it loads from a zero constant of the module
        // (always readable) and selects alt; straight-line code LLVM can schedule and vectorize
        rule(op<Ops::LOAD>(var<"idx">, var<"alt">, var<"mask">).named("x"_n), [](C& ctx, const UOp& x, const UOp& idx, const UOp& alt, const UOp& mask) {
          const std::string v = ctx[x], t = llvm_type(x.dtype());
          if (mask.dtype().count > 1) {
            // a gate per lane: llvm.masked.load reads only the lanes whose gate holds. The address is a GEP
            // without inbounds: lanes gated off may lie outside the buffer
            const UOp& ix = idx.op() == Ops::CAST ? idx.src(0) : idx;
            if (ix.op() != Ops::INDEX || ix.nsrc() != 2) throw Error("render_llvm: a masked LOAD needs INDEX(buf, offset), got " + op_repr(ix.op()));
            return ctx.emit("  " + v + "_p = getelementptr " + llvm_type(x.dtype().scalar()) + ", " + ctx.typed(ix.src(0)) + ", " +
                            ctx.typed(ix.src(1)) + "\n  " + v + " = call " + t + " @llvm.masked.load." + llvm_mangle(x.dtype()) + ".p0(ptr " +
                            v + "_p, i32 " + std::to_string(x.dtype().scalar().itemsize()) + ", " + ctx.typed(mask) + ", " + ctx.typed(alt) + ")");
          }
          ctx.zero_bytes = std::max(ctx.zero_bytes, x.dtype().itemsize());
          return ctx.emit("  " + v + "_p = select i1 " + ctx[mask] + ", ptr " + ctx[idx] + ", ptr @mg_zero\n" +
                          "  " + v + "_l = load " + t + ", ptr " + v + "_p" + llvm_align(x.dtype()) + "\n" +
                          "  " + v + " = select i1 " + ctx[mask] + ", " + t + " " + v + "_l, " + ctx.typed(alt));
        }),
        rule(op<Ops::LOAD>(var<"idx">).named("x"_n), [](C& ctx, const UOp& x, const UOp& idx) {
          return ctx.emit("  " + ctx[x] + " = load " + llvm_type(x.dtype()) + ", " + ctx.typed(idx) + llvm_align(x.dtype()));
        }),
        rule(op<Ops::STORE>(var<"idx">, var<"var">), [](C& ctx, const UOp& idx, const UOp& var) {
          return ctx.emit("  store " + ctx.typed(var) + ", " + ctx.typed(idx) + llvm_align(var.dtype()));
        }),

        // ---- GEP/STACK for vectors ----
        rule(op<Ops::GEP>(var<"y">).named("x"_n), [](C& ctx, const UOp& x, const UOp& y) {
          const auto& a = x.arg();
          if (a.size() == 1) return ctx.emit("  " + ctx[x] + " = extractelement " + ctx.typed(y) + ", i32 " + std::to_string(a[0].as_int()));
          std::string mask;  // several elements: a shuffle
          for (std::size_t i = 0; i < a.size(); ++i) mask += (i ? ", i32 " : "i32 ") + std::to_string(a[i].as_int());
          return ctx.emit("  " + ctx[x] + " = shufflevector " + ctx.typed(y) + ", " + llvm_type(y.dtype()) + " poison, <" +
                          std::to_string(a.size()) + " x i32> <" + mask + ">");
        }),
        // a broadcast: one insert and a splat shuffle
        rule(op<Ops::STACK>(repeat(var<"y">)).named("x"_n), [](C& ctx, const UOp& x, const UOp& y) {
          const std::string v = ctx[x], t1 = "<1 x " + llvm_type(y.dtype()) + ">";
          return ctx.emit("  " + v + "_z = insertelement " + t1 + " poison, " + ctx.typed(y) + ", i32 0\n" +
                          "  " + v + " = shufflevector " + t1 + " " + v + "_z, " + t1 + " poison, <" +
                          std::to_string(x.dtype().count) + " x i32> zeroinitializer");
        }),
        rule(op<Ops::STACK>.named("x"_n), [](C& ctx, const UOp& x) {
          std::string s;
          const std::string v = ctx[x], t = llvm_type(x.dtype());
          for (std::size_t i = 0; i < x.nsrc(); ++i) {
            s += (i ? "\n  " : "  ") + (i + 1 != x.nsrc() ? v + "_" + std::to_string(i) : v) + " = insertelement " + t + " " +
                 (i ? v + "_" + std::to_string(i - 1) : std::string("poison")) + ", " + ctx.typed(x.src(i)) + ", i32 " + std::to_string(i);
          }
          return ctx.emit(s);
        }),

        // ---- unary/binary/ternary ops ----
        rule(op<Ops::BITCAST>(var<"y">).named("x"_n), [](C& ctx, const UOp& x, const UOp& y) {
          return ctx.emit("  " + ctx[x] + " = bitcast " + ctx.typed(y) + " to " + llvm_type(x.dtype()));
        }),
        rule(op<Ops::CAST>(var<"y">).named("x"_n), [](C& ctx, const UOp& x, const UOp& y) {
          // llvmir.py's lcast has no cast to bool (codegen makes it x != 0); render it the same way
          if (x.dtype().is_bool() && !y.dtype().is_bool()) {
            const char* ne = llvm_binary(Ops::CMPNE, y.dtype());
            if (!ne) throw Error("render_llvm: cast from " + y.dtype().repr() + " to bool is not implemented");
            return ctx.emit("  " + ctx[x] + " = " + ne + " " + ctx.typed(y) + ", " + llvm_const(Arg(0), y.dtype()));
          }
          // a negative float to an unsigned int wraps, as the reference evaluator and INTERP do (fptoui
          // of a negative value is poison in LLVM, undefined in C): narrow types go through int64, uint64
          // picks fptosi for negative values
          if (y.dtype().scalar().is_float() && x.dtype().scalar().is_unsigned()) {
            const std::string wide = llvm_type(dtypes::int64.vec(x.dtype().count)), tmp = ctx[x] + ".wide";
            if (x.dtype().scalar().itemsize() < 8)
              return ctx.emit("  " + tmp + " = fptosi " + ctx.typed(y) + " to " + wide + "\n  " + ctx[x] + " = trunc " + wide + " " +
                              tmp + " to " + llvm_type(x.dtype()));
            const std::string neg = ctx[x] + ".neg", u = ctx[x] + ".u", i1 = llvm_type(dtypes::bool_.vec(x.dtype().count));
            return ctx.emit("  " + neg + " = fcmp olt " + ctx.typed(y) + ", " + llvm_const(Arg(0.0), y.dtype()) + "\n  " + tmp +
                            " = fptosi " + ctx.typed(y) + " to " + wide + "\n  " + u + " = fptoui " + ctx.typed(y) + " to " + wide +
                            "\n  " + ctx[x] + " = select " + i1 + " " + neg + ", " + wide + " " + tmp + ", " + wide + " " + u);
          }
          return ctx.emit("  " + ctx[x] + " = " + llvm_cast(y.dtype(), x.dtype()) + " " + ctx.typed(y) + " to " + llvm_type(x.dtype()));
        }),
        rule(op<GroupOp::Binary>(var<"a">, var<"b">).named("x"_n), [](C& ctx, const UOp& x, const UOp& a, const UOp& b) {
          const char* ins = llvm_binary(x.op(), a.dtype());
          if (!ins)
            throw Error("render_llvm: no LLVM instruction for " + op_repr(x.op()) + " on " + a.dtype().repr() +
                        " (codegen decomposes the ops outside llvm_supported_ops)");
          return ctx.emit("  " + ctx[x] + " = " + ins + " " + ctx.typed(a) + ", " + ctx[b]);
        }),
        rule(op<Ops::WHERE>(var<"c">, var<"a">, var<"b">).named("x"_n), [](C& ctx, const UOp& x, const UOp& c, const UOp& a, const UOp& b) {
          return ctx.emit("  " + ctx[x] + " = select " + ctx.typed(c) + ", " + ctx.typed(a) + ", " + ctx.typed(b));
        }),

        // ---- range: a loop whose counter is a phi; END closes it (innermost first if it closes several) ----
        rule(op<Ops::RANGE>.named("r"_n), [](C& ctx, const UOp& r) {
          const std::string l = ctx.range_label(r), v = ctx[r], t = llvm_type(r.dtype());
          return ctx.emit("  br label %loop_entry_" + l + "\nloop_entry_" + l + ":\n  br label %loop_latch_" + l + "\nloop_latch_" + l +
                          ":\n  " + v + " = phi " + t + " [ 0, %loop_entry_" + l + " ], [ " + v + "phi, %loop_footer_" + l + " ]\n  " +
                          v + "phi = add " + t + " " + v + ", 1\n  " + v + "cmp = icmp ult " + t + " " + v + ", " + ctx[r.src(0)] +
                          "\n  br i1 " + v + "cmp, label %loop_body_" + l + ", label %loop_exit_" + l + "\nloop_body_" + l + ":");
        }),
        rule(op<Ops::END>.named("x"_n), [](C& ctx, const UOp& x) -> std::optional<UOp> {
          std::vector<UOp> rngs(x.src().begin() + 1, x.src().end());
          for (const UOp& r : rngs) if (r.op() != Ops::RANGE || !ctx.pos.contains(r.node())) return std::nullopt;
          std::sort(rngs.begin(), rngs.end(), [&](const UOp& a, const UOp& b) { return *ctx.pos.find(a.node()) > *ctx.pos.find(b.node()); });
          std::string s;
          for (const UOp& r : rngs) {
            const std::string l = ctx.range_label(r);
            s += (s.empty() ? "" : "\n") + ("  br label %loop_footer_" + l + "\nloop_footer_" + l + ":\n  br label %loop_latch_" + l +
                                            "\nloop_exit_" + l + ":");
          }
          return ctx.emit(s);
        }),

        // ---- if: the body of a gated store ----
        rule(op<Ops::IF>(var<"g">, etc).named("x"_n), [](C& ctx, const UOp& x, const UOp& g) {
          const std::string b = ctx.bare(x);
          return ctx.emit("  br i1 " + ctx[g] + ", label %ifbody_" + b + ", label %ifskip_" + b + "\nifbody_" + b + ":");
        }),
        rule(op<Ops::ENDIF>(var<"i">), [](C& ctx, const UOp& i) {
          const std::string b = ctx.bare(i);
          return ctx.emit("  br label %ifskip_" + b + "\nifskip_" + b + ":");
        }),
        rule(op<Ops::BARRIER>, [](C& ctx) { return ctx.emit(""); }));
  }
};
}  // namespace detail

// llvmir.py's string_rewrite for the CPU: rule callbacks take a detail::LLVMCtx and render into it
inline constexpr LazyRules<detail::llvm_rewrite_def<>> llvm_rewrite{};

// ---- llvmir.py's extra_matcher: bfloat16 computes in float32, and converts by hand ----
namespace detail {
// tinygrad's cast_float_to_bf16: round to nearest even, keeping inf and nan (no compiler intrinsic needed)
template <std::same_as<UOp> U> U llvm_float_to_bf16(const U& f) {
  const int n = f.dtype().count;
  U x = f.bitcast(dtypes::uint32.vec(n));
  x = ((-x) & 0x7f800000).ne(Arg(0)).where(x + ((x >> 16) & 1) + 0x7fff, (x & 0xffff).ne(Arg(0)).where(x | 0x10000, x));
  return (x >> 16).cast(dtypes::uint16).bitcast(dtypes::bfloat16.vec(n));
}
template <class D_ = void>
struct llvm_extra_matcher_def {
  MG_RULE_LEAVES(D_)
  template <class T> static constexpr auto make() {
    constexpr DType bf = dtypes::bfloat16, f32 = dtypes::float32;
    auto fl = [](const UOp& u) { return dtypes::float32.vec(u.dtype().count); };
    return rules(
        // create_non_native_float_pats((bfloat16,)): ALU on bfloat16 runs in float32
        rule(op<Ops::WHERE>(var<"b">, var<"x">.dtype(bf), var<"y">.dtype(bf)),
             [fl](const UOp& b, const UOp& x, const UOp& y) { return UOp(Ops::WHERE, fl(x), std::vector<UOp>{b, x.cast(fl(x)), y.cast(fl(x))}).cast(x.dtype()); }),
        rule(op<GroupOp::ALU>.dtype(bf).named("x"_n), [fl](const UOp& x) {
          std::vector<UOp> src;
          for (const UOp& s : x.src()) src.push_back(s.cast(fl(s)));
          return UOp(x.op(), fl(x), src, x.arg()).cast(x.dtype());
        }),
        rule(op<GroupOp::ALU>(var<"x">.dtype(bf), var<"y">.dtype(bf)).dtype(dtypes::bool_).named("alu"_n),
             [fl](const UOp& alu, const UOp& x, const UOp& y) { return UOp(alu.op(), alu.dtype(), std::vector<UOp>{x.cast(fl(x)), y.cast(fl(y))}, alu.arg()); }),
        // add float intermediate casting
        rule(op<Ops::CAST>(var<"x">).dtype(bf).named("y"_n), [fl](const UOp& y, const UOp& x) -> std::optional<UOp> {
          if (x.dtype().scalar() == dtypes::float32) return std::nullopt;
          return x.cast(fl(x)).cast(y.dtype());
        }),
        rule(op<Ops::CAST>(var<"y">.dtype(bf)).named("x"_n), [fl](const UOp& x, const UOp& y) -> std::optional<UOp> {
          if (x.dtype().scalar() == dtypes::float32) return std::nullopt;
          return y.cast(fl(y)).cast(x.dtype());
        }),
        // pm_manual_bf16_cast: the conversions themselves, as integer ops
        rule(op<Ops::CAST>(var<"x">.dtype(bf)).dtype(f32), [](const UOp& x) {
          const int n = x.dtype().count;
          return (x.bitcast(dtypes::uint16.vec(n)).cast(dtypes::uint32) << 16).bitcast(dtypes::float32.vec(n));
        }),
        rule(op<Ops::CAST>(var<"x">.dtype(f32)).dtype(bf), [](const UOp& x) { return llvm_float_to_bf16(x); }));
  }
};
}  // namespace detail
// What codegen runs with its final rewrite for this renderer (tinygrad's LLVMRenderer.extra_matcher):
// create_non_native_float_pats((bfloat16,)) + pm_manual_bf16_cast.
inline constexpr LazyRules<detail::llvm_extra_matcher_def<>> llvm_extra_matcher{};

namespace detail {
// Target::extra_matcher of the LLVM devices
template <std::same_as<UOp> U = UOp> U llvm_extra_rewrite(const U& sink) {
  return graph_rewrite(sink, llvm_extra_matcher);
}

// an LLVM local or global name: bare when LLVM reads it so, quoted otherwise
template <class = void> std::string llvm_ident(const std::string& s) {
  bool plain = !s.empty() && !(s[0] >= '0' && s[0] <= '9');
  for (char c : s) plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$');
  if (plain) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\' || (unsigned char)c < 0x20) {
      char hx[4];
      std::snprintf(hx, sizeof hx, "\\%02X", unsigned((unsigned char)c));
      q += hx;
    } else q += c;
  }
  return q + "\"";
}
}  // namespace detail

// The LLVM IR module for one kernel: the kernel as llvmir.py renders it, and its <name>_call wrapper.
// A template on the Program type only so that a translation unit that never renders compiles none of it.
template <std::same_as<Program> P>
std::string render_llvm(const P& p) {
  detail::LLVMCtx ctx;
  const std::string name = p.name.empty() ? "test" : p.name;
  std::vector<std::pair<UOp, std::string>> args;  // the kernel's parameters, in uop order
  std::vector<std::string> allocas, kernel;
  std::set<std::string> taken;  // local names a PARAM, var or register already holds
  int vc = -1;
  for (std::size_t i = 0; i < p.uops.size(); ++i) ctx.pos.set(p.uops[i].node(), i);

  for (const UOp& u : p.uops) {
    const Ops o = u.op();
    if (o == Ops::NOOP || o == Ops::GROUP) continue;
    if (o == Ops::AFTER) {
      ctx.r.set(u.node(), ctx[u.src(0)]);
      continue;
    }
    if (o == Ops::SINK) continue;
    if (o == Ops::PARAM || o == Ops::DEFINE_VAR) {
      std::string n = o == Ops::PARAM ? "%data" + std::to_string(u.arg().as_param().slot) : "%" + detail::llvm_ident(u.expr());
      // a var named like one of the renderer's own values (v3, data0) would clash: prefix it
      if (o == Ops::DEFINE_VAR && (taken.count(n) || (n.size() > 2 && n[1] == 'v' && std::isdigit((unsigned char)n[2])) ||
                                   n.rfind("%data", 0) == 0 || n.rfind("%reg_", 0) == 0 || n.rfind("%local_", 0) == 0))
        n = "%" + detail::llvm_ident("var." + u.expr());
      if (!taken.insert(n).second) throw Error("render_llvm: two kernel parameters are both named " + n);
      ctx.r.set(u.node(), n);
      args.emplace_back(u, n);
      continue;
    }
    if (o == Ops::DEFINE_LOCAL || o == Ops::DEFINE_REG) {
      std::string a = u.arg().repr(), n = o == Ops::DEFINE_LOCAL ? "local_" : "reg_";
      for (char c : a) if (c != '(' && c != ')' && c != ' ') n += c == ',' ? '_' : c;
      n = "%" + detail::llvm_ident(n);
      for (int k = 1; !taken.insert(n).second; ++k) n = "%" + detail::llvm_ident((o == Ops::DEFINE_LOCAL ? "local_" : "reg_") + a + "." + std::to_string(k));
      ctx.r.set(u.node(), n);
      // CPU has no shared memory: a DEFINE_LOCAL is stack memory too, as llvmir.py renders it without has_local
      allocas.push_back("  " + n + " = alloca [" + std::to_string(u.dtype().size) + " x " + detail::llvm_type(u.dtype().base()) + "]" +
                        (o == Ops::DEFINE_LOCAL ? ", align 16" : ""));
      continue;
    }
    if (o == Ops::CONST) {
      ctx.r.set(u.node(), detail::llvm_const(u.arg(), u.dtype()));
      continue;
    }
    if (o == Ops::CAST && (u.dtype().is_ptr || detail::llvm_type(u.dtype()) == detail::llvm_type(u.src(0).dtype()))) {
      ctx.r.set(u.node(), ctx[u.src(0)]);  // a pointer cast, or signed <-> unsigned of one size: no instruction
      continue;
    }
    if (o == Ops::WMMA) throw Error("render_llvm: Ops.WMMA is not supported by the LLVM renderer (tinygrad's AMX path is left out)");
    ctx.r.set(u.node(), "%v" + std::to_string(++vc));
    if (!llvm_rewrite.rewrite(u, &ctx)) {
      std::string srcs;
      for (const UOp& s : u.src()) srcs += (srcs.empty() ? "" : ", ") + s.dtype().repr();
      throw Error("render_llvm: failed to render " + op_repr(o) + " with " + u.dtype().repr() + " srcs [" + srcs + "]");
    }
    if (!ctx.out.empty()) kernel.push_back(std::move(ctx.out));
    ctx.out.clear();
  }

  // the kernel, as llvmir.py's _render_fn writes it (NOTE: the runtime promises 32-byte aligned buffers)
  const std::string fn = "@" + detail::llvm_ident(name), call_fn = "@" + detail::llvm_ident(name + "_call");
  std::string s = "define void " + fn + "(";
  for (std::size_t i = 0; i < args.size(); ++i)
    s += (i ? ", " : "") + detail::llvm_type(args[i].first.dtype()) + (args[i].first.dtype().is_ptr ? " noalias align 32 " : " ") + args[i].second;
  s += ") #0\n{\n";
  for (const auto& l : allocas) s += l + "\n";
  for (const auto& l : kernel) s += l + "\n";
  s += "  ret void\n}\n";

  // the wrapper every backend's calling convention asks for: bufs[slot] and vals[j] from two arrays
  std::string w, call;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const UOp& u = args[i].first;
    const std::string k = std::to_string(i);
    if (u.op() == Ops::PARAM) {
      w += "  %p" + k + " = getelementptr inbounds ptr, ptr %bufs, i64 " + std::to_string(u.arg().as_param().slot) + "\n";
      w += "  %a" + k + " = load ptr, ptr %p" + k + ", align 8\n";
      call += std::string(i ? ", " : "") + "ptr %a" + k;
      continue;
    }
    std::size_t j = 0;
    while (j < p.vars.size() && p.vars[j] != u) ++j;
    if (j == p.vars.size()) throw Error("render_llvm: the kernel reads DEFINE_VAR " + u.expr() + ", which is not in Program::vars");
    const std::string t = detail::llvm_type(u.dtype());
    w += "  %p" + k + " = getelementptr inbounds i64, ptr %vals, i64 " + std::to_string(j) + "\n";
    w += "  %a" + k + " = load i64, ptr %p" + k + ", align 8\n";
    if (t != "i64") w += "  %a" + k + "t = trunc i64 %a" + k + " to " + t + "\n";
    call += std::string(i ? ", " : "") + t + " %a" + k + (t != "i64" ? "t" : "");
  }
  s += "define void " + call_fn + "(ptr %bufs, ptr %vals) #1\n{\n" + w + "  call void " + fn + "(" + call + ")\n  ret void\n}\n";
  s += "attributes #0 = { alwaysinline nounwind \"no-builtins\" \"no-trapping-math\"=\"true\" }\n";
  if (ctx.zero_bytes) s += "@mg_zero = internal constant [" + std::to_string(ctx.zero_bytes) + " x i8] zeroinitializer, align 64\n";
  s += "attributes #1 = { nounwind \"no-builtins\" \"no-trapping-math\"=\"true\" }\n";
  return s;
}

MG_ENGINE_TEMPLATE(std::string render_llvm<Program>(const Program&))

}  // namespace mg
