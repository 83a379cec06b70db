// parse_sym (tinygrad's render syntax read back) and the Json reader/writer
#include <catch2/catch.hpp>

#include <metagrad/core/json.hpp>
#include <metagrad/symbolic/parse.hpp>

#include <cmath>
#include <string>
#include <vector>

using mg::UOp;

namespace {

const std::vector<UOp> abc{UOp::variable("a", 0, 10), UOp::variable("b", 0, 10), UOp::variable("c", -5, 5),
                           UOp::variable("d", 1, 8), UOp::variable("e", -100, 100)};
std::string rt(const std::string& s) { return mg::parse_sym(s, abc).render(); }

// tinygrad's render(simplify=False) of random graphs built with its Python operators (a..e as in abc), and of
// what tinygrad's simplify made of others: each must read back to a graph that renders the same
const char* const tinygrad_renders[] = {
    "((3+b*-1)//(a+0*-1))",
    "(((e*d^5&b)&b//d*-1)%3)",
    "(max((cmod((b*-1), -7)^-1), (-1+7+(-1 if (e<4) else -2)*-1^-1))^-1)",
    "(max((d if (8<(8>>2)) else (7+e*-1^a)), 2)%(0+(b if (e<4) else 1)*-1*-1))",
    "(((cmod((c+4*-1), -2)!=1)!=True)!=True)",
    "max((-1*(a if (c<4) else 0)), 100)",
    "(((-3>>1)+max(a, -2)*-1)*(max((d^-1), (max((b^-1), (a^-1))^-1^-1))^-1))",
    "(c if ((100<8)|(e<100)) else -1)",
    "((e if (c<100) else d)*-1)",
    "(((c<4)!=True)!=True)",
    "((1<(max((max((8^c), -1)^-1), ((b if (e<-1) else 2)//1^-1))^-1))!=True)",
    "(a^(-100^-1)*-100%1)",
    "((((c<<2) if ((e<-7)!=True) else (max(c, 16)*5))+a*-1)%cdiv(((4>>0)*(d%3)+2*e*-1), 2))",
    "(max((cdiv(a, 8)^-1), (100+1^-1))^-1^(a+-1*-1)%5)",
    "(((b<4)!=True)!=True)",
    "((0%d+(e if (b<-100) else e)*-1)//max((e if (b<3) else -2), (d|-100)))",
    "cmod((max(7, 8)*-1), 8)",
    "((((b<b)!=True)!=True)|((((-3<1)!=True)!=True)!=True))",
    "(((-7//5)<max(-100, 16))!=True)",
    "(((a//-3|-3)!=d)!=True)",
    "(((((8<1)|(100<-100))&(a!=-1))!=True)!=True)",
    "((((-3<1)|(5<-7))^((b<7)^(a<3)))&(((-100 if (d<-2) else -1)<-100)!=True))",
    "((max(a, 5)<(c*c))!=True)",
    "(((a<0)!=True) if ((e<e)!=True) else ((e<7)!=(e<-100)))",
    "max((a%b), ((16+d*-1)%cmod(e, -2)))",
    "(7+(max((b^-1), (-7^-1))^-1)>>1)",
    "((((b<d)&((7<a)^(b!=-1)))!=True)!=True)",
    "(cmod(max(cdiv(b, 5), (-2+8*-1)), -3)^-1)",
    "cdiv((e+cmod(max(0, 2), -1)), -2)",
    "((-1+cdiv(1, -2))%-7//(a+7*-1)^e*b)",
    "(((max((-2^-1), (e^-1))^-1)%5)<d)",
    "cmod((4+100*((2&b)+(a<<0)*-1)*-1), 7)",
    "((((a//7) if (-100<1) else 2) if (((b<1)&(a<1)) if (c!=-2) else (e<-1)) else 0)&cdiv(max((e+e), 2), 3))",
    "(b//(max((d^-1), (d^0^-1))^-1))",
    "((16>>2>>1)//(e%d>>2))",
    "(a^cmod(max(-1, 4), 5))",
    "(max((cdiv(d, -2)%b^-3+b*-1^-1), (16%e%(0%7)%16^-1))^-1)",
    "((((b|4)&(d^-2))<(a*-1*(a//1)))!=True)",
    "((a if (c<16) else 0)+(c^b))",
    "(((0+(3+e)//16)<16)!=True)",
    "cdiv((d*-1*16<<2), 4)",
    "((((0*d)<(2+d*-1))!=True)&((max(e, 3)<(e%2))!=True))",
    "(((max(d, 5)<(c%d))!=True)&(max(3, e)<(d^-1)))",
    "((((-100*-1)<(1//3))!=True)&(((-2<1)!=True)!=True))",
    "(max((a^-1), (((a//1) if (((1<5)!=True)!=True) else 4)^-1))^-1)",
    "(((b<5)!=True)!=False)",
    "(((a*-1&cdiv(b, 5))>>2&-1)%2)",
    "((4<c)!=True)",
    "(((a+(a^-1))%8) if (max((c+2), (d//4))!=(a+((b//2) if (e<-3) else (a*-1)))) else ((a+16^-1)*16^-1))",
    "(cmod(b, 1)+-1)",
    "(((max((cdiv(d, -3)^-1), 0)^-1)>>3)+((e//a) if (a<5) else (c+16))>>2)",
    "(cdiv(a, -7)//(e^(e if (d<8) else (max((a^-1), (c^-1))^-1)))*100)",
    "((e>>0)*-1+5)",
    "(cdiv((max(a, b)*16), 3)*((7%e^-1)//(b+16))//((cdiv((d if (e<-3) else c), 16) if (e<4) else 5)%-7))",
    "((d+3)//(a|8)%-7)",
    "(((a//3*-1+2)%-7^-1)*-1)",
    "(a if (e<100) else c)",
    "((cdiv(e, -3)*-1+102^-1)*-1+(b+-4^-1)%5*-1+10)",
    "((b!=8)!=True)",
    "(((d!=b)!=True)&((a<b)!=True))",
    "(16 if (d<7) else c)",
    "(-3 if (e<2) else 5)",
    "(((cdiv(c, -2)|7) if (c<0) else e)|2)",
    "((c^-1)//16^-1)",
    "max((b+e), 1)",
};

}  // namespace

TEST_CASE("parse_sym reads tinygrad's renders back", "[parse]") {
  for (const char* s : tinygrad_renders) {
    INFO(s);
    CHECK(rt(s) == s);
  }
}

TEST_CASE("parse_sym builds what tinygrad's Python operators build", "[parse]") {
  const UOp &a = abc[0], &b = abc[1], &c = abc[2];
  auto p = [](const char* s) { return mg::parse_sym(s, abc); };
  CHECK(p("a-b") == a - b);
  CHECK(p("a - b") == a + b * a.const_like(-1));
  CHECK(p("-a") == a * a.const_like(-1));
  CHECK(p("a<=b") == (b < a).ne(UOp::const_(mg::dtypes::bool_, true)));
  CHECK(p("a>=b") == (a >= b));
  CHECK(p("a>b") == (b < a));
  CHECK(p("a==b") == a.eq(b));
  CHECK(p("a!=b") == a.ne(b));
  CHECK(p("min(a, c)") == a.minimum(c));
  CHECK(p("max(a, 3)") == a.maximum(a.const_like(3)));
  CHECK(p("cdiv(a, 3)") == a.cdiv(a.const_like(3)));
  CHECK(p("cmod(c, b)") == c.cmod(b));
  CHECK(p("a//b") == a.floordiv(b));
  CHECK(p("a%b") == a.floormod(b));
  CHECK(p("(a if (a<3) else c)") == (a < 3).where(a, c));
  CHECK(p("a*True") == a * 1);  // a literal takes the dtype of the expression beside it, as tinygrad's ufix does
  // literals: Python folds -3, -(3) and ~3; integers are weakint and True/False bool constants
  CHECK(p("-3") == UOp::const_(mg::dtypes::weakint, -3));
  CHECK(p("-(3)") == p("-3"));
  CHECK(p("~3") == UOp::const_(mg::dtypes::weakint, -4));
  CHECK(p("True") == UOp::const_(mg::dtypes::bool_, true));
  CHECK(p("False").dtype() == mg::dtypes::bool_);
  CHECK(p("-9223372036854775808").arg().as_int() == INT64_MIN);
  CHECK(p("(a<3)").dtype() == mg::dtypes::bool_);
  // mixed dtypes are cast to their least upper dtype, as tinygrad's _broadcasted does
  CHECK(rt("a+(a<3)") == "(a+(weakint)((a<3)))");
  // variables keep their own dtype, and literals beside them take it
  const UOp i32 = UOp::variable("i", 0, 7, mg::dtypes::int32);
  const UOp r = mg::parse_sym("i*4+1", std::span(&i32, 1));
  CHECK(r.dtype() == mg::dtypes::int32);
  CHECK(r == i32 * 4 + 1);
}

TEST_CASE("parse_sym follows Python's precedence", "[parse]") {
  // the text, and tinygrad's render of the same Python expression
  const std::pair<const char*, const char*> cases[] = {
    {"a+b*c", "(a+b*c)"},
    {"(a+b)*c", "((a+b)*c)"},
    {"a-b-c", "(a+b*-1+c*-1)"},
    {"a-(b-c)", "(a+(b+c*-1)*-1)"},
    {"-a*b", "(a*-1*b)"},
    {"a*-b", "(a*(b*-1))"},
    {"a//b*c", "(a//b*c)"},
    {"a//(b*c)", "(a//(b*c))"},
    {"a*b%c", "(a*b%c)"},
    {"a+b<c*2", "((a+b)<(c*2))"},
    {"a<<1+b", "(a<<1+b)"},
    {"a&b+1", "(a&b+1)"},
    {"a|b^c&a", "(a|b^c&a)"},
    {"a+b if a<b else c-1", "((a+b) if (a<b) else (c+1*-1))"},
    {"a if a<1 else b if b<2 else c", "(a if (a<1) else (b if (b<2) else c))"},
    {"(a if a<1 else b) if b<2 else c", "((a if (a<1) else b) if (b<2) else c)"},
    {"a if (b if a<1 else c)<2 else c", "(a if ((b if (a<1) else c)<2) else c)"},
    {"-(a+b)", "((a+b)*-1)"},
    {"--a", "(a*-1*-1)"},
    {"-(-3)", "3"},
    {"3 - -a", "(3+a*-1*-1)"},
    {"a - -3", "(a+-3*-1)"},
    {"~a", "(a^-1)"},
    {"a == b+1", "((a!=(b+1))!=True)"},
    {"a <= 3", "((3<a)!=True)"},
    {"3 <= a", "((a<3)!=True)"},
    {"3 > a", "(a<3)"},
    {"max(a, min(b, 3))", "max(a, (max((b^-1), (3^-1))^-1))"},
    {"cdiv(a+1, 3)*2", "(cdiv((a+1), 3)*2)"},
    {"(a<b)!=(b<c)", "((a<b)!=(b<c))"},
    {"(a<3)&(b<3)|(c<0)", "((a<3)&(b<3)|(c<0))"},
    {" \t( a +\n b ) ", "(a+b)"},
  };
  for (const auto& [text, render] : cases) {
    INFO(text);
    CHECK(rt(text) == render);
  }
}

TEST_CASE("parse_sym errors name the column and the problem", "[parse]") {
  auto err = [](const char* s) {
    try {
      mg::parse_sym(s, abc);
    } catch (const mg::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(err("") == "parse_sym: at column 1 of \"\": expected an expression, got end of input");
  CHECK(err("a +") == "parse_sym: at column 4 of \"a +\": expected an expression, got end of input");
  CHECK(err("a b") == "parse_sym: at column 3 of \"a b\": expected an operator, got 'b'");
  CHECK(err("a * * b") == "parse_sym: at column 5 of \"a * * b\": expected an expression, got '*'");
  CHECK(err("(a") == "parse_sym: at column 1 of \"(a\": '(' is never closed");
  CHECK(err("a)") == "parse_sym: at column 2 of \"a)\": unmatched ')'");
  CHECK(err("()") == "parse_sym: at column 2 of \"()\": expected an expression, got ')'");
  CHECK(err("a,b") == "parse_sym: at column 2 of \"a,b\": unexpected ','");
  CHECK(err("a/b") == "parse_sym: at column 2 of \"a/b\": '/' is true division, integer expressions use '//'");
  CHECK(err("a=b") == "parse_sym: at column 2 of \"a=b\": unexpected '=' (comparison is '==')");
  CHECK(err("a$b") == "parse_sym: at column 2 of \"a$b\": unexpected character '$'");
  CHECK(err("3a") == "parse_sym: at column 1 of \"3a\": invalid integer literal");
  CHECK(err("a+07") == "parse_sym: at column 3 of \"a+07\": leading zeros in integer literal '07'");
  CHECK(err("x+1") == "parse_sym: at column 1 of \"x+1\": unknown variable 'x'");
  CHECK(err("foo(a)") == "parse_sym: at column 1 of \"foo(a)\": unknown function 'foo' (known: max, min, cdiv, cmod)");
  CHECK(err("max(a)") == "parse_sym: at column 1 of \"max(a)\": max() takes 2 arguments, got 1");
  CHECK(err("cdiv(a, b, c)") == "parse_sym: at column 1 of \"cdiv(a, b, c)\": cdiv() takes 2 arguments, got 3");
  CHECK(err("max()") == "parse_sym: at column 5 of \"max()\": expected an expression, got ')'");
  // Python reads a<b<c as a<b and b<c: rejected rather than read as (a<b)<c
  CHECK(err("a<b<c") == "parse_sym: at column 4 of \"a<b<c\": chained comparison: Python reads a<b<c as (a<b and b<c), write (a<b)<c or (a<b)&(b<c)");
  CHECK(err("a==b!=c") == "parse_sym: at column 5 of \"a==b!=c\": chained comparison: Python reads a<b<c as (a<b and b<c), write (a<b)<c or (a<b)&(b<c)");
  CHECK(rt("(a<b)<c") == "((weakint)((a<b))<c)");  // a bool beside an int is cast, as in tinygrad
  CHECK(err("a if b") == "parse_sym: at column 7 of \"a if b\": expected 'else' for the 'if' at column 3");
  CHECK(err("a else b") == "parse_sym: at column 3 of \"a else b\": 'else' without 'if'");
  CHECK(err("a if b if c else d else e") == "parse_sym: at column 8 of \"a if b if c else d else e\": a conditional inside a condition needs parentheses");
  // division and modulo by a literal zero, whatever its spelling
  CHECK(err("(a//0)") == "parse_sym: at column 3 of \"(a//0)\": division by zero: (a//0)");
  CHECK(err("a*4//(0)") == "parse_sym: at column 4 of \"a*4//(0)\": division by zero: (a*4//0)");
  CHECK(err("a%-0") == "parse_sym: at column 2 of \"a%-0\": modulo by zero: (a%0)");
  CHECK(err("a%False") == "parse_sym: at column 2 of \"a%False\": modulo by zero: (a%0)");
  CHECK(err("cdiv(a, 0)") == "parse_sym: at column 1 of \"cdiv(a, 0)\": division by zero: cdiv(a, 0)");
  CHECK(err("cmod(a, 0)") == "parse_sym: at column 1 of \"cmod(a, 0)\": modulo by zero: cmod(a, 0)");
  CHECK(rt("a//(b*0)") == "(a//(b*0))");  // not a literal: left to simplify
  // int64 literals
  CHECK(err("9223372036854775808") == "parse_sym: at column 1 of \"9223372036854775808\": integer literal 9223372036854775808 out of int64 range");
  CHECK(err("-9223372036854775809") == "parse_sym: at column 1 of \"-9223372036854775809\": integer literal -9223372036854775809 out of int64 range");
  CHECK(err("a+99999999999999999999999999999999999999999999") ==
        "parse_sym: at column 3 of \"a+99999999999999999999999999999999999999999999\": integer literal "
        "99999999999999999999999999999999999999999999 out of int64 range");
  CHECK(rt("9223372036854775807") == "9223372036854775807");
  // a long text shows the part around the column
  std::string longer = "a+" + std::string(100, '(') + "b+x" + std::string(100, ')');
  CHECK(err(longer.c_str()) ==
        "parse_sym: at column 105 near \"..." + std::string(28, '(') + "b+x" + std::string(29, ')') + "...\": unknown variable 'x'");
  // the variables themselves
  const std::vector<UOp> bad{UOp::variable("a", 0, 1), UOp::const_(mg::dtypes::weakint, 1)};
  CHECK_THROWS_WITH(mg::parse_sym("a", bad), "parse_sym: vars[1] is not a DEFINE_VAR");
  const std::vector<UOp> twice{UOp::variable("a", 0, 1), UOp::variable("a", 0, 2)};
  CHECK_THROWS_WITH(mg::parse_sym("a", twice), "parse_sym: two different variables named 'a'");
}

TEST_CASE("parse_sym limits the nesting depth and keeps no C++ recursion", "[parse]") {
  const int n = mg::parse_sym_max_depth;
  const std::string ok = std::string(n, '(') + "a+1" + std::string(n, ')');
  CHECK(rt(ok) == "(a+1)");
  const std::string deep = std::string(n + 1, '(') + "a" + std::string(n + 1, ')');
  CHECK_THROWS_WITH(mg::parse_sym(deep, abc), Catch::Contains("expression nested deeper than 10000 levels") && Catch::Contains("column 10001 "));
  CHECK_THROWS_WITH(mg::parse_sym(std::string(n + 1, '-') + "a", abc), Catch::Contains("nested deeper than 10000 levels"));
  std::string conds = "a";
  for (int i = 0; i <= n; ++i) conds += " if b<1 else a";
  CHECK_THROWS_WITH(mg::parse_sym(conds, abc), Catch::Contains("nested deeper than 10000 levels"));
  // a long flat chain is not nesting: 100k terms
  std::string chain = "a";
  for (int i = 0; i < 100000; ++i) chain += "+b";
  UOp u = mg::parse_sym(chain, abc);
  CHECK(u.vmax().as_int() == 1000010);
  CHECK(u.render().size() == chain.size() + 2);
}

// ---------------------------------------------------------------- Json

TEST_CASE("parse_json reads every kind of value", "[json]") {
  mg::Json j = mg::parse_json(R"( {"n": null, "t": true, "f": false, "i": -42, "big": 9223372036854775807,
    "small": -9223372036854775808, "huge": 92233720368547758080, "d": 1.5e-3, "e": 2E2, "s": "x\"\\\/\b\f\n\r\t\u00e9\u20ac\ud83d\ude00",
    "a": [1, [2, []], {}], "o": {"z": 1, "a": 2}} )");
  CHECK(j["n"].is_null());
  CHECK(j["t"].as_bool());
  CHECK_FALSE(j["f"].as_bool());
  CHECK(j["i"].as_int() == -42);
  CHECK(j["big"].as_int() == INT64_MAX);
  CHECK(j["small"].as_int() == INT64_MIN);
  CHECK(j["huge"].is_double());
  CHECK(j["huge"].as_double() == 92233720368547758080.0);
  CHECK(j["d"].as_double() == 1.5e-3);
  CHECK(j["e"].is_double());
  CHECK(j["e"].as_double() == 200.0);
  CHECK(j["s"].as_string() == "x\"\\/\b\f\n\r\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  CHECK(j["a"].size() == 3);
  CHECK(j["a"][1][0].as_int() == 2);
  CHECK(j["a"][1][1].size() == 0);
  CHECK(j["a"][2].is_object());
  CHECK(j["o"].as_object()[0].first == "z");  // insertion order
  CHECK(j.find("missing") == nullptr);
  CHECK(mg::parse_json("1e400").as_double() == HUGE_VAL);  // out of a double's range, as Python's json reads it
  CHECK(mg::parse_json("-1e400").as_double() == -HUGE_VAL);
  CHECK(mg::parse_json("1e-400").as_double() == 0.0);
  CHECK(mg::parse_json("0.0000001e-400").as_double() == 0.0);
  CHECK(mg::parse_json("10000000000e-320").as_double() == 1e-310);
  CHECK(mg::parse_json("\"\"").as_string().empty());
}

TEST_CASE("Json dumps compact JSON that reads back the same", "[json]") {
  const char* texts[] = {
      R"({"n":null,"t":true,"i":-42,"d":0.1,"x":1e+300,"one":1.0,"s":"q\"\\\n\u0001é","a":[1,[],{}],"o":{"b":1,"a":[2]}})",
      R"([])", R"({})", R"(9223372036854775807)", R"(-9223372036854775808)", R"("")", R"([0.5,-0.0,1e-07])",
  };
  for (const char* t : texts) {
    INFO(t);
    mg::Json j = mg::parse_json(t);
    CHECK(j.dump() == t);
    CHECK(mg::parse_json(j.dump()) == j);
  }
  CHECK(mg::parse_json(" [ 1 , 2 ] ").dump() == "[1,2]");
  CHECK(mg::parse_json(R"("\u00e9\/")").dump() == "\"\xc3\xa9/\"");
  CHECK(mg::parse_json(R"({"a":1,"b":2,"a":3})").dump() == R"({"a":3,"b":2})");  // a repeated key: first place, last value
  std::string many = "{";
  for (int i = 0; i < 100; ++i) many += "\"k" + std::to_string(i % 50) + "\":" + std::to_string(i) + (i < 99 ? "," : "}");
  mg::Json m = mg::parse_json(many);
  CHECK(m.size() == 50);
  CHECK(m["k0"].as_int() == 50);
  CHECK(m.as_object()[49].first == "k49");
  // building values
  mg::Json o = mg::Json::object({{"name", "a"}, {"bounds", mg::Json::array({0, 10})}, {"ok", true}, {"x", 2.5}, {"n", nullptr}});
  o.set("name", "b");
  o.as_object().emplace_back("u", std::uint64_t(18446744073709551615u));
  CHECK(o.dump() == R"({"name":"b","bounds":[0,10],"ok":true,"x":2.5,"n":null,"u":18446744073709551616.0})");
  CHECK(mg::Json(std::nan("")).dump() == "null");
  CHECK(mg::Json(3.0).dump() == "3.0");
  CHECK(mg::Json(std::string("\x1f\x7f")).dump() == "\"\\u001f\x7f\"");
  CHECK(mg::Json(1) == mg::Json(1.0));
}

TEST_CASE("parse_json errors name the offset, line and column", "[json]") {
  auto err = [](std::string_view s) {
    try {
      mg::parse_json(s);
    } catch (const mg::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(err("") == "parse_json: expected a value, got end of input at offset 0 (line 1, column 1)");
  CHECK(err("[1,]") == "parse_json: expected a value, got ']' at offset 3 (line 1, column 4)");
  CHECK(err("[1 2]") == "parse_json: expected ']' or ',' in an array, got '2' at offset 3 (line 1, column 4)");
  CHECK(err("{\"a\" 1}") == "parse_json: expected ':' after an object key, got '1' at offset 5 (line 1, column 6)");
  CHECK(err("{1:2}") == "parse_json: expected a string key in an object, got '1' at offset 1 (line 1, column 2)");
  CHECK(err("{\"a\":1,}") == "parse_json: expected a string key in an object, got '}' at offset 7 (line 1, column 8)");
  CHECK(err("[1]\n x") == "parse_json: unexpected 'x' after the value at offset 5 (line 2, column 2)");
  CHECK(err("01") == "parse_json: leading zero in a number at offset 0 (line 1, column 1)");
  CHECK(err("-") == "parse_json: expected a digit in a number, got end of input at offset 1 (line 1, column 2)");
  CHECK(err("1.") == "parse_json: expected a digit after '.' in a number, got end of input at offset 2 (line 1, column 3)");
  CHECK(err("1e+") == "parse_json: expected a digit in a number's exponent, got end of input at offset 3 (line 1, column 4)");
  CHECK(err("+1") == "parse_json: expected a value, got '+' at offset 0 (line 1, column 1)");
  CHECK(err("tru") == "parse_json: expected a value, got 't' at offset 0 (line 1, column 1)");
  CHECK(err("NaN") == "parse_json: expected a value, got 'N' at offset 0 (line 1, column 1)");
  CHECK(err("\"abc") == "parse_json: unterminated string at offset 0 (line 1, column 1)");
  CHECK(err("\"a\tb\"") == "parse_json: control character (byte 0x09) in a string: write it as an escape at offset 2 (line 1, column 3)");
  CHECK(err(R"("\x")") == "parse_json: invalid escape \\x in a string at offset 1 (line 1, column 2)");
  CHECK(err(R"("\u12g4")") == "parse_json: expected 4 hex digits after \\u, got 'g' at offset 5 (line 1, column 6)");
  CHECK(err(R"("\udc00")") == "parse_json: lone low surrogate \\udc00 at offset 1 (line 1, column 2)");
  CHECK(err(R"("\ud83dx")") == "parse_json: high surrogate \\ud83d without a low surrogate at offset 1 (line 1, column 2)");
  CHECK(err(R"("\ud83d\u0041")") == "parse_json: high surrogate \\ud83d without a low surrogate at offset 1 (line 1, column 2)");
  CHECK(err(std::string_view("[\0]", 3)) == "parse_json: expected a value, got byte 0x00 at offset 1 (line 1, column 2)");
  CHECK(err(std::string(1001, '[')) == "parse_json: arrays and objects nested deeper than 1000 levels at offset 1000 (line 1, column 1001)");
  CHECK(mg::parse_json(std::string(1000, '[') + std::string(1000, ']')).size() == 1);
  // typed access
  mg::Json j = mg::parse_json(R"({"a": [1], "s": "x"})");
  CHECK_THROWS_WITH(j["s"].as_int(), "Json: expected an integer, got string");
  CHECK_THROWS_WITH(j["b"], "Json: no member \"b\"");
  CHECK_THROWS_WITH(j["a"][1], "Json: index 1 out of range for an array of 1");
  CHECK_THROWS_WITH(j["a"]["k"], "Json: expected an object, got array");
  CHECK_THROWS_WITH(j["a"][0].as_string(), "Json: expected a string, got integer");
}
