// Trains tinygrad's examples/beautiful_mnist.py CNN on Fashion-MNIST, on the CPU:
//
//   g++ -std=c++20 -O2 -march=native -I include examples/fashion_mnist.cpp -o fashion_mnist && ./fashion_mnist
//
// The model, optimizer (Adam, tinygrad's defaults) and loop are tinygrad's: batches of BS (512) images
// drawn at random from the 60,000 training images, STEPS (70) steps, the accuracy on all 10,000 test
// images every 10 steps and at the end. The data is Debian's dataset-fashion-mnist. The last line printed
// is the final test accuracy. SEED, when set, fixes the random numbers (weights and batches).
#include <cmath>
#include <cstdio>
#include <metagrad/metagrad.hpp>
#include <metagrad/nn/datasets.hpp>
#include <metagrad/nn/trange.hpp>

using namespace mg;

struct Model {
  nn::Conv2d c1{1, 32, 5}, c2{32, 32, 5};
  nn::BatchNorm bn1{32};
  nn::Conv2d c3{32, 64, 3}, c4{64, 64, 3};
  nn::BatchNorm bn2{64};
  nn::Linear l{576, 10};

  Tensor operator()(const Tensor& x) {
    Tensor h = bn1(c2(c1(x).relu()).relu()).max_pool2d();
    h = bn2(c4(c3(h).relu()).relu()).max_pool2d();
    return l(h.flatten(1));
  }
  void visit(auto&& f) { f("c1", c1), f("c2", c2), f("bn1", bn1), f("c3", c3), f("c4", c4), f("bn2", bn2), f("l", l); }
};

int main() try {
  auto data = nn::datasets::fashion_mnist();
  Tensor &X_train = std::get<0>(data), &Y_train = std::get<1>(data), &X_test = std::get<2>(data), &Y_test = std::get<3>(data);
  const std::int64_t steps = getenv_int("STEPS", 70), bs = getenv_int("BS", 512);
  // SEED, when set, fixes the initial weights and the batches drawn (else they change with the time, as
  // tinygrad's do), so that two runs or two builds can be compared exactly
  if (const std::int64_t seed = getenv_int("SEED", -1); seed >= 0) Tensor::manual_seed(std::uint64_t(seed));

  Model model;
  auto opt = nn::Adam(nn::get_parameters(model));

  auto train_step = [&] {
    Tensor::Train train;
    opt.zero_grad();
    Tensor samples = Tensor::randint({bs}, 0, X_train.shape()[0]);
    // the batch is computed once: BatchNorm's running statistics and the step realize apart (each
    // realize schedules what it reads)
    Tensor X = X_train[samples], Y = Y_train[samples];
    X.realize(), Y.realize();
    Tensor loss = model(X).sparse_categorical_crossentropy(Y).backward();
    opt.step({loss});  // the loss is realized with the gradients: one forward pass
    return loss.item<float>();
  };
  auto test_acc = [&] { return ((model(X_test).argmax(1) == Y_test).mean() * 100).item<float>(); };

  float acc = std::nanf("");
  auto t = trange(steps);
  for (std::int64_t i : t) {
    const float loss = train_step();
    if (i % 10 == 9 || i == steps - 1) acc = test_acc();
    char desc[64];
    std::snprintf(desc, sizeof desc, "loss: %6.2f test_accuracy: %5.2f%%", double(loss), double(acc));
    t.set_description(desc);
  }
  std::printf("test accuracy: %.2f%%\n", double(acc));
} catch (const mg::Error& e) {
  std::fprintf(stderr, "fashion_mnist: %s\n", e.what());
  return 1;
}
