// safetensors: files built by hand from the format's description and by tinygrad load to the right
// values; what metagrad writes is byte-for-byte what tinygrad writes and reads back identically; every
// lie a header can tell is an mg::Error naming it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <metagrad/nn/safetensors.hpp>

#include "../tensor/check.hpp"

using namespace mg;
using Bytes = std::vector<std::byte>;

namespace {
// a file: the 8-byte little-endian length of header, header, then data
Bytes safetensors_file(const std::string& header, const std::vector<unsigned>& data) {
  Bytes out;
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out.push_back(std::byte((n >> (8 * i)) & 0xff));
  for (char c : header) out.push_back(std::byte(c));
  for (unsigned b : data) out.push_back(std::byte(b));
  return out;
}
Bytes from_hex(const std::string& hex) {
  Bytes out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(std::byte(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}
std::vector<unsigned> raw(const Tensor& t) {
  std::vector<unsigned> out;
  for (std::byte b : reference_eval(t.uop()).bytes) out.push_back(unsigned(b));
  return out;
}
// what tinygrad's safe_save wrote for {"w": [[1, -2.5], [0.25, 3]], "b": int16 [1, -2, 3],
// "h": half [1.5, -0.5], "m": [True, False, True]} with metadata {"format": "pt"}
const std::string tinygrad_file =
    "00010000000000007b225f5f6d657461646174615f5f223a7b22666f726d6174223a227074227d2c2277223a7b226474797065223a22463332222c22"
    "7368617065223a5b322c325d2c22646174615f6f666673657473223a5b302c31365d7d2c2262223a7b226474797065223a22493136222c227368617065"
    "223a5b335d2c22646174615f6f666673657473223a5b31362c32325d7d2c2268223a7b226474797065223a22463136222c227368617065223a5b325d2c"
    "22646174615f6f666673657473223a5b32322c32365d7d2c226d223a7b226474797065223a22424f4f4c222c227368617065223a5b335d2c2264617461"
    "5f6f666673657473223a5b32362c32395d7d7d20200000803f000020c00000803e000040400100feff0300003e00b8010001";
nn::StateDict tinygrad_dict() {
  return {{"w", Tensor::from({1.0, -2.5, 0.25, 3.0}, {2, 2})},
          {"b", Tensor::from({1, -2, 3}, {}, dtypes::int16)},
          {"h", Tensor::from({1.5, -0.5}, {}, dtypes::float16)},
          {"m", Tensor::from(std::vector<bool>{true, false, true})}};
}
}  // namespace

TEST_CASE("safetensors: a file built from the format description loads every dtype", "[nn][safetensors]") {
  // offsets out of order and a gap before the last tensor: both allowed
  const std::string header =
      R"({"f32":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
      R"("i16":{"dtype":"I16","shape":[2,1],"data_offsets":[0,4]},)"
      R"("u8":{"dtype":"U8","shape":[3],"data_offsets":[4,7]},)"
      R"("b":{"dtype":"BOOL","shape":[],"data_offsets":[7,8]},)"
      R"("f64":{"dtype":"F64","shape":[1],"data_offsets":[16,24]},)"
      R"("f16":{"dtype":"F16","shape":[2],"data_offsets":[24,28]},)"
      R"("bf16":{"dtype":"BF16","shape":[2],"data_offsets":[28,32]},)"
      R"("i64":{"dtype":"I64","shape":[1],"data_offsets":[32,40]},)"
      R"("u64":{"dtype":"U64","shape":[1],"data_offsets":[40,48]},)"
      R"("i32":{"dtype":"I32","shape":[1],"data_offsets":[48,52]},)"
      R"("u32":{"dtype":"U32","shape":[1],"data_offsets":[52,56]},)"
      R"("i8":{"dtype":"I8","shape":[1],"data_offsets":[56,57]},)"
      R"("u16":{"dtype":"U16","shape":[1],"data_offsets":[57,59]},)"
      R"("e4m3":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[59,60]},)"
      R"("e5m2":{"dtype":"F8_E5M2","shape":[1],"data_offsets":[60,61]},)"
      R"("empty":{"dtype":"F32","shape":[0,3],"data_offsets":[61,61]},)"
      R"("__metadata__":{"format":"pt"}}   )";  // padded with spaces
  const Bytes file = safetensors_file(header, {
      0x01, 0x00, 0xfe, 0xff,                          // i16: 1, -2
      0x00, 0x7f, 0xff,                                // u8: 0, 127, 255
      0x01,                                            // b: true
      0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0,  // f32: 1.0, -2.5
      0, 0, 0, 0, 0, 0, 0xe0, 0x3f,                    // f64: 0.5
      0x00, 0x3c, 0x00, 0xc2,                          // f16: 1.0, -3.0
      0x80, 0x3f, 0x40, 0xc0,                          // bf16: 1.0, -3.0
      0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  // i64: -2
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  // u64: 2^64 - 1
      0x00, 0x00, 0x00, 0x80,                          // i32: -2^31
      0xff, 0xff, 0xff, 0xff,                          // u32: 2^32 - 1
      0x80,                                            // i8: -128
      0x34, 0x12,                                      // u16: 0x1234
      0x38,                                            // e4m3: 1.0
      0xbc,                                            // e5m2: -1.0
  });
  const nn::StateDict sd = nn::safe_load_bytes(file);
  REQUIRE(sd.keys() == std::vector<std::string>{"f32", "i16", "u8", "b", "f64", "f16", "bf16", "i64", "u64", "i32", "u32",
                                                "i8", "u16", "e4m3", "e5m2", "empty"});
  CHECK(sd.at("f32").dtype() == dtypes::float32);
  CHECK(sd.at("f32").to_vector<float>() == std::vector<float>{1.0f, -2.5f});
  CHECK(sd.at("i16").shape() == Shape{2, 1});
  CHECK(sd.at("i16").to_vector<int>() == std::vector<int>{1, -2});
  CHECK(sd.at("u8").to_vector<int>() == std::vector<int>{0, 127, 255});
  CHECK(sd.at("b").shape() == Shape{});
  CHECK(sd.at("b").dtype() == dtypes::bool_);
  CHECK(sd.at("b").item<bool>());
  CHECK(sd.at("f64").to_vector<double>() == std::vector<double>{0.5});
  CHECK(sd.at("f16").dtype() == dtypes::float16);
  CHECK(sd.at("f16").to_vector<float>() == std::vector<float>{1.0f, -3.0f});
  CHECK(sd.at("bf16").dtype() == dtypes::bfloat16);
  CHECK(sd.at("bf16").to_vector<float>() == std::vector<float>{1.0f, -3.0f});
  CHECK(sd.at("i64").item<std::int64_t>() == -2);
  CHECK(sd.at("u64").item<std::uint64_t>() == UINT64_MAX);
  CHECK(sd.at("i32").item<std::int32_t>() == INT32_MIN);
  CHECK(sd.at("u32").item<std::uint32_t>() == UINT32_MAX);
  CHECK(sd.at("i8").item<int>() == -128);
  CHECK(sd.at("u16").item<int>() == 0x1234);
  CHECK(sd.at("e4m3").dtype() == dtypes::fp8e4m3);
  CHECK(sd.at("e4m3").item<float>() == 1.0f);
  CHECK(sd.at("e5m2").item<float>() == -1.0f);
  CHECK(sd.at("empty").shape() == Shape{0, 3});
  CHECK(nn::safe_load_metadata_bytes(file)["__metadata__"]["format"].as_string() == "pt");
}

TEST_CASE("safetensors: what tinygrad writes loads, and what metagrad writes is the same bytes", "[nn][safetensors]") {
  const Bytes tg = from_hex(tinygrad_file);
  const nn::StateDict sd = nn::safe_load_bytes(tg);
  REQUIRE(sd.keys() == std::vector<std::string>{"w", "b", "h", "m"});
  CHECK(sd.at("w").shape() == Shape{2, 2});
  CHECK(sd.at("w").to_vector<float>() == std::vector<float>{1.0f, -2.5f, 0.25f, 3.0f});
  CHECK(sd.at("b").dtype() == dtypes::int16);
  CHECK(sd.at("b").to_vector<int>() == std::vector<int>{1, -2, 3});
  CHECK(sd.at("h").to_vector<float>() == std::vector<float>{1.5f, -0.5f});
  CHECK(sd.at("m").to_vector<bool>() == std::vector<bool>{true, false, true});
  CHECK(nn::safe_save_bytes(tinygrad_dict(), Json::object({{"format", "pt"}})) == tg);
}

TEST_CASE("safetensors: a file metagrad writes reads back identically", "[nn][safetensors]") {
  nn::StateDict sd;
  for (DType dt : dtypes::all) {  // every dtype the format has, with values that exercise its bytes
    // (fp8 values are made on INTERP: the CPU device cannot convert to fp8 yet)
    const std::string dev = dt == dtypes::fp8e4m3 || dt == dtypes::fp8e5m2 ? "INTERP" : Tensor::default_device;
    const Tensor t = dt.is_bool() ? Tensor::from(std::vector<bool>{true, false, false, true, true, false}, {2, 3})
                                  : Tensor::from({-1.5, 0.0, 2.0, 3.25, -4.0, 100.0}, {2, 3}, std::nullopt, dev).cast(dt);
    sd.set(dt.repr(), t);
  }
  sd.set("lazy", (Tensor::arange(6).reshape({3, 2}) * 3).permute({1, 0}));  // computed on the way out
  sd.set("scalar", Tensor(7.5, dtypes::float64));
  sd.set("zero-size", Tensor::empty({0, 4}));
  const Bytes file = nn::safe_save_bytes(sd);
  const std::uint64_t n = std::to_integer<std::uint64_t>(file[0]) | std::to_integer<std::uint64_t>(file[1]) << 8;
  CHECK(n % 8 == 0);  // the data starts 8-aligned
  CHECK(char(file[8 + n - 1]) == ' ');
  const nn::StateDict back = nn::safe_load_bytes(file);
  REQUIRE(back.keys() == sd.keys());
  for (const auto& [name, t] : sd) {
    INFO(name);
    const Tensor& b = back.at(name);
    CHECK(b.dtype() == t.dtype());
    CHECK(b.shape() == t.shape());
    CHECK(raw(b) == raw(t));
  }
  CHECK(back.at("lazy").to_vector<int>() == std::vector<int>{0, 6, 12, 3, 9, 15});
  CHECK(nn::safe_load_metadata_bytes(file).find("__metadata__") == nullptr);

  // and through a file
  const auto path = std::filesystem::temp_directory_path() / ("mg_test_" + std::to_string(std::rand()) + ".safetensors");
  nn::safe_save(sd, path, Json::object({{"who", "metagrad"}}));
  const nn::StateDict from_file = nn::safe_load(path);
  CHECK(nn::safe_load_metadata(path)["__metadata__"]["who"].as_string() == "metagrad");
  std::filesystem::remove(path);
  REQUIRE(from_file.keys() == sd.keys());
  for (const auto& [name, t] : sd) CHECK(raw(from_file.at(name)) == raw(t));
  CHECK_THROWS_WITH(nn::safe_load(path), Catch::Contains("safe_load: cannot open") && Catch::Contains(path.string()));
}

TEST_CASE("safetensors: each lie a file can tell is an error naming it", "[nn][safetensors]") {
  const std::string ok = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const std::vector<unsigned> data8(8, 0);
  REQUIRE(nn::safe_load_bytes(safetensors_file(ok, data8)).size() == 1);
  auto load = [](const Bytes& b) { return nn::safe_load_bytes(b); };
  auto with = [&](const std::string& entry, std::vector<unsigned> data = std::vector<unsigned>(8, 0)) {
    return safetensors_file("{\"a\":" + entry + "}", data);
  };

  // truncated: shorter than the length, or the length runs past the end
  CHECK_THROWS_WITH(load(Bytes(5)), Catch::Contains("5 bytes") && Catch::Contains("too short"));
  Bytes cut = safetensors_file(ok, data8);
  cut.resize(8 + ok.size() - 3);
  CHECK_THROWS_WITH(load(cut), Catch::Contains("header length " + std::to_string(ok.size())) && Catch::Contains("past the end"));
  Bytes huge = safetensors_file(ok, data8);
  for (int i = 0; i < 8; ++i) huge[std::size_t(i)] = std::byte(0xff);
  CHECK_THROWS_WITH(load(huge), Catch::Contains("header length 18446744073709551615") && Catch::Contains("past the end"));
  // the data shorter than the header says
  CHECK_THROWS_WITH(load(safetensors_file(ok, {0, 0, 0, 0})), Catch::Contains("\"a\"") && Catch::Contains("[0, 8] outside the 4 data bytes"));

  // bad JSON, or JSON of the wrong shape
  CHECK_THROWS_WITH(load(safetensors_file(R"({"a":{"dtype":"F32",})", data8)), Catch::Contains("not valid JSON") && Catch::Contains("offset"));
  CHECK_THROWS_WITH(load(safetensors_file("[1,2]", {})), Catch::Contains("header is a JSON array"));
  CHECK_THROWS_WITH(load(with("3")), Catch::Contains("\"a\" is a JSON integer"));
  CHECK_THROWS_WITH(load(with(R"({"shape":[2],"data_offsets":[0,8]})")), Catch::Contains("\"a\" has no string \"dtype\""));
  CHECK_THROWS_WITH(load(with(R"({"dtype":"F32","data_offsets":[0,8]})")), Catch::Contains("\"a\" has no \"shape\""));
  CHECK_THROWS_WITH(load(with(R"({"dtype":"F32","shape":[2]})")), Catch::Contains("\"a\" has no \"data_offsets\""));
  CHECK_THROWS_WITH(load(with(R"({"dtype":"F32","shape":[2],"data_offsets":[0]})")), Catch::Contains("data_offsets"));
  CHECK_THROWS_WITH(load(with(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8.0]})")), Catch::Contains("data_offsets"));
  CHECK_THROWS_WITH(load(with(R"({"dtype":"F32","shape":[-2],"data_offsets":[0,8]})")), Catch::Contains("[-2]") && Catch::Contains("non-negative"));
  CHECK_THROWS_WITH(load(with(R"({"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]})")),
                    Catch::Contains("too big"));

  // unknown dtype
  CHECK_THROWS_WITH(load(with(R"({"dtype":"F31","shape":[2],"data_offsets":[0,8]})")), Catch::Contains("\"a\" has unknown dtype \"F31\""));

  // offsets that lie: backwards, out of range, not the shape's size, overlapping
  CHECK_THROWS_WITH(load(with(R"({"dtype":"F32","shape":[2],"data_offsets":[8,0]})")), Catch::Contains("[8, 0] outside"));
  CHECK_THROWS_WITH(load(with(R"({"dtype":"F32","shape":[2],"data_offsets":[-4,4]})")), Catch::Contains("[-4, 4] outside"));
  CHECK_THROWS_WITH(load(with(R"({"dtype":"F32","shape":[2],"data_offsets":[4,12]})")), Catch::Contains("[4, 12] outside the 8 data bytes"));
  CHECK_THROWS_WITH(load(with(R"({"dtype":"F32","shape":[3],"data_offsets":[0,8]})")),
                    Catch::Contains("(8 bytes), but shape (3,) of F32 is 12 bytes"));
  CHECK_THROWS_WITH(load(with(R"({"dtype":"F64","shape":[2],"data_offsets":[0,8]})")), Catch::Contains("is 16 bytes"));
  const std::string overlap = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"I32","shape":[1],"data_offsets":[4,8]}})";
  CHECK_THROWS_WITH(load(safetensors_file(overlap, data8)), Catch::Contains("\"a\" and \"b\" overlap"));

  // what cannot be written
  CHECK_THROWS_WITH(nn::safe_save_bytes({{"__metadata__", Tensor::ones({1})}}), Catch::Contains("reserved"));
  CHECK_THROWS_WITH(nn::safe_save_bytes({{"a", Tensor::ones({1})}}, Json(3)), Catch::Contains("metadata must be a JSON object"));
}
