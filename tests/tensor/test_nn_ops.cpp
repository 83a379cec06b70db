// Tensor NN ops (tensor/nn_ops.hpp): convolutions, pools, normalization, attention, losses, linear.
// Forward values were printed by tinygrad at the reference commit from the same inputs (seq below,
// float32); gradients are checked against central differences in float64 (check_grad).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <metagrad/tensor/tensor.hpp>

#include "check.hpp"

using namespace mg;

namespace {
// Deterministic inputs, the same on both sides. Values are distinct (max pooling's gradient is
// only defined without ties). tinygrad: [((i*7 + s*3) % 13 - 6)*0.25 + ((i*5 + s) % 11)*0.03 + 0.001*i for i in range(n)]
std::vector<double> seq(std::int64_t n, int s) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < n; ++i)
    v.push_back(double((i * 7 + s * 3) % 13 - 6) * 0.25 + double((i * 5 + s) % 11) * 0.03 + 0.001 * double(i));
  return v;
}
Tensor T(const Shape& shape, int s) { return Tensor::from(seq(shape_prod(shape), s), shape); }  // float32
Tensor labels(const std::vector<std::int32_t>& v, const Shape& shape = {}) { return Tensor::from(v, shape); }

struct Expect {
  Shape shape;
  std::vector<double> values;
};
using Op = std::function<Tensor(const std::vector<Tensor>&)>;

// op on inputs T(shapes[i], i) against tinygrad's values, then its gradient for every input
void check_op(const Op& op, const std::vector<Shape>& shapes, const Expect& want, bool grad = true) {
  std::vector<Tensor> in;
  std::vector<test::GradInput> gin;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    in.push_back(T(shapes[i], int(i)));
    gin.push_back({seq(shape_prod(shapes[i]), int(i)), shapes[i]});
  }
  const Tensor out = op(in);
  CHECK(out.shape() == want.shape);
  test::check_close(out.to_vector<float>(), want.values, 1e-5, 1e-5);
  if (grad) test::check_grad(op, gin);
}

// tinygrad's values for the expression above each (T(shape, s): seq(prod(shape), s) reshaped, float32;
// L(v): an int32 tensor)
namespace want {
// T((1,2,4,4)).conv2d(T((3,2,2,2),1), T((3,),2))
const Expect conv_bias{{1, 3, 3, 3}, {2.69530988, -3.037992, 2.88350606, 3.40038228, 1.91035986, 2.92917824, -0.723965943, -0.528887928, -0.473669827, -1.44669795, -0.77147609, -1.22419405, -0.781910121, -0.114947677, -4.50674629, -1.33744216, 0.051019907, -4.34077787, -5.41671562, 4.73668003, -4.54730368, -4.53061199, 3.50798488, -0.225079834, -1.03792787, -1.7678318, 3.98910403}};
// T((2,2,3,4)).conv2d(T((2,2,3,2),1))
const Expect conv_batched{{2, 2, 1, 3}, {9.11214542, -6.21349812, 9.0956583, -5.78602171, 4.83407784, -4.800282, 1.7198199, -5.88794374, 9.61453152, -2.35015225, 9.51382828, -5.9616518}};
// T((1,4,3,3)).conv2d(T((4,2,2,2),1), groups=2)
const Expect conv_groups2{{1, 4, 2, 2}, {1.90692806, 1.72454607, -2.5946579, 2.36324, 1.59083402, -2.6366241, -0.426419973, -0.879137993, 1.464118, 1.67013395, 2.61280632, 1.76389217, 0.15231584, 1.01706588, 1.64304578, -1.14009404}};
// T((1,3,3,3)).conv2d(T((6,1,2,2),1), T((6,),2), groups=3)
const Expect conv_depthwise{{1, 6, 2, 2}, {0.284749001, 0.198774964, 0.502027094, 0.653653026, 0.472150922, -4.19375706, -4.07121277, 0.735059023, 2.24975514, -2.75526714, 0.488568962, 0.386226922, 0.599620938, -3.68983507, -1.27494705, -1.62532306, 1.48098707, 1.84617686, 3.10719705, 2.185467, -1.01894307, -1.1781168, -1.89180493, -3.70839882}};
// T((1,2,5,5)).conv2d(T((2,2,3,3),1), stride=2, padding=1)
const Expect conv_stride2_pad1{{1, 2, 3, 3}, {-3.39757609, -3.6579318, -3.03965187, 3.20238161, 0.927023053, 1.85740399, 1.31519198, 3.47322607, 1.82718384, 1.67554605, 1.01704025, 1.92338192, 6.05803013, 5.93694115, -1.64704001, -4.57415628, -4.56409168, -2.22255206}};
// T((1,1,7,6)).conv2d(T((1,1,2,2),1), stride=(3,4))
const Expect conv_stride_gt_kernel{{1, 1, 2, 2}, {3.30157399, 3.67047811, -1.91637802, 0.308625907}};
// T((1,1,5,6)).conv2d(T((2,1,2,2),1), dilation=(2,3))
const Expect conv_dilation{{1, 2, 3, 3}, {0.381192088, 0.295217991, 0.446844101, 1.05334806, 1.20497382, 1.35660005, -1.64975584, 0.12037015, 0.271995991, 2.32998204, -2.33592606, 2.47034597, 2.71543407, -1.96829391, 2.83797789, -1.57085407, 2.33841801, -2.34530997}};
// T((1,1,3,3)).conv2d(T((1,1,2,2),1), padding=(1,0))
const Expect conv_pad_pair{{1, 1, 4, 2}, {1.30960298, -1.529742, 0.224749014, 0.138774961, 0.442027092, 0.593653023, 1.62300706, -1.101282}};
// T((1,1,3,3)).conv2d(T((1,1,2,2),1), padding=(2,0,1,1))
const Expect conv_pad_asym{{1, 1, 4, 4}, {0, -2.10450006, 1.30960298, -1.529742, 0, -0.897430956, 0.224749014, 0.138774961, 0, 0.0286510121, 0.442027092, 0.593653023, 0, -0.595224023, 1.62300706, -1.101282}};
// T((1,1,5,5)).conv2d(T((1,1,2,2),1), padding=-1)
const Expect conv_pad_neg{{1, 1, 2, 2}, {1.09781504, -2.84731913, -2.24081492, 0.0132109858}};
// T((1,1,5,5)).conv2d(T((1,1,2,2),1), padding=(-1,0,-1,2))
const Expect conv_pad_neg_asym{{1, 1, 5, 3}, {1.09781504, -2.84731913, 2.85522723, -2.24081492, 0.0132109858, 0.164837077, 0.619714916, 0.771341026, 1.385957, 1.71751201, -1.00677705, 2.209584, 0, 0, 0}};
// T((1,4,6,5)).conv2d(T((4,2,2,2),1), T((4,),2), groups=2, stride=(2,1), dilation=(1,2), padding=(0,1,1,0))
const Expect conv_all{{1, 4, 3, 4}, {0.0220099166, -0.491091967, -0.191613942, 0.0348539799, 3.28494167, -1.3106699, -1.57051194, 0.646626055, 2.79889202, 2.82653975, 2.79067779, -0.321234047, -2.24497795, -0.844838023, -1.84309804, 0.361971974, -1.86398411, -0.182672024, 0.589429975, -3.06792808, 0.679265976, -1.92660201, -3.36204004, 0.932571888, -0.350935996, 4.02933598, -0.0463519394, 4.41125011, 0.910680115, -1.09355402, -0.962037861, -1.36670208, -1.56604004, 4.97159624, -1.53713799, -0.308202088, -0.0839240551, -1.41437006, 0.43422389, -1.84009206, 2.33256388, 1.38900387, -2.07228589, -2.00925589, -0.513296068, -1.66398597, 0.564454079, -0.0766960382}};
// T((1,1,1,1)).conv2d(T((2,1,1,1),1))
const Expect conv_1x1{{1, 2, 1, 1}, {1.08000004, -1.77149999}};
// T((2,1,5)).conv2d(T((2,1,3),1), stride=2, padding=(1,0))
const Expect conv1d{{2, 2, 2}, {-1.97119796, -1.71856201, 0.570624948, 1.52378607, 1.24893701, 1.76344311, -0.773370028, -1.10774398}};
// T((1,1,3,3,3)).conv2d(T((1,1,2,2,2),1), padding=1, stride=2)
const Expect conv3d{{1, 1, 2, 2, 2}, {2.10450006, 1.44071996, 1.71948695, 2.02405906, 0.646782994, 0.532867014, -4.20752001, 1.63672221}};
// T((1,2,3,3)).conv_transpose2d(T((2,3,2,2),1), T((3,),2))
const Expect convt_bias{{1, 3, 4, 4}, {2.35423803, -3.00673294, 2.68372297, -2.17319512, 2.01144004, -2.53156781, 2.6353519, -0.834641993, -0.607835948, -0.197428167, -0.396177888, 1.38904393, -0.812268019, -0.294569075, 0.720475078, -0.198191017, 0.416554093, -3.74031305, 1.40345907, -2.77359295, 0.627886057, 0.497530222, -0.344917834, 1.81972623, -2.22126198, -4.18735409, 0.984107971, -2.86082029, -2.97982407, 0.437116981, -3.90162301, -1.08579099, -2.29537988, 2.95840716, -2.83816481, 2.12837911, -2.26200795, 3.65341806, -2.47548795, 1.44012403, 1.655792, 0.499640077, 0.238123849, -0.28274399, 1.07518983, 0.129193112, 0.371838957, 0.0301090479}};
// T((1,4,2,2)).conv_transpose2d(T((4,1,2,2),1), groups=2)
const Expect convt_groups{{1, 2, 3, 3}, {1.04079604, -3.19433999, 1.84670603, 1.20196807, -3.38192987, 1.84670603, 0.333000004, -0.638693988, -0.622932017, 0.0121679874, -0.262583971, -0.647490025, 0.317375988, -0.581820011, -2.08984208, 0.40377602, -0.0488399081, -1.27052402}};
// T((1,1,3,2)).conv_transpose2d(T((1,2,3,3),1), stride=(2,3), padding=1, output_padding=(1,2))
const Expect convt_stride_pad{{1, 2, 6, 6}, {-0.0810000002, -2.4375, 0.562602997, 0.0216540005, 0.651624978, 0, 0.984912038, -0.274895966, -0.337884039, 0.173160031, -0.110556006, 0, -0.0511920005, -1.54050004, 0.874069035, 0.0336420015, 1.012375, 0, 0.472638011, -0.110556014, -0.436452031, 0.123875991, -0.110556006, 0, -0.0392040014, -1.17974997, 1.18553507, 0.0456300043, 1.37312508, 0, 1.01857805, -0.361548007, 0.233219996, -1.18553507, 0.420810014, 0, 1.10549998, -1.74600005, 0.377741992, -0.295536995, 0.466764003, 0, -2.76155996, 0.853632033, -0.809948027, 1.00434601, -0.582620025, 0, 0.69867599, -1.10347199, 0.586866021, -0.459151, 0.725172043, 0, -1.83664799, 0.661158025, -1.11320007, 1.47187805, -0.787304044, 0, 0.535062015, -0.845064044, 0.79598999, -0.622765005, 0.983580053, 0, -1.00623608, -0.026862001, -0.156325012, 1.17117012, 0.0312650017, 0}};
// T((1,1,2,3)).conv_transpose2d(T((1,1,2,2),1), dilation=(2,1), padding=(1,0))
const Expect convt_dilation{{1, 1, 2, 4}, {-0.448560029, 1.25848305, -1.46580601, 0.997945011, 0.746999979, -2.30419803, 1.03470695, -1.33004403}};
// T((1,1,3,3)).conv_transpose2d(T((1,1,3,3),1), padding=(0,1,2,1))
const Expect convt_pad_asym{{1, 1, 2, 4}, {0.822949052, -0.133223966, 2.30161428, -0.468786031, -0.535163999, 0.395340085, 0.405024022, 0.171564028}};
// T((1,2,4)).conv_transpose2d(T((2,1,3),1), stride=2)
const Expect convt1d{{1, 1, 9}, {0.0614220314, -1.81070399, 0.464064986, 0.519210994, 1.14887512, -1.14680398, 0.701545, 0.793381035, 1.42362106}};
// T((1,1,4,5)).max_pool2d()
const Expect max_default{{1, 1, 2, 2}, {0.845000029, 1.06700003, 1.51100004, 0.828000009}};
// T((1,2,4,4)).max_pool2d(kernel_size=3, stride=1)
const Expect max_k3_s1{{1, 2, 2, 2}, {1.28900003, 1.51100004, 1.28900003, 1.51100004, 1.824, 1.27199996, 1.824, 1.27199996}};
// T((1,1,5,5)).max_pool2d(kernel_size=(3,2))
const Expect max_k32{{1, 1, 1, 2}, {1.51100004, 1.06700003}};
// T((1,1,7,8)).max_pool2d(kernel_size=(2,2), stride=(3,4))
const Expect max_stride_gt_kernel{{1, 1, 2, 2}, {1.28900003, 0.845000029, 1.824, 1.80700004}};
// T((1,1,6,6)).max_pool2d(kernel_size=(2,2), stride=2, dilation=(2,3))
const Expect max_dilation{{1, 1, 2, 2}, {0.623000026, 0.845000029, 1.824, 0.588999987}};
// T((1,1,4,5)).max_pool2d(kernel_size=(2,2), padding=1)
const Expect max_pad1{{1, 1, 3, 3}, {-1.5, 0.400999993, 0.623000026, 0.845000029, 1.51100004, 1.28900003, -0.964999974, 0.606000006, 0.828000009}};
// T((1,1,4,5)).max_pool2d(kernel_size=3, stride=2, padding=(1,0))
const Expect max_pad_pair{{1, 1, 2, 2}, {1.06700003, 1.28900003, 1.51100004, 1.28900003}};
// T((1,1,5,5)).max_pool2d(kernel_size=(3,3), padding=(2,0,1,1))
const Expect max_pad_asym{{1, 1, 2, 2}, {0.845000029, 1.06700003, 1.04999995, 1.51100004}};
// T((1,1,6,6)).max_pool2d(kernel_size=(3,2), padding=1, stride=3, ceil_mode=True)
const Expect max_ceil{{1, 1, 3, 3}, {-0.504000008, 1.28900003, 1.51100004, 1.824, 1.04999995, 0.588999987, -0.75999999, 1.03299999, 1.58500004}};
// T((1,1,5,5)).max_pool2d(kernel_size=(3,3), stride=3, padding=1, ceil_mode=True)
const Expect max_ceil_reduce{{1, 1, 2, 2}, {0.845000029, 1.28900003, 1.51100004, 1.824}};
// T((1,1,5,7)).max_pool2d(kernel_size=2, ceil_mode=True)
const Expect max_ceil_nopad{{1, 1, 3, 4}, {1.06700003, 1.28900003, 1.51100004, -0.504000008, 1.27199996, 1.824, 0.828000009, 1.04999995, 0.588999987, 0.81099999, 1.03299999, -0.316000015}};
// T((1,3,3,4)).max_pool2d(kernel_size=(2,2,2), stride=1)
const Expect max_3d{{1, 2, 2, 3}, {0.845000029, 0.845000029, 1.06700003, 1.28900003, 1.28900003, 1.51100004, 1.824, 0.828000009, 0.828000009, 1.04999995, 1.27199996, 1.58500004}};
// (T((1,1,3,4))*4).cast(dtypes.int32).max_pool2d(kernel_size=(2,2), padding=1)
const Expect max_int_pad{{1, 1, 2, 3}, {-6, 1, 2, -1, 5, 6}};
// (T((1,1,3,3))-5).max_pool2d(kernel_size=(2,2), padding=1)
const Expect max_neg_pad{{1, 1, 2, 2}, {-6.5, -4.59899998, -4.37699986, -3.93300009}};
// T((1,1,4,5)).avg_pool2d()
const Expect avg_default{{1, 1, 2, 2}, {-0.189499989, 0.11500001, 0.273000032, -0.235000029}};
// T((1,2,4,4)).avg_pool2d(kernel_size=3, stride=1)
const Expect avg_k3_s1{{1, 2, 2, 2}, {-0.164999992, 0.469333321, -0.00877777766, 0.2644445, 0.386555523, -0.0257777814, 0.181666613, 0.0937777609}};
// T((1,1,7,8)).avg_pool2d(kernel_size=(2,2), stride=(3,4))
const Expect avg_stride_gt_kernel{{1, 1, 2, 2}, {-0.0230000019, -0.226500005, 0.615999997, 0.330000013}};
// T((1,1,6,6)).avg_pool2d(kernel_size=(2,2), stride=2, dilation=(2,3))
const Expect avg_dilation{{1, 1, 2, 2}, {-0.419999987, -0.115499988, 0.347000003, -0.243499994}};
// T((1,1,4,5)).avg_pool2d(kernel_size=(2,2), padding=1)
const Expect avg_pad1{{1, 1, 3, 3}, {-0.375, -0.136750013, -0.0257499963, 0.196250007, 0.559000015, 0.0509999841, -0.241249993, -0.0342499912, 0.0767499954}};
// T((1,1,4,5)).avg_pool2d(kernel_size=(2,2), padding=1, count_include_pad=False)
const Expect avg_pad1_nocount{{1, 1, 3, 3}, {-1.5, -0.273500025, -0.0514999926, 0.392500013, 0.559000015, 0.0509999841, -0.964999974, -0.0684999824, 0.153499991}};
// T((1,1,5,5)).avg_pool2d(kernel_size=(3,3), padding=(2,0,1,1))
const Expect avg_pad_asym{{1, 1, 2, 2}, {-0.0727777779, 0.0396666676, 0.00277777505, 0.230333358}};
// T((1,1,5,5)).avg_pool2d(kernel_size=(3,3), padding=(2,0,1,1), count_include_pad=False)
const Expect avg_pad_asym_nocount{{1, 1, 2, 2}, {-0.327499986, 0.0595000014, 0.00833332539, 0.230333358}};
// T((1,1,6,6)).avg_pool2d(kernel_size=(3,2), padding=1, stride=3, ceil_mode=True)
const Expect avg_ceil{{1, 1, 3, 3}, {-0.333999991, 0.113666676, 0.392666668, 0.469000041, -0.111166678, -0.0385000035, -0.189999998, 0.123750001, 0.39625001}};
// T((1,1,6,6)).avg_pool2d(kernel_size=(3,2), padding=1, stride=3, ceil_mode=True, count_include_pad=False)
const Expect avg_ceil_nocount{{1, 1, 3, 3}, {-1.00199997, 0.17050001, 1.17799997, 0.938000083, -0.111166678, -0.077000007, -0.75999999, 0.247500002, 1.58500004}};
// T((1,1,5,5)).avg_pool2d(kernel_size=(3,3), stride=3, padding=1, ceil_mode=True)
const Expect avg_ceil_reduce{{1, 1, 2, 2}, {-0.0842222199, 0.113666669, 0.204777792, 0.215777755}};
// T((1,1,5,7)).avg_pool2d(kernel_size=2, ceil_mode=True)
const Expect avg_ceil_nopad{{1, 1, 3, 4}, {-0.0784999877, 0.226000011, 0.448000014, -0.845499992, 0.09799999, 0.402500004, -0.188000008, 0.708499968, -0.196500003, 0.0254999995, 0.247500002, -0.316000015}};
// Tensor.arange(20).reshape(1,1,4,5).avg_pool2d()
const Expect avg_int{{1, 1, 2, 2}, {3, 5, 13, 15}};
// T((1,3,4,4)).avg_pool2d(kernel_size=(2,3,3), stride=(1,2,2), padding=1, count_include_pad=False)
const Expect avg_3d{{1, 4, 2, 2}, {-0.245000005, 0.247333333, 0.0168333463, 0.2644445, -0.0457500033, 0.162, 0.202333331, 0.179111138, 0.352750003, 0.289666682, 0.30249995, 0.0451111086, 0.552000046, 0.502666712, 0.217166662, -0.00355554302}};
// T((2,3,4)).layernorm()
const Expect ln_last{{2, 3, 4}, {-1.2808876, 0.847580254, -0.662836909, 1.09614408, -1.13007486, 0.850234807, -0.850234807, 1.13007486, -1.13007474, 0.850234807, -0.850234687, 1.13007486, 0.824336946, -1.1490978, 1.1490978, -0.824336767, 0.824336886, -1.1490978, 1.1490978, -0.824337006, 0.824337006, -1.1490978, 1.14909792, -0.824336827}};
// T((2,3,4)).layernorm(axis=(1,2))
const Expect ln_axes{{2, 3, 4}, {-1.78966725, 0.281031102, -1.18839145, 0.522848606, -0.946573973, 0.76466614, -0.704756439, 1.00648367, -0.462938935, 1.24830115, -0.221121445, 1.49011862, 0.154440582, -1.58899307, 0.441351086, -1.30208242, 0.72826159, -1.015172, 1.01517212, -0.72826153, 1.30208242, -0.441351026, 1.58899295, -0.154440537}};
// T((2,3,4)).layernorm(axis=(-2,-1), eps=0.5)
const Expect ln_neg{{2, 3, 4}, {-1.41785431, 0.222645372, -0.94149673, 0.414224029, -0.749918163, 0.605802655, -0.558339536, 0.797381282, -0.36676088, 0.988959908, -0.175182283, 1.18053854, 0.11400643, -1.17297816, 0.325800776, -0.961183727, 0.537595153, -0.74938935, 0.74938947, -0.537595093, 0.961183727, -0.325800747, 1.17297804, -0.114006393}};
// T((3,1)).layernorm()
const Expect ln_size1{{3, 1}, {0, 0, 0}};
// T((2,3,2,2)).batchnorm(T((3,),1), T((3,),2), T((3,),3), T((3,),4).abs()+0.5)
const Expect bn_full{{2, 3, 2, 2}, {3.63177586, 0.730089545, 2.78920317, 0.391228706, -1.48658955, -0.0561138391, -1.28444731, 0.146028399, 1.55904746, 0.0663082451, 1.34810638, -0.144632608, 1.09489918, 3.15401268, 0.756038368, 2.81515193, -0.273735613, -1.502069, -0.0715932921, -1.29992664, 0.293402284, 1.57520044, 0.082461454, 1.3642596}};
// T((2,3,2)).batchnorm(None, None, T((3,),1), T((3,),2).abs()+0.5)
const Expect bn_none{{2, 3, 2}, {-0.436799973, 0.627760053, -3.80878091, -0.998261988, -0.178296015, 1.05022609, 0.120960012, 1.00072002, -2.61730719, 0.193212077, 0.342516005, 1.57103801}};
// T((2,3,2)).batchnorm(T((3,2),1), None, T((3,2),2), T((3,2),3).abs()+0.5, axis=(1,2))
const Expect bn_axes{{2, 3, 2}, {1.50508797, 2.01385307, 0.956787527, 1.86603224, -0.118493289, 1.55163133, 0.544147193, 2.80747795, 0.438722104, 2.60140324, -0.054333508, 2.16310239}};
// T((2,3)).batchnorm(None, T((3,),1), T((3,),2), Tensor(2.0))
const Expect bn_scalar_invstd{{2, 3}, {-3.83999991, 4.56099987, -2.95799994, 0.406000018, 2.30700016, 0.628000021}};
// T((1,2,3,4)).scaled_dot_product_attention(T((1,2,5,4),1), T((1,2,5,2),2))
const Expect sdpa{{1, 2, 3, 2}, {0.19028303, -1.18248665, 0.233670086, -1.15373743, 0.264298826, -1.13421333, -0.799442589, 0.792032957, -0.762833595, 0.79191345, -0.746344924, 0.777280748}};
// T((2,3,4)).scaled_dot_product_attention(T((2,3,4),1), T((2,3,2),2), attn_mask=T((3,3),3))
const Expect sdpa_mask{{2, 3, 2}, {0.101988621, -1.24701142, 0.170534879, -1.17846501, 0.0686239004, -1.28037596, 1.14825368, -0.530746281, 1.24254441, -0.436455786, 1.11815286, -0.560847104}};
// T((2,3,4)).scaled_dot_product_attention(T((2,4,4),1), T((2,4,2),2), attn_mask=Tensor([[True,False,True,True],[False,True,True,False],[True,True,False,True]]))
const Expect sdpa_bool{{2, 3, 2}, {0.134813502, -1.23015988, 0.332534701, -1.01646519, 0.140178889, -1.22684705, 1.05599296, -0.256105989, 1.62065244, -0.0583474748, 1.01004374, -0.323407203}};
// T((1,4,3)).scaled_dot_product_attention(T((1,4,3),1), T((1,4,2),2), is_causal=True)
const Expect sdpa_causal{{1, 4, 2}, {0.0599999987, -1.28900003, 0.261245072, -1.08775496, 0.135616183, -1.21338379, 0.316915095, -1.03615272}};
// T((3,2)).scaled_dot_product_attention(T((2,2),1), T((2,3),2))
const Expect sdpa_2d{{3, 3}, {-0.455013096, -0.469640255, -0.233013093, -0.489128858, -0.415363759, -0.267128855, -0.508763015, -0.384126812, -0.286763072}};
// T((3,4)).cross_entropy(T((3,4),1).softmax())
const Expect ce_probs{{}, {1.57188797}};
// T((3,4)).cross_entropy(L([1,3,0]))
const Expect ce_idx{{}, {1.44154501}};
// T((3,4)).cross_entropy(L([1,3,0]), reduction="sum")
const Expect ce_idx_sum{{}, {4.32463503}};
// T((3,4)).cross_entropy(L([1,3,0]), reduction="none")
const Expect ce_idx_none{{3}, {0.977382183, 0.777126431, 2.57012653}};
// T((5,)).cross_entropy(L(2))
const Expect ce_1d{{}, {2.44142437}};
// T((5,)).cross_entropy(T((5,),1).softmax())
const Expect ce_1d_probs{{}, {1.3068558}};
// T((2,3,2,2)).cross_entropy(L([[[0,1],[2,1]],[[2,2],[0,1]]]))
const Expect ce_4d{{}, {1.1417762}};
// T((3,4)).cross_entropy(L([1,3,0]), label_smoothing=0.3)
const Expect ce_smooth{{}, {1.51724505}};
// T((3,4)).cross_entropy(T((3,4),1).softmax(), reduction="none", label_smoothing=0.7)
const Expect ce_smooth_probs{{3}, {1.53729117, 1.6030587, 1.83149374}};
// T((3,4)).cross_entropy(L([1,3,0]), label_smoothing=1.0)
const Expect ce_smooth1{{}, {1.69387841}};
// T((4,5)).sparse_categorical_crossentropy(L([1,4,0,2]))
const Expect scce{{}, {1.69491959}};
// T((4,5)).sparse_categorical_crossentropy(L([1,4,0,2]), reduction="sum")
const Expect scce_sum{{}, {6.77967834}};
// T((4,5)).sparse_categorical_crossentropy(L([1,4,0,2]), reduction="none")
const Expect scce_none{{4}, {1.09242439, 1.03555822, 2.19086695, 2.46082854}};
// T((4,5)).sparse_categorical_crossentropy(L([1,4,1,2]), ignore_index=1)
const Expect scce_ignore{{}, {1.74819338}};
// T((4,5)).sparse_categorical_crossentropy(L([1,4,1,2]), ignore_index=1, reduction="none")
const Expect scce_ignore_none{{4}, {-0, 1.03555822, -0, 2.46082854}};
// T((4,5)).sparse_categorical_crossentropy(L([1,0,3,0]), ignore_index=0, label_smoothing=0.3)
const Expect scce_ignore0{{}, {2.12744546}};
// T((4,5)).sparse_categorical_crossentropy(L([1,4,0,2]), label_smoothing=0.9, reduction="sum")
const Expect scce_smooth{{}, {7.52757835}};
// T((2,3,4)).sparse_categorical_crossentropy(L([[0,3,1],[2,2,0]]))
const Expect scce_batch{{}, {1.22227728}};
// T((3,4)).sigmoid().binary_crossentropy(T((3,4),1).sigmoid())
const Expect bce{{}, {0.806279182}};
// T((3,4)).sigmoid().binary_crossentropy(T((3,4),1).sigmoid(), reduction="sum")
const Expect bce_sum{{}, {9.67535019}};
// T((2,3)).sigmoid().binary_crossentropy(L([[0,1,1],[1,0,0]], dtypes.float32), reduction="none")
const Expect bce_none{{2, 3}, {0.201413244, 0.512614012, 1.2755146, 0.429398477, 0.394633591, 1.20236492}};
// Tensor([0.1,0.9,0.2]).binary_crossentropy(L([0,1,0]))
const Expect bce_int_y{{}, {0.144621551}};
// T((3,4)).binary_crossentropy_logits(T((3,4),1).sigmoid())
const Expect bcel{{}, {0.806279302}};
// T((2,3)).binary_crossentropy_logits(T((2,3),1).sigmoid(), reduction="none")
const Expect bcel_none{{2, 3}, {0.692502797, 0.606797874, 0.6858688, 0.55234158, 0.767432272, 0.496381193}};
// T((3,4)).binary_crossentropy_logits(T((3,4),1).sigmoid(), reduction="sum", pos_weight=Tensor([0.25,0.5,2.0,3.0]))
const Expect bcel_pos{{}, {10.4989033}};
// T((2,3)).linear(T((3,4),1), T((4,),2))
const Expect linear{{2, 4}, {0.689550042, -1.28928697, 0.457115948, -2.8249712, -0.00695401803, -2.730932, 0.379770041, 0.0152919292}};
// T((2,3)).linear(T((3,),1))
const Expect linear_1d{{2, 3}, {1.08000004, 0.473580986, 0.472104013, -0.448560029, -0.85740602, -0.420810014}};
// T((2,2,3)).linear(T((3,2),1))
const Expect linear_batched{{2, 2, 2}, {0.829110086, -2.74939704, -0.0413820259, 1.09030998, -0.183713973, 0.443527013, -0.816606045, 3.89350414}};
}  // namespace want
}  // namespace

using Ts = std::vector<Tensor>;

TEST_CASE("nn ops: conv2d", "[tensor][nn]") {
  check_op([](const Ts& t) { return t[0].conv2d(t[1], t[2]); }, {{1, 2, 4, 4}, {3, 2, 2, 2}, {3}}, want::conv_bias);
  check_op([](const Ts& t) { return t[0].conv2d(t[1]); }, {{2, 2, 3, 4}, {2, 2, 3, 2}}, want::conv_batched);
  check_op([](const Ts& t) { return t[0].conv2d(t[1], std::nullopt, 2); }, {{1, 4, 3, 3}, {4, 2, 2, 2}}, want::conv_groups2);
  check_op([](const Ts& t) { return t[0].conv2d(t[1], t[2], 3); }, {{1, 3, 3, 3}, {6, 1, 2, 2}, {6}}, want::conv_depthwise);
  check_op([](const Ts& t) { return t[0].conv2d(t[1], std::nullopt, 1, 1, {2, 3}); }, {{1, 1, 5, 6}, {2, 1, 2, 2}}, want::conv_dilation);
  check_op([](const Ts& t) { return t[0].conv2d(t[1], std::nullopt, 1, 1, 1, 0); }, {{1, 1, 1, 1}, {2, 1, 1, 1}}, want::conv_1x1);
}

TEST_CASE("nn ops: conv2d stride and padding", "[tensor][nn]") {
  check_op([](const Ts& t) { return t[0].conv2d(t[1], std::nullopt, 1, 2, 1, 1); }, {{1, 2, 5, 5}, {2, 2, 3, 3}}, want::conv_stride2_pad1);
  check_op([](const Ts& t) { return t[0].conv2d(t[1], std::nullopt, 1, {3, 4}); }, {{1, 1, 7, 6}, {1, 1, 2, 2}}, want::conv_stride_gt_kernel);
  // one value per spatial dim: (rows, cols); four: (left, right, top, bottom)
  check_op([](const Ts& t) { return t[0].conv2d(t[1], std::nullopt, 1, 1, 1, {1, 0}); }, {{1, 1, 3, 3}, {1, 1, 2, 2}}, want::conv_pad_pair);
  check_op([](const Ts& t) { return t[0].conv2d(t[1], std::nullopt, 1, 1, 1, {2, 0, 1, 1}); }, {{1, 1, 3, 3}, {1, 1, 2, 2}}, want::conv_pad_asym);
  // negative padding crops
  check_op([](const Ts& t) { return t[0].conv2d(t[1], std::nullopt, 1, 1, 1, -1); }, {{1, 1, 5, 5}, {1, 1, 2, 2}}, want::conv_pad_neg);
  check_op([](const Ts& t) { return t[0].conv2d(t[1], std::nullopt, 1, 1, 1, {-1, 0, -1, 2}); }, {{1, 1, 5, 5}, {1, 1, 2, 2}}, want::conv_pad_neg_asym);
  check_op([](const Ts& t) { return t[0].conv2d(t[1], t[2], 2, {2, 1}, {1, 2}, {0, 1, 1, 0}); }, {{1, 4, 6, 5}, {4, 2, 2, 2}, {4}}, want::conv_all);
}

TEST_CASE("nn ops: conv2d over 1 and 3 spatial dims", "[tensor][nn]") {
  // for one spatial dim, two padding values are (left, right)
  check_op([](const Ts& t) { return t[0].conv2d(t[1], std::nullopt, 1, 2, 1, {1, 0}); }, {{2, 1, 5}, {2, 1, 3}}, want::conv1d);
  check_op([](const Ts& t) { return t[0].conv2d(t[1], std::nullopt, 1, 2, 1, 1); }, {{1, 1, 3, 3, 3}, {1, 1, 2, 2, 2}}, want::conv3d);
}

TEST_CASE("nn ops: conv2d errors", "[tensor][nn]") {
  const Tensor x = Tensor::zeros({1, 4, 5, 5});
  CHECK_THROWS_WITH(x.conv2d(Tensor::zeros({2, 3, 3, 3})),
                    "conv2d: input (1, 4, 5, 5) does not match weight (2, 3, 3, 3) with groups=1 (3 input channels expected, got 4)");
  CHECK_THROWS_WITH(x.conv2d(Tensor::zeros({2, 4, 3, 3}), std::nullopt, 2),
                    "conv2d: input (1, 4, 5, 5) does not match weight (2, 4, 3, 3) with groups=2 (8 input channels expected, got 4)");
  CHECK_THROWS_WITH(x.conv2d(Tensor::zeros({3, 2, 3, 3}), std::nullopt, 2), "conv2d: 3 output channels of weight (3, 2, 3, 3) do not split into groups=2");
  CHECK_THROWS_WITH(x.conv2d(Tensor::zeros({2, 4, 3})),
                    "conv2d: input (1, 4, 5, 5) and weight (2, 4, 3) need the same number of dims, at least 3 (batch, channels, spatial...)");
  CHECK_THROWS_WITH(Tensor::zeros({1, 4}).conv2d(Tensor::zeros({2, 4})),
                    "conv2d: input (1, 4) and weight (2, 4) need the same number of dims, at least 3 (batch, channels, spatial...)");
  CHECK_THROWS_WITH(x.conv2d(Tensor::zeros({2, 4, 3, 3}), std::nullopt, 0), "conv2d: groups must be >= 1, got 0");
  CHECK_THROWS_WITH(x.conv2d(Tensor::zeros({2, 4, 3, 3}), std::nullopt, 1, 1, 1, {1, 1, 1}),
                    "conv2d: padding (1, 1, 1) needs 1, 2 or 4 values for 2 spatial dims");
  CHECK_THROWS_WITH(x.conv2d(Tensor::zeros({2, 4, 3, 3}), std::nullopt, 1, {1, 1, 1}), "conv2d: stride (1, 1, 1) needs 1 or 2 values");
  CHECK_THROWS_WITH(x.conv2d(Tensor::zeros({2, 4, 3, 3}), std::nullopt, 1, 0), "conv2d: stride (0,) must be >= 1");
  CHECK_THROWS_WITH(x.conv2d(Tensor::zeros({2, 4, 3, 3}), std::nullopt, 1, 1, {1, 0}), "conv2d: dilation (1, 0) must be >= 1");
  CHECK_THROWS_WITH(x.conv2d(Tensor::zeros({2, 4, 3, 0})), "conv2d: weight (2, 4, 3, 0) has an empty kernel");
  CHECK_THROWS_WITH(x.conv2d(Tensor::zeros({2, 4, 3, 3}), Tensor::zeros({3})), "conv2d: bias (3,) does not fit the 2 output channels of weight (2, 4, 3, 3)");
  // the kernel (with its dilation) must fit the padded input
  CHECK_THROWS_WITH(x.conv2d(Tensor::zeros({2, 4, 3, 3}), std::nullopt, 1, 1, 3),
                    "pool: kernel (3, 3) with dilation (3, 3) is larger than the input (1, 4, 5, 5)");
  CHECK_THROWS_WITH(Tensor::zeros({2, 16, 2, 2}).conv2d(Tensor::zeros({32, 16, 3, 3})),
                    "pool: kernel (3, 3) with dilation (1, 1) is larger than the input (2, 16, 2, 2)");
  CHECK_NOTHROW(Tensor::zeros({2, 16, 2, 2}).conv2d(Tensor::zeros({32, 16, 3, 3}), std::nullopt, 1, 1, 1, 1));
}

TEST_CASE("nn ops: conv_transpose2d", "[tensor][nn]") {
  check_op([](const Ts& t) { return t[0].conv_transpose2d(t[1], t[2]); }, {{1, 2, 3, 3}, {2, 3, 2, 2}, {3}}, want::convt_bias);
  check_op([](const Ts& t) { return t[0].conv_transpose2d(t[1], std::nullopt, 2); }, {{1, 4, 2, 2}, {4, 1, 2, 2}}, want::convt_groups);
  check_op([](const Ts& t) { return t[0].conv_transpose2d(t[1], std::nullopt, 1, {2, 3}, 1, 1, {1, 2}); }, {{1, 1, 3, 2}, {1, 2, 3, 3}},
           want::convt_stride_pad);
  check_op([](const Ts& t) { return t[0].conv_transpose2d(t[1], std::nullopt, 1, 1, {2, 1}, {1, 0}); }, {{1, 1, 2, 3}, {1, 1, 2, 2}},
           want::convt_dilation);
  check_op([](const Ts& t) { return t[0].conv_transpose2d(t[1], std::nullopt, 1, 1, 1, {0, 1, 2, 1}); }, {{1, 1, 3, 3}, {1, 1, 3, 3}},
           want::convt_pad_asym);
  check_op([](const Ts& t) { return t[0].conv_transpose2d(t[1], std::nullopt, 1, 2); }, {{1, 2, 4}, {2, 1, 3}}, want::convt1d);
}

TEST_CASE("nn ops: conv_transpose2d errors", "[tensor][nn]") {
  const Tensor x = Tensor::zeros({1, 4, 3, 3});
  CHECK_THROWS_WITH(x.conv_transpose2d(Tensor::zeros({2, 4, 2, 2})),
                    "conv_transpose2d: input (1, 4, 3, 3) does not match weight (2, 4, 2, 2) with groups=1 (the weight's first axis must be the 4 input channels, split into groups)");
  CHECK_THROWS_WITH(x.conv_transpose2d(Tensor::zeros({4, 1, 2, 2}), std::nullopt, 3),
                    "conv_transpose2d: input (1, 4, 3, 3) does not match weight (4, 1, 2, 2) with groups=3 (the weight's first axis must be the 4 input channels, split into groups)");
  CHECK_THROWS_WITH(x.conv_transpose2d(Tensor::zeros({4, 1, 2, 2}), Tensor::zeros({4}), 2),
                    "conv_transpose2d: bias (4,) does not fit the 2 output channels of weight (4, 1, 2, 2) with groups=2");
  CHECK_THROWS_WITH(x.conv_transpose2d(Tensor::zeros({4, 1, 2})),
                    "conv_transpose2d: input (1, 4, 3, 3) and weight (4, 1, 2) need the same number of dims, at least 3 (batch, channels, spatial...)");
  CHECK_THROWS_WITH(x.conv_transpose2d(Tensor::zeros({4, 1, 2, 2}), std::nullopt, 1, 1, 1, {1, 1, 1}),
                    "conv_transpose2d: padding (1, 1, 1) needs 1, 2 or 4 values for 2 spatial dims");
  CHECK_THROWS_WITH(x.conv_transpose2d(Tensor::zeros({4, 1, 2, 2}), std::nullopt, 1, 1, 1, 0, -1),
                    "conv_transpose2d: output_padding (-1,) must be >= 0");
  // padding that removes more than the kernel adds leaves too little input for the kernel
  CHECK_THROWS_WITH(Tensor::zeros({1, 1, 2, 3}).conv_transpose2d(Tensor::zeros({1, 1, 2, 2}), std::nullopt, 1, 1, {2, 1}, {1, 2}),
                    "pool: kernel (2, 2) with dilation (2, 1) is larger than the input (1, 1, 4, 1)");
}

TEST_CASE("nn ops: max_pool2d", "[tensor][nn]") {
  check_op([](const Ts& t) { return t[0].max_pool2d(); }, {{1, 1, 4, 5}}, want::max_default);
  check_op([](const Ts& t) { return t[0].max_pool2d(3, 1); }, {{1, 2, 4, 4}}, want::max_k3_s1);
  check_op([](const Ts& t) { return t[0].max_pool2d({3, 2}); }, {{1, 1, 5, 5}}, want::max_k32);
  check_op([](const Ts& t) { return t[0].max_pool2d({2, 2}, {3, 4}); }, {{1, 1, 7, 8}}, want::max_stride_gt_kernel);
  check_op([](const Ts& t) { return t[0].max_pool2d({2, 2}, 2, {2, 3}); }, {{1, 1, 6, 6}}, want::max_dilation);
  // padding is -inf: it never wins, even against negative inputs
  check_op([](const Ts& t) { return t[0].max_pool2d({2, 2}, {}, 1, 1); }, {{1, 1, 4, 5}}, want::max_pad1);
  check_op([](const Ts& t) { return (t[0] - 5).max_pool2d({2, 2}, {}, 1, 1); }, {{1, 1, 3, 3}}, want::max_neg_pad);
  check_op([](const Ts& t) { return t[0].max_pool2d(3, 2, 1, {1, 0}); }, {{1, 1, 4, 5}}, want::max_pad_pair);
  check_op([](const Ts& t) { return t[0].max_pool2d({3, 3}, {}, 1, {2, 0, 1, 1}); }, {{1, 1, 5, 5}}, want::max_pad_asym);
  check_op([](const Ts& t) { return t[0].max_pool2d({2, 2, 2}, 1); }, {{1, 3, 3, 4}}, want::max_3d);
}

TEST_CASE("nn ops: max_pool2d ceil_mode and int inputs", "[tensor][nn]") {
  check_op([](const Ts& t) { return t[0].max_pool2d({3, 2}, 3, 1, 1, true); }, {{1, 1, 6, 6}}, want::max_ceil);
  // a window that would start in the padding alone is dropped
  check_op([](const Ts& t) { return t[0].max_pool2d({3, 3}, 3, 1, 1, true); }, {{1, 1, 5, 5}}, want::max_ceil_reduce);
  check_op([](const Ts& t) { return t[0].max_pool2d(2, {}, 1, 0, true); }, {{1, 1, 5, 7}}, want::max_ceil_nopad);
  // ints pad with the dtype's minimum
  const Tensor xi = (T({1, 1, 3, 4}, 0) * 4).cast(dtypes::int32).max_pool2d({2, 2}, {}, 1, 1);
  CHECK(xi.dtype() == dtypes::int32);
  CHECK(xi.shape() == want::max_int_pad.shape);
  test::check_close(xi.to_vector<std::int32_t>(), want::max_int_pad.values);
  // bools pad with false (tinygrad: Tensor([0,1,0,1]).reshape(1,1,2,2).cast(dtypes.bool).max_pool2d((2,2), padding=1, stride=1))
  const Tensor xb = Tensor::from({0, 1, 0, 1}, {1, 1, 2, 2}).cast(dtypes::bool_).max_pool2d({2, 2}, 1, 1, 1);
  CHECK(xb.dtype() == dtypes::bool_);
  CHECK(xb.to_vector<bool>() == std::vector<bool>{false, true, true, false, true, true, false, true, true});
}

TEST_CASE("nn ops: avg_pool2d", "[tensor][nn]") {
  check_op([](const Ts& t) { return t[0].avg_pool2d(); }, {{1, 1, 4, 5}}, want::avg_default);
  check_op([](const Ts& t) { return t[0].avg_pool2d(3, 1); }, {{1, 2, 4, 4}}, want::avg_k3_s1);
  check_op([](const Ts& t) { return t[0].avg_pool2d({2, 2}, {3, 4}); }, {{1, 1, 7, 8}}, want::avg_stride_gt_kernel);
  check_op([](const Ts& t) { return t[0].avg_pool2d({2, 2}, 2, {2, 3}); }, {{1, 1, 6, 6}}, want::avg_dilation);
  check_op([](const Ts& t) { return t[0].avg_pool2d({2, 2}, {}, 1, 1); }, {{1, 1, 4, 5}}, want::avg_pad1);
  check_op([](const Ts& t) { return t[0].avg_pool2d({2, 2}, {}, 1, 1, false, false); }, {{1, 1, 4, 5}}, want::avg_pad1_nocount);
  check_op([](const Ts& t) { return t[0].avg_pool2d({3, 3}, {}, 1, {2, 0, 1, 1}); }, {{1, 1, 5, 5}}, want::avg_pad_asym);
  check_op([](const Ts& t) { return t[0].avg_pool2d({3, 3}, {}, 1, {2, 0, 1, 1}, false, false); }, {{1, 1, 5, 5}}, want::avg_pad_asym_nocount);
  check_op([](const Ts& t) { return t[0].avg_pool2d({2, 3, 3}, {1, 2, 2}, 1, 1, false, false); }, {{1, 3, 4, 4}}, want::avg_3d);
  // an int input averages to float
  const Tensor ai = Tensor::arange(20).reshape({1, 1, 4, 5}).avg_pool2d();
  CHECK(ai.dtype() == dtypes::float32);
  test::check_close(ai.to_vector<float>(), want::avg_int.values);
}

TEST_CASE("nn ops: avg_pool2d ceil_mode", "[tensor][nn]") {
  // ceil_mode's extra padding is never counted; the regular padding is unless count_include_pad is false
  check_op([](const Ts& t) { return t[0].avg_pool2d({3, 2}, 3, 1, 1, true); }, {{1, 1, 6, 6}}, want::avg_ceil);
  check_op([](const Ts& t) { return t[0].avg_pool2d({3, 2}, 3, 1, 1, true, false); }, {{1, 1, 6, 6}}, want::avg_ceil_nocount);
  check_op([](const Ts& t) { return t[0].avg_pool2d({3, 3}, 3, 1, 1, true); }, {{1, 1, 5, 5}}, want::avg_ceil_reduce);
  check_op([](const Ts& t) { return t[0].avg_pool2d(2, {}, 1, 0, true); }, {{1, 1, 5, 7}}, want::avg_ceil_nopad);
}

TEST_CASE("nn ops: pool errors", "[tensor][nn]") {
  const Tensor x = Tensor::zeros({1, 1, 4, 4});
  CHECK_THROWS_WITH(x.max_pool2d({2, 2}, {}, 1, {1, 1, 1}), "max_pool2d: padding (1, 1, 1) needs 1, 2 or 4 values for 2 spatial dims");
  CHECK_THROWS_WITH(x.avg_pool2d({2, 2}, {}, 1, {1, 1, 1}), "avg_pool2d: padding (1, 1, 1) needs 1, 2 or 4 values for 2 spatial dims");
  CHECK_THROWS_WITH(x.max_pool2d({5, 2}), "pool: kernel (5, 2) with dilation (1, 1) is larger than the input (1, 1, 4, 4)");
  CHECK_THROWS_WITH(x.avg_pool2d({2, 2}, {}, 4), "pool: kernel (2, 2) with dilation (4, 4) is larger than the input (1, 1, 4, 4)");
  CHECK_THROWS_WITH(x.max_pool2d({2, 2}, {1, 1, 1}), "max_pool2d: stride (1, 1, 1) needs 1 or 2 values");
  CHECK_THROWS_WITH(x.avg_pool2d({2, 0}), "avg_pool2d: kernel_size (2, 0) must be >= 1");
  CHECK_THROWS_WITH(x.max_pool2d({2, 2}, 0), "max_pool2d: stride (0,) must be >= 1");
  CHECK_THROWS_WITH(x.max_pool2d(Sizes{}), "max_pool2d: no kernel size");
  CHECK_THROWS_WITH(Tensor::zeros({4}).max_pool2d(), "max_pool2d: can't pool (4,) with kernel (2, 2)");
  CHECK_THROWS_WITH(x.avg_pool2d({1, 1, 1, 1, 1}), "avg_pool2d: can't pool (1, 1, 4, 4) with kernel (1, 1, 1, 1, 1)");
}

TEST_CASE("nn ops: layernorm", "[tensor][nn]") {
  check_op([](const Ts& t) { return t[0].layernorm(); }, {{2, 3, 4}}, want::ln_last);
  check_op([](const Ts& t) { return t[0].layernorm({1, 2}); }, {{2, 3, 4}}, want::ln_axes);
  check_op([](const Ts& t) { return t[0].layernorm({-2, -1}, 0.5); }, {{2, 3, 4}}, want::ln_neg);
  check_op([](const Ts& t) { return t[0].layernorm(); }, {{3, 1}}, want::ln_size1);
  CHECK_THROWS_WITH(Tensor::zeros({2, 3}).layernorm({2}), "reduce: dim 2 out of range for shape (2, 3)");
}

TEST_CASE("nn ops: batchnorm", "[tensor][nn]") {
  check_op([](const Ts& t) { return t[0].batchnorm(t[1], t[2], t[3], t[4].abs() + 0.5); }, {{2, 3, 2, 2}, {3}, {3}, {3}, {3}}, want::bn_full);
  check_op([](const Ts& t) { return t[0].batchnorm(std::nullopt, std::nullopt, t[1], t[2].abs() + 0.5); }, {{2, 3, 2}, {3}, {3}}, want::bn_none);
  check_op([](const Ts& t) { return t[0].batchnorm(t[1], std::nullopt, t[2], t[3].abs() + 0.5, {1, 2}); }, {{2, 3, 2}, {3, 2}, {3, 2}, {3, 2}},
           want::bn_axes);
  // an invstd of another rank than the axes broadcasts as it is
  check_op([](const Ts& t) { return t[0].batchnorm(std::nullopt, t[1], t[2], Tensor(ConstType(2.0), t[0].dtype())); }, {{2, 3}, {3}, {3}},
           want::bn_scalar_invstd);
  // negative axes count from the end (tinygrad takes them as given)
  const Tensor x = T({2, 3, 2}, 0), m = T({2}, 1), s = T({2}, 2);
  test::check_close(x.batchnorm(std::nullopt, std::nullopt, m, s, {-1}).to_vector<float>(),
                    x.batchnorm(std::nullopt, std::nullopt, m, s, {2}).to_vector<float>());
  CHECK_THROWS_WITH(x.batchnorm(std::nullopt, std::nullopt, T({2}, 1), s),
                    "batchnorm: mean (2,) does not fit the axes (1,) of (2, 3, 2)");
  CHECK_THROWS_WITH(x.batchnorm(T({4}, 1), std::nullopt, T({3}, 1), T({3}, 1)),
                    "batchnorm: weight (4,) does not fit the axes (1,) of (2, 3, 2)");
  CHECK_THROWS_WITH(x.batchnorm(std::nullopt, std::nullopt, m, s, {3}), "batchnorm: dim 3 out of range for shape (2, 3, 2)");
}

TEST_CASE("nn ops: scaled_dot_product_attention", "[tensor][nn]") {
  // more keys than queries
  check_op([](const Ts& t) { return t[0].scaled_dot_product_attention(t[1], t[2]); }, {{1, 2, 3, 4}, {1, 2, 5, 4}, {1, 2, 5, 2}}, want::sdpa);
  check_op([](const Ts& t) { return t[0].scaled_dot_product_attention(t[1], t[2], t[3]); }, {{2, 3, 4}, {2, 3, 4}, {2, 3, 2}, {3, 3}},
           want::sdpa_mask);
  check_op(
      [](const Ts& t) {
        const Tensor mask = Tensor::from(std::vector<bool>{true, false, true, true, false, true, true, false, true, true, false, true}, {3, 4});
        return t[0].scaled_dot_product_attention(t[1], t[2], mask);
      },
      {{2, 3, 4}, {2, 4, 4}, {2, 4, 2}}, want::sdpa_bool);
  check_op([](const Ts& t) { return t[0].scaled_dot_product_attention(t[1], t[2], std::nullopt, 0.0, true); }, {{1, 4, 3}, {1, 4, 3}, {1, 4, 2}},
           want::sdpa_causal);
  check_op([](const Ts& t) { return t[0].scaled_dot_product_attention(t[1], t[2]); }, {{3, 2}, {2, 2}, {2, 3}}, want::sdpa_2d);
  // dropout acts only while training: off, it is the identity; p = 1 drops every weight
  const Tensor q3 = T({1, 3, 4}, 0), k3 = T({1, 3, 4}, 1), v3 = T({1, 3, 2}, 2);
  test::check_close(q3.scaled_dot_product_attention(k3, v3, std::nullopt, 0.5).to_vector<float>(),
                    q3.scaled_dot_product_attention(k3, v3).to_vector<float>());
  {
    Tensor::Train train;
    CHECK(q3.scaled_dot_product_attention(k3, v3, std::nullopt, 1.0).to_vector<float>() == std::vector<float>(6, 0.0f));
  }
  CHECK_THROWS_WITH(q3.scaled_dot_product_attention(k3, v3, std::nullopt, 1.5), "dropout: p=1.5 is out of range [0, 1]");
  // the result keeps the query's dtype
  CHECK(T({2, 3}, 0).cast(dtypes::float64).scaled_dot_product_attention(T({2, 3}, 1), T({2, 3}, 2)).dtype() == dtypes::float64);
  const Tensor q = T({2, 3}, 0);
  CHECK_THROWS_WITH(q.scaled_dot_product_attention(q, q, T({2, 2}, 1), 0.0, true),
                    "scaled_dot_product_attention: cannot set attn_mask when is_causal is true");
  CHECK_THROWS_WITH(T({3}, 0).scaled_dot_product_attention(q, q), "scaled_dot_product_attention: query (3,), key (2, 3) and value (2, 3) need at least 2 dims");
  CHECK_THROWS_WITH(q.scaled_dot_product_attention(T({2, 4}, 1), q), "dot: cannot dot (2, 3) and (4, 2)");
}

TEST_CASE("nn ops: cross_entropy", "[tensor][nn]") {
  const Tensor y = labels({1, 3, 0});
  check_op([](const Ts& t) { return t[0].cross_entropy(t[1].softmax()); }, {{3, 4}, {3, 4}}, want::ce_probs);
  check_op([&](const Ts& t) { return t[0].cross_entropy(y); }, {{3, 4}}, want::ce_idx);
  check_op([&](const Ts& t) { return t[0].cross_entropy(y, Reduction::sum); }, {{3, 4}}, want::ce_idx_sum);
  check_op([&](const Ts& t) { return t[0].cross_entropy(y, Reduction::none); }, {{3, 4}}, want::ce_idx_none);
  // 1-d logits: one sample, the classes on axis 0; a 0-d label
  check_op([](const Ts& t) { return t[0].cross_entropy(Tensor(ConstType(2), dtypes::int32)); }, {{5}}, want::ce_1d);
  check_op([](const Ts& t) { return t[0].cross_entropy(t[1].softmax()); }, {{5}, {5}}, want::ce_1d_probs);
  // more than 2 dims: the classes are on axis 1
  check_op([](const Ts& t) { return t[0].cross_entropy(labels({0, 1, 2, 1, 2, 2, 0, 1}, {2, 2, 2})); }, {{2, 3, 2, 2}}, want::ce_4d);
  check_op([&](const Ts& t) { return t[0].cross_entropy(y, Reduction::mean, 0.3); }, {{3, 4}}, want::ce_smooth);
  check_op([](const Ts& t) { return t[0].cross_entropy(t[1].softmax(), Reduction::none, 0.7); }, {{3, 4}, {3, 4}}, want::ce_smooth_probs);
  check_op([&](const Ts& t) { return t[0].cross_entropy(y, Reduction::mean, 1.0); }, {{3, 4}}, want::ce_smooth1);
  const Tensor x = T({3, 4}, 0);
  CHECK_THROWS_WITH(x.cross_entropy(labels({0, 1, 2}, {3, 1})), "cross_entropy: target (3, 1) fits neither the logits (3, 4) nor their labels (3,)");
  CHECK_THROWS_WITH(x.cross_entropy(T({3}, 1)), "one_hot: needs an int tensor, got dtypes.float");
  CHECK_THROWS_WITH(x.cross_entropy(y, Reduction::mean, 1.5), "cross_entropy: label_smoothing 1.500000 must be in [0, 1]");
}

TEST_CASE("nn ops: sparse_categorical_crossentropy", "[tensor][nn]") {
  const Tensor y = labels({1, 4, 0, 2}), y1 = labels({1, 4, 1, 2});
  check_op([&](const Ts& t) { return t[0].sparse_categorical_crossentropy(y); }, {{4, 5}}, want::scce);
  check_op([&](const Ts& t) { return t[0].sparse_categorical_crossentropy(y, -1, 0.0, Reduction::sum); }, {{4, 5}}, want::scce_sum);
  check_op([&](const Ts& t) { return t[0].sparse_categorical_crossentropy(y, -1, 0.0, Reduction::none); }, {{4, 5}}, want::scce_none);
  // ignored labels count neither in the loss nor in the mean's denominator
  check_op([&](const Ts& t) { return t[0].sparse_categorical_crossentropy(y1, 1); }, {{4, 5}}, want::scce_ignore);
  check_op([&](const Ts& t) { return t[0].sparse_categorical_crossentropy(y1, 1, 0.0, Reduction::none); }, {{4, 5}}, want::scce_ignore_none);
  check_op([](const Ts& t) { return t[0].sparse_categorical_crossentropy(labels({1, 0, 3, 0}), 0, 0.3); }, {{4, 5}}, want::scce_ignore0);
  check_op([&](const Ts& t) { return t[0].sparse_categorical_crossentropy(y, -1, 0.9, Reduction::sum); }, {{4, 5}}, want::scce_smooth);
  check_op([](const Ts& t) { return t[0].sparse_categorical_crossentropy(labels({0, 3, 1, 2, 2, 0}, {2, 3})); }, {{2, 3, 4}}, want::scce_batch);
  const Tensor x = T({4, 5}, 0);
  CHECK_THROWS_WITH(x.sparse_categorical_crossentropy(labels({1, 2, 3})),
                    "sparse_categorical_crossentropy: labels (3,) do not fit logits (4, 5) (want (4,))");
  CHECK_THROWS_WITH(x.sparse_categorical_crossentropy(y, -1, -0.1), "sparse_categorical_crossentropy: label_smoothing -0.100000 must be in [0, 1]");
  CHECK_THROWS_WITH(Tensor(ConstType(1.0)).sparse_categorical_crossentropy(y), "sparse_categorical_crossentropy: the logits need at least 1 dim, got shape ()");
}

TEST_CASE("nn ops: binary_crossentropy", "[tensor][nn]") {
  check_op([](const Ts& t) { return t[0].sigmoid().binary_crossentropy(t[1].sigmoid()); }, {{3, 4}, {3, 4}}, want::bce);
  check_op([](const Ts& t) { return t[0].sigmoid().binary_crossentropy(t[1].sigmoid(), Reduction::sum); }, {{3, 4}, {3, 4}}, want::bce_sum);
  check_op([](const Ts& t) { return t[0].sigmoid().binary_crossentropy(Tensor::from({0.0, 1.0, 1.0, 1.0, 0.0, 0.0}, {2, 3}), Reduction::none); },
           {{2, 3}}, want::bce_none);
  test::check_close(std::vector<float>{Tensor::from({0.1, 0.9, 0.2}).binary_crossentropy(labels({0, 1, 0})).item<float>()}, want::bce_int_y.values);
  check_op([](const Ts& t) { return t[0].binary_crossentropy_logits(t[1].sigmoid()); }, {{3, 4}, {3, 4}}, want::bcel);
  check_op([](const Ts& t) { return t[0].binary_crossentropy_logits(t[1].sigmoid(), Reduction::none); }, {{2, 3}, {2, 3}}, want::bcel_none);
  check_op(
      [](const Ts& t) {
        return t[0].binary_crossentropy_logits(t[1].sigmoid(), Reduction::sum, Tensor::from({0.25, 0.5, 2.0, 3.0}, {}, t[0].dtype()));
      },
      {{3, 4}, {3, 4}}, want::bcel_pos);
  CHECK_THROWS_WITH(T({3, 4}, 0).binary_crossentropy(T({3, 2}, 1)), "binary_crossentropy: shapes (3, 4), (3, 2) cannot broadcast together");
  CHECK_THROWS_WITH(T({3, 4}, 0).binary_crossentropy_logits(T({4, 4}, 1)), "binary_crossentropy_logits: shapes (3, 4), (4, 4) cannot broadcast together");
}

TEST_CASE("nn ops: linear", "[tensor][nn]") {
  check_op([](const Ts& t) { return t[0].linear(t[1], t[2]); }, {{2, 3}, {3, 4}, {4}}, want::linear);
  // a 1-d weight scales each feature
  check_op([](const Ts& t) { return t[0].linear(t[1]); }, {{2, 3}, {3}}, want::linear_1d);
  check_op([](const Ts& t) { return t[0].linear(t[1]); }, {{2, 2, 3}, {3, 2}}, want::linear_batched);
  CHECK_THROWS_WITH(T({2, 3}, 0).linear(T({4, 2}, 1)), "dot: cannot dot (2, 3) and (4, 2)");
}

TEST_CASE("nn ops: an int kernel size is square, a list of one pools over one dim", "[nn_ops]") {
  // tinygrad: Tensor.arange(8.).reshape(1, 1, 8).max_pool2d((4,)) -> [[[3, 7]]]; avg_pool2d((2,)) -> [[[0.5, 2.5, 4.5, 6.5]]]
  const Tensor x = Tensor::arange(8.0).reshape({1, 1, 8});
  CHECK(x.max_pool2d({4}).to_vector<float>() == std::vector<float>{3, 7});
  CHECK(x.avg_pool2d({2}).to_vector<float>() == std::vector<float>{0.5f, 2.5f, 4.5f, 6.5f});
  const Tensor y = Tensor::arange(16.0).reshape({1, 1, 4, 4});
  CHECK(y.max_pool2d(2).to_vector<float>() == std::vector<float>{5, 7, 13, 15});
  CHECK(y.max_pool2d({2}).shape() == Shape{1, 1, 4, 2});
}
