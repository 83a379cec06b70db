#pragma once
// Tensor's random numbers: tinygrad's counter-based threefry generator with manual_seed.
//
// Each device gets a key when it first draws after manual_seed: (the low word of sha256 of the
// number of devices seeded before it, the seed's low word), and a 64-bit counter from 0. A draw of
// n 32-bit words takes the counter's value c and advances it by n; its words are threefry(key', i)
// for i < ceil(n/2), both halves of each, key' = threefry(key, c). So the numbers depend only on the
// seed, on what each device drew before, and on the draw's size: tinygrad's numbers, bit for bit.
// rand turns words into floats with the mantissa trick (random mantissa, exponent of 1.0, minus 1).
#include <algorithm>
#include <array>
#include <cstdint>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "../core/cmath.hpp"
#include "../core/mutex.hpp"
#include "tensor.hpp"

namespace mg {
namespace detail {

// the last 32 bits of SHA-256 of the 4-byte big-endian n: tinygrad's per-device seed word
// (int.from_bytes(sha256(n.to_bytes(4, "big")).digest(), "big") truncated to uint32)
template <class = void> std::uint32_t sha256_low_word(std::uint32_t n) {
  static constexpr std::array<std::uint32_t, 64> k = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
      0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
      0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
      0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
      0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
      0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  auto rotr = [](std::uint32_t x, int r) { return (x >> r) | (x << (32 - r)); };
  // one block: the 4 message bytes, the 0x80 pad byte, zeros, the bit length (32)
  std::array<std::uint32_t, 64> w{};
  w[0] = n, w[1] = 0x80000000u, w[15] = 32;
  for (std::size_t i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::array<std::uint32_t, 8> h0 = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<std::uint32_t, 8> h = h0;
  for (std::size_t i = 0; i < 64; ++i) {
    const std::uint32_t t1 = h[7] + (rotr(h[4], 6) ^ rotr(h[4], 11) ^ rotr(h[4], 25)) + ((h[4] & h[5]) ^ (~h[4] & h[6])) + k[i] + w[i];
    const std::uint32_t t2 = (rotr(h[0], 2) ^ rotr(h[0], 13) ^ rotr(h[0], 22)) + ((h[0] & h[1]) ^ (h[0] & h[2]) ^ (h[1] & h[2]));
    h = {t1 + t2, h[0], h[1], h[2], h[3] + t1, h[4], h[5], h[6]};
  }
  return h[7] + h0[7];
}

// tinygrad's Tensor._seed, _device_seeds and _device_rng_counters, on the host: the counter's value
// is what tinygrad's lazily assigned counter tensor holds when a draw reads it
struct RngState {
  struct Device {
    std::string name;
    std::uint32_t key[2];
    std::uint64_t counter;
  };
  detail::Mutex m;
  std::uint64_t seed = std::uint64_t(std::time(nullptr));  // tinygrad seeds with int(time.time())
  std::vector<Device> devices;                              // in the order they were seeded
  template <class = void> static RngState& get() {
    static RngState* s = new RngState();  // never destroyed, as TensorRegistry
    return *s;
  }
  // tinygrad's _next_counter: the device's key and its counter before advancing it by n words
  template <class = void> std::pair<std::array<std::uint32_t, 2>, std::uint64_t> next_counter(const std::string& device, std::uint64_t n) {
    detail::LockGuard lock(m);
    Device* d = nullptr;
    for (Device& e : devices) if (e.name == device) d = &e;
    if (!d) {
      devices.push_back({device, {sha256_low_word(std::uint32_t(devices.size())), std::uint32_t(seed)}, 0});
      d = &devices.back();
    }
    const std::uint64_t c = d->counter;
    d->counter += n;
    return {{d->key[0], d->key[1]}, c};
  }
};

// tinygrad's _threefry_random_bits: threefry of the counts (c1:c0 as one uint64) under key (key[1]:key[0]);
// the low words of the results, then the high words
template <class = void> Tensor threefry_random_bits(const Tensor& key, const Tensor& counts0, const Tensor& counts1) {
  auto u64 = [](const Tensor& t) { return t.cast(dtypes::uint64); };
  auto word = [&](std::int64_t i) { return u64(key.shrink({std::pair{i, i + 1}}).expand(counts0.shape())); };
  const Tensor y = ((u64(counts1) << 32) | u64(counts0)).binop(Ops::THREEFRY, (word(1) << 32) | word(0));
  return (y & 0xffffffffu).cast(dtypes::uint32).cat(((y >> 32) & 0xffffffffu).cast(dtypes::uint32));
}

// tinygrad's random_bits: n uint32 words from a key (uint32 [key0, key1]) and the 64-bit counter, in
// chunks of at most 2^32-1 words, each under its own key threefry(key, counter + chunk start)
template <class = void> Tensor random_bits(const Tensor& key, std::uint64_t counter, std::uint64_t n) {
  std::vector<Tensor> chunks;
  constexpr std::uint64_t most = 0xffffffffu;
  for (std::uint64_t i = 0; i < n; i += most) {
    const std::uint64_t c = counter + i, m = std::min(n - i, most), half = (m + 1) / 2;
    const Tensor lo = Tensor::from({std::uint32_t(c)}, {1}, dtypes::uint32, key.device());
    const Tensor hi = Tensor::from({std::uint32_t(c >> 32)}, {1}, dtypes::uint32, key.device());
    const Tensor chunk_key = threefry_random_bits(key, lo, hi);
    // the counters as a buffer, not tinygrad's lazy arange: the layers draw their initial values with the
    // reference evaluator (nn::detail::param), which would sum the arange's pool element by element
    std::vector<std::uint32_t> iota(half);
    for (std::uint64_t j = 0; j < half; ++j) iota[j] = std::uint32_t(j);
    const Tensor counts0 = Tensor::from(iota, {std::int64_t(half)}, dtypes::uint32, key.device());
    const Tensor counts1 = counts0 + ConstType(std::int64_t(half));
    chunks.push_back(threefry_random_bits(chunk_key, counts0, counts1).shrink({std::pair{std::int64_t(0), std::int64_t(m)}}));
  }
  return Tensor::cat(chunks);
}

// uint32 words (n,) as the unsigned dtype of `bytes` bytes, little-endian as tinygrad's bitcast of the
// buffer: 2 words make a uint64, a word makes 2 uint16 or 4 uint8
template <class = void> Tensor words_as_uint(const Tensor& words, int bytes) {
  const std::int64_t n = words.numel();
  if (bytes == 4) return words;
  if (bytes == 8) {
    const Tensor w = words.reshape({n / 2, 2}).cast(dtypes::uint64);
    auto column = [&](std::int64_t i) { return w.shrink({std::nullopt, std::pair{i, i + 1}}).reshape({n / 2}); };
    return column(0) | (column(1) << 32);
  }
  const int bits = 8 * bytes;
  std::vector<Tensor> parts;
  for (int k = 0; k < 4 / bytes; ++k) parts.push_back(((words >> (bits * k)) & ((1 << bits) - 1)).cast(bytes == 2 ? dtypes::uint16 : dtypes::uint8));
  return Tensor::stack(parts, 1).reshape({n * (4 / bytes)});
}

// the fan-in of an initializer's shape: the product of the sizes after the first (1 for a 1-d shape)
template <class = void> std::int64_t fan_in(const char* who, const Shape& shape) {
  if (shape.empty()) throw Error(std::string(who) + ": needs at least one dim, got shape ()");
  for (std::int64_t d : shape) if (d < 0) throw Error(std::string(who) + ": negative size in shape " + shape_str(shape));
  return shape_prod(Shape(shape.begin() + 1, shape.end()));
}
// kaiming's bound (gain 6) or std (gain 2): (gain / (1 + a^2) / fan_in) ** 0.5, in Python's order
template <class = void> double kaiming_scale(const char* who, const Shape& shape, double gain, double a) {
  const std::int64_t f = fan_in(who, shape);
  if (f == 0) throw Error(std::string(who) + ": shape " + shape_str(shape) + " has fan-in 0");
  return cmath::pow(gain / (1 + a * a) / double(f), 0.5);
}

}  // namespace detail

template <class D> void TensorT<D>::manual_seed(std::uint64_t seed) {
  auto& s = detail::RngState::get();
  detail::LockGuard lock(s.m);
  s.seed = seed;
  s.devices.clear();
}

template <class D> Tensor TensorT<D>::rand(const Shape& shape, DType dtype, const std::string& device) {
  if (!dtype.is_float()) throw Error("rand: only float dtypes, got " + dtype.repr());
  check_shape("rand", shape);
  const std::int64_t numel = shape_prod(shape);
  if (numel == 0) return zeros(shape, dtype, device);  // draws nothing: the counter stays
  const int bytes = int(dtype.itemsize());
  const std::uint64_t n = (std::uint64_t(numel) * std::uint64_t(bytes) + 3) / 4;
  const auto [key, counter] = detail::RngState::get().next_counter(device, n);
  const Tensor key_t = from({key[0], key[1]}, {2}, dtypes::uint32, device);
  const Tensor u = detail::words_as_uint(detail::random_bits(key_t, counter, n), bytes);
  // random mantissa, the exponent of 1.0: a float in [1, 2)
  const Tensor one = full(u.shape(), 1, dtype, device).bitcast(u.dtype());
  const Tensor f = ((u >> (8 * bytes - detail::mantissa_bits(dtype))) | one).bitcast(dtype);
  return (f.shrink({std::pair{std::int64_t(0), numel}}) - ConstType(1)).reshape(shape);
}

template <class D> Tensor TensorT<D>::randn(const Shape& shape, DType dtype, const std::string& device) {
  check_shape("randn", shape);
  return zeros(shape, dtypes::default_float, device).randn_like(dtype);  // (tinygrad's Tensor.empty: only the shape counts)
}

template <class D> Tensor TensorT<D>::randint(const Shape& shape, std::int64_t low, std::int64_t high, DType dtype, const std::string& device) {
  if (!dtype.is_int()) throw Error("randint: dtype must be an int dtype, got " + dtype.repr());
  if (low >= high) throw Error("randint: needs low < high, got low=" + std::to_string(low) + ", high=" + std::to_string(high));
  check_shape("randint", shape);
  const double span = double(std::uint64_t(high) - std::uint64_t(low));  // exact below 2^53, and no overflow
  return (ConstType(span) * rand(shape, dtypes::default_float, device)).cast(dtype) + ConstType(low);
}

template <class D> Tensor TensorT<D>::uniform(const Shape& shape, double low, double high, DType dtype, const std::string& device) {
  check_shape("uniform", shape);
  if (!(low < high)) throw Error("uniform: needs low < high, got low=" + py_float_repr(low) + ", high=" + py_float_repr(high));
  return (ConstType(high - low) * rand(shape, dtypes::default_float, device)).cast(dtype) + ConstType(low);
}

template <class D> Tensor TensorT<D>::normal(const Shape& shape, double mean, double std_dev, DType dtype, const std::string& device) {
  check_shape("normal", shape);
  if (!(std_dev >= 0)) throw Error("normal: needs std >= 0, got std=" + py_float_repr(std_dev));
  return ConstType(std_dev) * randn(shape, dtype, device) + ConstType(mean);
}

template <class D> Tensor TensorT<D>::scaled_uniform(const Shape& shape, DType dtype, const std::string& device) {
  check_shape("scaled_uniform", shape);
  if (shape_prod(shape) == 0) throw Error("scaled_uniform: shape " + shape_str(shape) + " has no elements to scale by");
  return uniform(shape, -1.0, 1.0, dtype, device) * ConstType(cmath::pow(double(shape_prod(shape)), -0.5));
}

template <class D> Tensor TensorT<D>::glorot_uniform(const Shape& shape, DType dtype, const std::string& device) {
  const std::int64_t fan = shape.empty() ? 0 : shape[0] + detail::fan_in("glorot_uniform", shape);
  if (fan == 0) throw Error("glorot_uniform: shape " + shape_str(shape) + " has no fan (fan_out + fan_in is 0)");
  const double bound = cmath::pow(6.0 / double(fan), 0.5);
  return uniform(shape, -bound, bound, dtype, device);
}

template <class D> Tensor TensorT<D>::kaiming_uniform(const Shape& shape, double a, DType dtype, const std::string& device) {
  const double bound = detail::kaiming_scale("kaiming_uniform", shape, 6.0, a);
  return uniform(shape, -bound, bound, dtype, device);
}

template <class D> Tensor TensorT<D>::kaiming_normal(const Shape& shape, double a, DType dtype, const std::string& device) {
  return normal(shape, 0.0, detail::kaiming_scale("kaiming_normal", shape, 2.0, a), dtype, device);
}

template <class D> Tensor TensorT<D>::rand_like(std::optional<DType> dtype) const { return rand(shape(), dtype.value_or(this->dtype()), device()); }

// Box-Muller on one draw of twice the size (tinygrad's stack(self, self).rand_like)
template <class D> Tensor TensorT<D>::randn_like(std::optional<DType> dtype) const {
  Shape s2 = shape();
  s2.insert(s2.begin(), 2);
  const Tensor src = rand(s2, dtypes::float32, device());
  auto half = [&](std::int64_t i) { return src.shrink(on_axis(s2.size(), 0, i, i + 1)).reshape(shape()); };
  const Tensor r = (half(0) * ConstType(2 * std::numbers::pi)).cos() * ((ConstType(1) - half(1)).log() * ConstType(-2)).sqrt();
  return r.cast(dtype.value_or(this->dtype()));
}

template <class D> Tensor TensorT<D>::dropout(double p) const {
  if (!(p >= 0 && p <= 1)) throw Error("dropout: p=" + py_float_repr(p) + " is out of range [0, 1]");
  if (!training || p == 0) return *this;
  if (p == 1) return zeros_like();
  return (rand_like(dtypes::default_float) >= ConstType(p)).where(*this, ConstType(0)) / ConstType(1.0 - p);
}

}  // namespace mg
