// The runtime's memory: the host allocator's cache (tinygrad's LRUAllocator), outputs the kernels write
// whole (not zeroed first), the memory planner (intermediates of one schedule sharing an arena), split
// reductions (tinygrad's split_reduceop: kernel counts from tinygrad, values from the reference
// evaluator) and lazy assign (computed with the next realize, written into the target's buffer).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <metagrad/metagrad.hpp>

#include "../tensor/check.hpp"

using namespace mg;

namespace {

using test::ramp;

const void* data_of(const Tensor& t) { return host_buffer(detail::view_base(t.uop())).bytes.data(); }

void check_against_reference(const Tensor& t, double atol = 1e-4, double rtol = 1e-5) {
  const HostArray want = reference_eval(t.uop());
  test::check_close(t.to_vector<double>(), want.to_vector<double>(), atol, rtol);
}

std::size_t kernels(const Tensor& t) { return create_schedule({t.uop()}).items.size(); }

}  // namespace

TEST_CASE("memory: a freed buffer is handed to the next realize of its size", "[engine][memory]") {
  Tensor a = Tensor::from(ramp(4096), {64, 64});
  const void* first = nullptr;
  {
    Tensor r = (a * 2).realize();
    first = data_of(r);
    CHECK(r.to_vector<float>()[5] == Approx(ramp(4096)[5] * 2));
  }
  Tensor r2 = (a + 1).realize();  // same byte size: the cached allocation comes back
  CHECK(data_of(r2) == first);
  // and its old contents (a * 2) do not leak into the new value: the kernel wrote every element
  const std::vector<float> v = r2.to_vector<float>(), in = ramp(4096);
  for (std::size_t i = 0; i < v.size(); ++i) REQUIRE(v[i] == in[i] + 1);
}

TEST_CASE("memory: the allocator cache is bounded", "[engine][memory]") {
  auto& alloc = detail::HostAllocator<>::instance();
  for (int i = 0; i < 200; ++i) {
    void* p = alloc.alloc(std::size_t(1000 + i) * 64);  // 200 different sizes, each freed into the cache
    alloc.free(p, std::size_t(1000 + i) * 64);
  }
  CHECK(alloc.cached_bytes() <= std::size_t(2) << 30);
  alloc.free_cache();
  CHECK(alloc.cached_bytes() == 0);
}

TEST_CASE("memory: buffers of 2 MiB and more are mapped on their own, 2 MiB aligned (huge pages)", "[engine][memory]") {
  auto& alloc = detail::HostAllocator<>::instance();
  const std::size_t n = (std::size_t(3) << 20) + 5;  // not a multiple of any page size
  auto* p = static_cast<unsigned char*>(alloc.alloc(n));
  if (!MG_ASAN) CHECK(reinterpret_cast<std::uintptr_t>(p) % (std::size_t(2) << 20) == 0);
  std::memset(p, 0xab, n);  // every byte of it is ours
  CHECK((p[0] == 0xab && p[n - 1] == 0xab));
  alloc.free(p, n);
  CHECK(alloc.alloc(n) == p);  // the cache hands it back, as for small buffers
  alloc.free(p, n);
  alloc.free_cache();  // and unmaps it
  CHECK(alloc.cached_bytes() == 0);

  // end to end: a 4 MiB tensor computed into such a buffer, then the buffer reused
  const Tensor a = Tensor::from(ramp(1 << 20), {1024, 1024});
  const void* first = nullptr;
  {
    Tensor r = (a * 3 + 1).realize();
    first = data_of(r);
    if (!MG_ASAN) CHECK(reinterpret_cast<std::uintptr_t>(first) % (std::size_t(2) << 20) == 0);
    check_against_reference(r);
  }
  Tensor r2 = (a - 2).realize();
  CHECK(data_of(r2) == first);
  check_against_reference(r2);
}

TEST_CASE("memory: an allocation that cannot be had is an mg::Error naming its size", "[engine][memory]") {
  auto& alloc = detail::HostAllocator<>::instance();
  const std::size_t n = std::size_t(1) << 52;  // 4 PiB
  CHECK_THROWS_WITH(alloc.alloc(n), Catch::Contains("allocate") && Catch::Contains(std::to_string(n) + " bytes"));
  // the cache was emptied on the way (the retry), and the process goes on
  CHECK(alloc.cached_bytes() == 0);
  CHECK((Tensor::from(ramp(16), {16}) + 1).to_vector<float>()[3] == Approx(ramp(16)[3] + 1));
}

TEST_CASE("memory: Tensor::empty reads as zero, even from a reused allocation", "[engine][memory]") {
  { Tensor junk = (Tensor::from(ramp(256), {256}) + 100).realize(); }  // leaves non-zero bytes in the cache
  Tensor e = Tensor::empty({256});
  for (float x : e.to_vector<float>()) REQUIRE(x == 0.0f);
}

TEST_CASE("memory: the planner shares memory between intermediates that do not live together", "[engine][memory]") {
  Tensor a = Tensor::from(ramp(1024), {32, 32});
  // a chain of forced intermediates: each one is read only by the next kernel
  Tensor t = ((((a + 1).contiguous() * 2).contiguous() - 3).contiguous() * 0.5).contiguous().sum(1);
  Schedule s = create_schedule({t.uop()});
  REQUIRE(s.items.size() == 5);
  const std::int64_t saved = memory_plan(s);
  CHECK(saved > 0);
  // the arena is one buffer bound at offsets; live intermediates never overlap
  std::size_t with_offsets = 0;
  for (const ScheduleItem& it : s.items) with_offsets += !it.offsets.empty();
  CHECK(with_offsets >= 3);
  for (const std::string dev : {"CPU", "INTERP"}) {
    Tensor b = Tensor::from(ramp(1024), {32, 32}, std::nullopt, dev);
    Tensor u = ((((b + 1).contiguous() * 2).contiguous() - 3).contiguous() * 0.5).contiguous().sum(1);
    check_against_reference(u);
  }
}

TEST_CASE("memory: softmax intermediates overlap, so nothing is planned away and values hold", "[engine][memory]") {
  Tensor a = Tensor::from(ramp(96), {8, 12});
  Schedule s = create_schedule({a.softmax(1).uop()});
  CHECK(memory_plan(s) == 0);
  check_against_reference(a.softmax(1));
}

TEST_CASE("split_reduceop: kernel counts as tinygrad's", "[schedule][split]") {
  // counts from tinygrad (schedule_linear) for the same expressions
  Tensor X = Tensor::empty({4096, 4096}), Y = Tensor::empty({4096, 64}), Z = Tensor::empty({256, 128}), W = Tensor::empty({100003}),
         V = Tensor::empty({8, 8192}), E = Tensor::empty({1, 64});
  CHECK(kernels(X.sum()) == 3);  // split twice: 16M -> 4096 -> 256 -> 1
  CHECK(kernels(X.sum(1)) == 1);
  CHECK(kernels(X.sum(0)) == 1);
  CHECK(kernels(X.mean()) == 3);
  CHECK(kernels(X.softmax(1)) == 3);
  CHECK(kernels(Y.sum()) == 2);
  CHECK(kernels(Y.max()) == 2);
  CHECK(kernels(Y.sum(0)) == 1);
  CHECK(kernels((Y * 2 + 1).sum()) == 2);
  CHECK(kernels(Y.permute({1, 0}).sum(1)) == 1);
  CHECK(kernels(Z.sum()) == 2);
  CHECK(kernels(W.sum()) == 1);  // 100003 is prime: no divisor to split by
  CHECK(kernels(V.sum(1)) == 1);
  CHECK(kernels(V.sum()) == 2);
  CHECK(kernels(E.expand({4096, 64}).sum()) == 2);  // the expanded axis is not split, the other one is
}

TEST_CASE("split_reduceop: a CPU schedule splits from 16384 inputs per output, others from tinygrad's 32768", "[schedule][split]") {
  // 64 sums of 18,432 (beautiful_mnist's conv4 weight gradient reduces 18,432 per output): split on the CPU,
  // where an unsplit reduce streams its inputs once per tile of outputs; tinygrad's threshold elsewhere
  const Tensor A = Tensor::empty({64, 18432}), B = Tensor::empty({64, 16383});
  CHECK(create_schedule({A.sum(1).uop()}, "CPU").items.size() == 2);
  CHECK(create_schedule({A.sum(1).uop()}, "NULL").items.size() == 1);
  CHECK(create_schedule({B.sum(1).uop()}, "CPU").items.size() == 1);  // under the threshold
  const Tensor C = Tensor::from(ramp(8 * 18432, 0.125f, -1.0f), {8, 18432});
  CHECK(create_schedule({C.sum(1).uop()}, "CPU").items.size() == 2);
  check_against_reference(C.sum(1), 1e-2, 1e-5);
}

TEST_CASE("split_reduceop: split reductions compute what the reference does", "[engine][split]") {
  for (const std::string dev : {"CPU", "INTERP"}) {
    Tensor Y = Tensor::from(ramp(4096 * 64, 0.125f, -1.0f), {4096, 64}, std::nullopt, dev);
    check_against_reference(Y.sum(), 1e-2, 1e-5);
    check_against_reference(Y.max());
    check_against_reference((Y * 2 + 1).sum(), 1e-2, 1e-5);
    check_against_reference(Y.reshape({1, 4096 * 64}).expand({2, 4096 * 64}).sum(1), 1e-2, 1e-5);
    Tensor E = Tensor::from(ramp(64), {1, 64}, std::nullopt, dev);
    check_against_reference(E.expand({4096, 64}).sum(), 1e-2, 1e-5);
    Tensor I = Tensor::from(std::vector<int>(40000, 3), {40000}, dtypes::int32, dev);
    CHECK(I.sum().item<int>() == 120000);
  }
}

TEST_CASE("assign: the value is written into the tensor's own buffer", "[engine][assign]") {
  for (const std::string dev : {"CPU", "INTERP"}) {
    Tensor w = Tensor::from(ramp(64), {8, 8}, std::nullopt, dev).realize();
    Tensor g = Tensor::from(ramp(64, 0.5f, 1.0f), {8, 8}, std::nullopt, dev);
    Tensor view = w.reshape({64});  // another tensor on the same buffer sees the update
    const void* before = data_of(w);
    w.assign(w - g * 0.1).realize();
    CHECK(data_of(w) == before);
    const std::vector<float> a = ramp(64), b = ramp(64, 0.5f, 1.0f), got = w.to_vector<float>(), seen = view.to_vector<float>();
    for (std::size_t i = 0; i < 64; ++i) {
      REQUIRE(got[i] == Approx(a[i] - b[i] * 0.1f));
      REQUIRE(seen[i] == got[i]);
    }
    // a value that reads the buffer through a reduce (realized first) is still in place
    w.assign(w - w.mean()).realize();
    CHECK(data_of(w) == before);
    double mean = 0;
    for (float x : got) mean += x;
    mean /= 64;
    const std::vector<float> got2 = w.to_vector<float>();
    for (std::size_t i = 0; i < 64; ++i) REQUIRE(got2[i] == Approx(got[i] - mean).margin(1e-5));
  }
}

TEST_CASE("assign: lazy, computed in the next realize's schedule, with eager values", "[engine][assign]") {
  auto& engine = detail::Engine<void>::instance();
  for (const std::string dev : {"CPU", "INTERP"}) {
    const std::vector<float> xs = ramp(64, 0.25f, -3.0f);
    Tensor x = Tensor::from(xs, {8, 8}, std::nullopt, dev).realize();
    auto run = [&](bool together) {  // BatchNorm's pattern: a running statistic and a loss share a mean
      Tensor stat = Tensor::from(std::vector<float>(8, 1.0f), {8}, std::nullopt, dev);
      const Tensor m = (x * 2).contiguous().mean(0) / 2;  // a kernel of its own, shared
      const std::int64_t k0 = engine.kernel_count();
      stat.assign(stat * 0.9 + m * 0.1);
      CHECK(engine.kernel_count() == k0);  // nothing ran yet
      Tensor loss = (x - m.reshape({1, 8})).square().sum();
      if (together) Tensor::realize({loss, stat});
      else stat.realize(), loss.realize();
      const std::vector<float> got = stat.to_vector<float>();
      for (std::size_t c = 0; c < 8; ++c) {
        double mean = 0;
        for (std::size_t r = 0; r < 8; ++r) mean += xs[r * 8 + c] / 8.0;
        REQUIRE(got[c] == Approx(0.9 + 0.1 * mean));
      }
      return engine.kernel_count() - k0;
    };
    CHECK(run(true) < run(false));  // the mean runs once
    // a tensor that read the buffer before a second assign sees what an eager assign would give
    Tensor a = Tensor::from({1.f, 2.f}, {2}, std::nullopt, dev);
    Tensor view = a.reshape({1, 2});
    a.assign(a + 1);
    Tensor b = a * 10;  // holds the pending value
    a.assign(a + 1);
    CHECK(view.to_vector<float>() == std::vector<float>{3, 4});
    CHECK(b.to_vector<float>() == std::vector<float>{30, 40});
    CHECK(a.to_vector<float>() == std::vector<float>{3, 4});
    // a lazy tensor made from the buffer before an assign reads the written values (as an eager assign's)
    Tensor p = Tensor::from({1.f, 2.f}, {2}, std::nullopt, dev), q = Tensor::from({5.f, 6.f}, {2}, std::nullopt, dev);
    const Tensor old_p = p * 1;
    p.assign(q * 1);
    q.assign(old_p);
    Tensor::realize({p, q});
    CHECK(p.to_vector<float>() == std::vector<float>{5, 6});
    CHECK(q.to_vector<float>() == std::vector<float>{5, 6});
  }
}

TEST_CASE("assign: a value that reads the target at other elements goes through a temporary", "[engine][assign]") {
  for (const std::string dev : {"CPU", "INTERP"}) {
    const std::vector<float> a = ramp(12);
    Tensor w = Tensor::from(a, {3, 4}, std::nullopt, dev).realize();
    w.assign(w.flip({1}) + 1);  // in place, an element would read a neighbour already overwritten
    const std::vector<float> got = w.to_vector<float>();
    for (std::size_t r = 0; r < 3; ++r)
      for (std::size_t c = 0; c < 4; ++c) REQUIRE(got[r * 4 + c] == a[r * 4 + 3 - c] + 1);
  }
}

TEST_CASE("assign: through a view of a buffer, one kernel stores the viewed elements", "[engine][assign]") {
  auto& engine = detail::Engine<void>::instance();
  for (const std::string dev : {"CPU", "INTERP"}) {
    const std::vector<float> a = ramp(24, 0.5f, -3.0f);
    auto at = [&](std::size_t r, std::size_t c) { return a[r * 6 + c]; };
    Tensor w = Tensor::from(a, {4, 6}, std::nullopt, dev).realize();
    const void* mem = data_of(w);
    // rows 1 and 2 updated from themselves: one kernel, in place, the other rows untouched
    std::int64_t k0 = engine.kernel_count();
    w.getitem({slice(1, 3)}).assign(w.getitem({slice(1, 3)}) * 2 + 1);
    CHECK(engine.kernel_count() - k0 == 1);
    CHECK(data_of(w) == mem);
    std::vector<float> got = w.to_vector<float>();
    for (std::size_t r = 0; r < 4; ++r)
      for (std::size_t c = 0; c < 6; ++c) REQUIRE(got[r * 6 + c] == (r == 1 || r == 2 ? at(r, c) * 2 + 1 : at(r, c)));

    // the kernel stores through the view into the buffer itself; a value that reads the buffer at other
    // elements is refused (nothing runs) and assign writes it on the host
    Tensor z = Tensor::from(a, {4, 6}, std::nullopt, dev).realize();
    const Tensor zv = z.getitem({slice(1, 3)});
    const auto into = realize_uops_into({(zv * 2 + 1).uop()}, {zv.uop()}, dev);
    REQUIRE(into);
    CHECK((*into)[0] == detail::view_base(z.uop()));
    CHECK(z.to_vector<float>() == got);
    k0 = engine.kernel_count();
    CHECK(!realize_uops_into({(z.getitem({slice(2, 4)}) + 1).uop()}, {z.getitem({slice(0, 2)}).uop()}, dev));
    CHECK(engine.kernel_count() == k0);
    // a padded or expanded view, or one of another shape, is no store target
    CHECK_THROWS_WITH(create_schedule_into({Tensor::ones({5, 6}).uop()}, {z.pad({std::pair{1, 0}, std::nullopt}).uop()}, dev),
                      Catch::Contains("target of root 0") && Catch::Contains("view"));
    CHECK_THROWS_WITH(create_schedule_into({Tensor::ones({2, 4, 6}).uop()}, {z.expand({2, 4, 6}).uop()}, dev), Catch::Contains("target of root 0"));
    CHECK_THROWS_WITH(create_schedule_into({Tensor::ones({6, 4}).uop()}, {zv.uop()}, dev), Catch::Contains("target of root 0"));

    // a transposed, shrunk and flipped view: columns 5 and 4 of rows 0..3, written from a lazy arange
    Tensor u = Tensor::from(a, {4, 6}, std::nullopt, dev).realize();
    k0 = engine.kernel_count();
    u.flip({1}).T().getitem({slice(0, 2)}).assign(Tensor::arange(8, std::nullopt, 1, dtypes::float32, dev).reshape({2, 4}) * 10);
    CHECK(engine.kernel_count() - k0 == 1);
    got = u.to_vector<float>();
    for (std::size_t r = 0; r < 4; ++r)
      for (std::size_t c = 0; c < 6; ++c) {
        // view element (i, j) of T(flip) is u[j, 5 - i]: column 5 holds 10*(0..3), column 4 holds 10*(4..7)
        const float want = c == 5 ? float(10 * r) : c == 4 ? float(10 * (4 + r)) : at(r, c);
        REQUIRE(got[r * 6 + c] == want);
      }

    // a realized value is copied by one kernel
    Tensor src = Tensor::from(std::vector<float>{7, 8, 9}, {3}, std::nullopt, dev).realize();
    k0 = engine.kernel_count();
    u[3].getitem({slice(1, 4)}).assign(src);
    CHECK(engine.kernel_count() - k0 == 1);
    got = u.to_vector<float>();
    CHECK(std::vector<float>(got.begin() + 18, got.end()) == std::vector<float>{at(3, 0), 7, 8, 9, 70, 30});

    // a value that reads the buffer at other elements than it writes: still what an eager assign gives,
    // with two kernels (the value into a new buffer, then that through the view)
    Tensor h = Tensor::from(a, {4, 6}, std::nullopt, dev).realize();
    const void* hmem = data_of(h);
    k0 = engine.kernel_count();
    h.getitem({slice(0, 2)}).assign(h.getitem({slice(1, 3)}) + 100);
    CHECK(engine.kernel_count() - k0 == 2);
    CHECK(data_of(h) == hmem);
    got = h.to_vector<float>();
    for (std::size_t r = 0; r < 4; ++r)
      for (std::size_t c = 0; c < 6; ++c) REQUIRE(got[r * 6 + c] == (r < 2 ? at(r + 1, c) + 100 : at(r, c)));
    // the same through a transposed view, with no arithmetic: columns 0 and 1 from columns 1 and 2
    Tensor t = Tensor::from(a, {4, 6}, std::nullopt, dev).realize();
    k0 = engine.kernel_count();
    t.T().getitem({slice(0, 2)}).assign(t.T().getitem({slice(1, 3)}));
    CHECK(engine.kernel_count() - k0 == 2);
    got = t.to_vector<float>();
    for (std::size_t r = 0; r < 4; ++r)
      for (std::size_t c = 0; c < 6; ++c) REQUIRE(got[r * 6 + c] == (c < 2 ? at(r, c + 1) : at(r, c)));

    // a pending (lazy) assign to the same buffer is computed first, and the value sees it
    Tensor p = Tensor::from(a, {4, 6}, std::nullopt, dev).realize();
    Tensor row0 = p[0];
    p.assign(p + 1);
    row0.assign(p[1] + 10);
    got = p.to_vector<float>();
    for (std::size_t r = 0; r < 4; ++r)
      for (std::size_t c = 0; c < 6; ++c) REQUIRE(got[r * 6 + c] == (r == 0 ? at(1, c) + 11 : at(r, c) + 1));
    CHECK(row0.to_vector<float>() == std::vector<float>(got.begin(), got.begin() + 6));
  }
}
