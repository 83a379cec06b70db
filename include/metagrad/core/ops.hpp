#pragma once
// Ops: tinygrad's op set (the order controls the toposort order, as in tinygrad), OpSet as a
// constant-expression bit set, and the GroupOp sets.
#include <array>
#include <bit>
#include <initializer_list>
#include <cstdint>
#include <string>
#include <string_view>

namespace mg {

enum class Ops : std::uint8_t {
  DEFINE_VAR, BIND, SPECIAL, DEFINE_LOCAL, DEFINE_REG, NOOP, REWRITE_ERROR, PARAM, FUNCTION, CALL, PROGRAM,
  LINEAR, SOURCE, BINARY, SINK, AFTER, GROUP, GEP, STACK, TUPLE, GETTUPLE, GETADDR, INDEX, LOAD, STORE, WMMA,
  SHAPED_WMMA, CAST, BITCAST, EXP2, LOG2, SIN, SQRT, RECIPROCAL, NEG, TRUNC, ADD, MUL, SHL, SHR, CDIV, MAX,
  CMOD, CMPLT, CMPNE, CMPEQ, XOR, OR, AND, THREEFRY, SUB, FDIV, POW, FLOORDIV, FLOORMOD, WHERE, MULACC,
  BARRIER, RANGE, IF, END, ENDIF, WAIT, CONST, CUSTOM, CUSTOMI, INS, UNIQUE, DEVICE, LUNIQUE, CONTIGUOUS,
  CONTIGUOUS_BACKWARD, DETACH, STAGE, COPY, BUFFER, SLICE, MSELECT, MSTACK, CUSTOM_FUNCTION, RESHAPE,
  PERMUTE, EXPAND, PAD, SHRINK, FLIP, MULTI, REDUCE, ALLREDUCE, UNROLL, CONTRACT, VCAT, PTRCAT
};
inline constexpr std::size_t num_ops = 93;

inline constexpr std::array<std::string_view, num_ops> op_names{
    "DEFINE_VAR", "BIND", "SPECIAL", "DEFINE_LOCAL", "DEFINE_REG", "NOOP", "REWRITE_ERROR", "PARAM",
    "FUNCTION", "CALL", "PROGRAM", "LINEAR", "SOURCE", "BINARY", "SINK", "AFTER", "GROUP", "GEP", "STACK",
    "TUPLE", "GETTUPLE", "GETADDR", "INDEX", "LOAD", "STORE", "WMMA", "SHAPED_WMMA", "CAST", "BITCAST",
    "EXP2", "LOG2", "SIN", "SQRT", "RECIPROCAL", "NEG", "TRUNC", "ADD", "MUL", "SHL", "SHR", "CDIV", "MAX",
    "CMOD", "CMPLT", "CMPNE", "CMPEQ", "XOR", "OR", "AND", "THREEFRY", "SUB", "FDIV", "POW", "FLOORDIV",
    "FLOORMOD", "WHERE", "MULACC", "BARRIER", "RANGE", "IF", "END", "ENDIF", "WAIT", "CONST", "CUSTOM",
    "CUSTOMI", "INS", "UNIQUE", "DEVICE", "LUNIQUE", "CONTIGUOUS", "CONTIGUOUS_BACKWARD", "DETACH", "STAGE",
    "COPY", "BUFFER", "SLICE", "MSELECT", "MSTACK", "CUSTOM_FUNCTION", "RESHAPE", "PERMUTE", "EXPAND", "PAD",
    "SHRINK", "FLIP", "MULTI", "REDUCE", "ALLREDUCE", "UNROLL", "CONTRACT", "VCAT", "PTRCAT"
};
constexpr std::string_view op_name(Ops o) { return op_names[std::size_t(o)]; }
inline std::string op_repr(Ops o) { return "Ops." + std::string(op_name(o)); }

// A set of Ops, usable as a template argument: op<GroupOp::ALU> or op<Ops::ADD, Ops::MUL>.
struct OpSet {
  std::uint64_t lo = 0, hi = 0;
  constexpr OpSet() = default;
  constexpr OpSet(Ops o) { add(o); }
  constexpr OpSet(std::initializer_list<Ops> os) { for (Ops o : os) add(o); }
  constexpr void add(Ops o) {
    unsigned i = unsigned(o);
    (i < 64 ? lo : hi) |= std::uint64_t(1) << (i % 64);
  }
  constexpr bool contains(Ops o) const {
    unsigned i = unsigned(o);
    return ((i < 64 ? lo : hi) >> (i % 64)) & 1;
  }
  constexpr bool empty() const { return !lo && !hi; }
  constexpr int size() const { return std::popcount(lo) + std::popcount(hi); }
  constexpr Ops first() const { return Ops(lo ? std::countr_zero(lo) : 64 + std::countr_zero(hi)); }
  constexpr OpSet operator|(OpSet o) const { OpSet r; r.lo = lo | o.lo; r.hi = hi | o.hi; return r; }
  constexpr OpSet operator&(OpSet o) const { OpSet r; r.lo = lo & o.lo; r.hi = hi & o.hi; return r; }
  constexpr OpSet operator-(OpSet o) const { OpSet r; r.lo = lo & ~o.lo; r.hi = hi & ~o.hi; return r; }
  constexpr bool operator==(const OpSet&) const = default;
  static constexpr OpSet all() {
    OpSet r;
    for (std::size_t i = 0; i < num_ops; ++i) r.add(Ops(i));
    return r;
  }
};

namespace GroupOp {
using enum Ops;
inline constexpr OpSet Unary{EXP2, LOG2, SIN, SQRT, RECIPROCAL, NEG, TRUNC};
inline constexpr OpSet Binary{ADD, MUL, CDIV, MAX, CMOD, CMPLT, CMPNE, CMPEQ, XOR, SHL, SHR, OR, AND, THREEFRY, SUB, FDIV,
                              POW, FLOORDIV, FLOORMOD};
inline constexpr OpSet Ternary{WHERE, MULACC};
inline constexpr OpSet ALU = Unary | Binary | Ternary;
inline constexpr OpSet Broadcastable = Binary | Ternary | OpSet{GROUP, STORE};
inline constexpr OpSet Elementwise = ALU | OpSet{CAST, BITCAST};
inline constexpr OpSet Defines{PARAM, DEFINE_LOCAL, DEFINE_REG};
inline constexpr OpSet Irreducible{CONST, DEFINE_VAR, SPECIAL, RANGE};
inline constexpr OpSet Movement{RESHAPE, EXPAND, PERMUTE, PAD, SHRINK, FLIP};
inline constexpr OpSet Buffer{LOAD, STORE, CONST, DEFINE_VAR};
// binary ops that can be flipped
inline constexpr OpSet Commutative{ADD, MUL, MAX, CMPNE, CMPEQ, XOR, AND, OR};
// f(f(a,b),c) = f(a,f(b,c))
inline constexpr OpSet Associative{ADD, MUL, AND, OR, MAX};
// f(x,x) = x
inline constexpr OpSet Idempotent{OR, AND, MAX};
// these can change the dtype to bool
inline constexpr OpSet Comparison{CMPLT, CMPNE, CMPEQ};
// do not preserve f(0) = 0
inline constexpr OpSet UnsafePad{RECIPROCAL, LOG2, EXP2, CDIV, POW, FLOORDIV};
inline constexpr OpSet All = OpSet::all();
}  // namespace GroupOp

// number of sources an op always has, or -1 when it varies
constexpr int op_arity(Ops o) {
  if (GroupOp::Unary.contains(o) || o == Ops::CAST || o == Ops::BITCAST) return 1;
  if (GroupOp::Binary.contains(o)) return 2;
  if (GroupOp::Ternary.contains(o)) return 3;
  return -1;
}

// kinds of RANGE axes (tinygrad's AxisType)
enum class AxisType : std::uint8_t { GLOBAL, WARP, LOCAL, LOOP, GROUP_REDUCE, REDUCE, UPCAST, UNROLL, THREAD, PLACEHOLDER };
inline constexpr std::array<std::string_view, 10> axis_type_names{"GLOBAL", "WARP", "LOCAL", "LOOP", "GROUP_REDUCE",
                                                                  "REDUCE", "UPCAST", "UNROLL", "THREAD", "PLACEHOLDER"};

}  // namespace mg
