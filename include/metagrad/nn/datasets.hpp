#pragma once
// mg::nn::datasets: tinygrad's nn/datasets.py for data on this machine. `load_idx` reads an IDX file
// (the format of MNIST and Fashion-MNIST: a magic with the element type and the number of dims, the
// dims as big-endian uint32, then the data big-endian), gzipped or not, into a Tensor of its dtype and
// shape. `fashion_mnist()` reads Debian's dataset-fashion-mnist as tinygrad's mnist(fashion=True).
//
// gzip goes through zlib opened with dlopen, as libLLVM is (runtime/llvm_api.hpp): a program that
// includes metagrad still builds with plain `g++ -std=c++20` and no link flags. gzread reads a file
// that is not gzipped as it is, so plain IDX files load too.
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "../core/error.hpp"
#include "../tensor/tensor.hpp"

namespace mg::nn {

namespace detail {

// The four zlib functions used, with zlib's C signatures (gzFile is an opaque pointer in the ABI).
struct Zlib {
  using gzFile = struct OpaqueGzFile*;
  gzFile (*gzopen)(const char*, const char*) = nullptr;
  int (*gzread)(gzFile, void*, unsigned) = nullptr;
  int (*gzclose)(gzFile) = nullptr;
  const char* (*gzerror)(gzFile, int*) = nullptr;
};

// Opened once; the handle is never closed (the functions are used until the process ends).
template <class = void> const Zlib& zlib() {
  static const Zlib z = [] {
    void* h = ::dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* why = ::dlerror();
      throw Error(std::string("gzip: cannot open zlib (") + (why ? why : "libz.so.1") +
                  "): apt-get install zlib1g");
    }
    Zlib r;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(h, name));
      if (!fn) throw Error(std::string("gzip: libz.so.1 has no symbol ") + name);
    };
    sym(r.gzopen, "gzopen"), sym(r.gzread, "gzread"), sym(r.gzclose, "gzclose"), sym(r.gzerror, "gzerror");
    return r;
  }();
  return z;
}

// An open gz file, closed when it goes out of scope (also when a read throws).
class GzFile {
 public:
  GzFile(const std::string& path, const std::string& missing_hint) : path_(path) {
    errno = 0;
    f_ = zlib().gzopen(path.c_str(), "rb");
    if (!f_) {
      const int e = errno;
      throw Error("load_idx: cannot open " + path + ": " + (e ? std::strerror(e) : "gzopen failed") +
                  (e == ENOENT && !missing_hint.empty() ? " (" + missing_hint + ")" : ""));
    }
  }
  ~GzFile() { zlib().gzclose(f_); }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  // reads up to n bytes; returns how many (less only at the end of the data). A corrupt stream throws.
  std::size_t read(void* dst, std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
      const unsigned chunk = unsigned(std::min<std::size_t>(n - done, std::size_t(1) << 30));
      const int got = zlib().gzread(f_, static_cast<char*>(dst) + done, chunk);
      if (got < 0) {
        int code = 0;
        const char* msg = zlib().gzerror(f_, &code);
        throw Error("load_idx: " + path_ + " is corrupt: " + (msg && *msg ? msg : "gzread failed"));
      }
      if (got == 0) break;
      done += std::size_t(got);
    }
    return done;
  }

 private:
  std::string path_;
  Zlib::gzFile f_ = nullptr;
};

// the IDX type byte's dtype (its element size follows from it)
template <class = void> std::optional<DType> idx_dtype(std::uint8_t code) {
  switch (code) {
    case 0x08: return dtypes::uint8;
    case 0x09: return dtypes::int8;
    case 0x0B: return dtypes::int16;
    case 0x0C: return dtypes::int32;
    case 0x0D: return dtypes::float32;
    case 0x0E: return dtypes::float64;
    default: return std::nullopt;
  }
}

template <class = void>
Tensor load_idx(const std::string& path, const std::string& device, const std::string& missing_hint) {
  GzFile f(path, missing_hint);
  std::array<std::uint8_t, 4> magic{};
  if (f.read(magic.data(), 4) != 4) throw Error("load_idx: " + path + " is too short for an IDX header (4 bytes)");
  auto dt = idx_dtype(magic[2]);
  if (magic[0] != 0 || magic[1] != 0 || !dt)
    throw Error("load_idx: " + path + " is not an IDX file: magic " + std::to_string(magic[0]) + " " +
                std::to_string(magic[1]) + " " + std::to_string(magic[2]) + " " + std::to_string(magic[3]) +
                " (want 0 0 type ndim, type one of 8 9 11 12 13 14)");
  Shape shape(magic[3]);
  for (std::int64_t& d : shape) {
    std::array<std::uint8_t, 4> b{};
    if (f.read(b.data(), 4) != 4) throw Error("load_idx: " + path + " ends inside its header of " + std::to_string(magic[3]) + " dims");
    d = std::int64_t(b[0]) << 24 | std::int64_t(b[1]) << 16 | std::int64_t(b[2]) << 8 | b[3];
  }
  const std::int64_t numel = shape_prod(shape);
  const std::size_t isz = std::size_t(dt->itemsize()), nbytes = std::size_t(numel) * isz;
  // read straight into the new buffer's bytes: no copy of a 47 MB training set
  UOp buf = new_buffer(device, numel, *dt);
  auto& bytes = host_buffer(buf, /*zero=*/false).bytes;
  if (const std::size_t got = f.read(bytes.data(), nbytes); got != nbytes)
    throw Error("load_idx: " + path + " is short: the header says " + shape_str(shape) + " (" + std::to_string(nbytes) +
                " bytes of data), the file has " + std::to_string(got));
  if (char extra; f.read(&extra, 1) != 0)
    throw Error("load_idx: " + path + " has bytes after the " + std::to_string(nbytes) + " its header " + shape_str(shape) + " says");
  if (isz > 1 && std::endian::native == std::endian::little)  // IDX data is big-endian
    for (std::size_t i = 0; i < nbytes; i += isz) std::reverse(bytes.begin() + std::ptrdiff_t(i), bytes.begin() + std::ptrdiff_t(i + isz));
  return Tensor(shape.size() == 1 ? buf : mop_reshape(buf, shape));
}

}  // namespace detail

// The IDX file at `path` (gzipped or not) as a Tensor of the dtype and shape its header gives:
// MNIST's images are uint8 (N, 28, 28), its labels uint8 (N,).
template <class = void> Tensor load_idx(const std::string& path, const std::string& device = Tensor::default_device) {
  return detail::load_idx(path, device, "");
}

namespace datasets {

// Fashion-MNIST from Debian's dataset-fashion-mnist, as tinygrad's mnist(fashion=True):
// X_train uint8 (60000, 1, 28, 28), Y_train uint8 (60000,), X_test (10000, 1, 28, 28), Y_test (10000,).
template <class = void>
std::tuple<Tensor, Tensor, Tensor, Tensor> fashion_mnist(const std::string& dir = "/usr/share/datasets/fashion-mnist",
                                                         const std::string& device = Tensor::default_device) {
  const std::string hint = "apt-get install dataset-fashion-mnist";
  auto load = [&](const char* name) { return detail::load_idx(dir + "/" + name, device, hint); };
  Tensor X_train = load("train-images-idx3-ubyte.gz"), Y_train = load("train-labels-idx1-ubyte.gz");
  Tensor X_test = load("t10k-images-idx3-ubyte.gz"), Y_test = load("t10k-labels-idx1-ubyte.gz");
  return {X_train.reshape({-1, 1, 28, 28}), Y_train, X_test.reshape({-1, 1, 28, 28}), Y_test};
}

}  // namespace datasets
}  // namespace mg::nn
