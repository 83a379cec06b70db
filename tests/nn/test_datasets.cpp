// nn/datasets.hpp: IDX files (gzipped through zlib opened at run time, or plain) load with the dtype and
// shape of their header; Debian's Fashion-MNIST loads as tinygrad's mnist(fashion=True), with the
// values Python's gzip module reads from the same files; a missing, short or corrupt file is an
// mg::Error naming it and what is wrong.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <metagrad/nn/datasets.hpp>
#include <metagrad/nn/nn.hpp>

using namespace mg;

namespace {
const std::string fmnist = "/usr/share/datasets/fashion-mnist";

std::string temp_file(const std::string& name, const std::vector<std::uint8_t>& bytes) {
  const std::string path = (std::filesystem::temp_directory_path() / ("mg_test_datasets_" + name)).string();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return path;
}
std::vector<std::uint8_t> file_bytes(const std::string& path, std::size_t n) {
  std::vector<std::uint8_t> out(n);
  std::ifstream(path, std::ios::binary).read(reinterpret_cast<char*>(out.data()), std::streamsize(n));
  return out;
}
std::string error_of(auto&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("load_idx reads a plain IDX file: dtype, dims and big-endian data from the header", "[nn][datasets]") {
  // int16, 2 dims (2, 3): values 1, -2, 300, -32768, 0, 7 big-endian
  const std::string i16 = temp_file("i16.idx", {0, 0, 0x0B, 2, 0, 0, 0, 2, 0, 0, 0, 3, 0x00, 0x01, 0xFF, 0xFE, 0x01, 0x2C,
                                                0x80, 0x00, 0x00, 0x00, 0x00, 0x07});
  Tensor t = nn::load_idx(i16);
  CHECK(t.dtype() == dtypes::int16);
  CHECK(t.shape() == Shape{2, 3});
  CHECK(t.to_vector<int>() == std::vector<int>{1, -2, 300, -32768, 0, 7});
  // float32, 1 dim: 1.5 (0x3FC00000) and -2.0 (0xC0000000)
  const std::string f32 = temp_file("f32.idx", {0, 0, 0x0D, 1, 0, 0, 0, 2, 0x3F, 0xC0, 0, 0, 0xC0, 0, 0, 0});
  Tensor f = nn::load_idx(f32);
  CHECK(f.dtype() == dtypes::float32);
  CHECK(f.to_vector<float>() == std::vector<float>{1.5f, -2.0f});
  std::filesystem::remove(i16), std::filesystem::remove(f32);
}

TEST_CASE("fashion_mnist: shapes, dtypes and values as Python's gzip reads them", "[nn][datasets]") {
  if (!std::filesystem::exists(fmnist + "/t10k-labels-idx1-ubyte.gz")) {
    WARN("dataset-fashion-mnist is not installed: skipped");
    return;
  }
  auto [X_train, Y_train, X_test, Y_test] = nn::datasets::fashion_mnist();
  CHECK(X_train.shape() == Shape{60000, 1, 28, 28});
  CHECK(Y_train.shape() == Shape{60000});
  CHECK(X_test.shape() == Shape{10000, 1, 28, 28});
  CHECK(Y_test.shape() == Shape{10000});
  CHECK(X_train.dtype() == dtypes::uint8);
  CHECK(Y_test.dtype() == dtypes::uint8);
  // gzip.open(...).read()[8:][:10] in Python
  CHECK(Y_train[Slice{0, 10}].to_vector<int>() == std::vector<int>{9, 0, 0, 3, 0, 2, 7, 2, 5, 5});
  CHECK(Y_test[Slice{0, 10}].to_vector<int>() == std::vector<int>{9, 2, 1, 1, 6, 1, 4, 6, 5, 7});
  CHECK(Y_test.cast(dtypes::int32).sum().item<int>() == 45000);
  // row 10 of the first training image, the first image's sum, the last test image's pixels 400..409
  CHECK(X_train[{0, 0, 10}].to_vector<int>() == std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 193, 228, 218, 213, 198,
                                                                 180, 212, 210, 211, 213, 223, 220, 243, 202, 0});
  CHECK(X_train[0].cast(dtypes::int32).sum().item<int>() == 76247);
  CHECK(X_test[9999].flatten()[Slice{400, 410}].to_vector<int>() == std::vector<int>{45, 45, 69, 128, 100, 120, 132, 123, 135, 171});
}

TEST_CASE("load_idx and fashion_mnist: missing, short and corrupt files are errors naming them", "[nn][datasets]") {
  using Catch::Matchers::Contains;
  const std::string missing = "/nonexistent/dir/train-images-idx3-ubyte.gz";
  CHECK_THAT(error_of([&] { nn::load_idx(missing); }), Contains(missing) && Contains("No such file"));
  CHECK_THAT(error_of([] { nn::datasets::fashion_mnist("/nonexistent/fmnist"); }),
             Contains("/nonexistent/fmnist/train-images-idx3-ubyte.gz") && Contains("apt-get install dataset-fashion-mnist"));

  const std::string bad_magic = temp_file("magic.idx", {1, 2, 3, 4, 0, 0, 0, 1, 5});
  CHECK_THAT(error_of([&] { nn::load_idx(bad_magic); }), Contains(bad_magic) && Contains("not an IDX file"));
  const std::string tiny = temp_file("tiny.idx", {0, 0});
  CHECK_THAT(error_of([&] { nn::load_idx(tiny); }), Contains(tiny) && Contains("too short"));
  const std::string header = temp_file("header.idx", {0, 0, 8, 3, 0, 0, 0, 2, 0, 0});
  CHECK_THAT(error_of([&] { nn::load_idx(header); }), Contains(header) && Contains("ends inside its header"));
  const std::string short_data = temp_file("short.idx", {0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 3});
  CHECK_THAT(error_of([&] { nn::load_idx(short_data); }), Contains(short_data) && Contains("(2, 2) (4 bytes of data), the file has 3"));
  const std::string long_data = temp_file("long.idx", {0, 0, 8, 1, 0, 0, 0, 2, 1, 2, 3});
  CHECK_THAT(error_of([&] { nn::load_idx(long_data); }), Contains(long_data) && Contains("bytes after"));
  // a gzip stream with a damaged body: zlib's own message
  const std::string corrupt = temp_file("corrupt.gz", {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
  CHECK_THAT(error_of([&] { nn::load_idx(corrupt); }), Contains(corrupt) && Contains("corrupt"));
  for (const auto& p : {bad_magic, tiny, header, short_data, long_data, corrupt}) std::filesystem::remove(p);

  if (std::filesystem::exists(fmnist + "/t10k-labels-idx1-ubyte.gz")) {
    // the real labels file cut short: zlib reports the truncated stream
    const std::string cut = temp_file("cut.gz", file_bytes(fmnist + "/t10k-labels-idx1-ubyte.gz", 2000));
    CHECK_THAT(error_of([&] { nn::load_idx(cut); }), Contains(cut) && (Contains("corrupt") || Contains("short")));
    std::filesystem::remove(cut);
  }
}

namespace {
// beautiful_mnist's loop on a smaller model, to keep the test fast: conv 3x3, relu, max_pool, linear
struct SmallNet {
  nn::Conv2d c1{1, 8, 3};
  nn::Linear l{8 * 13 * 13, 10};
  Tensor operator()(const Tensor& x) const { return l(c1(x / 255.0).relu().max_pool2d().flatten(1)); }
  void visit(auto&& f) { f("c1", c1), f("l", l); }
};
}  // namespace

TEST_CASE("training on Fashion-MNIST: the loss falls and the test accuracy rises well above chance", "[nn][datasets][train]") {
  if (!std::filesystem::exists(fmnist + "/train-images-idx3-ubyte.gz")) {
    WARN("dataset-fashion-mnist is not installed: skipped");
    return;
  }
  auto [X_all, Y_all, X_test_all, Y_test_all] = nn::datasets::fashion_mnist();
  // the first 4096 training images to draw from and the first 1000 test images: the loop is the
  // example's, sized for a test
  Tensor X_train = X_all[Slice{0, 4096}], Y_train = Y_all[Slice{0, 4096}];
  X_train.realize(), Y_train.realize();
  Tensor X_test = X_test_all[Slice{0, 1000}], Y_test = Y_test_all[Slice{0, 1000}];
  Tensor::manual_seed(42);
  SmallNet net;
  auto opt = nn::Adam(nn::get_parameters(net), {.lr = 3e-3});
  auto accuracy = [&] { return ((net(X_test).argmax(1) == Y_test).mean() * 100).item<float>(); };
  const float acc_before = accuracy();
  std::vector<float> losses;
  for (int step = 0; step < 20; ++step) {
    Tensor::Train train;
    opt.zero_grad();
    Tensor samples = Tensor::randint({64}, 0, 4096);
    Tensor X = X_train[samples], Y = Y_train[samples];
    X.realize(), Y.realize();
    Tensor loss = net(X).sparse_categorical_crossentropy(Y).backward();
    losses.push_back(loss.item<float>());
    opt.step();
  }
  const float acc_after = accuracy();
  const float first = (losses[0] + losses[1] + losses[2]) / 3, last = (losses[17] + losses[18] + losses[19]) / 3;
  INFO("loss " << first << " -> " << last << ", test accuracy " << acc_before << "% -> " << acc_after << "%");
  CHECK(first > 1.8f);           // about ln(10) = 2.3 at the start
  CHECK(last < first - 0.5f);
  CHECK(acc_after > 55.0f);      // chance is 10%
  CHECK(acc_after > acc_before + 30.0f);
}
