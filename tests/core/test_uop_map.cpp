// Tests of core/uop_map.hpp: UOpMap keeps insertion order like a Python dict, finds by node identity,
// holds its keys alive, and reports a missing key or a null key as an mg::Error.
#include <catch2/catch.hpp>
#include <metagrad/metagrad.hpp>

#include <string>
#include <vector>

using namespace mg;

namespace {
std::vector<std::string> keys_in_order(const UOpMap<int>& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(k.expr() + "=" + std::to_string(v));
  return out;
}
UOp vv(const char* name) { return UOp::define_var(name, 0, 10); }
}  // namespace

TEST_CASE("UOpMap iterates in insertion order and finds by identity", "[uop_map]") {
  UOpMap<int> m;
  CHECK(m.empty());
  const UOp c = vv("c"), a = vv("a"), b = vv("b");
  m[c] = 1;
  m[a] = 2;
  m[b] = 3;
  m[c] = 4;  // assigning keeps the place
  CHECK(m.size() == 3);
  CHECK(keys_in_order(m) == std::vector<std::string>{"c=4", "a=2", "b=3"});
  // the same node built again is the same key
  CHECK(m.at(vv("a")) == 2);
  CHECK(m.contains(vv("b")));
  CHECK(m.count(vv("b")) == 1);
  CHECK_FALSE(m.contains(vv("d")));
  CHECK(m.find(vv("d")) == m.end());
  auto it = m.find(b);
  REQUIRE(it != m.end());
  CHECK(it->first == b);
  it->second = 30;
  CHECK(m.at(b) == 30);
}

TEST_CASE("UOpMap insertion: try_emplace, emplace, insert_or_assign, initializer list", "[uop_map]") {
  const UOp x = vv("x"), y = vv("y");
  UOpMap<int> m{{x, 1}, {y, 2}, {x, 5}};  // a later duplicate overwrites, as a dict literal does
  CHECK(keys_in_order(m) == std::vector<std::string>{"x=5", "y=2"});
  auto [it, fresh] = m.try_emplace(x, 9);
  CHECK_FALSE(fresh);
  CHECK(it->second == 5);
  CHECK(m.emplace(vv("z"), 7).second);
  auto [it2, fresh2] = m.insert_or_assign(y, 8);
  CHECK_FALSE(fresh2);
  CHECK(it2->second == 8);
  CHECK(keys_in_order(m) == std::vector<std::string>{"x=5", "y=8", "z=7"});
}

TEST_CASE("UOpMap erase keeps the order of the rest and the index right", "[uop_map]") {
  UOpMap<int> m;
  const UOp a = vv("a"), b = vv("b"), c = vv("c"), d = vv("d");
  m[a] = 1, m[b] = 2, m[c] = 3, m[d] = 4;
  CHECK(m.erase(b) == 1);
  CHECK(m.erase(b) == 0);
  CHECK(keys_in_order(m) == std::vector<std::string>{"a=1", "c=3", "d=4"});
  CHECK(m.at(c) == 3);
  CHECK(m.at(d) == 4);
  CHECK_FALSE(m.contains(b));
  m[b] = 5;  // back at the end
  CHECK(keys_in_order(m) == std::vector<std::string>{"a=1", "c=3", "d=4", "b=5"});
  m.clear();
  CHECK(m.empty());
  CHECK_FALSE(m.contains(a));
  m[d] = 6;
  CHECK(keys_in_order(m) == std::vector<std::string>{"d=6"});
}

TEST_CASE("UOpMap holds its keys and values alive", "[uop_map]") {
  const std::size_t before = live_uops();
  {
    UOpMap<UOp> m;
    m[UOp::define_var("held_key", 0, 3)] = UOp::define_var("held_value", 0, 3);  // both temporaries die here
    CHECK(live_uops() >= before + 2);
    const UOp k = UOp::define_var("held_key", 0, 3);
    CHECK(m.at(k).expr() == "held_value");
  }
  CHECK(live_uops() == before);
}

TEST_CASE("UOpMap errors: a missing key, a null key", "[uop_map]") {
  UOpMap<int> m;
  m[vv("a")] = 1;
  CHECK_THROWS_WITH(m.at(vv("b")), "UOpMap::at: no entry for this Ops.DEFINE_VAR node");
  CHECK_THROWS_WITH(m.at(UOp{}), "UOpMap::at: no entry for a null UOp");
  CHECK_THROWS_WITH(m[UOp{}], "UOpMap: a null UOp as a key");
  CHECK_FALSE(m.contains(UOp{}));
  CHECK(m.find(UOp{}) == m.end());
  CHECK(m.erase(UOp{}) == 0);
  CHECK(m.size() == 1);
}
