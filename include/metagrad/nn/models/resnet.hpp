#pragma once
// ResNet (https://arxiv.org/abs/1512.03385), tinygrad's extra/models/resnet.py: ResNet18/34 of BasicBlocks,
// ResNet50/101/152 and ResNeXt50_32X4D of Bottlenecks (the v1.5 variant: stride in the 3x3 conv). The
// state dict names are torchvision's, as tinygrad's ("layer1.0.conv1.weight", "layer2.0.downsample.0.weight").
// Not included by metagrad.hpp: include <metagrad/nn/models/resnet.hpp> to use it.
//
//   nn::EmptyInit empty;                                  // no initial values: only the graph is wanted
//   auto net = nn::models::ResNet50();
//   Tensor logits = net(Tensor::empty({64, 3, 224, 224}));  // (64, 1000)
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../../core/error.hpp"
#include "../layers.hpp"

namespace mg::nn::models {

// the shortcut of a block whose input and output differ in shape: a strided 1x1 conv and a BatchNorm,
// named "0" and "1" as tinygrad's list
struct Downsample {
  Conv2d conv;
  BatchNorm bn;
  Downsample(std::int64_t in_planes, std::int64_t out_planes, std::int64_t stride)
      : conv(in_planes, out_planes, 1, stride, 0, 1, 1, false), bn(out_planes) {}
  Tensor operator()(const Tensor& x) { return bn(conv(x)); }
  void visit(auto&& f) { f("0", conv), f("1", bn); }
};

namespace detail {
template <class = void> std::optional<Downsample> downsample(std::int64_t in_planes, std::int64_t out_planes, std::int64_t stride) {
  if (stride == 1 && in_planes == out_planes) return std::nullopt;
  return Downsample(in_planes, out_planes, stride);
}
}  // namespace detail

// two 3x3 convs; ResNet18 and ResNet34
class BasicBlock {
 public:
  static constexpr std::int64_t expansion = 1;
  Conv2d conv1;
  BatchNorm bn1;
  Conv2d conv2;
  BatchNorm bn2;
  std::optional<Downsample> downsample;

  BasicBlock(std::int64_t in_planes, std::int64_t planes, std::int64_t stride = 1, bool /*stride_in_1x1*/ = false,
             std::int64_t groups = 1, std::int64_t base_width = 64)
      : conv1((check(groups, base_width), in_planes), planes, 3, stride, 1, 1, 1, false), bn1(planes),
        conv2(planes, planes, 3, 1, 1, 1, 1, false), bn2(planes),
        downsample(detail::downsample(in_planes, expansion * planes, stride)) {}
  Tensor operator()(const Tensor& x) {
    const Tensor out = bn2(conv2(bn1(conv1(x)).relu()));
    return (out + (downsample ? (*downsample)(x) : x)).relu();
  }
  void visit(auto&& f) { f("conv1", conv1), f("bn1", bn1), f("conv2", conv2), f("bn2", bn2), f("downsample", downsample); }

 private:
  static void check(std::int64_t groups, std::int64_t base_width) {
    if (groups != 1 || base_width != 64)
      throw Error("BasicBlock: only supports groups=1 and base_width=64, got groups=" + std::to_string(groups) +
                  ", base_width=" + std::to_string(base_width));
  }
};

// 1x1 down, 3x3 (grouped for ResNeXt), 1x1 up to expansion * planes; ResNet50, 101, 152
class Bottleneck {
 public:
  static constexpr std::int64_t expansion = 4;
  Conv2d conv1;
  BatchNorm bn1;
  Conv2d conv2;
  BatchNorm bn2;
  Conv2d conv3;
  BatchNorm bn3;
  std::optional<Downsample> downsample;

  Bottleneck(std::int64_t in_planes, std::int64_t planes, std::int64_t stride = 1, bool stride_in_1x1 = false,
             std::int64_t groups = 1, std::int64_t base_width = 64)
      : conv1(in_planes, width(planes, groups, base_width), 1, stride_in_1x1 ? stride : 1, 0, 1, 1, false),
        bn1(width(planes, groups, base_width)),
        conv2(width(planes, groups, base_width), width(planes, groups, base_width), 3, stride_in_1x1 ? 1 : stride, 1, 1, groups, false),
        bn2(width(planes, groups, base_width)),
        conv3(width(planes, groups, base_width), expansion * planes, 1, 1, 0, 1, 1, false), bn3(expansion * planes),
        downsample(detail::downsample(in_planes, expansion * planes, stride)) {}
  Tensor operator()(const Tensor& x) {
    Tensor out = bn2(conv2(bn1(conv1(x)).relu())).relu();
    out = bn3(conv3(out));
    return (out + (downsample ? (*downsample)(x) : x)).relu();
  }
  void visit(auto&& f) {
    f("conv1", conv1), f("bn1", bn1), f("conv2", conv2), f("bn2", bn2), f("conv3", conv3), f("bn3", bn3), f("downsample", downsample);
  }

 private:
  // tinygrad's int(planes * (base_width / 64.0)) * groups
  static std::int64_t width(std::int64_t planes, std::int64_t groups, std::int64_t base_width) {
    return std::int64_t(double(planes) * (double(base_width) / 64.0)) * groups;
  }
};

// a stem (7x7 conv, stride 2, and a 3x3 max pool), four stages of blocks, a global average pool and,
// with num_classes, a Linear classifier. Without num_classes, features() gives the four stages' outputs.
template <class Block>
class ResNet {
 public:
  std::int64_t num;
  std::int64_t groups, base_width;
  Conv2d conv1;
  BatchNorm bn1;
  std::vector<Block> layer1, layer2, layer3, layer4;
  std::optional<Linear> fc;

  // num: 18, 34 (BasicBlock) or 50, 101, 152 (Bottleneck), as tinygrad's table
  explicit ResNet(std::int64_t num, std::optional<std::int64_t> num_classes = std::nullopt, std::int64_t groups = 1,
                  std::int64_t width_per_group = 64, bool stride_in_1x1 = false)
      : num(num), groups(groups), base_width(width_per_group), conv1(3, 64, 7, 2, 3, 1, 1, false), bn1(64) {
    const std::vector<std::int64_t> n = num_blocks(num);
    std::int64_t in_planes = 64;
    layer1 = make_layer(in_planes, 64, n[0], 1, stride_in_1x1);
    layer2 = make_layer(in_planes, 128, n[1], 2, stride_in_1x1);
    layer3 = make_layer(in_planes, 256, n[2], 2, stride_in_1x1);
    layer4 = make_layer(in_planes, 512, n[3], 2, stride_in_1x1);
    if (num_classes) fc.emplace(512 * Block::expansion, *num_classes);
  }

  // the logits, (batch, num_classes), in float32
  Tensor operator()(const Tensor& x) {
    if (!fc) throw Error("ResNet" + std::to_string(num) + ": made without num_classes, it has no classifier (use features())");
    return (*fc)(stages(x, nullptr).mean({2, 3}).cast(dtypes::float32));
  }
  // the outputs of layer1 .. layer4 (tinygrad's forward with fc=None)
  std::vector<Tensor> features(const Tensor& x) {
    std::vector<Tensor> out;
    stages(x, &out);
    return out;
  }
  void visit(auto&& f) {
    f("conv1", conv1), f("bn1", bn1), f("layer1", layer1), f("layer2", layer2), f("layer3", layer3), f("layer4", layer4), f("fc", fc);
  }

 private:
  static std::vector<std::int64_t> num_blocks(std::int64_t num) {
    constexpr bool basic = Block::expansion == 1;
    if (basic && num == 18) return {2, 2, 2, 2};
    if (basic && num == 34) return {3, 4, 6, 3};
    if (!basic && num == 50) return {3, 4, 6, 3};
    if (!basic && num == 101) return {3, 4, 23, 3};
    if (!basic && num == 152) return {3, 8, 36, 3};
    throw Error("ResNet: no ResNet" + std::to_string(num) + " of " + (basic ? "BasicBlock" : "Bottleneck") +
                " (BasicBlock: 18, 34; Bottleneck: 50, 101, 152)");
  }
  std::vector<Block> make_layer(std::int64_t& in_planes, std::int64_t planes, std::int64_t n, std::int64_t stride, bool stride_in_1x1) {
    std::vector<Block> layers;
    layers.reserve(std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i) {
      layers.emplace_back(in_planes, planes, i == 0 ? stride : 1, stride_in_1x1, groups, base_width);
      in_planes = planes * Block::expansion;
    }
    return layers;
  }
  Tensor stages(const Tensor& x, std::vector<Tensor>* features) {
    Tensor out = bn1(conv1(x)).relu();
    out = out.pad({1, 1, 1, 1}).max_pool2d({3, 3}, 2);
    for (std::vector<Block>* layer : {&layer1, &layer2, &layer3, &layer4}) {
      for (Block& b : *layer) out = b(out);
      if (features) features->push_back(out);
    }
    return out;
  }
};

template <class = void> ResNet<BasicBlock> ResNet18(std::optional<std::int64_t> num_classes = 1000) { return ResNet<BasicBlock>(18, num_classes); }
template <class = void> ResNet<BasicBlock> ResNet34(std::optional<std::int64_t> num_classes = 1000) { return ResNet<BasicBlock>(34, num_classes); }
template <class = void> ResNet<Bottleneck> ResNet50(std::optional<std::int64_t> num_classes = 1000) { return ResNet<Bottleneck>(50, num_classes); }
template <class = void> ResNet<Bottleneck> ResNet101(std::optional<std::int64_t> num_classes = 1000) { return ResNet<Bottleneck>(101, num_classes); }
template <class = void> ResNet<Bottleneck> ResNet152(std::optional<std::int64_t> num_classes = 1000) { return ResNet<Bottleneck>(152, num_classes); }
template <class = void> ResNet<Bottleneck> ResNeXt50_32X4D(std::optional<std::int64_t> num_classes = 1000) { return ResNet<Bottleneck>(50, num_classes, 32, 4); }

}  // namespace mg::nn::models
