// The code shown in README.md and docs/*.md, run and checked, so the documentation stays true.
#include <catch2/catch.hpp>

#include <vector>

#include <metagrad/metagrad.hpp>

using namespace mg;

namespace {
// README.md
inline constexpr auto readme_fold = rules(
    rule(var<"x"> + 0, [](UOp x) { return x; }),                 // x+0 -> x
    rule(var<"x"> * 0, [](UOp x) { return x.const_like(0); }),   // x*0 -> 0
    rule(var<"x"> + var<"x">, [](UOp x) { return x * 2; }));      // x+x -> x*2

// docs/patterns.md, "Rules"
inline constexpr auto patterns_fold = rules(
    rule(var<"x"> + 0, [](UOp x) { return x; }),
    rule(var<"x"> * 0, [](UOp x) { return x.const_like(0); }),
    rule((var<"x"> + cvar<"c1">) + cvar<"c2">,
         [](UOp x, UOp c1, UOp c2) { return x + x.const_like(c1.arg().as_int() + c2.arg().as_int()); }));

// docs/patterns.md, "Compile-time rewriting"
inline constexpr auto ct_fold = rules(rule(var<"x"> + 0, [](auto x) { return x; }),
                                      rule(var<"x"> * 1, [](auto x) { return x; }));
constexpr bool folds() {
  ct::Graph<32> g;
  auto a = g.variable("a", 0, 10);
  return ct::graph_rewrite((a + 0) * 1, ct_fold) == a;
}
static_assert(folds());

// docs/patterns.md, "Rule sets a library defines"
struct shifts_def {
  template <class T> static constexpr auto make() {
    return sym.get<T>() + rules(  // x*1024 -> x<<10 for a backend that wants shifts
        rule((var<"x"> * 1024).named("m"_n), [](UOp m, UOp x) { return x.dtype() == m.dtype() ? x << 10 : UOp{}; }));
  }
};
inline constexpr LazyRules<shifts_def> shifts{};
// the same set with its patterns deferred for Clang too (MG_RULE_LEAVES)
template <class D = void> struct shifts_deferred_def {
  MG_RULE_LEAVES(D)
  template <class T> static constexpr auto make() {
    return sym.get<T>() + rules(
        rule((var<"x"> * 1024).named("m"_n), [](UOp m, UOp x) { return x.dtype() == m.dtype() ? x << 10 : UOp{}; }));
  }
};
inline constexpr LazyRules<shifts_deferred_def<>> shifts_deferred{};
// docs/patterns.md, the pure set
struct fold_def {
  static constexpr bool pure_rules = true;
  template <class T> static constexpr auto make() { return rules(rule(var<"x"> + 0, [](const UOp& x) { return x; })); }
};
inline constexpr LazyRules<fold_def> fold_pure{};
}  // namespace

TEST_CASE("docs: the README example prints what its comment says", "[docs]") {
  UOp a = UOp::variable("a", 0, 10), b = UOp::variable("b", 0, 10);
  UOp e = (a + 0) + (a + b * 0);
  REQUIRE(e.render() == "(a+0+(a+b*0))");
  REQUIRE(graph_rewrite(e, readme_fold).render() == "(a*2)");
  Tensor t = Tensor::from({1, 2, 3, 4, 5, 6}, {2, 3});
  REQUIRE((t * 2 + 1).sum(1).to_vector<int>() == std::vector<int>{15, 33});
}

TEST_CASE("docs: patterns.md rules and graph_rewrite modes", "[docs]") {
  const UOp a = UOp::variable("a", 0, 10);
  REQUIRE(graph_rewrite(((a + 3) + 4) * 0 + (a + 1) + 2, patterns_fold).render() == "(a+3)");  // 0+(a+1)+2: x+0 matches either order
  std::vector<UOp> seen;
  const auto with_ctx = rules(rule(var<"x"> * 1, [](std::vector<UOp>& s, UOp x) { s.push_back(x); return x; }));
  REQUIRE(graph_rewrite((a * 1) + (a * 1), with_ctx, seen).render() == "(a+a)");
  REQUIRE(seen.size() == 1);  // memoized: the shared a*1 is rewritten once
  REQUIRE(graph_rewrite(a + 0, patterns_fold, seen, {.bottom_up = true}) == a);
  REQUIRE(graph_rewrite(a + 0, patterns_fold, {.walk = true}) == a);
  const UOp idx = UOp::variable("idx", 0, 100);
  REQUIRE(graph_rewrite((idx + 0) * 1024, shifts).render() == "(idx<<10)");
  REQUIRE(shifts.get().size == sym.get().size + 1);
  REQUIRE(shifts.describe(shifts.get().size - 1).find("test_docs.cpp") != std::string::npos);
  REQUIRE(graph_rewrite((idx + 0) * 1024, shifts_deferred) == graph_rewrite((idx + 0) * 1024, shifts));
  const auto pattern_text = [](const std::string& d) { return d.substr(d.find("  ")); };  // without file:line
  REQUIRE(pattern_text(shifts_deferred.describe(sym.get().size)) == pattern_text(shifts.describe(sym.get().size)));
  REQUIRE(pattern_text(shifts.describe(sym.get().size)).find("UPat(") != std::string::npos);
  const UOp e = (idx + 0) * (a + 0);
  const UOp r = graph_rewrite(e, fold_pure);
  REQUIRE(r == idx * a);
  REQUIRE(graph_rewrite(r * 3, fold_pure) == r * 3);
  REQUIRE(graph_rewrite(e, fold_pure.get()) == r);
}

TEST_CASE("docs: uop.md examples", "[docs]") {
  UOp a = UOp::variable("a", 0, 10);
  UOp e = a * 4 + UOp::const_(dtypes::weakint, 2);
  UOp same = UOp(Ops::ADD, dtypes::weakint, {a * 4, a.const_like(2)});
  REQUIRE(e == same);
  REQUIRE(e.render() == "(a*4+2)");
  REQUIRE(e.rtag().tag() == Arg(true));
  REQUIRE(e.replace({.src = std::vector<UOp>{e.src(1), e.src(0)}}).render() == "(2+a*4)");
  REQUIRE(UOp::const_(dtypes::int32.vec(2), {1, 2}).op() == Ops::STACK);
  const UOp b = UOp::variable("b", 0, 10), c = UOp::variable("c", 0, 10);
  REQUIRE((a + b).substitute({{a, b}, {b, c}}).render() == "(c+c)");
  REQUIRE((a + b).substitute({{a, b}, {b, c}}, true).render() == "(b+c)");
  REQUIRE_THROWS_WITH(UOp::variable("x", 5, 2), "UOp::variable('x'): min 5 > max 2");
  REQUIRE_THROWS_WITH(a.alu(Ops::ADD), "UOp::alu(Ops.ADD): takes 2 sources, got 1");
  // UOpMap
  UOpMap<UOp> m;
  m[a] = b;
  REQUIRE(m.try_emplace(c, a).second);
  REQUIRE_FALSE(m.try_emplace(c, b).second);
  std::vector<UOp> order;
  for (const auto& [k, v] : m) order.push_back(k);
  REQUIRE(order == std::vector<UOp>{a, c});
  if (auto it = m.find(a); it != m.end()) it->second = c;
  REQUIRE(m.at(a) == c);
  REQUIRE(m.erase(a) == 1);
  REQUIRE_THROWS_WITH(m.at(a), "UOpMap::at: no entry for this Ops.DEFINE_VAR node");
}

// docs/symbolic.md
TEST_CASE("docs: symbolic.md examples", "[docs]") {
  UOp a = UOp::variable("a", 0, 8);
  UOp e = ((a + 3) % 4) + ((a + 3) / 4) * 4;
  REQUIRE(e.render() == "((a+3)%4+(a+3)//4*4)");
  REQUIRE(simplify(e).render() == "(a+3)");
  REQUIRE(simplify(e).vmin() == 3);
  REQUIRE(simplify(e).vmax() == 11);
  REQUIRE(resolve(a < 9));
  REQUIRE(!resolve(a < 3, false));
  REQUIRE(sym_infer(a * 3 + 1, {{"a", 2}}) == 7);
  REQUIRE(render(a * 4 / 2) == "(a*2)");
  REQUIRE(std::get<std::int64_t>(ssimplify(a * 0 + 3)) == 3);
  REQUIRE(Variable("b", 1, 4) == UOp::variable("b", 1, 4));
  UOp p = UOp::variable("p", 0, 10), prod = p;
  for (int i = 0; i < 21; ++i) prod = prod * p;
  REQUIRE(prod.vmax().repr() == "10000000000000000000000");
  REQUIRE(prod.overflows(dtypes::int64));
  static const auto my_rules = sym + rules(rule(var<"x"> * 1024, [](UOp x) { return x << 10; }));
  UOp idx = UOp::variable("idx", 0, 100);
  REQUIRE(graph_rewrite((idx + 0) * 1024, my_rules).render() == "(idx<<10)");
  static const auto two_stage = rules(rule((var<"x"> + cvar<"c1">) + cvar<"c2">, [](const UOp& x, const UOp& c1, const UOp& c2) {
    return x + detail::fold_alu(Ops::ADD, c1, c2);  // (a+2)+3 -> a+5, no (2+3) node on the way
  }));
  REQUIRE(graph_rewrite((a + 2) + 3, two_stage) == a + 5);
  {
    UOp a = Variable("a", 0, 5), y = Variable("y", 0, 23), x = a * 24 + y;
    UOp idx = (x % 25 < 20).where(x / 25 * 20 + x % 25, UOp::invalid());
    REQUIRE(graph_rewrite(idx, sym).render() == "((y+a*19) if ((((y+a*-1)<0)!=True)&((y+a*-1)<20)) else Invalid)");
  }
}

// README.md, the Tensor example
TEST_CASE("docs: README tensor example", "[docs]") {
  Tensor t = Tensor::from({1, 2, 3, 4, 5, 6}, {2, 3});
  REQUIRE((t * 2 + 1).sum(1).to_vector<int>() == std::vector<int>{15, 33});
  Tensor::manual_seed(0);
  nn::Linear layer(3, 1);
  auto opt = nn::SGD(nn::get_parameters(layer), {.lr = 0.01});
  Tensor::Train train;
  Tensor x = t.cast(dtypes::float32);
  float before = (layer(x) - 1).square().mean().item<float>();
  (layer(x) - 1).square().mean().backward();
  opt.step();
  REQUIRE((layer(x) - 1).square().mean().item<float>() < before);
}

// docs/tensor.md
TEST_CASE("docs: tensor.md examples", "[docs]") {
  Tensor a = Tensor::from({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = (a * 2 + 1).sum(1);
  REQUIRE(b.to_vector<int>() == std::vector<int>{15, 33});
  REQUIRE((a / 2).dtype() == dtypes::float32);
  REQUIRE(a.permute({1, 0}).pad({{1, 0}, std::nullopt}).shape() == Shape{4, 2});
  REQUIRE(Tensor::from({1.5, -2.25}).relu().to_vector<float>() == std::vector<float>{1.5f, 0.0f});
  REQUIRE_THROWS_WITH(a.reshape({4, 2}), "reshape: size mismatch, can't reshape (2, 3) -> (4, 2)");
  REQUIRE_THROWS_WITH(a + Tensor::from({1, 2}), "broadcast: shapes (2, 3), (2,) cannot broadcast together");
  REQUIRE_THROWS_WITH(a.sum(2), "reduce: dim 2 out of range for shape (2, 3)");
  Tensor x = Tensor::from({1.0, 2.0, 3.0});
  (x * x).sum().backward();
  REQUIRE(x.grad()->to_vector<float>() == std::vector<float>{2, 4, 6});
  Tensor w = Tensor::eye(3), y = Tensor::from({2.0, 0.0, -2.0}, {1, 3});
  auto g = y.matmul(w).sum().gradient({w, y});
  REQUIRE(g[1].to_vector<float>() == std::vector<float>{1, 1, 1});
  Tensor wt = Tensor::from({1.0, 2.0, 3.0, 4.0}, {2, 2});
  Tensor row = wt.reshape({4});
  wt.assign(wt * 10);
  REQUIRE(row.to_vector<float>() == std::vector<float>{10, 20, 30, 40});
  wt[1].assign(wt[1] + 1);
  REQUIRE(wt.to_vector<float>() == std::vector<float>{10, 20, 31, 41});
}
