// mg-sym: simplify integer expressions written in tinygrad's render syntax, one JSON line at a time.
//
//   $ echo '{"vars": [["a", 0, 8]], "expr": "((a*4)//2)"}' | mg-sym
//   {"simplified":"(a*2)","vmin":0,"vmax":16}
//
// Each input line is {"vars": [[name, min, max], ...], "expr": "..."}; each output line (flushed) is
// {"simplified": render, "vmin": n, "vmax": n}, with bools as 0/1 and a bound outside int64 as a string
// ("inf", "-inf"), or {"error": message} for a line that cannot be read; the tool then goes on.
// --no-simplify writes the parsed expression and its bounds as they are.
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <metagrad/core/json.hpp>
#include <metagrad/symbolic/parse.hpp>
#include <metagrad/symbolic/simplify.hpp>

namespace {

constexpr const char* usage =
    "usage: mg-sym [--no-simplify] < lines\n"
    "  reads {\"vars\": [[\"a\", 0, 10], ...], \"expr\": \"(a*4//2)\"} lines from stdin and writes\n"
    "  {\"simplified\": \"(a*2)\", \"vmin\": 0, \"vmax\": 20} lines (or {\"error\": \"...\"}) to stdout\n"
    "  --no-simplify  write the parsed expression's render and bounds without simplifying\n";

mg::Json bound(const mg::SymVal& v) { return v.fits_int64() ? mg::Json(v.as_int()) : mg::Json(v.repr()); }

std::vector<mg::UOp> read_vars(const mg::Json& in) {
  const mg::Json* vs = in.find("vars");
  if (!vs) throw mg::Error("mg-sym: missing \"vars\" (a list of [name, min, max])");
  if (!vs->is_array()) throw mg::Error(std::string("mg-sym: \"vars\" must be a list of [name, min, max], got ") + vs->type_name());
  std::vector<mg::UOp> vars;
  for (std::size_t i = 0; i < vs->size(); ++i) {
    const mg::Json& v = (*vs)[i];
    if (!v.is_array() || v.size() != 3 || !v[0].is_string() || !v[1].is_int() || !v[2].is_int())
      throw mg::Error("mg-sym: vars[" + std::to_string(i) + "] must be [name, min, max] with integer bounds, got " + v.dump());
    vars.push_back(mg::UOp::variable(v[0].as_string(), v[1].as_int(), v[2].as_int()));
  }
  return vars;
}

mg::Json run(std::string_view line, bool simplify) {
  const mg::Json in = mg::parse_json(line);
  if (!in.is_object()) throw mg::Error(std::string("mg-sym: expected a JSON object {\"vars\": ..., \"expr\": ...}, got ") + in.type_name());
  std::vector<mg::UOp> vars = read_vars(in);
  const mg::Json* expr = in.find("expr");
  if (!expr) throw mg::Error("mg-sym: missing \"expr\" (the expression as a string)");
  if (!expr->is_string()) throw mg::Error(std::string("mg-sym: \"expr\" must be a string, got ") + expr->type_name());
  mg::UOp u = mg::parse_sym(expr->as_string(), vars);
  if (simplify) u = mg::simplify(u);
  return mg::Json::object({{"simplified", u.render()}, {"vmin", bound(u.vmin())}, {"vmax", bound(u.vmax())}});
}

}  // namespace

int main(int argc, char** argv) {
  bool simplify = true;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--no-simplify") {
      simplify = false;
    } else if (a == "-h" || a == "--help") {
      std::cout << usage;
      return 0;
    } else {
      std::cerr << "mg-sym: unknown argument '" << a << "'\n" << usage;
      return 2;
    }
  }
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    mg::Json out;
    try {
      out = run(line, simplify);
    } catch (const std::exception& e) {  // mg::Error for bad input; anything else is reported the same way
      out = mg::Json::object({{"error", e.what()}});
    }
    std::cout << out.dump() << std::endl;
  }
  return 0;
}
