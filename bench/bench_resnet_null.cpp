// bench_resnet_null: the compiler's own benchmark (issue 5). ResNet-50, every parameter Tensor::empty, the
// forward graph of a 64x3x224x224 empty image on the NULL device, then the work of tinygrad's
// test/external/external_benchmark_schedule.py, each stage timed by itself:
//   schedule    create_schedule of the logits (schedule/rangeify.hpp)
//   rewrite     full_rewrite_to_sink of each unique kernel AST, for the NULL target (codegen/to_program.hpp):
//               tinygrad's NULL renderer's defaults, as tinygrad's DEV=NULL; DEV=CPU: the CPU target on both sides
//   linearize   linearize of each rewritten sink (codegen/linearizer.hpp)
// Best of N by this thread's CPU time, each round on a fresh forward graph (so no graph_rewrite result of
// the round before is reused). With TINYGRAD_PATH set, bench_resnet_tinygrad.py measures tinygrad the same
// way, and the ratios are printed. Issue 5's target: the total at most 1/50 of tinygrad's.
//
// With a second argument K, metagrad's rounds and tinygrad's run alternate K times and each side keeps its best
// of all (this machine's speed drifts by up to 2x within minutes; both sides then sample the same minutes).
//
//   meson compile -C build bench/bench_resnet_null && TINYGRAD_PATH=/tmp/tinygrad ./build/bench/bench_resnet_null [rounds] [K]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <metagrad/metagrad.hpp>
#include <metagrad/nn/models/resnet.hpp>

#include "timing.hpp"

using namespace mg;

namespace {

// FNV-1a over each linear program's uops: op, dtype, arg and the positions of the sources in the list
std::uint64_t programs_digest(const std::vector<std::vector<UOp>>& lines) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (const auto& l : lines) {
    std::unordered_map<const void*, std::uint64_t> at;
    for (std::size_t i = 0; i < l.size(); ++i) {
      const UOp& u = l[i];
      at[u.node()] = i;
      mix(std::uint64_t(u.op())), mix(u.dtype().hash()), mix(u.arg().hash());
      for (const UOp& s : u.src()) mix(at.count(s.node()) ? at[s.node()] : ~0ull);
    }
    mix(0xfeed);
  }
  return h;
}

struct Stages {
  Sample forward, schedule, rewrite, linearize, total, first;  // first: the total of the first round (cold)
  std::size_t items = 0, kernels = 0, unique = 0, uops = 0;
  std::uint64_t digest = 0;  // of the linear programs (ops, dtypes, args, source positions): a change that alters them shows
};

Stages measure(nn::models::ResNet<nn::models::Bottleneck>& net, const Tensor& img, const Target& target, int rounds) {
  Stages st;
  for (int r = 0; r < rounds; ++r) {
    Tensor out = img;
    keep_best(st.forward, timed([&] { out = net(img); }));
    Schedule s;
    const Sample sched = timed([&] { s = create_schedule<void>({out.uop()}, "NULL"); });
    std::vector<UOp> asts;
    std::unordered_set<const void*> seen;
    std::size_t kernels = 0;
    for (const ScheduleItem& item : s.items)
      if (item.ast.op() == Ops::SINK && (++kernels, seen.insert(item.ast.node()).second)) asts.push_back(item.ast);
    std::vector<UOp> sinks;
    const Sample rw = timed([&] { for (const UOp& a : asts) sinks.push_back(full_rewrite_to_sink(a, target)); });
    std::vector<std::vector<UOp>> lines;
    const Sample lin = timed([&] { for (const UOp& k : sinks) lines.push_back(linearize(k)); });
    keep_best(st.schedule, sched), keep_best(st.rewrite, rw), keep_best(st.linearize, lin);
    keep_best(st.total, {sched.cpu + rw.cpu + lin.cpu, sched.wall + rw.wall + lin.wall});
    if (r == 0) st.first = {sched.cpu + rw.cpu + lin.cpu, sched.wall + rw.wall + lin.wall};
    st.items = s.items.size(), st.kernels = kernels, st.unique = asts.size(), st.uops = 0;
    for (const auto& l : lines) st.uops += l.size();
    st.digest = programs_digest(lines);
  }
  return st;
}

// tinygrad's figures: "name value" lines of bench_resnet_tinygrad.py
std::map<std::string, double> run_tinygrad(int rounds) {
  std::map<std::string, double> r;
  const bool ok = run_peer("python3 " MG_BENCH_DIR "/bench_resnet_tinygrad.py " + std::to_string(rounds) + " 2>&1", [&](const std::string& line) {
    const std::size_t sp = line.find_last_of(' ');
    if (sp == std::string::npos) return false;
    char* end = nullptr;
    const double v = std::strtod(line.c_str() + sp + 1, &end);
    if (end == line.c_str() + sp + 1) return false;
    r[line.substr(0, sp)] = v;
    return true;
  });
  if (!ok) r.clear();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  // the kernels of tinygrad's DEV=NULL (its NULL renderer's defaults: metagrad's NULL target), or with DEV=CPU
  // metagrad's CPU target against tinygrad's CPU renderer (bench_resnet_tinygrad.py reads DEV too)
  const char* dev = std::getenv("DEV");
  const bool cpu = dev && std::string(dev) == "CPU";
  Target target = detail::device_target(cpu ? DeviceKind::CPU : DeviceKind::NULL_);
  if (cpu) target.threads = getenv_int("THREADS", 8);  // a fixed split, so that the kernels do not depend on this machine

  Tensor::default_device = "NULL";  // the parameters and the image live on NULL, as with tinygrad's DEV=NULL
  Sample build;
  std::optional<nn::models::ResNet<nn::models::Bottleneck>> net;
  build = timed([&] {
    nn::EmptyInit empty;
    net.emplace(nn::models::ResNet50());
  });
  std::size_t params = 0;
  for (const Tensor& p : nn::get_parameters(*net)) params += std::size_t(p.numel());
  const Tensor img = Tensor::empty({64, 3, 224, 224});
  std::printf("ResNet-50: %zu tensors in the state dict, %zu elements; made under EmptyInit in %.2f ms\n",
              nn::get_state_dict(*net).size(), params, build.cpu * 1e3);

  // with TINYGRAD_PATH, metagrad's rounds and tinygrad's alternate `alternations` times, and each side keeps its
  // best over all of them: both sample the same minutes of this machine, whose speed drifts
  const bool peer = std::getenv("TINYGRAD_PATH") != nullptr;
  const int alternations = peer && argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
  Stages m = measure(*net, img, target, rounds);
  std::map<std::string, double> tg;
  std::vector<std::pair<double, double>> pairs;  // each alternation's totals (metagrad, tinygrad)
  for (int a = 0; a < alternations; ++a) {
    if (a > 0) {
      const Stages more = measure(*net, img, target, rounds);
      keep_best(m.schedule, more.schedule), keep_best(m.rewrite, more.rewrite), keep_best(m.linearize, more.linearize);
      keep_best(m.total, more.total), keep_best(m.forward, more.forward);
      pairs.push_back({more.total.cpu, 0});
    } else pairs.push_back({m.total.cpu, 0});
    if (!peer) break;
    const auto t = run_tinygrad(rounds);  // best of as many rounds as metagrad
    if (t.empty()) { std::printf("tinygrad: no result (see above)\n"); return 1; }
    pairs.back().second = t.at("total");
    for (const auto& [k, v] : t)  // the best of each stage; counts are the same every run; "first total" is the first run's
      if (!tg.count(k) || (k != "first total" && v < tg[k])) tg[k] = v;
  }
  std::printf("metagrad, best of %d by CPU time (%s target, THREADS=%lld):\n", rounds * alternations, target.device.c_str(), static_cast<long long>(target.threads));
  std::printf("  schedule items %zu, kernels %zu, unique ASTs %zu, linear uops %zu, programs digest %016llx\n", m.items, m.kernels,
              m.unique, m.uops, static_cast<unsigned long long>(m.digest));
  std::printf("  forward graph %9.2f ms (untimed by tinygrad's total)\n", m.forward.cpu * 1e3);
  std::printf("  schedule      %9.2f ms\n  rewrite       %9.2f ms\n  linearize     %9.2f ms\n  total         %9.2f ms\n"
              "  first total   %9.2f ms (the first round's, cold)\n",
              m.schedule.cpu * 1e3, m.rewrite.cpu * 1e3, m.linearize.cpu * 1e3, m.total.cpu * 1e3, m.first.cpu * 1e3);

  if (!peer) {
    std::printf("\nset TINYGRAD_PATH to a tinygrad checkout to measure tinygrad on the same model\n");
    return 0;
  }
  if (alternations > 1) {
    std::printf("\neach alternation's totals (metagrad best of %d, then tinygrad best of %d):\n", rounds, rounds);
    for (const auto& [mine, theirs] : pairs) std::printf("  %9.2f ms  %10.2f ms  %6.1fx\n", mine * 1e3, theirs * 1e3, theirs / mine);
  }
  auto get = [&](const char* k) { auto it = tg.find(k); return it == tg.end() ? 0.0 : it->second; };
  std::printf("\n%-12s %12s %12s %10s\n", "", "metagrad ms", "tinygrad ms", "faster x");
  for (const auto& [name, mine] : std::vector<std::pair<const char*, double>>{
           {"schedule", m.schedule.cpu}, {"rewrite", m.rewrite.cpu}, {"linearize", m.linearize.cpu}, {"total", m.total.cpu},
           {"first total", m.first.cpu}})
    std::printf("%-12s %12.2f %12.2f %10.1f\n", name, mine * 1e3, get(name) * 1e3, get(name) / mine);
  std::printf("kernels: metagrad %zu, tinygrad %.0f; unique ASTs: metagrad %zu, tinygrad %.0f; linear uops: metagrad %zu, tinygrad %.0f\n",
              m.kernels, get("kernels"), m.unique, get("unique ASTs"), m.uops, get("linear uops"));
  std::printf("issue 5's target, total at most 1/50 of tinygrad's: %s\n", get("total") / m.total.cpu >= 50 ? "met" : "not met");
  return 0;
}
