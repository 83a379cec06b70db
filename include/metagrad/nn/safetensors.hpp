#pragma once
// safetensors: tinygrad's safe_save / safe_load. The format: an 8-byte little-endian header length N,
// N bytes of UTF-8 JSON (padded with spaces), then the data. The header maps each tensor's name to
// {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]} (byte offsets into the data) and may
// hold "__metadata__". Reading checks everything the header claims against the bytes there are.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/error.hpp"
#include "../core/json.hpp"
#include "../tensor/tensor.hpp"
#include "state.hpp"

namespace mg::nn {

static_assert(std::endian::native == std::endian::little, "safetensors: the data is little-endian, as a BUFFER's bytes are only here");

// the format's dtype names (tinygrad's safe_dtypes, with the format's two fp8s)
inline constexpr std::pair<std::string_view, DType> safe_dtypes[] = {
    {"BOOL", dtypes::bool_},     {"I8", dtypes::int8},        {"U8", dtypes::uint8},       {"I16", dtypes::int16},
    {"U16", dtypes::uint16},     {"I32", dtypes::int32},      {"U32", dtypes::uint32},     {"I64", dtypes::int64},
    {"U64", dtypes::uint64},     {"F16", dtypes::float16},    {"BF16", dtypes::bfloat16},  {"F32", dtypes::float32},
    {"F64", dtypes::float64},    {"F8_E4M3", dtypes::fp8e4m3}, {"F8_E5M2", dtypes::fp8e5m2},
};

namespace detail {
template <class = void> std::string safe_dtype_name(DType dt) {
  for (const auto& [name, d] : safe_dtypes)
    if (d == dt) return std::string(name);
  throw Error("safe_save: " + dt.repr() + " has no safetensors dtype");
}
template <class = void> DType safe_dtype(const std::string& name, const std::string& tensor) {
  for (const auto& [n, d] : safe_dtypes)
    if (n == name) return d;
  throw Error("safe_load: \"" + tensor + "\" has unknown dtype \"" + name + "\"");
}
struct SafeEntry {
  std::string name;
  DType dtype;
  Shape shape;
  std::uint64_t begin, end;
};
// the header's tensor entries, each checked against the data's size
template <class = void>
std::vector<SafeEntry> safe_entries(const Json& header, std::uint64_t data_size) {
  if (!header.is_object()) throw Error(std::string("safe_load: the header is a JSON ") + header.type_name() + ", not an object");
  std::vector<SafeEntry> out;
  for (const auto& [name, e] : header.as_object()) {
    if (name == "__metadata__") continue;
    const std::string who = "safe_load: \"" + name + "\"";
    if (!e.is_object()) throw Error(who + " is a JSON " + e.type_name() + ", not an object");
    const Json *dt = e.find("dtype"), *sh = e.find("shape"), *off = e.find("data_offsets");
    if (!dt || !dt->is_string()) throw Error(who + " has no string \"dtype\"");
    if (!sh || !sh->is_array()) throw Error(who + " has no \"shape\" array");
    if (!off || !off->is_array() || off->size() != 2 || !(*off)[0].is_int() || !(*off)[1].is_int())
      throw Error(who + " has no \"data_offsets\" [begin, end] of two integers");
    SafeEntry s{name, safe_dtype(dt->as_string(), name), {}, 0, 0};
    std::uint64_t nbytes = std::uint64_t(s.dtype.itemsize());
    for (const Json& d : sh->as_array()) {
      if (!d.is_int() || d.as_int() < 0) throw Error(who + " has shape " + sh->dump() + ": sizes must be non-negative integers");
      s.shape.push_back(d.as_int());
      const std::uint64_t n = std::uint64_t(d.as_int());
      if (n != 0 && nbytes > UINT64_MAX / n) throw Error(who + " has shape " + sh->dump() + ", too big to address");
      nbytes *= n;
    }
    const std::int64_t b = (*off)[0].as_int(), en = (*off)[1].as_int();
    if (b < 0 || en < b || std::uint64_t(en) > data_size)
      throw Error(who + " has data_offsets [" + std::to_string(b) + ", " + std::to_string(en) + "] outside the " +
                  std::to_string(data_size) + " data bytes");
    s.begin = std::uint64_t(b), s.end = std::uint64_t(en);
    if (s.end - s.begin != nbytes)
      throw Error(who + " has data_offsets [" + std::to_string(b) + ", " + std::to_string(en) + "] (" + std::to_string(s.end - s.begin) +
                  " bytes), but shape " + shape_str(s.shape) + " of " + dt->as_string() + " is " + std::to_string(nbytes) + " bytes");
    out.push_back(std::move(s));
  }
  // no two tensors share bytes (the format's writers never make such a file; its reader refuses one)
  std::vector<const SafeEntry*> by_begin;
  for (const SafeEntry& s : out)
    if (s.end > s.begin) by_begin.push_back(&s);
  std::sort(by_begin.begin(), by_begin.end(), [](const SafeEntry* a, const SafeEntry* b) { return a->begin < b->begin; });
  for (std::size_t i = 1; i < by_begin.size(); ++i)
    if (by_begin[i]->begin < by_begin[i - 1]->end)
      throw Error("safe_load: \"" + by_begin[i - 1]->name + "\" and \"" + by_begin[i]->name + "\" overlap in the data");
  return out;
}
// the header, and where the data starts
template <class = void>
std::pair<Json, std::size_t> safe_header(std::span<const std::byte> file) {
  if (file.size() < 8)
    throw Error("safe_load: " + std::to_string(file.size()) + " bytes, too short for the 8-byte header length (truncated?)");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | std::uint64_t(file[std::size_t(i)]);
  if (n > file.size() - 8)
    throw Error("safe_load: the header length " + std::to_string(n) + " runs past the end of the file (" + std::to_string(file.size()) +
                " bytes; truncated?)");
  const std::string_view text(reinterpret_cast<const char*>(file.data()) + 8, std::size_t(n));
  try {
    return {parse_json(text), 8 + std::size_t(n)};
  } catch (const Error& e) {
    throw Error(std::string("safe_load: the header is not valid JSON: ") + e.what());
  }
}
}  // namespace detail

// the parsed JSON header of a safetensors file (tinygrad's safe_load_metadata): the tensors' entries
// and "__metadata__", if any
template <class = void>
Json safe_load_metadata_bytes(std::span<const std::byte> file) { return detail::safe_header(file).first; }

// the tensors of a safetensors file in memory, in the header's order; each is a new buffer on device
template <class = void>
StateDict safe_load_bytes(std::span<const std::byte> file, const std::string& device = Tensor::default_device) {
  const auto [header, start] = detail::safe_header(file);
  const std::span<const std::byte> data = file.subspan(start);
  StateDict out;
  for (const detail::SafeEntry& e : detail::safe_entries(header, data.size())) {
    HostArray a(e.dtype, e.shape);
    if (!a.bytes.empty()) std::memcpy(a.bytes.data(), data.data() + e.begin, a.bytes.size());
    out.set(e.name, Tensor::from_host(a, device));
  }
  return out;
}

// a safetensors file's bytes: the tensors (realized as needed) in the dict's order, and metadata (a
// JSON object, written as "__metadata__" first when given; the format wants string values)
template <class T = void>
std::vector<std::byte> safe_save_bytes(const StateDict& tensors, const Json& metadata = Json()) {
  Json header = Json::object();
  if (!metadata.is_null()) {
    if (!metadata.is_object()) throw Error(std::string("safe_save: metadata must be a JSON object, got ") + metadata.type_name());
    header.set("__metadata__", metadata);
  }
  std::vector<HostArray> arrays;
  std::uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    if (name == "__metadata__") throw Error("safe_save: \"__metadata__\" is reserved for the metadata, not a tensor name");
    arrays.push_back(t.template to_host<T>());
    const std::uint64_t n = arrays.back().bytes.size();
    Json::Array shape(t.shape().begin(), t.shape().end());
    header.set(name, Json::object({{"dtype", detail::safe_dtype_name(t.dtype())},
                                   {"shape", Json(std::move(shape))},
                                   {"data_offsets", Json::array({offset, offset + n})}}));
    offset += n;
  }
  std::string j = header.dump();
  j.resize((j.size() + 7) / 8 * 8, ' ');  // data starts 8-aligned, as tinygrad pads it
  std::vector<std::byte> out(8 + j.size());
  for (int i = 0; i < 8; ++i) out[std::size_t(i)] = std::byte((std::uint64_t(j.size()) >> (8 * i)) & 0xff);
  std::memcpy(out.data() + 8, j.data(), j.size());
  out.reserve(out.size() + std::size_t(offset));
  for (const HostArray& a : arrays) out.insert(out.end(), a.bytes.begin(), a.bytes.end());
  return out;
}

// tinygrad's safe_save / safe_load / safe_load_metadata: the same, to and from a file
template <class = void>
void safe_save(const StateDict& tensors, const std::string& path, const Json& metadata = Json()) {
  const std::vector<std::byte> bytes = safe_save_bytes(tensors, metadata);
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) throw Error("safe_save: cannot open " + path + " for writing");
  if (std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size()) throw Error("safe_save: writing " + path + " failed");
}
namespace detail {
template <class = void> std::vector<std::byte> read_file_bytes(const std::string& path, const char* who) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw Error(std::string(who) + ": cannot open " + path);
  std::vector<std::byte> bytes;
  std::byte buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f.get())) > 0;) bytes.insert(bytes.end(), buf, buf + n);
  if (std::ferror(f.get())) throw Error(std::string(who) + ": reading " + path + " failed");
  return bytes;
}
}  // namespace detail
template <class = void>
StateDict safe_load(const std::string& path, const std::string& device = Tensor::default_device) {
  return safe_load_bytes(detail::read_file_bytes(path, "safe_load"), device);
}
template <class = void>
Json safe_load_metadata(const std::string& path) { return safe_load_metadata_bytes(detail::read_file_bytes(path, "safe_load_metadata")); }

}  // namespace mg::nn
