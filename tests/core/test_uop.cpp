// Tests of core/uop.hpp, core/walk.hpp and core/print.hpp: interning, memory, threads, builders, repr/render,
// toposort, substitute, addrspace, deep graphs and errors. Every expected string was printed by tinygrad (the
// reference commit) in Python from the same graph built with tinygrad's API.
#include <catch2/catch.hpp>
#include <metagrad/metagrad.hpp>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

using namespace mg;

namespace {
constexpr double INF = std::numeric_limits<double>::infinity(), NAN_ = std::numeric_limits<double>::quiet_NaN();

// the variables most tests use, as tinygrad's UOp.variable("a", 0, 10) ...
struct Vars {
  UOp a = UOp::variable("a", 0, 10), b = UOp::variable("b", -5, 5), c = UOp::variable("c", 1, 8);
  UOp r = UOp::range(16, 0), r2 = UOp::range(4, 1, AxisType::REDUCE);
  UOp p0 = UOp::param(0, dtypes::float32.ptr(16)), p1 = UOp::param(1, dtypes::float32.ptr(16));
  UOp ld = p1.index({r}).load();
  UOp cf(double v) const { return UOp::const_(dtypes::float32, v); }
};

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}
std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out{""};
  for (char ch : s) {
    if (ch == '\n') out.emplace_back();
    else out.back().push_back(ch);
  }
  return out;
}
// op and arg of a node, as the Python side printed f"{u.op.name}:{u.arg!r}"
std::string short_str(const UOp& u) { return std::string(op_name(u.op())) + ":" + u.arg().repr(); }
}  // namespace

// ***** interning *****

TEST_CASE("uop: structurally equal nodes are the same node", "[core][uop]") {
  const UOp a = UOp(Ops::CONST, dtypes::int32, {}, 1), b = UOp(Ops::CONST, dtypes::int32, {}, 1);
  CHECK(a == b);
  CHECK(a.node() == b.node());
  CHECK(a.hash() == b.hash());
  CHECK(std::hash<UOp>{}(a) == std::hash<UOp>{}(b));
  const UOp x = UOp::variable("x", 0, 10);
  CHECK(x + a == x + b);
  CHECK((x + a).node() == (x + b).node());
  CHECK(UOp::variable("x", 0, 10) == x);
  // a different op, dtype, arg, tag, source or source order is a different node
  CHECK_FALSE(UOp(Ops::CONST, dtypes::int32, {}, 2) == a);
  CHECK_FALSE(UOp(Ops::CONST, dtypes::int64, {}, 1) == a);
  CHECK_FALSE(UOp(Ops::CONST, dtypes::int32.vec(2), {}, 1) == a);
  CHECK_FALSE(UOp(Ops::CONST, dtypes::int32, {}, 1, "t") == a);
  CHECK_FALSE(UOp(Ops::CONST, dtypes::int32, {}, 1, true) == a);
  CHECK_FALSE(UOp(Ops::CONST, dtypes::int32, {}, true) == a);  // True is not 1: a different arg alternative
  CHECK_FALSE(UOp(Ops::CONST, dtypes::int32, {}, 1.0) == a);
  CHECK_FALSE(UOp(Ops::DEFINE_VAR, dtypes::int32, {}, 1) == a);
  CHECK_FALSE(UOp::variable("x", 0, 11) == x);
  CHECK_FALSE(UOp::variable("y", 0, 10) == x);
  CHECK_FALSE(x + a == a + x);
  CHECK_FALSE((x + a).rtag("t") == x + a);
  CHECK((x + a).rtag("t") == (x + a).rtag("t"));
  CHECK_FALSE(UOp::param(0, dtypes::float32.ptr(16)) == UOp::param(0, dtypes::float32.ptr(16, AddrSpace::LOCAL)));
  CHECK_FALSE(UOp::param(0, dtypes::float32.ptr(16)) == UOp::param(0, dtypes::float32.ptr(16), {.name = "p"}));
  // handles: a default handle is null; copies share the node
  UOp n;
  CHECK(n.null());
  CHECK_FALSE(bool(n));
  CHECK(n.hash() == 0);
  CHECK(n.repr() == "UOp()");
  CHECK(n.toposort().empty());
  n = x;
  CHECK(n == x);
  UOp m = std::move(n);
  CHECK(n.null());
  CHECK(m == x);
  const UOp& alias = m;
  m = alias;  // self-assignment keeps the node
  CHECK(m == x);
  std::unordered_set<UOp> set{x, UOp::variable("x", 0, 10), a, b};
  CHECK(set.size() == 2);
}

TEST_CASE("uop: float consts intern by bits, like ConstFloat", "[core][uop]") {
  const UOp pz = UOp::const_(dtypes::float32, 0.0), nz = UOp::const_(dtypes::float32, -0.0);
  CHECK_FALSE(pz == nz);
  CHECK(std::signbit(nz.arg().as_float()));
  CHECK(UOp::const_(dtypes::float32, -0.0) == nz);
  const UOp n1 = UOp::const_(dtypes::float32, NAN_), n2 = UOp::const_(dtypes::float32, -NAN_);
  CHECK(n1 == n2);  // nan == nan, whatever its sign or payload
  CHECK(UOp::const_(dtypes::float64, std::bit_cast<double>(0x7ff0000000000123ull)) == UOp::const_(dtypes::float64, NAN_));
  CHECK(n1.repr() == "UOp(Ops.CONST, dtypes.float, arg=ConstFloat(nan), src=())");
  CHECK(UOp::const_(dtypes::float32, INF) == UOp::const_(dtypes::float32, INF));
  CHECK_FALSE(UOp::const_(dtypes::float32, INF) == UOp::const_(dtypes::float32, -INF));
  // normalization happens before interning: 1 and 1.0 make the same float const; float32 keeps the
  // double like tinygrad's ConstFloat (prints arg=ConstFloat(0.1)), float16 rounds to the format
  CHECK(UOp::const_(dtypes::float32, 1) == UOp::const_(dtypes::float32, 1.0));
  CHECK_FALSE(UOp::const_(dtypes::float32, 0.1) == UOp::const_(dtypes::float32, double(0.1f)));
  CHECK(UOp::const_(dtypes::float32, 0.1).repr() == "UOp(Ops.CONST, dtypes.float, arg=ConstFloat(0.1), src=())");
  CHECK(UOp::const_(dtypes::float16, 0.1).arg().as_float() == 0x1.998p-4);
  CHECK(UOp::const_(dtypes::int32, 1.0) == UOp::const_(dtypes::int32, 1));
  CHECK(UOp::const_(dtypes::uint8, 300) == UOp::const_(dtypes::uint8, 44));
  CHECK(UOp::const_(dtypes::int8, 200).arg().as_int() == -56);
  CHECK(UOp::const_(dtypes::bool_, 7) == UOp::const_(dtypes::bool_, true));
}

TEST_CASE("uop: small index constants come from a per-thread cache, as the same interned nodes", "[core][uop]") {
  // the cached path and the plain intern give one node: const_ and the generic constructor agree
  for (std::int64_t v : {-64, -1, 0, 1, 5, 1023, -65, 1024, 123456789})
    for (DType dt : {dtypes::weakint, dtypes::int32, dtypes::int64, dtypes::int8}) {
      const std::int64_t want = dt == dtypes::int8 ? std::int64_t(std::int8_t(v)) : v;
      const UOp c = UOp::const_(dt, v);
      CHECK(c == UOp(Ops::CONST, dt, {}, Arg(want)));
      CHECK(c.arg().as_int() == want);
      CHECK(c.dtype() == dt);
      CHECK(UOp::const_(dt, double(v)) == c);  // a float value normalizes to the same node
    }
  CHECK_FALSE(UOp::const_(dtypes::weakint, 5) == UOp::const_(dtypes::int32, 5));
  CHECK_FALSE(UOp::const_(dtypes::int32, 5) == UOp::const_(dtypes::int64, 5));
  CHECK(UOp::const_(dtypes::bool_, true) == UOp(Ops::CONST, dtypes::bool_, {}, Arg(true)));
  CHECK(UOp::const_(dtypes::bool_, false) == UOp(Ops::CONST, dtypes::bool_, {}, Arg(false)));
  CHECK(UOp::const_(dtypes::bool_, 1) == UOp::const_(dtypes::bool_, true));
  CHECK(UOp::const_(dtypes::weakint.vec(4), 3).dtype() == dtypes::weakint.vec(4));
  // another thread's cache hands out the same nodes; a constant only that thread made dies with it
  const UOp seven = UOp::const_(dtypes::weakint, 7);
  const std::size_t base = live_uops();
  std::size_t before_in_thread = 0, alive_in_thread = 0;
  bool same = false;
  std::thread([&] {
    same = UOp::const_(dtypes::weakint, 7) == seven;
    before_in_thread = live_uops();
    { const UOp t = UOp::const_(dtypes::int64, 1021); }  // the handle is dropped, the thread's cache keeps it
    alive_in_thread = live_uops();
  }).join();
  CHECK(same);
  // the dropped handle's node stays alive: one node more while the thread lives, or none when the main
  // thread's cache already holds it (an earlier test made it)
  CHECK(alive_in_thread >= before_in_thread);
  CHECK(alive_in_thread <= before_in_thread + 1);
  CHECK(live_uops() == base);  // and none when it has ended
}

// ***** memory *****

TEST_CASE("uop: the intern table shrinks back after a million temporary nodes", "[core][uop][memory]") {
  const std::size_t base = live_uops();
  const UOp x = UOp::variable("mem_x", 0, 1000000);
  // a million short-lived nodes, one at a time
  for (std::int64_t i = 0; i < 500000; ++i) {
    UOp t = x + UOp::const_(dtypes::weakint, 1000000000 + i);
    if (t.nsrc() != 2) FAIL("bad node");
  }
  CHECK(live_uops() == base + 1);
  // and in bulk: four graphs of 250,000 nodes each, alive together, then dropped
  for (int round = 0; round < 4; ++round) {
    std::vector<UOp> keep;
    keep.reserve(125000);
    for (std::int64_t i = 0; i < 125000; ++i) keep.push_back(x * UOp::const_(dtypes::weakint, 1000000000 + round * 125000 + i));
    CHECK(live_uops() == base + 1 + 250000);
    CHECK(detail::intern_capacity() >= 2 * (base + 1 + 250000));  // at most half full
  }
  CHECK(live_uops() == base + 1);
  // and the table's slots come back down with them: each shard at most 32 slots a node, or its 64 least
  CHECK(detail::intern_capacity() <= 32 * live_uops() + 64 * 64);
  // a node's sources stay alive as long as the node does
  UOp keep;
  {
    UOp y = UOp::variable("mem_y", 0, 1), c = UOp::const_(dtypes::weakint, 123456789);
    keep = (y + c) * y;
  }
  CHECK(live_uops() == base + 1 + 4);
  CHECK(keep.src(0).src(1).arg().as_int() == 123456789);
  keep = UOp();
  CHECK(live_uops() == base + 1);
}

TEST_CASE("uop: NodeSet finds and erases exactly, tagged or bare, and shrinks when emptied", "[core][uop][memory]") {
  std::vector<UOp> nodes;
  for (std::int64_t i = 0; i < 5000; ++i) nodes.push_back(UOp::const_(dtypes::int32, 7000000 + i));
  auto raw = [](const UOp& u) { return const_cast<detail::Node*>(u.node()); };
  for (const bool tagged : {true, false}) {
    detail::NodeSet set;
    if (!tagged) set.untag();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (tagged && i == 2500) {  // untagging a full set keeps every entry
        set.untag();
        CHECK_FALSE(set.tagged());
      }
      set.insert(raw(nodes[i])->hash, raw(nodes[i]));
    }
    CHECK(set.size() == nodes.size());
    CHECK(set.capacity() >= 2 * nodes.size());
    auto find = [&](const UOp& u) { return set.find(u.node()->hash, [&](const detail::Node* n) { return n == u.node(); }); };
    for (const UOp& u : nodes) CHECK(find(u) == u.node());
    // a node with the same hash but another identity is not found
    CHECK(set.find(nodes[0].node()->hash, [](const detail::Node*) { return false; }) == nullptr);
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (i % 100) CHECK(set.erase(nodes[i].node()->hash, nodes[i].node()));
    CHECK(set.size() == 50);
    CHECK(set.capacity() <= 32 * 50);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      CHECK((find(nodes[i]) == (i % 100 ? nullptr : nodes[i].node())));
      if (i % 100) CHECK_FALSE(set.erase(nodes[i].node()->hash, nodes[i].node()));
    }
    std::size_t seen = 0;
    set.for_each([&](const detail::Node* n) { seen += n->op == Ops::CONST; });
    CHECK(seen == 50);
  }
}

TEST_CASE("uop: threads building the same graphs get the same nodes", "[core][uop][threads]") {
  const std::size_t base = live_uops();
  constexpr int nthreads = 4, nlevels = 50000;  // 100,000 nodes per thread
  auto build = [] {
    UOp x = UOp::variable("thr_x", 0, 10);
    for (int i = 0; i < nlevels; ++i) {
      const UOp c = UOp::const_(dtypes::weakint, 2000000000 + i);
      x = i % 2 ? x * c : x + c;
    }
    return x;
  };
  std::vector<UOp> roots(nthreads);
  {
    std::vector<std::thread> ts;
    for (int t = 0; t < nthreads; ++t) ts.emplace_back([&, t] { roots[std::size_t(t)] = build(); });
    for (auto& t : ts) t.join();
  }
  for (int t = 1; t < nthreads; ++t) CHECK(roots[std::size_t(t)] == roots[0]);
  CHECK(live_uops() == base + 2 * nlevels + 1);
  // the table is consistent: every node is found again by value
  {
    const auto topo = roots[0].toposort();
    CHECK(topo.size() == std::size_t(2 * nlevels + 1));
    std::size_t found = 0;
    for (const UOp& u : topo) found += UOp(u.op(), u.dtype(), std::vector<UOp>(u.src().begin(), u.src().end()), u.arg(), u.tag()) == u;
    CHECK(found == topo.size());
  }
  CHECK(build() == roots[0]);

  // churn: threads build and drop the same small graphs at once, so nodes die in one thread while another
  // looks them up (the table must revive or replace them, never hand out a dying node)
  std::atomic<int> bad{0};
  {
    std::vector<std::thread> ts;
    for (int t = 0; t < nthreads; ++t)
      ts.emplace_back([&, t] {
        const UOp v = UOp::variable("thr_v", 0, 100);
        const UOp held = (v + UOp::const_(dtypes::weakint, 3)) * UOp::const_(dtypes::weakint, 5);
        for (int i = 0; i < 100000; ++i) {
          const int k = (i * 7 + t) % 64;
          UOp g = (v + UOp::const_(dtypes::weakint, k)) * UOp::const_(dtypes::weakint, k % 7);
          if (g.src(0).src(1).arg().as_int() != k || g.src(0).src(0) != v) ++bad;
          if (k == 3 && g.src(0) != held.src(0)) ++bad;  // the node every thread holds
        }
      });
    for (auto& t : ts) t.join();
  }
  CHECK(bad == 0);
  roots.clear();
  CHECK(live_uops() == base);
}

// a handle in a static object: it dies at exit, after the thread's own thread_local objects are gone, so
// release must not depend on them (an ASan build of this binary checks it)
namespace {
UOp exit_keeper;
}  // namespace
TEST_CASE("uop: a static handle may hold the last reference at exit", "[core][uop][memory]") {
  for (int i = 0; i < 10; ++i) UOp t = UOp::variable("exit_x", 0, 10) + (1000 + i);  // nodes die on this thread first
  exit_keeper = (UOp::variable("exit_x", 0, 10) * 77).maximum(UOp::const_(dtypes::weakint, 5));
  CHECK(exit_keeper.toposort().size() == 5);
}

// ***** builders: the op, dtype, src and arg tinygrad builds *****

TEST_CASE("uop: builders make what tinygrad makes", "[core][uop][builders]") {
  const Vars v;
  const auto& [a, b, c, r, r2, p0, p1, ld] = std::tie(v.a, v.b, v.c, v.r, v.r2, v.p0, v.p1, v.ld);
  // const_: scalar, vector broadcast, vector of values
  const UOp c4 = UOp::const_(dtypes::float32.vec(4), 1.0);
  CHECK(c4.op() == Ops::CONST);
  CHECK(c4.dtype() == dtypes::float32.vec(4));
  CHECK(c4.arg().as_float() == 1.0);
  CHECK(UOp::const_(dtypes::float32.vec(4), {1.0, 1.0, 1.0, 1.0}) == c4);
  const UOp s4 = UOp::const_(dtypes::float32.vec(4), {1.0, 2.0, 3.0, 4.0});
  CHECK(s4.op() == Ops::STACK);
  CHECK(s4.nsrc() == 4);
  CHECK(s4.src(3) == v.cf(4.0));
  CHECK(UOp::const_(dtypes::int32, {7}) == UOp::const_(dtypes::int32, 7));
  CHECK(c4.const_like(2) == UOp::const_(dtypes::float32.vec(4), 2.0));  // const_like keeps the vector width, as tinygrad
  CHECK(p0.const_like(0).dtype() == dtypes::float32.ptr(16).base());
  // cast and bitcast: to the same dtype gives the node back; a scalar dtype widens to the source's width
  CHECK(a.cast(dtypes::weakint) == a);
  CHECK(a.bitcast(dtypes::weakint) == a);
  CHECK(s4.cast(dtypes::int32).dtype() == dtypes::int32.vec(4));
  CHECK(s4.cast(dtypes::int32).op() == Ops::CAST);
  CHECK(a.bitcast(dtypes::float32).op() == Ops::BITCAST);
  // alu: the last source's dtype, bool for comparisons
  CHECK((a < b).dtype() == dtypes::bool_);
  CHECK((s4 < s4).dtype() == dtypes::bool_.vec(4));
  CHECK(a.alu(Ops::ADD, {b}) == a + b);
  // where, index, load, store
  const UOp w = (a < b).where(a, b);
  CHECK(w.op() == Ops::WHERE);
  CHECK(w.dtype() == dtypes::weakint);
  CHECK(w.src(0) == (a < b));
  CHECK((a < b).where(1, b).src(1) == UOp::const_(dtypes::weakint, 1));
  CHECK(p0.index({r}).dtype() == dtypes::float32);
  CHECK(p0.index({r}, true).dtype() == dtypes::float32.ptr(16));
  CHECK(p0.index({r}).load().dtype() == dtypes::float32);
  CHECK(p0.index({r}, true).load().dtype() == dtypes::float32);
  const UOp st = p0.index({r}).store(ld);
  CHECK(st.op() == Ops::STORE);
  CHECK(st.dtype() == dtypes::void_);
  CHECK(st.nsrc() == 2);
  CHECK(p0.index({r}).store(ld, r < 3).nsrc() == 3);
  // range, end, reduce, sink, group, after
  CHECK(r.op() == Ops::RANGE);
  CHECK(r.arg() == Arg{0, AxisType::LOOP});
  CHECK(r.src(0) == UOp::const_(dtypes::weakint, 16));
  CHECK(UOp::range(UOp::variable("n", 1, 9, dtypes::int32), 2).src(0).op() == Ops::CAST);  // the end is cast to weakint
  CHECK(st.end({}) == st);
  CHECK(st.end({r}).op() == Ops::END);
  CHECK(st.end({r}).src(1) == r);
  CHECK(ld.reduce(Ops::ADD, {r}).arg() == Arg{Ops::ADD, ArgTuple{}});
  CHECK(ld.reduce(Ops::ADD, {r}).dtype() == dtypes::float32);
  CHECK(UOp::sink(a, b).nsrc() == 2);
  CHECK(UOp::sink(std::vector<UOp>{a, b}) == UOp::sink(a, b));
  CHECK(UOp::sink().nsrc() == 0);
  CHECK(UOp::group({a}) == a);  // one source: no GROUP
  CHECK(UOp::group({a, b}).op() == Ops::GROUP);
  CHECK(UOp::group({}).op() == Ops::GROUP);
  CHECK(p0.after({}) == p0);
  CHECK(p0.after({st}).dtype() == p0.dtype());
  // stack, vectorize, gep, broadcast
  CHECK(UOp::stack({a, b, c}) == a.vectorize({b, c}));
  CHECK(a.vectorize({b, c}).dtype() == dtypes::weakint.vec(3));
  CHECK(s4.gep(2) == v.cf(3.0));                   // gep of a STACK is its source
  CHECK(c4.gep(3) == v.cf(1.0));                   // gep of a CONST is the scalar const
  CHECK(s4.gep(std::vector<int>{2}) == v.cf(3.0));  // a 1-tuple is an int
  CHECK(s4.gep({2, 0}).dtype() == dtypes::float32.vec(2));
  CHECK(s4.gep({2, 0}).arg() == Arg{2, 0});
  CHECK(s4.cast(dtypes::int32).gep(1).dtype() == dtypes::int32);
  CHECK(s4.cast(dtypes::int32).gep(1).arg() == Arg{1});
  CHECK(a.broadcast(1) == a);
  CHECK(a.broadcast(3) == UOp::stack({a, a, a}));
  // variable / define_var, bind, expr
  CHECK(UOp::define_var("a", 0, 10) == a);
  CHECK(a.arg() == Arg{"a", 0, 10});
  CHECK(a.expr() == "a");
  CHECK(a.bind(3).op() == Ops::BIND);
  CHECK(a.bind(3).src(1) == UOp::const_(dtypes::weakint, 3));
  CHECK(a.bind(0).src(1).arg().as_int() == 0);
  CHECK(a.bind(10).src(1).arg().as_int() == 10);
  // valid / invalid
  CHECK(UOp::invalid().dtype() == dtypes::weakint);
  CHECK(UOp::invalid().arg().is<Invalid>());
  CHECK(UOp::invalid(4).dtype() == dtypes::weakint.vec(4));
  CHECK(r.valid(r < 5) == (r < 5).where(r, UOp::invalid()));
  // param with a ParamArg
  const UOp pl = UOp::param(2, dtypes::float32.ptr(8, AddrSpace::LOCAL), {.name = "acc", .addrspace = AddrSpace::LOCAL});
  CHECK(pl.op() == Ops::PARAM);
  CHECK(pl.arg().as_param().slot == 2);
  CHECK(*pl.arg().as_param().name == "acc");
  CHECK(pl.nsrc() == 1);
  CHECK(pl.src(0) == UOp(Ops::NOOP));
  CHECK(UOp::param(0, dtypes::int32, {}, {UOp::const_(dtypes::weakint, 4)}).src(0) == UOp::const_(dtypes::weakint, 4));
  // replace and rtag
  CHECK((a + b).replace({}) == a + b);
  CHECK((a + b).replace({.op = Ops::ADD}) == a + b);
  CHECK((a + b).replace({.op = Ops::MUL}) == a * b);
  CHECK((a + b).replace({.src = std::vector<UOp>{c, a}}) == c + a);
  CHECK((a + b).replace({.tag = "t"}) == (a + b).rtag("t"));
  CHECK((a + b).rtag().tag() == Arg(true));
  CHECK((a + b).rtag().rtag(Arg()) == a + b);
  CHECK(UOp::const_(dtypes::int32, 5).replace({.dtype = dtypes::int64, .arg = 7}) == UOp(Ops::CONST, dtypes::int64, {}, 7));
  // special
  CHECK(UOp::special(UOp::const_(dtypes::weakint, 32), "gidx0").arg().as_str() == "gidx0");
}

TEST_CASE("uop: repr equals tinygrad's pretty_print", "[core][uop][repr]") {
  const Vars v;
  const auto& [a, b, c, r, r2, p0, p1, ld] = std::tie(v.a, v.b, v.c, v.r, v.r2, v.p0, v.p1, v.ld);
  const std::map<std::string, UOp> graphs{
      {"shared", a * 4 + a},
      {"floats", v.cf(1.5) + v.cf(2.0)},
      {"tags", UOp(Ops::ADD, dtypes::weakint, {a.rtag("foo"), b.rtag(true)}, {}, Arg{1, 2})},
      {"reduce", ld.reduce(Ops::ADD, {r})},
      {"reduce2", (ld * 2.0).reduce(Ops::MAX, {r, r2})},
      {"kernel", UOp::sink(p0.index({r}).store(ld * 2.0).end({r}))},
      {"vecconst", UOp::const_(dtypes::float32.vec(4), {1.0, 2.0, 3.0, 4.0})},
      {"vecconst_same", UOp::const_(dtypes::float32.vec(4), {1.0, 1.0, 1.0, 1.0})},
      {"param", UOp::param(3, dtypes::float16.ptr(8, AddrSpace::LOCAL),
                           {.vmin_vmax = std::pair<std::int64_t, std::int64_t>{0, 10}, .name = "x", .addrspace = AddrSpace::LOCAL})},
      {"valid", r.valid(r < 5)},
      {"special", UOp::special(UOp::const_(dtypes::weakint, 32), "gidx0") * 2},
      {"cast", (a.cast(dtypes::int32) + 1).bitcast(dtypes::float32)},
      {"bool", UOp::const_(dtypes::bool_, true).where(UOp::const_(dtypes::int8, -3), UOp::const_(dtypes::int8, 100))},
      {"gep", UOp(Ops::STACK, dtypes::float32.vec(3), {v.cf(0.5), v.cf(-0.0), v.cf(0.25)}).gep({2, 0})},
      {"bind", a.bind(3)},
      {"group_after", p0.after({UOp::group({p0.index({r}).store(v.cf(0.0)), p1})})},
      {"diamond", ((a + b) * (a + b)) + (a + b)},
      {"range_axis", UOp::range(c, 3, AxisType::REDUCE) + UOp::range(8, 1, AxisType::GLOBAL)},
      {"float_consts", UOp::const_(dtypes::float64, 1e16) * UOp::const_(dtypes::float64, 1e-5) + UOp::const_(dtypes::float64, INF) +
                           UOp::const_(dtypes::float64, NAN_)},
      {"broadcast", a.broadcast(3)},
      {"strtag", a.rtag("it's")},
      {"store_gate", p0.index({r}, true).store(v.cf(-1.5), r < 8)},
      {"load_alt", p1.index({r}).load({v.cf(0.0), r < 3})},
      {"end2", p0.index({r}).store(v.cf(1.0)).end({r, r2})},
      {"vectorize", a.vectorize({b, c})},
      {"gep_const", UOp::const_(dtypes::float32.vec(4), 1.0).gep(2)},
      {"cast_vec", UOp::const_(dtypes::float32.vec(4), {1.0, 2.0, 3.0, 4.0}).cast(dtypes::int32)},
      {"define_var_int", UOp::variable("n", 1, 1024, dtypes::int32)},
      {"invalid4", UOp::invalid(4)},
      {"sink_consts", UOp::sink(UOp::const_(dtypes::uint8, 255), UOp::const_(dtypes::int64, std::numeric_limits<std::int64_t>::min()),
                                UOp::const_(dtypes::bool_, false), UOp::const_(dtypes::float16, 0.5))},
      {"rtag_default", (a + 1).rtag()},
      {"replace", (a + b).replace({.op = Ops::MUL})},
      {"replace_src", (a + b).replace({.src = std::vector<UOp>{c, a}})},
      {"replace_dtype_arg", UOp::const_(dtypes::int32, 5).replace({.dtype = dtypes::int64, .arg = 7})},
      {"neg_float", -(UOp::variable("f", 0, 1).cast(dtypes::float32))},
      {"eq", a.eq(b)},
      {"minimum", a.minimum(b)},
      {"where_const", (a < 3).where(a, 0)},
      {"buffer", UOp(Ops::BUFFER, dtypes::float32, {UOp(Ops::UNIQUE, dtypes::void_, {}, 0), UOp(Ops::DEVICE, dtypes::void_, {}, "CPU")}, 16)},
      {"unique_str_arg", UOp(Ops::CUSTOM, dtypes::void_, {a}, "x = {0};\n")},
      {"define_local", UOp(Ops::DEFINE_LOCAL, dtypes::float32.ptr(16, AddrSpace::LOCAL), {}, 0).index({r2}).load()},
      {"axis_negative", UOp::range(4, -2)},
  };
  // tinygrad: print(repr(u)) for the same graphs
  const std::map<std::string, std::string> want{
        {"shared", R"(UOp(Ops.ADD, dtypes.weakint, arg=None, src=(
  UOp(Ops.MUL, dtypes.weakint, arg=None, src=(
    x1:=UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
    UOp(Ops.CONST, dtypes.weakint, arg=4, src=()),)),
  x1,)))"},
        {"floats", R"(UOp(Ops.ADD, dtypes.float, arg=None, src=(
  UOp(Ops.CONST, dtypes.float, arg=ConstFloat(1.5), src=()),
  UOp(Ops.CONST, dtypes.float, arg=ConstFloat(2.0), src=()),)))"},
        {"tags", R"(UOp(Ops.ADD, dtypes.weakint, arg=None, tag=(1, 2), src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), tag=foo, src=()),
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), tag=True, src=()),)))"},
        {"reduce", R"(UOp(Ops.REDUCE, dtypes.float, arg=(Ops.ADD, ()), src=(
  UOp(Ops.LOAD, dtypes.float, arg=None, src=(
    UOp(Ops.INDEX, dtypes.float, arg=None, src=(
      UOp(Ops.PARAM, dtypes.float.ptr(16), arg=ParamArg(1), src=(
        UOp(Ops.NOOP, dtypes.void, arg=None, src=()),)),
      x4:=UOp(Ops.RANGE, dtypes.weakint, arg=(0, AxisType.LOOP), src=(
        UOp(Ops.CONST, dtypes.weakint, arg=16, src=()),)),)),)),
  x4,)))"},
        {"reduce2", R"(UOp(Ops.REDUCE, dtypes.float, arg=(Ops.MAX, ()), src=(
  UOp(Ops.MUL, dtypes.float, arg=None, src=(
    UOp(Ops.LOAD, dtypes.float, arg=None, src=(
      UOp(Ops.INDEX, dtypes.float, arg=None, src=(
        UOp(Ops.PARAM, dtypes.float.ptr(16), arg=ParamArg(1), src=(
          UOp(Ops.NOOP, dtypes.void, arg=None, src=()),)),
        x5:=UOp(Ops.RANGE, dtypes.weakint, arg=(0, AxisType.LOOP), src=(
          UOp(Ops.CONST, dtypes.weakint, arg=16, src=()),)),)),)),
    UOp(Ops.CONST, dtypes.float, arg=ConstFloat(2.0), src=()),)),
  x5,
  UOp(Ops.RANGE, dtypes.weakint, arg=(1, AxisType.REDUCE), src=(
    UOp(Ops.CONST, dtypes.weakint, arg=4, src=()),)),)))"},
        {"kernel", R"(UOp(Ops.SINK, dtypes.void, arg=None, src=(
  UOp(Ops.END, dtypes.void, arg=None, src=(
    UOp(Ops.STORE, dtypes.void, arg=None, src=(
      UOp(Ops.INDEX, dtypes.float, arg=None, src=(
        UOp(Ops.PARAM, dtypes.float.ptr(16), arg=ParamArg(0), src=(
          x4:=UOp(Ops.NOOP, dtypes.void, arg=None, src=()),)),
        x5:=UOp(Ops.RANGE, dtypes.weakint, arg=(0, AxisType.LOOP), src=(
          UOp(Ops.CONST, dtypes.weakint, arg=16, src=()),)),)),
      UOp(Ops.MUL, dtypes.float, arg=None, src=(
        UOp(Ops.LOAD, dtypes.float, arg=None, src=(
          UOp(Ops.INDEX, dtypes.float, arg=None, src=(
            UOp(Ops.PARAM, dtypes.float.ptr(16), arg=ParamArg(1), src=(
              x4,)),
            x5,)),)),
        UOp(Ops.CONST, dtypes.float, arg=ConstFloat(2.0), src=()),)),)),
    x5,)),)))"},
        {"vecconst", R"(UOp(Ops.STACK, dtypes.float.vec(4), arg=None, src=(
  UOp(Ops.CONST, dtypes.float, arg=ConstFloat(1.0), src=()),
  UOp(Ops.CONST, dtypes.float, arg=ConstFloat(2.0), src=()),
  UOp(Ops.CONST, dtypes.float, arg=ConstFloat(3.0), src=()),
  UOp(Ops.CONST, dtypes.float, arg=ConstFloat(4.0), src=()),)))"},
        {"vecconst_same", R"(UOp(Ops.CONST, dtypes.float.vec(4), arg=ConstFloat(1.0), src=()))"},
        {"param", R"(UOp(Ops.PARAM, dtypes.half.ptr(8, AddrSpace.LOCAL), arg=ParamArg(3, vmin_vmax=(0, 10), name='x', addrspace=AddrSpace.LOCAL), src=(
  UOp(Ops.NOOP, dtypes.void, arg=None, src=()),)))"},
        {"valid", R"(UOp(Ops.WHERE, dtypes.weakint, arg=None, src=(
  UOp(Ops.CMPLT, dtypes.bool, arg=None, src=(
    x1:=UOp(Ops.RANGE, dtypes.weakint, arg=(0, AxisType.LOOP), src=(
      UOp(Ops.CONST, dtypes.weakint, arg=16, src=()),)),
    UOp(Ops.CONST, dtypes.weakint, arg=5, src=()),)),
  x1,
  UOp(Ops.CONST, dtypes.weakint, arg=Invalid, src=()),)))"},
        {"special", R"(UOp(Ops.MUL, dtypes.weakint, arg=None, src=(
  UOp(Ops.SPECIAL, dtypes.weakint, arg='gidx0', src=(
    UOp(Ops.CONST, dtypes.weakint, arg=32, src=()),)),
  UOp(Ops.CONST, dtypes.weakint, arg=2, src=()),)))"},
        {"cast", R"(UOp(Ops.BITCAST, dtypes.float, arg=None, src=(
  UOp(Ops.ADD, dtypes.int, arg=None, src=(
    UOp(Ops.CAST, dtypes.int, arg=None, src=(
      UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),)),
    UOp(Ops.CONST, dtypes.int, arg=1, src=()),)),)))"},
        {"bool", R"(UOp(Ops.WHERE, dtypes.char, arg=None, src=(
  UOp(Ops.CONST, dtypes.bool, arg=True, src=()),
  UOp(Ops.CONST, dtypes.char, arg=-3, src=()),
  UOp(Ops.CONST, dtypes.char, arg=100, src=()),)))"},
        {"gep", R"(UOp(Ops.GEP, dtypes.float.vec(2), arg=(2, 0), src=(
  UOp(Ops.STACK, dtypes.float.vec(3), arg=None, src=(
    UOp(Ops.CONST, dtypes.float, arg=ConstFloat(0.5), src=()),
    UOp(Ops.CONST, dtypes.float, arg=ConstFloat(-0.0), src=()),
    UOp(Ops.CONST, dtypes.float, arg=ConstFloat(0.25), src=()),)),)))"},
        {"bind", R"(UOp(Ops.BIND, dtypes.weakint, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
  UOp(Ops.CONST, dtypes.weakint, arg=3, src=()),)))"},
        {"group_after", R"(UOp(Ops.AFTER, dtypes.float.ptr(16), arg=None, src=(
  x0:=UOp(Ops.PARAM, dtypes.float.ptr(16), arg=ParamArg(0), src=(
    x1:=UOp(Ops.NOOP, dtypes.void, arg=None, src=()),)),
  UOp(Ops.GROUP, dtypes.void, arg=None, src=(
    UOp(Ops.STORE, dtypes.void, arg=None, src=(
      UOp(Ops.INDEX, dtypes.float, arg=None, src=(
        x0,
        UOp(Ops.RANGE, dtypes.weakint, arg=(0, AxisType.LOOP), src=(
          UOp(Ops.CONST, dtypes.weakint, arg=16, src=()),)),)),
      UOp(Ops.CONST, dtypes.float, arg=ConstFloat(0.0), src=()),)),
    UOp(Ops.PARAM, dtypes.float.ptr(16), arg=ParamArg(1), src=(
      x1,)),)),)))"},
        {"diamond", R"(UOp(Ops.ADD, dtypes.weakint, arg=None, src=(
  UOp(Ops.MUL, dtypes.weakint, arg=None, src=(
    x1:=UOp(Ops.ADD, dtypes.weakint, arg=None, src=(
      UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
      UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),)),
    x1,)),
  x1,)))"},
        {"range_axis", R"(UOp(Ops.ADD, dtypes.weakint, arg=None, src=(
  UOp(Ops.RANGE, dtypes.weakint, arg=(3, AxisType.REDUCE), src=(
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('c', 1, 8), src=()),)),
  UOp(Ops.RANGE, dtypes.weakint, arg=(1, AxisType.GLOBAL), src=(
    UOp(Ops.CONST, dtypes.weakint, arg=8, src=()),)),)))"},
        {"float_consts", R"(UOp(Ops.ADD, dtypes.double, arg=None, src=(
  UOp(Ops.ADD, dtypes.double, arg=None, src=(
    UOp(Ops.MUL, dtypes.double, arg=None, src=(
      UOp(Ops.CONST, dtypes.double, arg=ConstFloat(1e+16), src=()),
      UOp(Ops.CONST, dtypes.double, arg=ConstFloat(1e-05), src=()),)),
    UOp(Ops.CONST, dtypes.double, arg=ConstFloat(inf), src=()),)),
  UOp(Ops.CONST, dtypes.double, arg=ConstFloat(nan), src=()),)))"},
        {"broadcast", R"(UOp(Ops.STACK, dtypes.weakint.vec(3), arg=None, src=(
  x0:=UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
  x0,
  x0,)))"},
        {"strtag", R"(UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), tag=it's, src=()))"},
        {"store_gate", R"(UOp(Ops.STORE, dtypes.void, arg=None, src=(
  UOp(Ops.INDEX, dtypes.float.ptr(16), arg=None, src=(
    UOp(Ops.PARAM, dtypes.float.ptr(16), arg=ParamArg(0), src=(
      UOp(Ops.NOOP, dtypes.void, arg=None, src=()),)),
    x3:=UOp(Ops.RANGE, dtypes.weakint, arg=(0, AxisType.LOOP), src=(
      UOp(Ops.CONST, dtypes.weakint, arg=16, src=()),)),)),
  UOp(Ops.CONST, dtypes.float, arg=ConstFloat(-1.5), src=()),
  UOp(Ops.CMPLT, dtypes.bool, arg=None, src=(
    x3,
    UOp(Ops.CONST, dtypes.weakint, arg=8, src=()),)),)))"},
        {"load_alt", R"(UOp(Ops.LOAD, dtypes.float, arg=None, src=(
  UOp(Ops.INDEX, dtypes.float, arg=None, src=(
    UOp(Ops.PARAM, dtypes.float.ptr(16), arg=ParamArg(1), src=(
      UOp(Ops.NOOP, dtypes.void, arg=None, src=()),)),
    x3:=UOp(Ops.RANGE, dtypes.weakint, arg=(0, AxisType.LOOP), src=(
      UOp(Ops.CONST, dtypes.weakint, arg=16, src=()),)),)),
  UOp(Ops.CONST, dtypes.float, arg=ConstFloat(0.0), src=()),
  UOp(Ops.CMPLT, dtypes.bool, arg=None, src=(
    x3,
    UOp(Ops.CONST, dtypes.weakint, arg=3, src=()),)),)))"},
        {"end2", R"(UOp(Ops.END, dtypes.void, arg=None, src=(
  UOp(Ops.STORE, dtypes.void, arg=None, src=(
    UOp(Ops.INDEX, dtypes.float, arg=None, src=(
      UOp(Ops.PARAM, dtypes.float.ptr(16), arg=ParamArg(0), src=(
        UOp(Ops.NOOP, dtypes.void, arg=None, src=()),)),
      x4:=UOp(Ops.RANGE, dtypes.weakint, arg=(0, AxisType.LOOP), src=(
        UOp(Ops.CONST, dtypes.weakint, arg=16, src=()),)),)),
    UOp(Ops.CONST, dtypes.float, arg=ConstFloat(1.0), src=()),)),
  x4,
  UOp(Ops.RANGE, dtypes.weakint, arg=(1, AxisType.REDUCE), src=(
    UOp(Ops.CONST, dtypes.weakint, arg=4, src=()),)),)))"},
        {"vectorize", R"(UOp(Ops.STACK, dtypes.weakint.vec(3), arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('c', 1, 8), src=()),)))"},
        {"gep_const", R"(UOp(Ops.CONST, dtypes.float, arg=ConstFloat(1.0), src=()))"},
        {"cast_vec", R"(UOp(Ops.CAST, dtypes.int.vec(4), arg=None, src=(
  UOp(Ops.STACK, dtypes.float.vec(4), arg=None, src=(
    UOp(Ops.CONST, dtypes.float, arg=ConstFloat(1.0), src=()),
    UOp(Ops.CONST, dtypes.float, arg=ConstFloat(2.0), src=()),
    UOp(Ops.CONST, dtypes.float, arg=ConstFloat(3.0), src=()),
    UOp(Ops.CONST, dtypes.float, arg=ConstFloat(4.0), src=()),)),)))"},
        {"define_var_int", R"(UOp(Ops.DEFINE_VAR, dtypes.int, arg=('n', 1, 1024), src=()))"},
        {"invalid4", R"(UOp(Ops.CONST, dtypes.weakint.vec(4), arg=Invalid, src=()))"},
        {"sink_consts", R"(UOp(Ops.SINK, dtypes.void, arg=None, src=(
  UOp(Ops.CONST, dtypes.uchar, arg=255, src=()),
  UOp(Ops.CONST, dtypes.long, arg=-9223372036854775808, src=()),
  UOp(Ops.CONST, dtypes.bool, arg=False, src=()),
  UOp(Ops.CONST, dtypes.half, arg=ConstFloat(0.5), src=()),)))"},
        {"rtag_default", R"(UOp(Ops.ADD, dtypes.weakint, arg=None, tag=True, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
  UOp(Ops.CONST, dtypes.weakint, arg=1, src=()),)))"},
        {"replace", R"(UOp(Ops.MUL, dtypes.weakint, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),)))"},
        {"replace_src", R"(UOp(Ops.ADD, dtypes.weakint, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('c', 1, 8), src=()),
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),)))"},
        {"replace_dtype_arg", R"(UOp(Ops.CONST, dtypes.long, arg=7, src=()))"},
        {"neg_float", R"(UOp(Ops.MUL, dtypes.float, arg=None, src=(
  UOp(Ops.CAST, dtypes.float, arg=None, src=(
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('f', 0, 1), src=()),)),
  UOp(Ops.CONST, dtypes.float, arg=ConstFloat(-1.0), src=()),)))"},
        {"eq", R"(UOp(Ops.CMPNE, dtypes.bool, arg=None, src=(
  UOp(Ops.CMPNE, dtypes.bool, arg=None, src=(
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),)),
  UOp(Ops.CONST, dtypes.bool, arg=True, src=()),)))"},
        {"minimum", R"(UOp(Ops.XOR, dtypes.weakint, arg=None, src=(
  UOp(Ops.MAX, dtypes.weakint, arg=None, src=(
    UOp(Ops.XOR, dtypes.weakint, arg=None, src=(
      UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
      x3:=UOp(Ops.CONST, dtypes.weakint, arg=-1, src=()),)),
    UOp(Ops.XOR, dtypes.weakint, arg=None, src=(
      UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),
      x3,)),)),
  x3,)))"},
        {"where_const", R"(UOp(Ops.WHERE, dtypes.weakint, arg=None, src=(
  UOp(Ops.CMPLT, dtypes.bool, arg=None, src=(
    x1:=UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
    UOp(Ops.CONST, dtypes.weakint, arg=3, src=()),)),
  x1,
  UOp(Ops.CONST, dtypes.weakint, arg=0, src=()),)))"},
        {"buffer", R"(UOp(Ops.BUFFER, dtypes.float, arg=16, src=(
  UOp(Ops.UNIQUE, dtypes.void, arg=0, src=()),
  UOp(Ops.DEVICE, dtypes.void, arg='CPU', src=()),)))"},
        {"unique_str_arg", R"(UOp(Ops.CUSTOM, dtypes.void, arg='x = {0};\n', src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),)))"},
        {"define_local", R"(UOp(Ops.LOAD, dtypes.float, arg=None, src=(
  UOp(Ops.INDEX, dtypes.float, arg=None, src=(
    UOp(Ops.DEFINE_LOCAL, dtypes.float.ptr(16, AddrSpace.LOCAL), arg=0, src=()),
    UOp(Ops.RANGE, dtypes.weakint, arg=(1, AxisType.REDUCE), src=(
      UOp(Ops.CONST, dtypes.weakint, arg=4, src=()),)),)),)))"},
        {"axis_negative", R"(UOp(Ops.RANGE, dtypes.weakint, arg=(-2, AxisType.LOOP), src=(
  UOp(Ops.CONST, dtypes.weakint, arg=4, src=()),)))"},
  };
  REQUIRE(graphs.size() == want.size());
  for (const auto& [name, u] : graphs) {
    INFO(name);
    REQUIRE(want.count(name));
    CHECK(u.repr() == want.at(name));
  }
}

TEST_CASE("uop: operators build what tinygrad's operators build", "[core][uop][repr]") {
  const UOp a = UOp::variable("a", 0, 10), b = UOp::variable("b", -5, 5);
  const UOp fa = UOp::variable("x", 0, 1).cast(dtypes::float32), fb = UOp::variable("y", 0, 1).cast(dtypes::float32);
  const UOp t = a < b;
  const std::map<std::string, UOp> graphs{
      {"fdiv", fa / fb}, {"idiv", a / b}, {"imod", a % b}, {"fmin", fa.minimum(fb)}, {"imin", a.minimum(b)},
      {"bmin", t.minimum(t.logical_not())}, {"binv", ~t}, {"le", a <= b}, {"gt", a > b}, {"ge3", a >= 3},
      {"rsub", 3 - a}, {"rmul", 2 * a}, {"fneg", -fa}, {"ne", a.ne(b)}, {"eq3", a.eq(3)}, {"shl", a << 2},
      {"shr", a >> 1}, {"rshl", 1 << a}, {"and", a & b}, {"or", a | 1}, {"xor", 5 ^ a}, {"fdiv_const", fa / 2.0},
      {"max_const", a.maximum(3)}, {"u8inv", ~UOp::variable("u", 0, 10, dtypes::uint8)},
      {"u64inv", ~UOp::variable("u", 0, 10, dtypes::uint64)}, {"bneg", -t},
  };
  // tinygrad: repr(fa / fb), repr(a // b), ...
  const std::map<std::string, std::string> want{
        {"fdiv", R"(UOp(Ops.MUL, dtypes.float, arg=None, src=(
  UOp(Ops.CAST, dtypes.float, arg=None, src=(
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('x', 0, 1), src=()),)),
  UOp(Ops.RECIPROCAL, dtypes.float, arg=None, src=(
    UOp(Ops.CAST, dtypes.float, arg=None, src=(
      UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('y', 0, 1), src=()),)),)),)))"},
        {"idiv", R"(UOp(Ops.FLOORDIV, dtypes.weakint, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),)))"},
        {"imod", R"(UOp(Ops.FLOORMOD, dtypes.weakint, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),)))"},
        {"fmin", R"(UOp(Ops.MUL, dtypes.float, arg=None, src=(
  UOp(Ops.MAX, dtypes.float, arg=None, src=(
    UOp(Ops.MUL, dtypes.float, arg=None, src=(
      UOp(Ops.CAST, dtypes.float, arg=None, src=(
        UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('x', 0, 1), src=()),)),
      x4:=UOp(Ops.CONST, dtypes.float, arg=ConstFloat(-1.0), src=()),)),
    UOp(Ops.MUL, dtypes.float, arg=None, src=(
      UOp(Ops.CAST, dtypes.float, arg=None, src=(
        UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('y', 0, 1), src=()),)),
      x4,)),)),
  x4,)))"},
        {"imin", R"(UOp(Ops.XOR, dtypes.weakint, arg=None, src=(
  UOp(Ops.MAX, dtypes.weakint, arg=None, src=(
    UOp(Ops.XOR, dtypes.weakint, arg=None, src=(
      UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
      x3:=UOp(Ops.CONST, dtypes.weakint, arg=-1, src=()),)),
    UOp(Ops.XOR, dtypes.weakint, arg=None, src=(
      UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),
      x3,)),)),
  x3,)))"},
        {"bmin", R"(UOp(Ops.CMPNE, dtypes.bool, arg=None, src=(
  UOp(Ops.MAX, dtypes.bool, arg=None, src=(
    x1:=UOp(Ops.CMPNE, dtypes.bool, arg=None, src=(
      UOp(Ops.CMPLT, dtypes.bool, arg=None, src=(
        UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
        UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),)),
      x5:=UOp(Ops.CONST, dtypes.bool, arg=True, src=()),)),
    UOp(Ops.CMPNE, dtypes.bool, arg=None, src=(
      x1,
      x5,)),)),
  x5,)))"},
        {"binv", R"(UOp(Ops.CMPNE, dtypes.bool, arg=None, src=(
  UOp(Ops.CMPLT, dtypes.bool, arg=None, src=(
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),)),
  UOp(Ops.CONST, dtypes.bool, arg=True, src=()),)))"},
        {"le", R"(UOp(Ops.CMPNE, dtypes.bool, arg=None, src=(
  UOp(Ops.CMPLT, dtypes.bool, arg=None, src=(
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),)),
  UOp(Ops.CONST, dtypes.bool, arg=True, src=()),)))"},
        {"gt", R"(UOp(Ops.CMPLT, dtypes.bool, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),)))"},
        {"ge3", R"(UOp(Ops.CMPNE, dtypes.bool, arg=None, src=(
  UOp(Ops.CMPLT, dtypes.bool, arg=None, src=(
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
    UOp(Ops.CONST, dtypes.weakint, arg=3, src=()),)),
  UOp(Ops.CONST, dtypes.bool, arg=True, src=()),)))"},
        {"rsub", R"(UOp(Ops.ADD, dtypes.weakint, arg=None, src=(
  UOp(Ops.CONST, dtypes.weakint, arg=3, src=()),
  UOp(Ops.MUL, dtypes.weakint, arg=None, src=(
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
    UOp(Ops.CONST, dtypes.weakint, arg=-1, src=()),)),)))"},
        {"rmul", R"(UOp(Ops.MUL, dtypes.weakint, arg=None, src=(
  UOp(Ops.CONST, dtypes.weakint, arg=2, src=()),
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),)))"},
        {"fneg", R"(UOp(Ops.MUL, dtypes.float, arg=None, src=(
  UOp(Ops.CAST, dtypes.float, arg=None, src=(
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('x', 0, 1), src=()),)),
  UOp(Ops.CONST, dtypes.float, arg=ConstFloat(-1.0), src=()),)))"},
        {"ne", R"(UOp(Ops.CMPNE, dtypes.bool, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),)))"},
        {"eq3", R"(UOp(Ops.CMPNE, dtypes.bool, arg=None, src=(
  UOp(Ops.CMPNE, dtypes.bool, arg=None, src=(
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
    UOp(Ops.CONST, dtypes.weakint, arg=3, src=()),)),
  UOp(Ops.CONST, dtypes.bool, arg=True, src=()),)))"},
        {"shl", R"(UOp(Ops.SHL, dtypes.weakint, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
  UOp(Ops.CONST, dtypes.weakint, arg=2, src=()),)))"},
        {"shr", R"(UOp(Ops.SHR, dtypes.weakint, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
  UOp(Ops.CONST, dtypes.weakint, arg=1, src=()),)))"},
        {"rshl", R"(UOp(Ops.SHL, dtypes.weakint, arg=None, src=(
  UOp(Ops.CONST, dtypes.weakint, arg=1, src=()),
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),)))"},
        {"and", R"(UOp(Ops.AND, dtypes.weakint, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),)))"},
        {"or", R"(UOp(Ops.OR, dtypes.weakint, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
  UOp(Ops.CONST, dtypes.weakint, arg=1, src=()),)))"},
        {"xor", R"(UOp(Ops.XOR, dtypes.weakint, arg=None, src=(
  UOp(Ops.CONST, dtypes.weakint, arg=5, src=()),
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),)))"},
        {"fdiv_const", R"(UOp(Ops.MUL, dtypes.float, arg=None, src=(
  UOp(Ops.CAST, dtypes.float, arg=None, src=(
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('x', 0, 1), src=()),)),
  UOp(Ops.RECIPROCAL, dtypes.float, arg=None, src=(
    UOp(Ops.CONST, dtypes.float, arg=ConstFloat(2.0), src=()),)),)))"},
        {"max_const", R"(UOp(Ops.MAX, dtypes.weakint, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
  UOp(Ops.CONST, dtypes.weakint, arg=3, src=()),)))"},
        {"u8inv", R"(UOp(Ops.XOR, dtypes.uchar, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.uchar, arg=('u', 0, 10), src=()),
  UOp(Ops.CONST, dtypes.uchar, arg=255, src=()),)))"},
        {"u64inv", R"(UOp(Ops.XOR, dtypes.ulong, arg=None, src=(
  UOp(Ops.DEFINE_VAR, dtypes.ulong, arg=('u', 0, 10), src=()),
  UOp(Ops.CONST, dtypes.ulong, arg=18446744073709551615, src=()),)))"},
        {"bneg", R"(UOp(Ops.CMPNE, dtypes.bool, arg=None, src=(
  UOp(Ops.CMPLT, dtypes.bool, arg=None, src=(
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('a', 0, 10), src=()),
    UOp(Ops.DEFINE_VAR, dtypes.weakint, arg=('b', -5, 5), src=()),)),
  UOp(Ops.CONST, dtypes.bool, arg=True, src=()),)))"},
  };
  REQUIRE(graphs.size() == want.size());
  for (const auto& [name, u] : graphs) {
    INFO(name);
    REQUIRE(want.count(name));
    CHECK(u.repr() == want.at(name));
  }
}

TEST_CASE("uop: render equals tinygrad's render(simplify=False)", "[core][uop][render]") {
  const UOp a = UOp::variable("a", 0, 10), b = UOp::variable("b", -5, 5), c = UOp::variable("c", 1, 8);
  const UOp r0 = UOp::range(16, 0), r1 = UOp::range(4, 1, AxisType::REDUCE), rm = UOp::range(4, -2);
  const std::vector<std::pair<UOp, std::string>> cases{
      {a * 4 + b, "(a*4+b)"},
      {(a + b) * c, "((a+b)*c)"},
      {a - b, "(a+b*-1)"},
      {a + b + c, "(a+b+c)"},
      {a + (b + c), "(a+(b+c))"},
      {a * (b * c), "(a*(b*c))"},
      {(a * b) * c, "(a*b*c)"},
      {a / 4, "(a//4)"},
      {a % 4, "(a%4)"},
      {(a + b) / c, "((a+b)//c)"},
      {a / (b + c), "(a//(b+c))"},
      {(a / b) / c, "(a//b//c)"},
      {a / (b / c), "(a//(b//c))"},
      {a.maximum(b), "max(a, b)"},
      {a.maximum(b + 1).maximum(c * 2), "max(max(a, (b+1)), (c*2))"},
      {(a < b).where(a, b + 2), "(a if (a<b) else (b+2))"},
      {a.cdiv(b), "cdiv(a, b)"},
      {(a + 1).cmod(c * 3), "cmod((a+1), (c*3))"},
      {(a + b).cast(dtypes::int32) * 2, "((int)((a+b))*2)"},
      {a + (-3), "(a+-3)"},
      {-a, "(a*-1)"},
      {a * (-1) + b * (-7), "(a*-1+b*-7)"},
      {a < b, "(a<b)"},
      {(a + b) < 5, "((a+b)<5)"},
      {a.ne(3), "(a!=3)"},
      {(a * 2).ne(b + 1), "((a*2)!=(b+1))"},
      {a >= b, "((a<b)!=True)"},
      {(a << 2) + b, "((a<<2)+b)"},
      {(a + b) >> 1, "(a+b>>1)"},
      {(a & 3) | (b ^ c), "(a&3|b^c)"},
      {a ^ (b & c), "(a^b&c)"},
      {(a | b) & c, "((a|b)&c)"},
      {(a * 2 + b) % c + (a / 3), "((a*2+b)%c+a//3)"},
      {r0 * 4 + r1, "(r0*4+r1)"},
      {rm + 1, "(rm2+1)"},
      {(a < b) & (b < c), "((a<b)&(b<c))"},
      {a.cast(dtypes::float32).reciprocal(), "(1/(float)(a))"},
      {a.cast(dtypes::float32) * UOp::const_(dtypes::float32, 1.5), "((float)(a)*1.5)"},
      {UOp(Ops::STACK, dtypes::weakint.vec(3), {a, b + 1, c}), "{a,(b+1),c}"},
      {(a + 1).broadcast(4), "{(a+1), ...}"},
      {UOp::param(0, dtypes::float32.ptr(64)).index({a * 8 + b}, true), "[a*8+b]"},
      {UOp::special(UOp::const_(dtypes::weakint, 32), "gidx0") * 4 + UOp::special(UOp::const_(dtypes::weakint, 4), "lidx1"), "(gidx0*4+lidx1)"},
      {a.bind(3) + 1, "(a+1)"},
      {a.alu(Ops::SUB, {b}), "(a-b)"},
      {((((a + 1) * 2 + 3) * 4 + 5) / 6) % 7, "((((a+1)*2+3)*4+5)//6%7)"},
      {a + 1000000000000LL, "(a+1000000000000)"},
      {a * std::numeric_limits<std::int64_t>::min(), "(a*-9223372036854775808)"},
      {(a < 5).where(a * 2, (b < 0).where(c, 7)), "((a*2) if (a<5) else (c if (b<0) else 7))"},
      {a.alu(Ops::MULACC, {b, c}), "(a*b+c)"},
      {~a, "(a^-1)"},
      {(a + b) * (a + b), "((a+b)*(a+b))"},
      {~UOp::variable("u", 0, 10, dtypes::uint64), "(u^18446744073709551615)"},  // uint64 consts print unsigned
  };
  for (const auto& [u, want] : cases) {
    INFO(want);
    CHECK(u.render() == want);
  }
}

// ***** walks *****

TEST_CASE("uop: toposort order equals tinygrad's", "[core][uop][walk]") {
  const UOp a = UOp::variable("a", 0, 10), b = UOp::variable("b", -5, 5), c = UOp::variable("c", 1, 8);
  const UOp x = a + b, y = x * c, z = (y + x).maximum(a);
  const UOp s = UOp::sink(z, y, b, UOp::const_(dtypes::weakint, 7));
  auto names = [](const std::vector<UOp>& v) {
    std::vector<std::string> out;
    for (const UOp& u : v) out.push_back(short_str(u));
    return out;
  };
  // tinygrad: [f"{u.op.name}:{u.arg!r}" for u in s.toposort()]
  CHECK(names(s.toposort()) == std::vector<std::string>{"DEFINE_VAR:('a', 0, 10)", "DEFINE_VAR:('b', -5, 5)", "ADD:None",
                                                        "DEFINE_VAR:('c', 1, 8)", "MUL:None", "ADD:None", "MAX:None",
                                                        "CONST:7", "SINK:None"});
  CHECK(names(z.toposort()) == std::vector<std::string>{"DEFINE_VAR:('a', 0, 10)", "DEFINE_VAR:('b', -5, 5)", "ADD:None",
                                                        "DEFINE_VAR:('c', 1, 8)", "MUL:None", "ADD:None", "MAX:None"});
  CHECK(s.toposort().back() == s);
  CHECK(a.toposort() == std::vector<UOp>{a});
  // sources come before their users, each node once
  const auto topo = s.toposort();
  std::unordered_set<UOp> seen;
  for (const UOp& u : topo) {
    for (const UOp& src : u.src()) CHECK(seen.count(src));
    CHECK(seen.insert(u).second);
  }
}

TEST_CASE("uop: in_toposort finds a node at or below a root, and stops there", "[core][uop][walk]") {
  const UOp a = UOp::variable("a", 0, 10), b = UOp::variable("b", -5, 5), c = UOp::variable("c", 1, 8);
  const UOp x = a + b, y = x * c, z = (y + x).maximum(a);
  CHECK(detail::in_toposort(z, z));   // the root itself
  CHECK(detail::in_toposort(a, z));   // a leaf reached two ways
  CHECK(detail::in_toposort(x, y));
  CHECK_FALSE(detail::in_toposort(y, x));  // a user is not below its source
  CHECK_FALSE(detail::in_toposort(c, x));
  CHECK_FALSE(detail::in_toposort(a, UOp()));  // an empty root holds nothing
  // a DAG whose paths double at every level: 2^40 of them over some 120 nodes (a walk without its seen
  // set would not end)
  UOp d = a;
  for (int i = 0; i < 40; ++i) d = (d + d) * (d + 1);
  CHECK(detail::in_toposort(a, d));
  CHECK_FALSE(detail::in_toposort(b, d));
}

TEST_CASE("uop: walks agree with and without the walk lane, and after its epochs run out", "[core][uop][walk]") {
  // fresh nodes only (names and constants no other test makes), so no stale mark of an old walk is on them
  const UOp a = UOp::variable("lane_a", 0, 10), b = UOp::variable("lane_b", -5, 5);
  const UOp x = a + b, s = UOp::sink((x * a + x).maximum(b), x, UOp::const_(dtypes::weakint, 7654321) + a);
  const std::vector<UOp> lane = s.toposort();  // takes the lane: marks in the nodes
  CHECK(lane.size() == 9);
  {
    const detail::LaneHold held;  // a walk holds the lane, so the next one keeps a table
    REQUIRE(held.epoch() != 0);
    CHECK(detail::LaneHold().epoch() == 0);
    CHECK(s.toposort() == lane);
  }
  // s's nodes carry epoch 1; a walk of another graph spends the last epoch; the next walk is epoch 1
  // again and must see s whole, so the epochs' end cleared every live node's mark
  detail::walk_lane().epoch = 0;
  CHECK(s.toposort() == lane);
  detail::walk_lane().epoch = UINT32_MAX - 1;
  CHECK(UOp::sink(a).toposort().size() == 2);
  CHECK(detail::walk_lane().epoch == UINT32_MAX);
  CHECK(s.toposort() == lane);
  CHECK(detail::walk_lane().epoch == 1);
  CHECK(graph_rewrite(s, symbolic) == graph_rewrite(s, symbolic));
  CHECK(s.substitute({{a, b}}).toposort().size() < lane.size());
}

TEST_CASE("uop: substitute, to a fixed point and in one walk, like tinygrad's", "[core][uop][walk]") {
  const UOp a = UOp::variable("a", 0, 10), b = UOp::variable("b", -5, 5), c = UOp::variable("c", 1, 8);
  const UOp x = a + b, y = x * c;
  using Map = std::vector<std::pair<UOp, UOp>>;
  // tinygrad: u.substitute(m).render(simplify=False)
  CHECK(y.substitute({{x, c}}).render() == "(c*c)");
  CHECK((a + b).substitute({{a, b}, {b, c}}).render() == "(c+c)");
  CHECK(((a + b) * a).substitute({{a, c}}).render() == "((c+b)*c)");
  CHECK(((a + 1) * (a + 1) + a).substitute({{a + 1, b}}).render() == "(b*b+a)");
  CHECK(y.substitute({{x, a * 2}, {a, c}}).render() == "(c*2*c)");
  CHECK(((a + b) * c).substitute({{a, b}, {b + b, c}}).render() == "(c*c)");
  CHECK_THROWS_AS((a + b).substitute({{a, b}, {b, a}}), RewriteError);  // tinygrad: infinite loop in fixed_point_rewrite
  CHECK_THROWS_AS((a + b).substitute({{a, a + b}}), RewriteError);      // tinygrad: KeyError (never finishes)
  CHECK_THROWS_WITH((a + b).substitute({{UOp(), b}}), Catch::Contains("substitute: the map holds a null UOp (a key)"));
  CHECK_THROWS_WITH((a + b).substitute({{a, UOp()}}, true), Catch::Contains("substitute: the map holds a null UOp (a value)"));
  // tinygrad: u.substitute(m, walk=True).render(simplify=False)
  CHECK((a + b).substitute({{a, b}, {b, a}}, true).render() == "(b+a)");
  CHECK((a + b).substitute({{a, b}, {b, c}}, true).render() == "(b+c)");
  CHECK((a + b).substitute({{a, a + b}}, true).render() == "(a+b+b)");    // a replacement's own sources are not visited
  CHECK(y.substitute({{x, a * 2}, {a, c}}, true).render() == "(a*2*c)");
  CHECK(((a + b) * c).substitute({{a, b}, {b + b, c}}, true).render() == "((b+b)*c)");
  CHECK((a + b).substitute(Map{}) == a + b);
  CHECK((a + b).substitute({{a, a}}) == a + b);
  CHECK((a + b).substitute({{a + b, c}}) == c);
  // unchanged parts keep their nodes; tags and args survive the rebuild
  const UOp tagged = (a + b).rtag("keep") * c;
  const UOp out = tagged.substitute({{b, c}});
  CHECK(out.src(0).tag() == Arg("keep"));
  CHECK(out.src(1) == c);
  CHECK(out.src(0).src(0) == a);
}

// UOp::substitute takes a direct walk when no replacement reaches a key and there is no CALL / FUNCTION
// (core/rewrite.hpp, substitute_direct); the rewrite engine does every other case. Both must give the
// same node, or both the same error, on random graphs and maps of every kind.
TEST_CASE("uop: substitute's direct walk agrees with the rewrite engine", "[core][uop][walk]") {
  const std::vector<UOp> vars = {UOp::variable("sd_a", 0, 9), UOp::variable("sd_b", -4, 4), UOp::variable("sd_c", 1, 6)};
  std::uint64_t seed = 0x9e3779b97f4a7c15ull;
  auto next = [&](std::uint64_t n) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return std::size_t(seed % n);
  };
  std::size_t direct_shaped = 0;
  for (int round = 0; round < 400; ++round) {
    // a random DAG: each new node combines earlier ones, so subexpressions are shared
    std::vector<UOp> pool = vars;
    pool.push_back(UOp::const_(dtypes::weakint, std::int64_t(next(7))));
    for (int k = 0, n = 3 + int(next(10)); k < n; ++k) {
      const UOp& x = pool[next(pool.size())];
      const UOp& y = pool[next(pool.size())];
      switch (next(6)) {
        case 0: pool.push_back(x + y); break;
        case 1: pool.push_back(x * y); break;
        case 2: pool.push_back(x.maximum(y)); break;
        case 3: pool.push_back(-x); break;
        case 4: pool.push_back(UOp(Ops::CALL, dtypes::weakint, {x, y})); break;  // its body (src 0) is left alone
        default: pool.push_back((x < y).where(x, y)); break;
      }
    }
    const UOp root = UOp::sink(pool.back(), pool[pool.size() / 2]);
    // keys from the graph; values fresh variables, other nodes of the graph, or new expressions of both
    std::vector<std::pair<UOp, UOp>> map;
    for (int k = 0, n = 1 + int(next(3)); k < n; ++k) {
      const UOp key = pool[next(pool.size())];
      UOp value;
      switch (next(4)) {
        case 0: value = UOp::variable("sd_fresh" + std::to_string(k), 0, 5); break;
        case 1: value = pool[next(pool.size())]; break;  // may hold a key: the engine's case
        case 2: value = UOp::variable("sd_fresh" + std::to_string(k), 0, 5) + 1; break;
        default: value = pool[next(pool.size())] * 3; break;
      }
      map.emplace_back(key, value);
    }
    bool direct_case = true;
    for (const auto& [k, v] : map)
      for (const auto& [k2, v2] : map) direct_case = direct_case && (k2 == v2 || !detail::in_toposort(k2, v));
    for (const UOp& u : root.toposort()) direct_case = direct_case && u.op() != Ops::CALL;
    direct_shaped += direct_case;
    INFO("round " << round << " root " << root.render());
    std::optional<UOp> fast, engine;
    bool fast_threw = false, engine_threw = false;
    try { fast = root.substitute(map); } catch (const RewriteError&) { fast_threw = true; }
    try { engine = root.substitute(map, detail::NoRules{}, false); } catch (const RewriteError&) { engine_threw = true; }
    REQUIRE(fast_threw == engine_threw);
    if (!fast_threw) REQUIRE(*fast == *engine);
    if (direct_case) REQUIRE(detail::substitute_direct(root.node(), [&] {
                               detail::SubstituteMap sm;
                               for (const auto& [k, v] : map) if (!(k == v)) sm.map.set(k.node(), v);
                               return sm;
                             }(), map).has_value());
  }
  CHECK(direct_shaped > 100);  // the direct walk was exercised, not only the fallback
}

TEST_CASE("uop: addrspace follows tinygrad's derivation", "[core][uop][walk]") {
  const UOp r = UOp::range(16, 0);
  const UOp pg = UOp::param(0, dtypes::float32.ptr(16));
  const UOp pl = UOp::param(1, dtypes::float32.ptr(16, AddrSpace::LOCAL), {.addrspace = AddrSpace::LOCAL});
  const UOp dl = UOp(Ops::DEFINE_LOCAL, dtypes::float32.ptr(16, AddrSpace::LOCAL), {}, 0);
  const UOp dr = UOp(Ops::DEFINE_REG, dtypes::float32.ptr(4, AddrSpace::REG), {}, 1);
  const UOp ld = pg.index({r}).load(), c = UOp::const_(dtypes::float32, 1.0);
  using AS = std::optional<AddrSpace>;
  const AS G = AddrSpace::GLOBAL, L = AddrSpace::LOCAL, R = AddrSpace::REG, N = std::nullopt;
  // tinygrad: u.addrspace for the same graphs
  const std::vector<std::tuple<std::string, UOp, AS>> cases{
      {"pg", pg, G}, {"pl", pl, L}, {"dl", dl, L}, {"dr", dr, R}, {"ld", ld, R},
      {"idx_pl", pl.index({r}), L}, {"idx_pg", pg.index({r}), G}, {"idx_dl", dl.index({r}), L},
      {"cast_ld", ld.cast(dtypes::float16), R}, {"mixed", ld + pg.index({r}), N}, {"ld_plus_c", ld + c, R},
      {"const", c, N}, {"var", UOp::variable("a", 0, 3), N}, {"range", r, N},
      {"stack_ld", UOp(Ops::STACK, dtypes::float32.vec(2), {ld, ld * 2}), R}, {"after", pg.after({pg.index({r}).store(c)}), G},
      {"gep", UOp(Ops::STACK, dtypes::float32.vec(2), {ld, c}).gep({1, 0}), R}, {"reduce", ld.reduce(Ops::ADD, {r}), R},
      {"reshape", UOp(Ops::RESHAPE, pg.dtype(), {pg, UOp::const_(dtypes::weakint.vec(1), {16})}), G},
      {"store", pg.index({r}).store(c), N}, {"where", (r < 4).where(ld, c), R}, {"local_plus_global", pl.index({r}) + pg.index({r}), N},
      {"local_plus_local", pl.index({r}) + dl.index({r}), L},
      {"buffer", UOp(Ops::BUFFER, dtypes::float32, {UOp(Ops::UNIQUE, dtypes::void_, {}, 0), UOp(Ops::DEVICE, dtypes::void_, {}, "CPU")}, 16), G},
      {"bitcast_ld", ld.bitcast(dtypes::int32), R}, {"sqrt_idx_pl", pl.index({r}).sqrt(), L}, {"sink", UOp::sink(ld), N},
  };
  for (const auto& [name, u, want] : cases) {
    INFO(name);
    CHECK(u.addrspace() == want);
  }
}

// ***** deep graphs: every walk is iterative *****

TEST_CASE("uop: a 100,000-deep chain toposorts, renders and dies without recursion", "[core][uop][deep]") {
  const std::size_t base = live_uops();
  constexpr int depth = 100000;
  {
    const UOp a = UOp::variable("deep_a", 0, 10);
    UOp add = a, mx = a, alt = a;
    for (int i = 0; i < depth; ++i) {
      add = add + 1;
      mx = mx.maximum(1);
      alt = i % 2 == 0 ? alt + 1 : alt * 2;
    }
    const auto topo = add.toposort();
    CHECK(topo.size() == std::size_t(depth + 2));  // a, the const 1, and the ADDs
    CHECK(topo.front() == a);
    CHECK(topo.back() == add);
    CHECK(alt.toposort().size() == std::size_t(depth + 3));
    // tinygrad renders x+1+1 as (a+1+1), max(max(a, 1), 1) and ((a+1)*2+1)*2 as ((((a+1)*2+1)*2)
    std::string want_add = "(deep_a";
    for (int i = 0; i < depth; ++i) want_add += "+1";
    CHECK(add.render() == want_add + ")");
    std::string want_max;
    for (int i = 0; i < depth; ++i) want_max += "max(";
    want_max += "deep_a";
    for (int i = 0; i < depth; ++i) want_max += ", 1)";
    CHECK(mx.render() == want_max);
    std::string want_alt(depth / 2 + 1, '(');
    want_alt += "deep_a+1)*2";
    for (int i = 1; i < depth / 2; ++i) want_alt += "+1)*2";
    CHECK(alt.render() == want_alt + ")");
    // substitute and addrspace walk the whole chain too
    const UOp b = UOp::variable("deep_b", 0, 10);
    CHECK(add.substitute({{a, b}}).toposort().front() == b);
    CHECK_FALSE(add.addrspace().has_value());
    CHECK(live_uops() > base + 3 * std::size_t(depth));
  }
  CHECK(live_uops() == base);  // the last handle died: the whole chain left the table
  // a million-deep chain also dies without recursion
  {
    UOp x = UOp::variable("deep_m", 0, 10);
    for (int i = 0; i < 1000000; ++i) x = x * 1000003;
    CHECK(live_uops() == base + 1000002);
  }
  CHECK(live_uops() == base);
}

TEST_CASE("uop: repr is iterative and exact at depth 3,000", "[core][uop][deep][repr]") {
  UOp x = UOp::variable("a", 0, 10);
  for (int i = 0; i < 3000; ++i) x = i % 2 == 0 ? x + 1 : x * 2;
  const std::string s = x.repr();
  // tinygrad (with sys.setrecursionlimit raised): len(repr(x)), its FNV-1a 64, and its first and last lines
  CHECK(s.size() == 18171155u);
  CHECK(fnv1a(s) == 0x49cfe97256d7fcull);
  const auto ls = lines(s);
  REQUIRE(ls.size() == 6000u + 1);
  CHECK(ls[0] == "UOp(Ops.MUL, dtypes.weakint, arg=None, src=(");
  CHECK(ls[1] == "  UOp(Ops.ADD, dtypes.weakint, arg=None, src=(");
  CHECK(ls[2] == "    UOp(Ops.MUL, dtypes.weakint, arg=None, src=(");
  CHECK(ls[ls.size() - 4] == "        x3000,)),");
  CHECK(ls[ls.size() - 3] == "      x3001,)),");
  CHECK(ls[ls.size() - 2] == "    x3000,)),");
  CHECK(ls[ls.size() - 1] == "  x3001,))");
}

// ***** errors: bad input throws mg::Error naming the operation and the values *****

TEST_CASE("uop: bad input throws mg::Error with a useful message", "[core][uop][errors]") {
  const UOp a = UOp::variable("a", 0, 10);
  const UOp s4 = UOp::const_(dtypes::float32.vec(4), {1.0, 2.0, 3.0, 4.0});
  CHECK_THROWS_AS(UOp::variable("v", 5, 1), Error);
  CHECK_THROWS_WITH(UOp::variable("v", 5, 1), Catch::Contains("variable") && Catch::Contains("'v'") && Catch::Contains("5") &&
                                                  Catch::Contains("1"));
  CHECK_NOTHROW(UOp::variable("v", 3, 3));
  CHECK_THROWS_WITH(a.src(0), Catch::Contains("src(0)") && Catch::Contains("Ops.DEFINE_VAR") && Catch::Contains("0 sources"));
  CHECK_THROWS_WITH((a + 1).src(2), Catch::Contains("src(2)") && Catch::Contains("Ops.ADD") && Catch::Contains("2 sources"));
  CHECK_THROWS_WITH(s4.cast(dtypes::int32).gep(4), Catch::Contains("gep(4)") && Catch::Contains("dtypes.int.vec(4)"));
  CHECK_THROWS_WITH(s4.cast(dtypes::int32).gep({0, -1}), Catch::Contains("gep(-1)"));
  CHECK_THROWS_WITH(s4.gep(4), Catch::Contains("src(4)") && Catch::Contains("Ops.STACK"));
  CHECK_THROWS_WITH(a.gep({0, 1}), Catch::Contains("gep(1)") && Catch::Contains("dtypes.weakint"));
  CHECK_THROWS_WITH(a.alu(Ops::ADD), Catch::Contains("Ops.ADD") && Catch::Contains("takes 2") && Catch::Contains("got 1"));
  CHECK_THROWS_WITH(a.alu(Ops::NEG, {a}), Catch::Contains("Ops.NEG") && Catch::Contains("takes 1") && Catch::Contains("got 2"));
  CHECK_THROWS_WITH(a.alu(Ops::WHERE, {a}), Catch::Contains("Ops.WHERE") && Catch::Contains("takes 3"));
  CHECK_NOTHROW(a.alu(Ops::SINK, {a, a, a}));  // ops without a fixed arity take any count
  CHECK_THROWS_WITH(Arg("s").as_int(), Catch::Contains("as_int") && Catch::Contains("'s'"));
  CHECK_THROWS_WITH(a.arg().as_int(), Catch::Contains("('a', 0, 10)"));
  CHECK_THROWS_WITH((a + 1).expr(), Catch::Contains("expr") && Catch::Contains("Ops.ADD"));
  CHECK_THROWS_WITH(a.bind(11), Catch::Contains("bind(11)") && Catch::Contains("[0, 10]") && Catch::Contains("a"));
  CHECK_THROWS_WITH(a.bind(-1), Catch::Contains("bind(-1)"));
  CHECK_THROWS_WITH((a + 1).bind(1), Catch::Contains("bind(1)") && Catch::Contains("Ops.ADD"));
  CHECK_THROWS_WITH(UOp::const_(dtypes::int32, "x"), Catch::Contains("'x'") && Catch::Contains("dtypes.int"));
  CHECK_THROWS_WITH(UOp::const_(dtypes::int32, NAN_), Catch::Contains("nan"));
  CHECK_THROWS_WITH(UOp::const_(dtypes::float32.vec(4), Arg(ArgTuple{})), Catch::Contains("empty tuple"));
  CHECK_THROWS_WITH(UOp::const_(dtypes::float32.vec(4), {1.0, 2.0}), Catch::Contains("2 values") && Catch::Contains("dtypes.float.vec(4)"));
  CHECK_THROWS_WITH(UOp::stack({}), Catch::Contains("stack"));
  CHECK_THROWS_WITH(s4.broadcast(2), Catch::Contains("broadcast") && Catch::Contains("dtypes.float.vec(4)"));
  CHECK_THROWS_WITH(UOp::range(UOp::const_(dtypes::weakint, 4), 0).arg()[5], Catch::Contains("Arg[5]"));
  CHECK_THROWS_WITH(UOp(Ops::ADD, dtypes::weakint, {a, UOp()}), Catch::Contains("Ops.ADD") && Catch::Contains("source 1") &&
                                                                   Catch::Contains("null"));
  CHECK_THROWS_WITH(UOp::sink(a, UOp()), Catch::Contains("Ops.SINK"));
  CHECK_THROWS_WITH(a + UOp(), Catch::Contains("Ops.ADD") && Catch::Contains("source 1") && Catch::Contains("null"));
  CHECK_THROWS_WITH(UOp::range(UOp(), 0), Catch::Contains("range") && Catch::Contains("null"));
  CHECK_THROWS_WITH(UOp::stack({UOp(), a}), Catch::Contains("stack") && Catch::Contains("null"));
  CHECK_THROWS_WITH(UOp::stack({a, UOp()}), Catch::Contains("Ops.STACK") && Catch::Contains("source 1"));
  // the failed builds left nothing behind in the table
  const std::size_t base = live_uops();
  for (int i = 0; i < 100; ++i) CHECK_THROWS_AS(UOp::const_(dtypes::int32, "bad"), Error);
  CHECK(live_uops() == base);
}

TEST_CASE("uop: every ALU op has a builder that makes one node of it", "[core][uop]") {
  const UOp a = UOp::variable("a", 0, 10), b = UOp::variable("b", 1, 10), c = UOp::variable("c", 0, 3);
  const UOp f = UOp::const_(dtypes::float32, 2.0);
  const std::vector<std::pair<UOp, Ops>> made{
      {f.exp2(), Ops::EXP2}, {f.log2(), Ops::LOG2}, {f.sin(), Ops::SIN}, {f.sqrt(), Ops::SQRT},
      {f.reciprocal(), Ops::RECIPROCAL}, {f.trunc(), Ops::TRUNC}, {f.alu(Ops::NEG), Ops::NEG},
      {a + b, Ops::ADD}, {a * b, Ops::MUL}, {a << b, Ops::SHL}, {a >> b, Ops::SHR}, {a.cdiv(b), Ops::CDIV},
      {a.maximum(b), Ops::MAX}, {a.cmod(b), Ops::CMOD}, {a < b, Ops::CMPLT}, {a.cmplt(b), Ops::CMPLT},
      {a.ne(b), Ops::CMPNE}, {a.cmpne(b), Ops::CMPNE}, {a.cmpeq(b), Ops::CMPEQ}, {a ^ b, Ops::XOR},
      {a | b, Ops::OR}, {a & b, Ops::AND}, {a.threefry(b), Ops::THREEFRY}, {a.sub(b), Ops::SUB},
      {f.fdiv(f), Ops::FDIV}, {f.pow(f), Ops::POW}, {a / b, Ops::FLOORDIV}, {a % b, Ops::FLOORMOD},
      {(a < b).where(a, b), Ops::WHERE}, {a.mulacc(b, c), Ops::MULACC}};
  for (const auto& [u, o] : made) {
    INFO(op_repr(o));
    CHECK(u.op() == o);
    CHECK(u.nsrc() == std::size_t(op_arity(o)));
  }
  CHECK(a.cmpeq(b).dtype() == dtypes::bool_);
  CHECK(a.mulacc(b, c).src(2) == c);
}

TEST_CASE("PtrMap: clear empties a big table too, so a reused rewrite scratch starts empty", "[uop][ptrmap]") {
  // a rewrite's scratch keeps its node -> slot table between rewrites of a thread; clear() used to
  // re-insert every entry of a table over 1024 slots, so the next rewrite saw stale replacements for
  // nodes made at the same addresses (a use after free once rewrites ran on two threads)
  mg::detail::PtrMap<int> m;
  std::vector<int> keys(2000);
  for (std::size_t i = 0; i < keys.size(); ++i) m.set(&keys[i], int(i) + 1);
  REQUIRE(m.size() == 2000);
  m.clear();
  CHECK(m.size() == 0);
  for (const int& k : keys) REQUIRE(m.find(&k) == nullptr);
  m.set(&keys[7], 5);
  CHECK(m.size() == 1);
  CHECK(*m.find(&keys[7]) == 5);
  CHECK(m.find(&keys[8]) == nullptr);
}

TEST_CASE("SmallVec: inline up to N, then the heap, with every element's references kept", "[uop][smallvec]") {
  using mg::UOp;
  const UOp v = mg::Variable("sv", 0, 100);
  std::vector<UOp> made;  // distinct nodes without sources, each held here once
  for (int i = 0; i < 20; ++i) made.push_back(mg::Variable("sv" + std::to_string(i), 0, 100));
  const std::size_t live = mg::live_uops();
  {
    mg::detail::SmallVec<UOp, 4> s;
    CHECK(s.empty());
    for (int i = 0; i < 20; ++i) {
      s.push_back(made[i]);
      REQUIRE(s.size() == std::size_t(i + 1));
      REQUIRE(s.back() == made[i]);
    }
    for (int i = 0; i < 20; ++i) CHECK(s[i] == made[i]);  // the inline four moved to the heap intact
    s.pop_back();
    CHECK(s.size() == 19);
    std::span<const UOp> sp = s;
    CHECK(sp.size() == 19);
    CHECK(sp[18] == made[18]);
    CHECK(UOp::usum(s) == UOp::usum(std::span<const UOp>(made.data(), 19)));
    made.clear();  // now s holds the only references: the one popped dies
    CHECK(mg::live_uops() == live - 1);
    s.resize(2);
    CHECK(s.size() == 2);
    CHECK(mg::live_uops() == live - 18);  // the 17 dropped died with their last reference
  }
  CHECK(mg::live_uops() == live - 20);

  // a node's source pointers: SrcPtrs(n) has n slots to write, on the heap past 8
  for (std::size_t n : {std::size_t(0), std::size_t(3), std::size_t(8), std::size_t(9), std::size_t(40)}) {
    mg::detail::SrcPtrs p(n);
    REQUIRE(p.size() == n);
    for (std::size_t i = 0; i < n; ++i) p[i] = v.node();
    for (const mg::detail::Node* x : p.span()) CHECK(x == v.node());
  }
  mg::detail::SmallVec<std::int64_t, 2> z(5);  // value-initialized
  for (std::int64_t x : z) CHECK(x == 0);
}
