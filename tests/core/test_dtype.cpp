// Tests of core/dtype.hpp, core/ops.hpp and core/arg.hpp. Every expected value below was printed by tinygrad
// (the reference commit) in Python: dtype reprs and properties, least_upper_dtype, float16/bfloat16/fp8 rounding
// (struct.pack('e'), float_to_bf16, float_to_fp8/fp8_to_float) and Python's float repr.
#include <catch2/catch.hpp>
#include <metagrad/metagrad.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace mg;

namespace {
constexpr double INF = std::numeric_limits<double>::infinity(), NAN_ = std::numeric_limits<double>::quiet_NaN();
// same double, bit for bit (so -0.0 != 0.0); any NaN equals any NaN
bool same_double(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}
std::string hexf(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

// ---- dtype properties, as tinygrad prints them ----
struct DTypeRow {
  DType d;
  std::string_view repr, name;
  int priority, bitsize, itemsize;
  bool is_int, is_float, is_unsigned;
};
const std::vector<DTypeRow> dtype_rows{
    {dtypes::bool_, "dtypes.bool", "bool", 0, 1, 1, false, false, false},
    {dtypes::int8, "dtypes.char", "signed char", 1, 8, 1, true, false, false},
    {dtypes::uint8, "dtypes.uchar", "unsigned char", 2, 8, 1, true, false, true},
    {dtypes::int16, "dtypes.short", "short", 3, 16, 2, true, false, false},
    {dtypes::uint16, "dtypes.ushort", "unsigned short", 4, 16, 2, true, false, true},
    {dtypes::int32, "dtypes.int", "int", 5, 32, 4, true, false, false},
    {dtypes::uint32, "dtypes.uint", "unsigned int", 6, 32, 4, true, false, true},
    {dtypes::int64, "dtypes.long", "long", 7, 64, 8, true, false, false},
    {dtypes::uint64, "dtypes.ulong", "unsigned long", 8, 64, 8, true, false, true},
    {dtypes::fp8e4m3, "dtypes.fp8e4m3", "float8_e4m3", 9, 8, 1, false, true, false},
    {dtypes::fp8e5m2, "dtypes.fp8e5m2", "float8_e5m2", 10, 8, 1, false, true, false},
    {dtypes::float16, "dtypes.half", "half", 11, 16, 2, false, true, false},
    {dtypes::bfloat16, "dtypes.bfloat16", "__bf16", 12, 16, 2, false, true, false},
    {dtypes::float32, "dtypes.float", "float", 13, 32, 4, false, true, false},
    {dtypes::float64, "dtypes.double", "double", 14, 64, 8, false, true, false},
    {dtypes::weakint, "dtypes.weakint", "weakint", 0, 800, 100, true, false, false},
    {dtypes::void_, "dtypes.void", "void", -1, 0, 0, false, false, false},
};

// ---- least_upper_dtype ----
// the index order of both tables: dtypes::all, then weakint
const std::array<DType, 16> lub_order{dtypes::bool_, dtypes::int8, dtypes::uint8, dtypes::int16, dtypes::uint16,
                                      dtypes::int32, dtypes::uint32, dtypes::int64, dtypes::uint64, dtypes::fp8e4m3,
                                      dtypes::fp8e5m2, dtypes::float16, dtypes::bfloat16, dtypes::float32,
                                      dtypes::float64, dtypes::weakint};
// least_upper_dtype(lub_order[i], lub_order[j]) in tinygrad
const std::array<std::array<DType, 16>, 16> lub_pairs = [] {
  using namespace dtypes;
  return std::array<std::array<DType, 16>, 16>{{
    {bool_, int8, uint8, int16, uint16, int32, uint32, int64, uint64, fp8e4m3, fp8e5m2, float16, bfloat16, float32, float64, weakint},
    {int8, int8, int16, int16, int32, int32, int64, int64, uint64, fp8e4m3, fp8e5m2, float16, bfloat16, float32, float64, int8},
    {uint8, int16, uint8, int16, uint16, int32, uint32, int64, uint64, fp8e4m3, fp8e5m2, float16, bfloat16, float32, float64, uint8},
    {int16, int16, int16, int16, int32, int32, int64, int64, uint64, fp8e4m3, fp8e5m2, float16, bfloat16, float32, float64, int16},
    {uint16, int32, uint16, int32, uint16, int32, uint32, int64, uint64, fp8e4m3, fp8e5m2, float16, bfloat16, float32, float64, uint16},
    {int32, int32, int32, int32, int32, int32, int64, int64, uint64, fp8e4m3, fp8e5m2, float16, bfloat16, float32, float64, int32},
    {uint32, int64, uint32, int64, uint32, int64, uint32, int64, uint64, fp8e4m3, fp8e5m2, float16, bfloat16, float32, float64, uint32},
    {int64, int64, int64, int64, int64, int64, int64, int64, uint64, fp8e4m3, fp8e5m2, float16, bfloat16, float32, float64, int64},
    {uint64, uint64, uint64, uint64, uint64, uint64, uint64, uint64, uint64, fp8e4m3, fp8e5m2, float16, bfloat16, float32, float64, uint64},
    {fp8e4m3, fp8e4m3, fp8e4m3, fp8e4m3, fp8e4m3, fp8e4m3, fp8e4m3, fp8e4m3, fp8e4m3, fp8e4m3, float16, float16, bfloat16, float32, float64, fp8e4m3},
    {fp8e5m2, fp8e5m2, fp8e5m2, fp8e5m2, fp8e5m2, fp8e5m2, fp8e5m2, fp8e5m2, fp8e5m2, float16, fp8e5m2, float16, bfloat16, float32, float64, fp8e5m2},
    {float16, float16, float16, float16, float16, float16, float16, float16, float16, float16, float16, float16, float32, float32, float64, float16},
    {bfloat16, bfloat16, bfloat16, bfloat16, bfloat16, bfloat16, bfloat16, bfloat16, bfloat16, bfloat16, bfloat16, float32, bfloat16, float32, float64, bfloat16},
    {float32, float32, float32, float32, float32, float32, float32, float32, float32, float32, float32, float32, float32, float32, float64, float32},
    {float64, float64, float64, float64, float64, float64, float64, float64, float64, float64, float64, float64, float64, float64, float64, float64},
    {weakint, int8, uint8, int16, uint16, int32, uint32, int64, uint64, fp8e4m3, fp8e5m2, float16, bfloat16, float32, float64, weakint},
  }};
}();
// least_upper_dtype(lub_order[i], lub_order[j], lub_order[k]) in tinygrad, for all 16^3 triples in order i, j, k:
// each char is 'a' + an index into lub_order. Not always the fold of the pair table: lub(fp8e4m3, fp8e5m2, bfloat16)
// is bfloat16, while folding gives lub(float16, bfloat16) = float32.
constexpr std::string_view lub_triples =
    "abcdefghijklmnopbbddffhhijklmnobcdcdefghijklmnocddddffhhijklmnodefefefghijklmnoeffffffhhijklmnofghghghghijklmnoghhhhhhhhijklmnoh"
    "iiiiiiiiijklmnoijjjjjjjjjjllmnojkkkkkkkkklklmnokllllllllllllnnolmmmmmmmmmmmnmnomnnnnnnnnnnnnnnonoooooooooooooooopbcdefghijklmnop"
    "bbddffhhijklmnobbbddffhhijklmnobddddffhhijklmnodddddffhhijklmnodffffffhhijklmnofffffffhhijklmnofhhhhhhhhijklmnohhhhhhhhhijklmnoh"
    "iiiiiiiiijklmnoijjjjjjjjjjllmnojkkkkkkkkklklmnokllllllllllllnnolmmmmmmmmmmmnmnomnnnnnnnnnnnnnnonoooooooooooooooobbddffhhijklmnob"
    "cdcdefghijklmnocddddffhhijklmnodcdcdefghijklmnocddddffhhijklmnodefefefghijklmnoeffffffhhijklmnofghghghghijklmnoghhhhhhhhijklmnoh"
    "iiiiiiiiijklmnoijjjjjjjjjjllmnojkkkkkkkkklklmnokllllllllllllnnolmmmmmmmmmmmnmnomnnnnnnnnnnnnnnonoooooooooooooooocdcdefghijklmnoc"
    "ddddffhhijklmnodddddffhhijklmnodddddffhhijklmnodddddffhhijklmnodffffffhhijklmnofffffffhhijklmnofhhhhhhhhijklmnohhhhhhhhhijklmnoh"
    "iiiiiiiiijklmnoijjjjjjjjjjllmnojkkkkkkkkklklmnokllllllllllllnnolmmmmmmmmmmmnmnomnnnnnnnnnnnnnnonooooooooooooooooddddffhhijklmnod"
    "efefefghijklmnoeffffffhhijklmnofefefefghijklmnoeffffffhhijklmnofefefefghijklmnoeffffffhhijklmnofghghghghijklmnoghhhhhhhhijklmnoh"
    "iiiiiiiiijklmnoijjjjjjjjjjllmnojkkkkkkkkklklmnokllllllllllllnnolmmmmmmmmmmmnmnomnnnnnnnnnnnnnnonooooooooooooooooefefefghijklmnoe"
    "ffffffhhijklmnofffffffhhijklmnofffffffhhijklmnofffffffhhijklmnofffffffhhijklmnofffffffhhijklmnofhhhhhhhhijklmnohhhhhhhhhijklmnoh"
    "iiiiiiiiijklmnoijjjjjjjjjjllmnojkkkkkkkkklklmnokllllllllllllnnolmmmmmmmmmmmnmnomnnnnnnnnnnnnnnonooooooooooooooooffffffhhijklmnof"
    "ghghghghijklmnoghhhhhhhhijklmnohghghghghijklmnoghhhhhhhhijklmnohghghghghijklmnoghhhhhhhhijklmnohghghghghijklmnoghhhhhhhhijklmnoh"
    "iiiiiiiiijklmnoijjjjjjjjjjllmnojkkkkkkkkklklmnokllllllllllllnnolmmmmmmmmmmmnmnomnnnnnnnnnnnnnnonooooooooooooooooghghghghijklmnog"
    "hhhhhhhhijklmnohhhhhhhhhijklmnohhhhhhhhhijklmnohhhhhhhhhijklmnohhhhhhhhhijklmnohhhhhhhhhijklmnohhhhhhhhhijklmnohhhhhhhhhijklmnoh"
    "iiiiiiiiijklmnoijjjjjjjjjjllmnojkkkkkkkkklklmnokllllllllllllnnolmmmmmmmmmmmnmnomnnnnnnnnnnnnnnonoooooooooooooooohhhhhhhhijklmnoh"
    "iiiiiiiiijklmnoiiiiiiiiiijklmnoiiiiiiiiiijklmnoiiiiiiiiiijklmnoiiiiiiiiiijklmnoiiiiiiiiiijklmnoiiiiiiiiiijklmnoiiiiiiiiiijklmnoi"
    "iiiiiiiiijklmnoijjjjjjjjjjllmnojkkkkkkkkklklmnokllllllllllllnnolmmmmmmmmmmmnmnomnnnnnnnnnnnnnnonooooooooooooooooiiiiiiiiijklmnoi"
    "jjjjjjjjjjllmnojjjjjjjjjjjllmnojjjjjjjjjjjllmnojjjjjjjjjjjllmnojjjjjjjjjjjllmnojjjjjjjjjjjllmnojjjjjjjjjjjllmnojjjjjjjjjjjllmnoj"
    "jjjjjjjjjjllmnojjjjjjjjjjjllmnojllllllllllllmnolllllllllllllnnolmmmmmmmmmmmnmnomnnnnnnnnnnnnnnonoooooooooooooooojjjjjjjjjjllmnoj"
    "kkkkkkkkklklmnokkkkkkkkkklklmnokkkkkkkkkklklmnokkkkkkkkkklklmnokkkkkkkkkklklmnokkkkkkkkkklklmnokkkkkkkkkklklmnokkkkkkkkkklklmnok"
    "kkkkkkkkklklmnokllllllllllllmnolkkkkkkkkklklmnokllllllllllllnnolmmmmmmmmmmmnmnomnnnnnnnnnnnnnnonooooooooooooooookkkkkkkkklklmnok"
    "llllllllllllnnolllllllllllllnnolllllllllllllnnolllllllllllllnnolllllllllllllnnolllllllllllllnnolllllllllllllnnolllllllllllllnnol"
    "llllllllllllnnolllllllllllllnnolllllllllllllnnolllllllllllllnnolnnnnnnnnnnnnnnonnnnnnnnnnnnnnnonoooooooooooooooollllllllllllnnol"
    "mmmmmmmmmmmnmnommmmmmmmmmmmnmnommmmmmmmmmmmnmnommmmmmmmmmmmnmnommmmmmmmmmmmnmnommmmmmmmmmmmnmnommmmmmmmmmmmnmnommmmmmmmmmmmnmnom"
    "mmmmmmmmmmmnmnommmmmmmmmmmmnmnommmmmmmmmmmmnmnomnnnnnnnnnnnnnnonmmmmmmmmmmmnmnomnnnnnnnnnnnnnnonoooooooooooooooommmmmmmmmmmnmnom"
    "nnnnnnnnnnnnnnonnnnnnnnnnnnnnnonnnnnnnnnnnnnnnonnnnnnnnnnnnnnnonnnnnnnnnnnnnnnonnnnnnnnnnnnnnnonnnnnnnnnnnnnnnonnnnnnnnnnnnnnnon"
    "nnnnnnnnnnnnnnonnnnnnnnnnnnnnnonnnnnnnnnnnnnnnonnnnnnnnnnnnnnnonnnnnnnnnnnnnnnonnnnnnnnnnnnnnnonoooooooooooooooonnnnnnnnnnnnnnon"
    "oooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooo"
    "oooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooo"
    "pbcdefghijklmnopbbddffhhijklmnobcdcdefghijklmnocddddffhhijklmnodefefefghijklmnoeffffffhhijklmnofghghghghijklmnoghhhhhhhhijklmnoh"
    "iiiiiiiiijklmnoijjjjjjjjjjllmnojkkkkkkkkklklmnokllllllllllllnnolmmmmmmmmmmmnmnomnnnnnnnnnnnnnnonoooooooooooooooopbcdefghijklmnop";

// ---- float rounding: {input, what tinygrad's truncate[dtype] gives} ----
const std::vector<std::pair<double, double>> f16_cases{
    {0x0p+0, 0x0p+0}, {-0x0p+0, -0x0p+0}, {0x1p+0, 0x1p+0},
    {0x1.999999999999ap-4, 0x1.998p-4}, {-0x1.999999999999ap-4, -0x1.998p-4}, {0x1.5555555555555p-2, 0x1.554p-2},
    {0x1p-1, 0x1p-1}, {0x1.8p+0, 0x1.8p+0}, {0x1p+1, 0x1p+1},
    {0x1.9p+6, 0x1.9p+6}, {0x1.f40cccccccccdp+9, 0x1.f4p+9}, {0x1.0624dd2f1a9fcp-10, 0x1.064p-10},
    {0x1.ad7f29abcaf48p-24, 0x1p-23}, {0x1.5798ee2308c3ap-27, 0x0p+0}, {0x1.b7cdfd9d7bdbbp-34, 0x0p+0},
    {INF, INF}, {-INF, -INF}, {0x1.7e43c8800759cp+996, INF},
    {0x0.0000000000001p-1022, 0x0p+0}, {0x0.0000000000001p-1022, 0x0p+0}, {0x1.56e1fc2f8f359p-997, 0x0p+0},
    {0x1.ff933c78cdfadp+127, INF}, {0x1.074f8c4d3cd7bp+128, INF}, {0x1.ffcp+15, 0x1.ffcp+15},
    {0x1.ffdffae147ae1p+15, 0x1.ffcp+15}, {0x1.ffdffffffff77p+15, 0x1.ffcp+15}, {0x1.ffep+15, INF},
    {-0x1.ffep+15, -INF}, {0x1.117p+16, INF}, {0x1p-14, 0x1p-14},
    {0x1p-25, 0x0p+0}, {0x1.000001ad7f29bp-25, 0x1p-24}, {0x1.8p-24, 0x1p-23},
    {0x1.01b2b29a4692bp-24, 0x1p-24}, {0x1.face5f4079ba2p-25, 0x1p-24}, {0x1.fffep-15, 0x1p-14},
    {0x1.006p+0, 0x1.008p+0}, {0x1.0020000001p+0, 0x1.004p+0}, {0x1.002p+11, 0x1p+11},
    {0x1.006p+11, 0x1.008p+11}, {0x1.ffffffffca502p+11, 0x1p+12}, {0x1.fffffffffffd4p+10, 0x1p+11},
    {0x1.03ep-11, 0x1.04p-11}, {0x1.11ep-12, 0x1.12p-12}, {0x1.2aep+7, 0x1.2bp+7},
    {0x1.08ep-7, 0x1.09p-7}, {0x1.082p-14, 0x1.08p-14}, {0x1.f7ep-3, 0x1.f8p-3},
    {0x1.2eap-10, 0x1.2e8p-10}, {0x1.3aap-9, 0x1.3a8p-9}, {0x1.076p+13, 0x1.078p+13},
    {0x1.7fep+14, 0x1.8p+14}, {0x1.eeap-12, 0x1.ee8p-12}, {0x1.2dap-12, 0x1.2d8p-12},
    {0x1.206p-6, 0x1.208p-6}, {0x1.9aep+6, 0x1.9bp+6}, {0x1.b5ep+1, 0x1.b6p+1},
    {0x1.c0cbc7e1ee294p+11, 0x1.c0cp+11}, {-0x1.e209156084bdfp-27, -0x0p+0}, {-0x1.5583aa926700ep+13, -0x1.558p+13},
    {-0x1.38411f2cd089p-3, -0x1.384p-3}, {-0x1.3484871d5a638p-21, -0x1.4p-21}, {-0x1.bc79df7f9adap-14, -0x1.bc8p-14},
    {0x1.d10a84851145cp-6, 0x1.d1p-6}, {0x1.53244df39de6ap-29, 0x0p+0}, {-0x1.1630f313c8f76p-13, -0x1.164p-13},
    {-0x1.204f7358b73b1p-9, -0x1.204p-9}, {0x1.5de8a5ca9b2eap-3, 0x1.5ep-3}, {0x1.73566f21adfdp-5, 0x1.734p-5},
    {0x1.2ec67423348b2p-25, 0x1p-24}, {-0x1.aa5109b7d0ceap-25, -0x1p-24}, {-0x1.a8a9e3f5cbe7bp+0, -0x1.a8cp+0},
    {0x1.4836cacc401cdp-9, 0x1.484p-9}, {-0x1.67c2e9eccefe8p-21, -0x1.6p-21}, {0x1.f1a0fd49e9014p+15, 0x1.f1cp+15},
    {-0x1.4180eeca5d4cp-21, -0x1.4p-21}, {-0x1.ca0011925002ep-29, -0x0p+0}, {-0x1.037020b518877p-26, -0x0p+0},
    {-0x1.2b8274d079b7p-27, -0x0p+0}, {0x1.e625924cebe07p-25, 0x1p-24}, {0x1.8e8b8bb471b2cp-4, 0x1.8e8p-4},
    {-0x1.07b28f38f06efp+13, -0x1.07cp+13}, {0x1.65c3d3f3d9ff8p+4, 0x1.65cp+4}, {-0x1.35050b87b843ap-10, -0x1.35p-10},
    {0x1.55c4a911c1de2p-24, 0x1p-24}, {-0x1.3fbf3fca90aadp-22, -0x1.4p-22}, {-0x1.6d7707d4d179p-21, -0x1.6p-21},
    {-0x1.840c9e72b1d3fp-22, -0x1.8p-22}, {-0x1.46f419bb28aep-10, -0x1.47p-10}, {0x1.a82e01f8c1c38p+10, 0x1.a84p+10},
    {0x1.b02a6ea8d377cp+11, 0x1.b04p+11}, {-0x1.ad72f8a216c4fp-26, -0x0p+0}, {0x1.1cb15db48355ap-7, 0x1.1ccp-7},
    {0x1.18ceb31b609c4p-13, 0x1.18cp-13}, {0x1.ae124965ea19p-7, 0x1.aep-7}, {-0x1.8dc4235f645fdp-21, -0x1.8p-21},
    {0x1.947872a632a94p-5, 0x1.948p-5}, {0x1.7c10e96687f2p+7, 0x1.7cp+7}, {0x1.41ed164800ae8p+4, 0x1.42p+4},
    {-0x1.5a130884d44acp+3, -0x1.5ap+3}, {0x1.9b894ceac5997p-1, 0x1.9b8p-1}, {-0x1.9a49e9f2eb69ap+15, -0x1.9a4p+15},
};
const std::vector<std::pair<double, double>> bf16_cases{
    {0x0p+0, 0x0p+0}, {-0x0p+0, -0x0p+0}, {0x1p+0, 0x1p+0},
    {0x1.999999999999ap-4, 0x1.9ap-4}, {-0x1.999999999999ap-4, -0x1.9ap-4}, {0x1.5555555555555p-2, 0x1.56p-2},
    {0x1p-1, 0x1p-1}, {0x1.8p+0, 0x1.8p+0}, {0x1p+1, 0x1p+1},
    {0x1.9p+6, 0x1.9p+6}, {0x1.f40cccccccccdp+9, 0x1.f4p+9}, {0x1.0624dd2f1a9fcp-10, 0x1.06p-10},
    {0x1.ad7f29abcaf48p-24, 0x1.aep-24}, {0x1.5798ee2308c3ap-27, 0x1.58p-27}, {0x1.b7cdfd9d7bdbbp-34, 0x1.b8p-34},
    {INF, INF}, {-INF, -INF}, {0x0.0000000000001p-1022, 0x0p+0},
    {0x1.56e1fc2f8f359p-997, 0x0p+0}, {0x1.2ced32a16a1b1p+126, 0x1.2cp+126}, {0x1.ff933c78cdfadp+127, INF},
    {0x1.03p+0, 0x1.04p+0}, {0x1.01000004p+0, 0x1p+0}, {0x1.fep+127, 0x1.fep+127},
    {0x1p-126, 0x1p-126}, {0x1p-133, 0x1p-133}, {0x1p-149, 0x0p+0},
    {0x1.ffcp+15, 0x1p+16}, {0x1.3333333333333p-2, 0x1.34p-2}, {0x1.36p-1, 0x1.36p-1},
    {0x1.f48p+83, 0x1.f4p+83}, {0x1.488p-104, 0x1.48p-104}, {0x1.aacp+107, 0x1.aap+107},
    {0x1.aa4p-44, 0x1.aap-44}, {0x1.974p+24, 0x1.98p+24}, {0x1.648p+24, 0x1.64p+24},
    {0x1.694p-102, 0x1.6ap-102}, {0x1.acp-34, 0x1.acp-34}, {0x1.a54p+113, 0x1.a6p+113},
    {0x1.3ep-99, 0x1.3ep-99}, {0x1.7e8p+90, 0x1.7ep+90}, {0x1.bf4p-55, 0x1.cp-55},
    {0x1.14p-19, 0x1.14p-19}, {0x1.178p+50, 0x1.18p+50}, {-0x1.554c9049e864fp+19, -0x1.56p+19},
    {-0x1.b02958309cf8bp+15, -0x1.bp+15}, {0x1.656accdf13923p-29, 0x1.66p-29}, {0x1.023d9b854dc86p-132, 0x1p-132},
    {-0x1.e973f1bfecdd4p-71, -0x1.eap-71}, {-0x1.2a0ca188099cp-19, -0x1.2ap-19}, {-0x1.d3fb58e069603p+117, -0x1.d4p+117},
    {-0x1.6a9cc4fffd1ep+87, -0x1.6ap+87}, {-0x1.7c9fe708cac1ep+46, -0x1.7cp+46}, {0x1.c5ca9182db282p-105, 0x1.c6p-105},
    {0x1.e12a9b3c22bb4p+125, 0x1.e2p+125}, {0x1.2df812df89cdfp-115, 0x1.2ep-115}, {-0x1.cad457672aa2cp-101, -0x1.cap-101},
    {-0x1.f1d1d856a53a4p-19, -0x1.f2p-19}, {-0x1.ba7fc7ef357e7p+41, -0x1.bap+41}, {0x1.a8f6071647406p-104, 0x1.a8p-104},
    {-0x1.00f336fe19c66p-74, -0x1p-74}, {0x1.4d702b2f90eefp-116, 0x1.4ep-116}, {0x1.723a36cc8364p+48, 0x1.72p+48},
    {-0x1.241de1811e8f4p+18, -0x1.24p+18}, {0x1.ed75a716a476p-126, 0x1.eep-126}, {-0x1.1166f7248cb7bp+48, -0x1.12p+48},
    {0x1.6c9e042c78d82p-51, 0x1.6cp-51}, {0x1.fbc4b67a4d5e1p-55, 0x1.fcp-55}, {-0x1.ef2e237e3fd5cp+68, -0x1.fp+68},
    {-0x1.6a5af2791531cp+67, -0x1.6ap+67}, {0x1.827006a652392p+105, 0x1.82p+105}, {0x1.0756d25c7f6c9p+49, 0x1.08p+49},
    {-0x1.b29071919ee88p+96, -0x1.b2p+96}, {0x1.8c559d17bbdbp-77, 0x1.8cp-77}, {0x1.e96a87fdeb73cp-107, 0x1.eap-107},
    {0x1.9f3652c62674ap-46, 0x1.ap-46}, {0x1.59fb21bb97b32p+97, 0x1.5ap+97}, {0x1.e441495c42dcbp-86, 0x1.e4p-86},
    {-0x1.37250db96cde2p+30, -0x1.38p+30}, {-0x1.82d24d22c048ep-40, -0x1.82p-40}, {0x1.e164c143e6a2p+15, 0x1.e2p+15},
    {0x1.4af075ab83ab6p+15, 0x1.4ap+15}, {0x1.6df683a4e9587p-56, 0x1.6ep-56}, {0x1.f1e22d59407b3p-137, 0x0p+0},
    {0x1.da1ea636d3c1dp-14, 0x1.dap-14}, {-0x1.ae9b4dfaedc4bp-42, -0x1.aep-42}, {0x1.36aeda1c7b5dap+72, 0x1.36p+72},
    {0x1.09e46557c0618p+110, 0x1.0ap+110}, {0x1.fb4573d53daf8p+3, 0x1.fcp+3},
};
const std::vector<std::pair<double, double>> e4m3_cases{
    {0x0p+0, 0x0p+0}, {-0x0p+0, -0x0p+0}, {0x1p+0, 0x1p+0},
    {0x1.999999999999ap-4, 0x1.ap-4}, {-0x1.999999999999ap-4, -0x1.ap-4}, {0x1.5555555555555p-2, 0x1.6p-2},
    {0x1p-1, 0x1p-1}, {0x1.8p+0, 0x1.8p+0}, {0x1p+1, 0x1p+1},
    {0x1.9p+6, 0x1.8p+6}, {0x1.f40cccccccccdp+9, 0x1.cp+8}, {0x1.0624dd2f1a9fcp-10, 0x1p-9},
    {0x1.ad7f29abcaf48p-24, 0x0p+0}, {0x1.5798ee2308c3ap-27, 0x0p+0}, {0x1.b7cdfd9d7bdbbp-34, 0x0p+0},
    {INF, NAN_}, {-INF, NAN_}, {0x1.7e43c8800759cp+996, 0x1.cp+8},
    {0x0.0000000000001p-1022, 0x0p+0}, {0x0.0000000000001p-1022, 0x0p+0}, {0x1.56e1fc2f8f359p-997, 0x0p+0},
    {0x1.ff933c78cdfadp+127, 0x1.cp+8}, {0x1.074f8c4d3cd7bp+128, 0x1.cp+8}, {0x1.cp+8, 0x1.cp+8},
    {0x1.dp+8, 0x1.cp+8}, {0x1.d1p+8, 0x1.cp+8}, {0x1.ep+8, 0x1.cp+8},
    {0x1.cp+15, 0x1.cp+8}, {0x1.dffep+15, 0x1.cp+8}, {0x1.ep+15, 0x1.cp+8},
    {0x1p+16, 0x1.cp+8}, {0x1p-9, 0x1p-9}, {0x1p-10, 0x0p+0},
    {0x1.8p-9, 0x1p-8}, {0x1p-16, 0x0p+0}, {0x1p-17, 0x0p+0},
    {0x1p-6, 0x1p-6}, {0x1p-14, 0x0p+0}, {0x1.1p-4, 0x1p-4},
    {0x1.10000004p+0, 0x1.2p+0}, {0x1.3p+0, 0x1.4p+0}, {0x1.2p+0, 0x1.2p+0},
    {0x1p-9, 0x1p-9}, {0x1p-10, 0x0p+0}, {-0x1.f0bd708a7d8a4p+5, -0x1p+6},
    {0x1.41a031a2ce705p-8, 0x1.8p-8}, {0x1.d6018f9c6ee7bp-20, 0x0p+0}, {0x1.8f4fb6846d862p-17, 0x0p+0},
    {0x1.84d13de3c6faap-7, 0x1.8p-7}, {0x1.aa302460d7855p-1, 0x1.ap-1}, {0x1.9c7dedaa345b7p-17, 0x0p+0},
    {-0x1.2476252599168p+1, -0x1.2p+1}, {0x1.6aa078870ca2cp-15, 0x0p+0}, {0x1.802224fa1bep+10, 0x1.cp+8},
    {0x1.b83a0baf897cbp+9, 0x1.cp+8}, {0x1.be675b5430adbp-11, 0x0p+0}, {-0x1.957f86dc1c99ap-7, -0x1.8p-7},
    {0x1.a6af6789feb5ap+14, 0x1.cp+8}, {0x1.28b23ffaa0df4p+2, 0x1.2p+2}, {-0x1.9bd20d8f78d68p+10, -0x1.cp+8},
    {0x1.5bf394c01e50bp+12, 0x1.cp+8}, {0x1.c3ad008c3e652p-7, 0x1.cp-7}, {-0x1.21479f048b66p-3, -0x1.2p-3},
    {0x1.b07c6ebf96d76p+4, 0x1.cp+4}, {0x1.e2d6affa88173p+12, 0x1.cp+8}, {-0x1.839bcb658f13ap+15, -0x1.cp+8},
    {-0x1.2b179fd95ec56p+14, -0x1.cp+8}, {-0x1.d8f25ebe0c1fbp+7, -0x1.ep+7}, {-0x1.94b5b635a715cp-9, -0x1p-8},
    {0x1.6c853ddb535fp-12, 0x0p+0}, {-0x1.d334f8324ab0ep+2, -0x1.ep+2}, {-0x1.7ed77db0829d6p-7, -0x1.8p-7},
    {-0x1.12ac06566139ep+10, -0x1.cp+8}, {-0x1.615db2c113b9p-19, -0x0p+0}, {0x1.75c32421225fbp-20, 0x0p+0},
    {-0x1.6a3f5230445a5p-3, -0x1.6p-3}, {-0x1.d87918da200ecp+8, -0x1.cp+8}, {-0x1.c9372a52dac73p-6, -0x1.cp-6},
    {-0x1.ab731c5265034p-3, -0x1.ap-3}, {-0x1.d252c192b24d4p-1, -0x1.ep-1}, {-0x1.d357a7cbdfea8p-19, -0x0p+0},
    {-0x1.b2fb1e14ca9d6p+5, -0x1.cp+5}, {0x1.3d4343525b579p-15, 0x0p+0}, {-0x1.aaa669e4ed2d5p+5, -0x1.ap+5},
    {0x1.e44e3fdc4d504p+12, 0x1.cp+8}, {-0x1.9f975b8da69f6p+13, -0x1.cp+8}, {0x1.4db5bea59be21p+12, 0x1.cp+8},
    {0x1.6fbdaaa2c97d8p+8, 0x1.6p+8}, {-0x1.466f9d76c23b5p-17, -0x0p+0}, {0x1.ec56782e78918p+9, 0x1.cp+8},
    {-0x1.d30146a692ffep+7, -0x1.ep+7}, {-0x1.696c4184a6cbp-9, -0x1p-9}, {-0x1.9cb1e2aa81fecp+7, -0x1.ap+7},
    {0x1.0127813528338p+4, 0x1p+4}, {0x1.28051dbc005bep-19, 0x0p+0}, {0x1.bb021922b8924p+0, 0x1.cp+0},
    {-0x1.8d4b39532f631p-20, -0x0p+0}, {-0x1.5898220e4ba5p-5, -0x1.6p-5}, {0x1.3cf1c26b8e977p+6, 0x1.4p+6},
    {-0x1.42608cb265308p-3, -0x1.4p-3}, {0x1.8d92e02d729c2p-16, 0x0p+0}, {-0x1.08b54c2236f5cp+5, -0x1p+5},
    {-0x1.f99c4910a2f4p+11, -0x1.cp+8}, {-0x1.02efb27967bap-4, -0x1p-4},
};
const std::vector<std::pair<double, double>> e5m2_cases{
    {0x0p+0, 0x0p+0}, {-0x0p+0, -0x0p+0}, {0x1p+0, 0x1p+0},
    {0x1.999999999999ap-4, 0x1.8p-4}, {-0x1.999999999999ap-4, -0x1.8p-4}, {0x1.5555555555555p-2, 0x1.4p-2},
    {0x1p-1, 0x1p-1}, {0x1.8p+0, 0x1.8p+0}, {0x1p+1, 0x1p+1},
    {0x1.9p+6, 0x1.8p+6}, {0x1.f40cccccccccdp+9, 0x1p+10}, {0x1.0624dd2f1a9fcp-10, 0x1p-10},
    {0x1.ad7f29abcaf48p-24, 0x0p+0}, {0x1.5798ee2308c3ap-27, 0x0p+0}, {0x1.b7cdfd9d7bdbbp-34, 0x0p+0},
    {INF, INF}, {-INF, -INF}, {0x1.7e43c8800759cp+996, 0x1.cp+15},
    {0x0.0000000000001p-1022, 0x0p+0}, {0x0.0000000000001p-1022, 0x0p+0}, {0x1.56e1fc2f8f359p-997, 0x0p+0},
    {0x1.ff933c78cdfadp+127, 0x1.cp+15}, {0x1.074f8c4d3cd7bp+128, 0x1.cp+15}, {0x1.cp+8, 0x1.cp+8},
    {0x1.dp+8, 0x1.cp+8}, {0x1.d1p+8, 0x1.cp+8}, {0x1.ep+8, 0x1p+9},
    {0x1.cp+15, 0x1.cp+15}, {0x1.dffep+15, 0x1.cp+15}, {0x1.ep+15, 0x1.cp+15},
    {0x1p+16, 0x1.cp+15}, {0x1p-9, 0x1p-9}, {0x1p-10, 0x1p-10},
    {0x1.8p-9, 0x1.8p-9}, {0x1p-16, 0x1p-16}, {0x1p-17, 0x0p+0},
    {0x1p-6, 0x1p-6}, {0x1p-14, 0x1p-14}, {0x1.1p-4, 0x1p-4},
    {0x1.10000004p+0, 0x1p+0}, {0x1.3p+0, 0x1.4p+0}, {0x1.2p+0, 0x1p+0},
    {0x1p-9, 0x1p-9}, {0x1p-10, 0x1p-10}, {-0x1.f0bd708a7d8a4p+5, -0x1p+6},
    {0x1.41a031a2ce705p-8, 0x1.4p-8}, {0x1.d6018f9c6ee7bp-20, 0x0p+0}, {0x1.8f4fb6846d862p-17, 0x1p-16},
    {0x1.84d13de3c6faap-7, 0x1.8p-7}, {0x1.aa302460d7855p-1, 0x1.cp-1}, {0x1.9c7dedaa345b7p-17, 0x1p-16},
    {-0x1.2476252599168p+1, -0x1.4p+1}, {0x1.6aa078870ca2cp-15, 0x1.8p-15}, {0x1.802224fa1bep+10, 0x1.8p+10},
    {0x1.b83a0baf897cbp+9, 0x1.cp+9}, {0x1.be675b5430adbp-11, 0x1.cp-11}, {-0x1.957f86dc1c99ap-7, -0x1.8p-7},
    {0x1.a6af6789feb5ap+14, 0x1.cp+14}, {0x1.28b23ffaa0df4p+2, 0x1.4p+2}, {-0x1.9bd20d8f78d68p+10, -0x1.8p+10},
    {0x1.5bf394c01e50bp+12, 0x1.4p+12}, {0x1.c3ad008c3e652p-7, 0x1.cp-7}, {-0x1.21479f048b66p-3, -0x1.4p-3},
    {0x1.b07c6ebf96d76p+4, 0x1.cp+4}, {0x1.e2d6affa88173p+12, 0x1p+13}, {-0x1.839bcb658f13ap+15, -0x1.8p+15},
    {-0x1.2b179fd95ec56p+14, -0x1.4p+14}, {-0x1.d8f25ebe0c1fbp+7, -0x1.cp+7}, {-0x1.94b5b635a715cp-9, -0x1.8p-9},
    {0x1.6c853ddb535fp-12, 0x1.8p-12}, {-0x1.d334f8324ab0ep+2, -0x1.cp+2}, {-0x1.7ed77db0829d6p-7, -0x1.8p-7},
    {-0x1.12ac06566139ep+10, -0x1p+10}, {-0x1.615db2c113b9p-19, -0x0p+0}, {0x1.75c32421225fbp-20, 0x0p+0},
    {-0x1.6a3f5230445a5p-3, -0x1.8p-3}, {-0x1.d87918da200ecp+8, -0x1.cp+8}, {-0x1.c9372a52dac73p-6, -0x1.cp-6},
    {-0x1.ab731c5265034p-3, -0x1.cp-3}, {-0x1.d252c192b24d4p-1, -0x1.cp-1}, {-0x1.d357a7cbdfea8p-19, -0x0p+0},
    {-0x1.b2fb1e14ca9d6p+5, -0x1.cp+5}, {0x1.3d4343525b579p-15, 0x1p-15}, {-0x1.aaa669e4ed2d5p+5, -0x1.cp+5},
    {0x1.e44e3fdc4d504p+12, 0x1p+13}, {-0x1.9f975b8da69f6p+13, -0x1.8p+13}, {0x1.4db5bea59be21p+12, 0x1.4p+12},
    {0x1.6fbdaaa2c97d8p+8, 0x1.8p+8}, {-0x1.466f9d76c23b5p-17, -0x1p-16}, {0x1.ec56782e78918p+9, 0x1p+10},
    {-0x1.d30146a692ffep+7, -0x1.cp+7}, {-0x1.696c4184a6cbp-9, -0x1.8p-9}, {-0x1.9cb1e2aa81fecp+7, -0x1.8p+7},
    {0x1.0127813528338p+4, 0x1p+4}, {0x1.28051dbc005bep-19, 0x0p+0}, {0x1.bb021922b8924p+0, 0x1.cp+0},
    {-0x1.8d4b39532f631p-20, -0x0p+0}, {-0x1.5898220e4ba5p-5, -0x1.4p-5}, {0x1.3cf1c26b8e977p+6, 0x1.4p+6},
    {-0x1.42608cb265308p-3, -0x1.4p-3}, {0x1.8d92e02d729c2p-16, 0x1p-15}, {-0x1.08b54c2236f5cp+5, -0x1p+5},
    {-0x1.f99c4910a2f4p+11, -0x1p+12}, {-0x1.02efb27967bap-4, -0x1p-4},
};
const std::vector<std::pair<double, int>> e4m3_bytes{
    {0x0p+0, 0x00}, {-0x0p+0, 0x80}, {0x1p+0, 0x38}, {-0x1p+0, 0xb8},
    {0x1.999999999999ap-4, 0x1d}, {-0x1.999999999999ap-4, 0x9d}, {0x1.5555555555555p-2, 0x2b}, {0x1.5555555555555p-1, 0x33},
    {0x1p-1, 0x30}, {0x1.8p+0, 0x3c}, {0x1p+1, 0x40}, {0x1.921f9f01b866ep+1, 0x45},
    {0x1.9p+6, 0x6c}, {0x1.f40cccccccccdp+9, 0x7e}, {0x1.0624dd2f1a9fcp-10, 0x01}, {0x1.4f8b588e368f1p-17, 0x00},
    {0x1.ad7f29abcaf48p-24, 0x00}, {0x1.5798ee2308c3ap-27, 0x00}, {0x1.b7cdfd9d7bdbbp-34, 0x00}, {0x1.edd2f1a9fbe77p+6, 0x6f},
    {INF, 0x7f}, {-INF, 0xff}, {0x1.7e43c8800759cp+996, 0x7e}, {-0x1.7e43c8800759cp+996, 0xfe},
    {0x0.0000000000001p-1022, 0x00}, {0x0.0000000000001p-1022, 0x00}, {0x1.56e1fc2f8f359p-997, 0x00}, {0x1.2ced32a16a1b1p+126, 0x7e},
    {0x1.ff933c78cdfadp+127, 0x7e}, {0x1.074f8c4d3cd7bp+128, 0x7e}, {0x1.cp+8, 0x7e}, {0x1.c1p+8, 0x7e},
    {0x1.dp+8, 0x7e}, {0x1.d1p+8, 0x7e}, {0x1.ep+8, 0x7e}, {0x1.f4p+8, 0x7e},
    {0x1.cp+15, 0x7e}, {0x1.dffep+15, 0x7e}, {0x1.ep+15, 0x7e}, {0x1.e002p+15, 0x7e},
    {0x1p+16, 0x7e}, {0x1p-9, 0x01}, {0x1p-10, 0x00}, {0x1.00068db8bac71p-10, 0x01},
    {0x1.8p-9, 0x02}, {0x1p-16, 0x00}, {0x1p-17, 0x00}, {0x1.004189374bc6ap-17, 0x00},
    {0x1p-6, 0x08}, {0x1p-14, 0x00}, {0x1.1p-4, 0x18}, {0x1.1p+0, 0x38},
    {0x1.10000004p+0, 0x39}, {0x1.3p+0, 0x3a}, {0x1.2p+0, 0x39}, {0x1.6p+0, 0x3b},
    {0x1p-9, 0x01}, {0x1p-10, 0x00}, {-0x1.f0bd708a7d8a4p+5, 0xe8}, {-0x1.1a2614ee23acp+11, 0xfe},
};
const std::vector<std::pair<double, int>> e5m2_bytes{
    {0x0p+0, 0x00}, {-0x0p+0, 0x80}, {0x1p+0, 0x3c}, {-0x1p+0, 0xbc},
    {0x1.999999999999ap-4, 0x2e}, {-0x1.999999999999ap-4, 0xae}, {0x1.5555555555555p-2, 0x35}, {0x1.5555555555555p-1, 0x39},
    {0x1p-1, 0x38}, {0x1.8p+0, 0x3e}, {0x1p+1, 0x40}, {0x1.921f9f01b866ep+1, 0x42},
    {0x1.9p+6, 0x56}, {0x1.f40cccccccccdp+9, 0x64}, {0x1.0624dd2f1a9fcp-10, 0x14}, {0x1.4f8b588e368f1p-17, 0x01},
    {0x1.ad7f29abcaf48p-24, 0x00}, {0x1.5798ee2308c3ap-27, 0x00}, {0x1.b7cdfd9d7bdbbp-34, 0x00}, {0x1.edd2f1a9fbe77p+6, 0x58},
    {INF, 0x7c}, {-INF, 0xfc}, {0x1.7e43c8800759cp+996, 0x7b}, {-0x1.7e43c8800759cp+996, 0xfb},
    {0x0.0000000000001p-1022, 0x00}, {0x0.0000000000001p-1022, 0x00}, {0x1.56e1fc2f8f359p-997, 0x00}, {0x1.2ced32a16a1b1p+126, 0x7b},
    {0x1.ff933c78cdfadp+127, 0x7b}, {0x1.074f8c4d3cd7bp+128, 0x7b}, {0x1.cp+8, 0x5f}, {0x1.c1p+8, 0x5f},
    {0x1.dp+8, 0x5f}, {0x1.d1p+8, 0x5f}, {0x1.ep+8, 0x60}, {0x1.f4p+8, 0x60},
    {0x1.cp+15, 0x7b}, {0x1.dffep+15, 0x7b}, {0x1.ep+15, 0x7b}, {0x1.e002p+15, 0x7b},
    {0x1p+16, 0x7b}, {0x1p-9, 0x18}, {0x1p-10, 0x14}, {0x1.00068db8bac71p-10, 0x14},
    {0x1.8p-9, 0x1a}, {0x1p-16, 0x01}, {0x1p-17, 0x00}, {0x1.004189374bc6ap-17, 0x01},
    {0x1p-6, 0x24}, {0x1p-14, 0x04}, {0x1.1p-4, 0x2c}, {0x1.1p+0, 0x3c},
    {0x1.10000004p+0, 0x3c}, {0x1.3p+0, 0x3d}, {0x1.2p+0, 0x3c}, {0x1.6p+0, 0x3e},
    {0x1p-9, 0x18}, {0x1p-10, 0x14}, {-0x1.f0bd708a7d8a4p+5, 0xd4}, {-0x1.1a2614ee23acp+11, 0xe8},
};
const std::array<double, 256> e4m3_decode{
    0x0p+0, 0x1p-9, 0x1p-8, 0x1.8p-8, 0x1p-7, 0x1.4p-7,
    0x1.8p-7, 0x1.cp-7, 0x1p-6, 0x1.2p-6, 0x1.4p-6, 0x1.6p-6,
    0x1.8p-6, 0x1.ap-6, 0x1.cp-6, 0x1.ep-6, 0x1p-5, 0x1.2p-5,
    0x1.4p-5, 0x1.6p-5, 0x1.8p-5, 0x1.ap-5, 0x1.cp-5, 0x1.ep-5,
    0x1p-4, 0x1.2p-4, 0x1.4p-4, 0x1.6p-4, 0x1.8p-4, 0x1.ap-4,
    0x1.cp-4, 0x1.ep-4, 0x1p-3, 0x1.2p-3, 0x1.4p-3, 0x1.6p-3,
    0x1.8p-3, 0x1.ap-3, 0x1.cp-3, 0x1.ep-3, 0x1p-2, 0x1.2p-2,
    0x1.4p-2, 0x1.6p-2, 0x1.8p-2, 0x1.ap-2, 0x1.cp-2, 0x1.ep-2,
    0x1p-1, 0x1.2p-1, 0x1.4p-1, 0x1.6p-1, 0x1.8p-1, 0x1.ap-1,
    0x1.cp-1, 0x1.ep-1, 0x1p+0, 0x1.2p+0, 0x1.4p+0, 0x1.6p+0,
    0x1.8p+0, 0x1.ap+0, 0x1.cp+0, 0x1.ep+0, 0x1p+1, 0x1.2p+1,
    0x1.4p+1, 0x1.6p+1, 0x1.8p+1, 0x1.ap+1, 0x1.cp+1, 0x1.ep+1,
    0x1p+2, 0x1.2p+2, 0x1.4p+2, 0x1.6p+2, 0x1.8p+2, 0x1.ap+2,
    0x1.cp+2, 0x1.ep+2, 0x1p+3, 0x1.2p+3, 0x1.4p+3, 0x1.6p+3,
    0x1.8p+3, 0x1.ap+3, 0x1.cp+3, 0x1.ep+3, 0x1p+4, 0x1.2p+4,
    0x1.4p+4, 0x1.6p+4, 0x1.8p+4, 0x1.ap+4, 0x1.cp+4, 0x1.ep+4,
    0x1p+5, 0x1.2p+5, 0x1.4p+5, 0x1.6p+5, 0x1.8p+5, 0x1.ap+5,
    0x1.cp+5, 0x1.ep+5, 0x1p+6, 0x1.2p+6, 0x1.4p+6, 0x1.6p+6,
    0x1.8p+6, 0x1.ap+6, 0x1.cp+6, 0x1.ep+6, 0x1p+7, 0x1.2p+7,
    0x1.4p+7, 0x1.6p+7, 0x1.8p+7, 0x1.ap+7, 0x1.cp+7, 0x1.ep+7,
    0x1p+8, 0x1.2p+8, 0x1.4p+8, 0x1.6p+8, 0x1.8p+8, 0x1.ap+8,
    0x1.cp+8, NAN_, -0x0p+0, -0x1p-9, -0x1p-8, -0x1.8p-8,
    -0x1p-7, -0x1.4p-7, -0x1.8p-7, -0x1.cp-7, -0x1p-6, -0x1.2p-6,
    -0x1.4p-6, -0x1.6p-6, -0x1.8p-6, -0x1.ap-6, -0x1.cp-6, -0x1.ep-6,
    -0x1p-5, -0x1.2p-5, -0x1.4p-5, -0x1.6p-5, -0x1.8p-5, -0x1.ap-5,
    -0x1.cp-5, -0x1.ep-5, -0x1p-4, -0x1.2p-4, -0x1.4p-4, -0x1.6p-4,
    -0x1.8p-4, -0x1.ap-4, -0x1.cp-4, -0x1.ep-4, -0x1p-3, -0x1.2p-3,
    -0x1.4p-3, -0x1.6p-3, -0x1.8p-3, -0x1.ap-3, -0x1.cp-3, -0x1.ep-3,
    -0x1p-2, -0x1.2p-2, -0x1.4p-2, -0x1.6p-2, -0x1.8p-2, -0x1.ap-2,
    -0x1.cp-2, -0x1.ep-2, -0x1p-1, -0x1.2p-1, -0x1.4p-1, -0x1.6p-1,
    -0x1.8p-1, -0x1.ap-1, -0x1.cp-1, -0x1.ep-1, -0x1p+0, -0x1.2p+0,
    -0x1.4p+0, -0x1.6p+0, -0x1.8p+0, -0x1.ap+0, -0x1.cp+0, -0x1.ep+0,
    -0x1p+1, -0x1.2p+1, -0x1.4p+1, -0x1.6p+1, -0x1.8p+1, -0x1.ap+1,
    -0x1.cp+1, -0x1.ep+1, -0x1p+2, -0x1.2p+2, -0x1.4p+2, -0x1.6p+2,
    -0x1.8p+2, -0x1.ap+2, -0x1.cp+2, -0x1.ep+2, -0x1p+3, -0x1.2p+3,
    -0x1.4p+3, -0x1.6p+3, -0x1.8p+3, -0x1.ap+3, -0x1.cp+3, -0x1.ep+3,
    -0x1p+4, -0x1.2p+4, -0x1.4p+4, -0x1.6p+4, -0x1.8p+4, -0x1.ap+4,
    -0x1.cp+4, -0x1.ep+4, -0x1p+5, -0x1.2p+5, -0x1.4p+5, -0x1.6p+5,
    -0x1.8p+5, -0x1.ap+5, -0x1.cp+5, -0x1.ep+5, -0x1p+6, -0x1.2p+6,
    -0x1.4p+6, -0x1.6p+6, -0x1.8p+6, -0x1.ap+6, -0x1.cp+6, -0x1.ep+6,
    -0x1p+7, -0x1.2p+7, -0x1.4p+7, -0x1.6p+7, -0x1.8p+7, -0x1.ap+7,
    -0x1.cp+7, -0x1.ep+7, -0x1p+8, -0x1.2p+8, -0x1.4p+8, -0x1.6p+8,
    -0x1.8p+8, -0x1.ap+8, -0x1.cp+8, NAN_,
};
const std::array<double, 256> e5m2_decode{
    0x0p+0, 0x1p-16, 0x1p-15, 0x1.8p-15, 0x1p-14, 0x1.4p-14,
    0x1.8p-14, 0x1.cp-14, 0x1p-13, 0x1.4p-13, 0x1.8p-13, 0x1.cp-13,
    0x1p-12, 0x1.4p-12, 0x1.8p-12, 0x1.cp-12, 0x1p-11, 0x1.4p-11,
    0x1.8p-11, 0x1.cp-11, 0x1p-10, 0x1.4p-10, 0x1.8p-10, 0x1.cp-10,
    0x1p-9, 0x1.4p-9, 0x1.8p-9, 0x1.cp-9, 0x1p-8, 0x1.4p-8,
    0x1.8p-8, 0x1.cp-8, 0x1p-7, 0x1.4p-7, 0x1.8p-7, 0x1.cp-7,
    0x1p-6, 0x1.4p-6, 0x1.8p-6, 0x1.cp-6, 0x1p-5, 0x1.4p-5,
    0x1.8p-5, 0x1.cp-5, 0x1p-4, 0x1.4p-4, 0x1.8p-4, 0x1.cp-4,
    0x1p-3, 0x1.4p-3, 0x1.8p-3, 0x1.cp-3, 0x1p-2, 0x1.4p-2,
    0x1.8p-2, 0x1.cp-2, 0x1p-1, 0x1.4p-1, 0x1.8p-1, 0x1.cp-1,
    0x1p+0, 0x1.4p+0, 0x1.8p+0, 0x1.cp+0, 0x1p+1, 0x1.4p+1,
    0x1.8p+1, 0x1.cp+1, 0x1p+2, 0x1.4p+2, 0x1.8p+2, 0x1.cp+2,
    0x1p+3, 0x1.4p+3, 0x1.8p+3, 0x1.cp+3, 0x1p+4, 0x1.4p+4,
    0x1.8p+4, 0x1.cp+4, 0x1p+5, 0x1.4p+5, 0x1.8p+5, 0x1.cp+5,
    0x1p+6, 0x1.4p+6, 0x1.8p+6, 0x1.cp+6, 0x1p+7, 0x1.4p+7,
    0x1.8p+7, 0x1.cp+7, 0x1p+8, 0x1.4p+8, 0x1.8p+8, 0x1.cp+8,
    0x1p+9, 0x1.4p+9, 0x1.8p+9, 0x1.cp+9, 0x1p+10, 0x1.4p+10,
    0x1.8p+10, 0x1.cp+10, 0x1p+11, 0x1.4p+11, 0x1.8p+11, 0x1.cp+11,
    0x1p+12, 0x1.4p+12, 0x1.8p+12, 0x1.cp+12, 0x1p+13, 0x1.4p+13,
    0x1.8p+13, 0x1.cp+13, 0x1p+14, 0x1.4p+14, 0x1.8p+14, 0x1.cp+14,
    0x1p+15, 0x1.4p+15, 0x1.8p+15, 0x1.cp+15, INF, NAN_,
    NAN_, NAN_, -0x0p+0, -0x1p-16, -0x1p-15, -0x1.8p-15,
    -0x1p-14, -0x1.4p-14, -0x1.8p-14, -0x1.cp-14, -0x1p-13, -0x1.4p-13,
    -0x1.8p-13, -0x1.cp-13, -0x1p-12, -0x1.4p-12, -0x1.8p-12, -0x1.cp-12,
    -0x1p-11, -0x1.4p-11, -0x1.8p-11, -0x1.cp-11, -0x1p-10, -0x1.4p-10,
    -0x1.8p-10, -0x1.cp-10, -0x1p-9, -0x1.4p-9, -0x1.8p-9, -0x1.cp-9,
    -0x1p-8, -0x1.4p-8, -0x1.8p-8, -0x1.cp-8, -0x1p-7, -0x1.4p-7,
    -0x1.8p-7, -0x1.cp-7, -0x1p-6, -0x1.4p-6, -0x1.8p-6, -0x1.cp-6,
    -0x1p-5, -0x1.4p-5, -0x1.8p-5, -0x1.cp-5, -0x1p-4, -0x1.4p-4,
    -0x1.8p-4, -0x1.cp-4, -0x1p-3, -0x1.4p-3, -0x1.8p-3, -0x1.cp-3,
    -0x1p-2, -0x1.4p-2, -0x1.8p-2, -0x1.cp-2, -0x1p-1, -0x1.4p-1,
    -0x1.8p-1, -0x1.cp-1, -0x1p+0, -0x1.4p+0, -0x1.8p+0, -0x1.cp+0,
    -0x1p+1, -0x1.4p+1, -0x1.8p+1, -0x1.cp+1, -0x1p+2, -0x1.4p+2,
    -0x1.8p+2, -0x1.cp+2, -0x1p+3, -0x1.4p+3, -0x1.8p+3, -0x1.cp+3,
    -0x1p+4, -0x1.4p+4, -0x1.8p+4, -0x1.cp+4, -0x1p+5, -0x1.4p+5,
    -0x1.8p+5, -0x1.cp+5, -0x1p+6, -0x1.4p+6, -0x1.8p+6, -0x1.cp+6,
    -0x1p+7, -0x1.4p+7, -0x1.8p+7, -0x1.cp+7, -0x1p+8, -0x1.4p+8,
    -0x1.8p+8, -0x1.cp+8, -0x1p+9, -0x1.4p+9, -0x1.8p+9, -0x1.cp+9,
    -0x1p+10, -0x1.4p+10, -0x1.8p+10, -0x1.cp+10, -0x1p+11, -0x1.4p+11,
    -0x1.8p+11, -0x1.cp+11, -0x1p+12, -0x1.4p+12, -0x1.8p+12, -0x1.cp+12,
    -0x1p+13, -0x1.4p+13, -0x1.8p+13, -0x1.cp+13, -0x1p+14, -0x1.4p+14,
    -0x1.8p+14, -0x1.cp+14, -0x1p+15, -0x1.4p+15, -0x1.8p+15, -0x1.cp+15,
    -INF, NAN_, NAN_, NAN_,
};

// ---- Python's repr of floats ----
const std::vector<std::pair<double, std::string>> float_reprs{
    {0x1p+0, "1.0"}, {0x1.999999999999ap-4, "0.1"}, {0x1.1c37937e08p+53, "1e+16"},
    {0x1.4f8b588e368f1p-17, "1e-05"}, {0x1.c12218377de4p+46, "123456789012345.0"}, {-0x0p+0, "-0.0"},
    {0x0p+0, "0.0"}, {INF, "inf"}, {-INF, "-inf"},
    {NAN_, "nan"}, {0x1.1eb2d66005835p+997, "1.5e+300"}, {0x0.0000000000001p-1022, "5e-324"},
    {0x1.c6bf52634p+49, "1000000000000000.0"}, {0x1.1c37937e07fffp+53, "9999999999999998.0"}, {0x1.a36e2eb1c432dp-14, "0.0001"},
    {0x1.02c9dedbc309dp-13, "0.0001234"}, {0x1.9e0fcaf9380fcp-17, "1.234e-05"}, {0x1.8p+0, "1.5"},
    {-0x1.4p+1, "-2.5"}, {0x1.8p+1, "3.0"}, {0x1.9p+6, "100.0"},
    {0x1.0f0cf064dd592p+73, "1e+22"}, {0x1.b1ae4d6e2ef5p+69, "1e+21"}, {0x1.fffffffffffffp+1023, "1.7976931348623157e+308"},
    {0x1p-1022, "2.2250738585072014e-308"}, {0x1.3333333333333p-2, "0.3"}, {0x1.5555555555555p-1, "0.6666666666666666"},
    {0x1.5555555555555p-2, "0.3333333333333333"}, {0x1.d6f34547df3b6p+26, "123456789.123"}, {0x1.18b54f22aebp+50, "1234567890123456.0"},
    {0x1.5ee2a2eb5a5c4p+53, "1.2345678901234568e+16"}, {0x1p-1, "0.5"}, {0x1.ffcp+15, "65504.0"},
    {0x1.921f9f01b866ep+1, "3.14159"}, {-0x1.ad7f29abcaf48p-24, "-1e-07"}, {0x1.249ad2594c37dp+332, "1e+100"},
    {0x1.1666666666666p+2, "4.35"}, {0x1.5666666666666p+1, "2.675"}, {0x1.52d02c7e14af6p+76, "1e+23"},
    {0x1.52d02c7e14af6p+76, "1e+23"}, {0x1.3333333333334p-2, "0.30000000000000004"}, {0x0.012688b70e62bp-1022, "1e-310"},
    {0x1.fep+7, "255.0"}, {0x1p+20, "1048576.0"}, {0x0.0000000000002p-1022, "1e-323"},
    {0x1p-14, "6.103515625e-05"}, {0x1p-24, "5.960464477539063e-08"}, {0x1.5d4ec094f48e8p+54, "2.4580338977940384e+16"},
    {-0x1.9bb741d30b4f2p+44, "-28292897648820.945"}, {0x1.3a613cdf0f749p+56, "8.849005675541006e+16"}, {0x1.30103a8e94cc9p+8, "304.06339350827017"},
    {-0x1.81d6c3438c60fp-4, "-0.09419895434327706"}, {0x1.3e2897d51208ep-51, "5.519171348714338e-16"}, {0x1.ecea5ad4caf88p+87, "2.979491062738484e+26"},
    {-0x1.26c331367062fp-24, "-6.862973553954668e-08"}, {-0x1.1d49a56175d69p-54, "-6.186190443567252e-17"}, {-0x1.273aa625de71bp-82, "-2.384841659104697e-25"},
    {0x1.7fecb270ed3e8p-103, "1.4788237585620158e-31"}, {0x1.83dca679a31b1p-15, "4.623674335588484e-05"}, {-0x1.c805103af2a06p+91, "-4.4103526797777933e+27"},
    {0x1.8a8e6300186c4p-21, "7.349181885380365e-07"}, {-0x1.273f0c55dbe6fp+69, "-6.807915752839236e+20"}, {-0x1.983cda848f3fap+29, "-856136528.5699456"},
    {0x1.c65f579d0a49cp-76, "2.349050409322333e-23"}, {-0x1.856150f2a3399p+82, "-7.355182915661507e+24"}, {-0x1.129b3b3a80b1bp+63, "-9.893737255117838e+18"},
    {-0x1.adf3e4342b87fp-68, "-5.690376615505354e-21"}, {0x1.a34b3af5d6273p-41, "7.448155308736037e-13"}, {-0x1.b800d624b3f72p-62, "-3.726972645300928e-19"},
    {0x1.6d4c0983106cep+39, "784469377416.2126"}, {0x1.dafec8acd89f9p-66, "2.5146039135425545e-20"}, {0x1.40da2e51c7ff4p+46, "88195200217599.81"},
    {-0x1.f578b7e8fe23bp+88, "-6.0624191214793476e+26"}, {-0x1.7af620c4fe484p-99, "-2.3355301769392354e-30"}, {-0x1.a3871606acf2ap-69, "-2.776201305552317e-21"},
    {0x1.3a058e5069d91p-47, "8.7158531167659e-15"}, {-0x1.32017709b6e86p-37, "-8.697205732486474e-12"}, {0x1.837398e064fbep+22, "6348006.219135223"},
    {-0x1.2111ae90dc1bbp+43, "-9932337612512.865"}, {0x1.491374ad21933p-88, "4.1535230484451134e-27"}, {-0x1.9c168a3cd63fep+71, "-3.800841367937424e+21"},
    {-0x1.1a36b182e40acp+45, "-38787148176513.34"}, {-0x1.794176d0b2b38p-2, "-0.3684137883071119"}, {-0x1.9efd1d0cc0992p-68, "-5.49233003755043e-21"},
    {-0x1.65da0f8494568p+99, "-8.859981409284201e+29"}, {-0x1.53063f9a7c4bfp+56, "-9.542688734945586e+16"}, {-0x1.7e2240eb8cd6p-19, "-2.847118698823321e-06"},
    {-0x1.d5c7cp+19, "-962110.0"}, {0x1.27d9p+17, "151474.0"}, {0x1.3e5ccp+19, "652006.0"},
    {-0x1.db38p+16, "-121656.0"}, {-0x1.c53cp+17, "-232056.0"},
};
}  // namespace

TEST_CASE("dtype: scalar properties and reprs match tinygrad", "[core][dtype]") {
  for (const auto& r : dtype_rows) {
    INFO(r.repr);
    CHECK(r.d.repr() == r.repr);
    CHECK(r.d.info().cname == r.name);
    CHECK(r.d.priority() == r.priority);
    CHECK(r.d.bitsize() == r.bitsize);
    CHECK(r.d.itemsize() == r.itemsize);
    CHECK(r.d.is_int() == r.is_int);
    CHECK(r.d.is_float() == r.is_float);
    CHECK(r.d.is_unsigned() == r.is_unsigned);
    CHECK(r.d.vcount() == 1);
    CHECK(r.d.scalar() == r.d);
    CHECK(r.d.base() == r.d);
    CHECK_FALSE(r.d.is_ptr);
  }
  CHECK(dtypes::all.size() == 15);
  // aliases are the same dtype
  CHECK(dtypes::half == dtypes::float16);
  CHECK(dtypes::float_ == dtypes::float32);
  CHECK(dtypes::double_ == dtypes::float64);
  CHECK(dtypes::char_ == dtypes::int8);
  CHECK(dtypes::uchar == dtypes::uint8);
  CHECK(dtypes::long_ == dtypes::int64);
  CHECK(dtypes::ulong == dtypes::uint64);
  CHECK(dtypes::index == dtypes::weakint);
  CHECK(dtypes::default_float == dtypes::float32);
  CHECK(dtypes::default_int == dtypes::int32);
  CHECK(dtypes::bool_.is_bool());
  CHECK_FALSE(dtypes::uint8.is_bool());
  CHECK(dtypes::fp8e4m3.is_fp8());
  CHECK(dtypes::fp8e5m2.is_fp8());
  CHECK_FALSE(dtypes::float16.is_fp8());
}

TEST_CASE("dtype: value ranges", "[core][dtype]") {
  // tinygrad's DType.min / DType.max
  CHECK(dtypes::int8.imin() == -128);
  CHECK(dtypes::int8.imax() == 127);
  CHECK(dtypes::uint8.imin() == 0);
  CHECK(dtypes::uint8.imax() == 255);
  CHECK(dtypes::int16.imin() == -32768);
  CHECK(dtypes::int16.imax() == 32767);
  CHECK(dtypes::uint16.imax() == 65535);
  CHECK(dtypes::int32.imin() == -2147483648LL);
  CHECK(dtypes::int32.imax() == 2147483647);
  CHECK(dtypes::uint32.imax() == 4294967295LL);
  CHECK(dtypes::int64.imin() == std::numeric_limits<std::int64_t>::min());
  CHECK(dtypes::int64.imax() == std::numeric_limits<std::int64_t>::max());
  CHECK(dtypes::uint64.imin() == 0);
  CHECK(dtypes::uint64.umax() == 18446744073709551615ULL);
  CHECK(dtypes::uint64.imax() == std::numeric_limits<std::int64_t>::max());  // saturates: use umax()
  CHECK(dtypes::bool_.imin() == 0);
  CHECK(dtypes::bool_.umax() == 1);
  CHECK(dtypes::int32.vec(4).imin() == -2147483648LL);  // vectors have their scalar's range
  CHECK(dtypes::int32.vec(4).imax() == 2147483647);
  // weakint is unbounded in tinygrad (2**799); metagrad clamps it to int64
  CHECK(dtypes::weakint.imin() == std::numeric_limits<std::int64_t>::min());
  CHECK(dtypes::weakint.imax() == std::numeric_limits<std::int64_t>::max());
  for (DType d : {dtypes::float16, dtypes::bfloat16, dtypes::float32, dtypes::float64, dtypes::fp8e4m3, dtypes::fp8e5m2}) {
    CHECK(d.fmin() == -INF);
    CHECK(d.fmax() == INF);
  }
  CHECK(dtypes::uint8.fmax() == 255.0);
  CHECK(dtypes::int16.fmin() == -32768.0);
  CHECK(dtypes::uint64.fmax() == 18446744073709551615.0);
}

TEST_CASE("dtype: vec, ptr, scalar, base, vcount", "[core][dtype]") {
  const DType f4 = dtypes::float32.vec(4);
  CHECK(f4.repr() == "dtypes.float.vec(4)");
  CHECK(f4.count == 4);
  CHECK(f4.vcount() == 4);
  CHECK(f4.bitsize() == 128);
  CHECK(f4.itemsize() == 16);
  CHECK(f4.scalar() == dtypes::float32);
  CHECK(f4.base() == f4);
  CHECK(f4.priority() == dtypes::float32.priority());
  CHECK(dtypes::int32.vec(4).bitsize() == 128);
  CHECK(dtypes::bool_.vec(16).repr() == "dtypes.bool.vec(16)");
  CHECK(dtypes::bool_.vec(16).itemsize() == 2);
  CHECK(dtypes::weakint.vec(3).repr() == "dtypes.weakint.vec(3)");
  CHECK(dtypes::float32.vec(1) == dtypes::float32);  // vec(1) is the scalar
  CHECK(dtypes::void_.vec(4) == dtypes::void_);       // void doesn't vectorize
  CHECK(dtypes::void_.vec(4).repr() == "dtypes.void");

  // pointers: tinygrad's PtrDType
  const DType p = dtypes::float32.ptr(16, AddrSpace::LOCAL);
  CHECK(p.is_ptr);
  CHECK(p.repr() == "dtypes.float.ptr(16, AddrSpace.LOCAL)");
  CHECK(p.base() == dtypes::float32);
  CHECK(p.scalar() == p);
  CHECK(p.vcount() == 1);
  CHECK(p.size == 16);
  CHECK(p.nbytes() == 64);
  CHECK(p.addrspace == AddrSpace::LOCAL);
  CHECK(p.itemsize() == 4);
  CHECK_FALSE(p == dtypes::float32.ptr(16));             // address space is part of the type
  CHECK_FALSE(p == dtypes::float32.ptr(8, AddrSpace::LOCAL));  // so is the size
  const DType pv = p.vec(2);
  CHECK(pv.repr() == "dtypes.float.ptr(16, AddrSpace.LOCAL).vec(2)");
  CHECK(pv.vcount() == 2);
  CHECK(pv.count == 1);
  CHECK(pv.scalar() == p);
  CHECK(pv.base() == dtypes::float32);
  // a pointer to a vector, itself vectorized
  const DType vp = f4.ptr(16).vec(2);
  CHECK(vp.repr() == "dtypes.float.vec(4).ptr(16).vec(2)");
  CHECK(vp.scalar().repr() == "dtypes.float.vec(4).ptr(16)");
  CHECK(vp.base() == f4);
  CHECK(vp.vcount() == 2);
  CHECK(vp.count == 4);
  CHECK(f4.ptr(16).nbytes() == 256);
  CHECK(f4.ptr().repr() == "dtypes.float.vec(4).ptr(-1)");
  CHECK(dtypes::float16.vec(2).ptr(8, AddrSpace::REG).repr() == "dtypes.half.vec(2).ptr(8, AddrSpace.REG)");
  CHECK(dtypes::int8.vec(3).ptr(12, AddrSpace::REG).vec(4).repr() == "dtypes.char.vec(3).ptr(12, AddrSpace.REG).vec(4)");
  CHECK(dtypes::bfloat16.ptr(0).repr() == "dtypes.bfloat16.ptr(0)");
  CHECK(dtypes::fp8e5m2.vec(2).ptr(-1, AddrSpace::LOCAL).repr() == "dtypes.fp8e5m2.vec(2).ptr(-1, AddrSpace.LOCAL)");
  CHECK(dtypes::void_.ptr().repr() == "dtypes.void.ptr(-1)");
  // ptr on a vectorized pointer's scalar gives a fresh pointer: GLOBAL, v=1
  CHECK(dtypes::int32.ptr(4, AddrSpace::LOCAL).base().ptr() == dtypes::int32.ptr());
  // pointers keep their element kind
  CHECK(p.is_float());
  CHECK(dtypes::uint8.ptr().is_unsigned());
}

TEST_CASE("dtype: least_upper_dtype of every pair matches tinygrad", "[core][dtype]") {
  for (std::size_t i = 0; i < lub_order.size(); ++i)
    for (std::size_t j = 0; j < lub_order.size(); ++j) {
      INFO(lub_order[i].repr() << " " << lub_order[j].repr());
      CHECK(least_upper_dtype(lub_order[i], lub_order[j]) == lub_pairs[i][j]);
    }
  // the single-argument form is the identity on scalars
  for (DType d : lub_order) CHECK(least_upper_dtype(d) == d);
  // a few worth reading
  CHECK(least_upper_dtype(dtypes::int8, dtypes::uint8) == dtypes::int16);
  CHECK(least_upper_dtype(dtypes::int64, dtypes::uint64) == dtypes::uint64);
  CHECK(least_upper_dtype(dtypes::uint64, dtypes::fp8e4m3) == dtypes::fp8e4m3);
  CHECK(least_upper_dtype(dtypes::fp8e4m3, dtypes::fp8e5m2) == dtypes::float16);
  CHECK(least_upper_dtype(dtypes::float16, dtypes::bfloat16) == dtypes::float32);
  CHECK(least_upper_dtype(dtypes::bool_, dtypes::weakint) == dtypes::weakint);
  CHECK(least_upper_dtype(dtypes::weakint, dtypes::int8) == dtypes::int8);
  // vectors promote by their scalar and give a scalar, as tinygrad's d.scalar()
  CHECK(least_upper_dtype(dtypes::float32.vec(4), dtypes::int32) == dtypes::float32);
  CHECK(least_upper_dtype(dtypes::int8.vec(2), dtypes::uint8.vec(2)) == dtypes::int16);
}

TEST_CASE("dtype: least_upper_dtype of every triple matches tinygrad", "[core][dtype]") {
  REQUIRE(lub_triples.size() == 16 * 16 * 16);
  std::size_t n = 0;
  for (DType a : lub_order)
    for (DType b : lub_order)
      for (DType c : lub_order) {
        const DType want = lub_order[std::size_t(lub_triples[n++] - 'a')];
        if (least_upper_dtype(a, b, c) != want) FAIL_CHECK(a.repr() << ", " << b.repr() << ", " << c.repr() << " -> "
                                                            << least_upper_dtype(a, b, c).repr() << ", want " << want.repr());
      }
  // four and five arguments, checked in Python
  using namespace dtypes;
  CHECK(least_upper_dtype(float16, bool_, int64, int32) == float16);
  CHECK(least_upper_dtype(int32, fp8e4m3, int8, int64) == fp8e4m3);
  CHECK(least_upper_dtype(int8, int16, bfloat16, uint16) == bfloat16);
  CHECK(least_upper_dtype(uint16, float16, int16, uint32) == float16);
  CHECK(least_upper_dtype(bfloat16, float64, float32, int64) == float64);
  CHECK(least_upper_dtype(uint8, weakint, int64, uint32) == int64);
  CHECK(least_upper_dtype(uint64, float64, uint8, uint32) == float64);
  CHECK(least_upper_dtype(uint64, float16, uint32, int32) == float16);
  CHECK(least_upper_dtype(bfloat16, int16, uint8, int8) == bfloat16);
  CHECK(least_upper_dtype(int32, uint8, int16, fp8e5m2) == fp8e5m2);
  CHECK(least_upper_dtype(fp8e4m3, fp8e5m2, weakint) == float16);
  CHECK(least_upper_dtype(fp8e4m3, fp8e5m2, bfloat16) == bfloat16);  // not the fold (float32)
  CHECK(least_upper_dtype(least_upper_dtype(fp8e4m3, fp8e5m2), bfloat16) == float32);
  CHECK(least_upper_dtype(int8, uint8, int16, uint16, bool_) == int32);
}

TEST_CASE("dtype: least_upper_float", "[core][dtype]") {
  for (DType d : lub_order) {
    INFO(d.repr());
    CHECK(least_upper_float(d) == (d.is_float() ? d : dtypes::float32));
  }
}

// ---- compile time: dtypes, promotion, rounding and op sets are constant expressions ----
template <DType D> struct DTypeTag { static constexpr DType value = D; };
template <OpSet S> struct OpSetTag { static constexpr OpSet value = S; };

static_assert(dtypes::float32.vec(4).itemsize() == 16);
static_assert(dtypes::float32.vec(4).scalar() == dtypes::float32);
static_assert(dtypes::float32.ptr(16, AddrSpace::LOCAL).base() == dtypes::float32);
static_assert(dtypes::float32.ptr(16).vec(2).vcount() == 2);
static_assert(dtypes::uint8.is_unsigned() && !dtypes::int8.is_unsigned() && dtypes::weakint.is_int());
static_assert(dtypes::bfloat16.is_float() && !dtypes::bool_.is_float() && !dtypes::bool_.is_int());
static_assert(dtypes::int16.imin() == -32768 && dtypes::uint16.imax() == 65535);
static_assert(least_upper_dtype(dtypes::int8, dtypes::uint8) == dtypes::int16);
static_assert(least_upper_dtype(dtypes::int64, dtypes::uint64, dtypes::bool_) == dtypes::uint64);
static_assert(least_upper_dtype(dtypes::fp8e4m3, dtypes::fp8e5m2) == dtypes::float16);
static_assert(least_upper_float(dtypes::int32) == dtypes::float32);
static_assert(truncate_int(dtypes::uint8, 300) == 44);
static_assert(truncate_int(dtypes::int8, 200) == -56);
static_assert(truncate_float(dtypes::float16, 0.1) == 0x1.998p-4);
static_assert(truncate_float(dtypes::float16, 65519.999999999) == 65504.0);
static_assert(truncate_float(dtypes::bfloat16, 1.0 + 0x1p-8) == 1.0);
static_assert(truncate_float(dtypes::float32, 0.1) == double(0.1f));
static_assert(detail::float_to_fp8(448.0, Scalar::fp8e4m3) == 0x7e);
static_assert(detail::fp8_to_float(0x7b, Scalar::fp8e5m2) == 57344.0);
static_assert(DTypeTag<dtypes::float32.vec(4)>::value.count == 4);
static_assert(!std::is_same_v<DTypeTag<dtypes::float32>, DTypeTag<dtypes::float32.vec(2)>>);
static_assert(std::is_same_v<DTypeTag<dtypes::half>, DTypeTag<dtypes::float16>>);
static_assert(GroupOp::ALU.contains(Ops::ADD) && GroupOp::ALU.contains(Ops::WHERE) && GroupOp::ALU.contains(Ops::SQRT));
static_assert(!GroupOp::ALU.contains(Ops::CAST) && GroupOp::Elementwise.contains(Ops::CAST));
static_assert(GroupOp::Movement.contains(Ops::RESHAPE) && !GroupOp::Movement.contains(Ops::MULTI));
static_assert(GroupOp::Comparison.contains(Ops::CMPEQ) && GroupOp::Commutative.contains(Ops::CMPNE) && !GroupOp::Commutative.contains(Ops::CMPLT));
static_assert(GroupOp::All.size() == int(num_ops) && GroupOp::All.contains(Ops::PTRCAT));  // PTRCAT is in the high word
static_assert((GroupOp::Unary | GroupOp::Binary | GroupOp::Ternary) == GroupOp::ALU);
static_assert((GroupOp::Binary & GroupOp::Unary).empty());
static_assert(OpSet{Ops::ADD, Ops::MUL}.size() == 2 && OpSet{Ops::MUL, Ops::ADD}.first() == Ops::ADD);
static_assert(OpSet{Ops::VCAT}.first() == Ops::VCAT);
static_assert(OpSetTag<GroupOp::Binary>::value.contains(Ops::FLOORMOD));
static_assert(op_arity(Ops::ADD) == 2 && op_arity(Ops::NEG) == 1 && op_arity(Ops::WHERE) == 3 && op_arity(Ops::CAST) == 1 &&
              op_arity(Ops::SINK) == -1);
static_assert(op_name(Ops::CONTIGUOUS_BACKWARD) == "CONTIGUOUS_BACKWARD");

TEST_CASE("dtype: DType and OpSet work as template arguments", "[core][dtype][constexpr]") {
  CHECK(DTypeTag<dtypes::float32.ptr(16, AddrSpace::LOCAL)>::value.repr() == "dtypes.float.ptr(16, AddrSpace.LOCAL)");
  CHECK(OpSetTag<GroupOp::Idempotent>::value.size() == 3);
}

TEST_CASE("ops: names and GroupOp sets match tinygrad", "[core][ops]") {
  // tinygrad's Ops, in order (the order drives the toposort order)
  const std::vector<std::string_view> py_op_names{
      "DEFINE_VAR", "BIND", "SPECIAL", "DEFINE_LOCAL", "DEFINE_REG", "NOOP", "REWRITE_ERROR", "PARAM",
      "FUNCTION", "CALL", "PROGRAM", "LINEAR", "SOURCE", "BINARY", "SINK", "AFTER",
      "GROUP", "GEP", "STACK", "TUPLE", "GETTUPLE", "GETADDR", "INDEX", "LOAD",
      "STORE", "WMMA", "SHAPED_WMMA", "CAST", "BITCAST", "EXP2", "LOG2", "SIN",
      "SQRT", "RECIPROCAL", "NEG", "TRUNC", "ADD", "MUL", "SHL", "SHR",
      "CDIV", "MAX", "CMOD", "CMPLT", "CMPNE", "CMPEQ", "XOR", "OR",
      "AND", "THREEFRY", "SUB", "FDIV", "POW", "FLOORDIV", "FLOORMOD", "WHERE",
      "MULACC", "BARRIER", "RANGE", "IF", "END", "ENDIF", "WAIT", "CONST",
      "CUSTOM", "CUSTOMI", "INS", "UNIQUE", "DEVICE", "LUNIQUE", "CONTIGUOUS", "CONTIGUOUS_BACKWARD",
      "DETACH", "STAGE", "COPY", "BUFFER", "SLICE", "MSELECT", "MSTACK", "CUSTOM_FUNCTION",
      "RESHAPE", "PERMUTE", "EXPAND", "PAD", "SHRINK", "FLIP", "MULTI", "REDUCE",
      "ALLREDUCE", "UNROLL", "CONTRACT", "VCAT", "PTRCAT",};
  REQUIRE(py_op_names.size() == num_ops);
  for (std::size_t i = 0; i < num_ops; ++i) CHECK(op_name(Ops(i)) == py_op_names[i]);
  CHECK(op_repr(Ops::ADD) == "Ops.ADD");
  using enum Ops;
  struct Group { std::string_view name; OpSet set; std::vector<Ops> members; };
  const std::vector<Group> groups{
      {"Unary", GroupOp::Unary, {EXP2, LOG2, NEG, RECIPROCAL, SIN, SQRT, TRUNC}},
      {"Binary", GroupOp::Binary, {ADD, AND, CDIV, CMOD, CMPEQ, CMPLT, CMPNE, FDIV, FLOORDIV, FLOORMOD, MAX, MUL, OR, POW, SHL, SHR, SUB, THREEFRY, XOR}},
      {"Ternary", GroupOp::Ternary, {MULACC, WHERE}},
      {"ALU", GroupOp::ALU, {ADD, AND, CDIV, CMOD, CMPEQ, CMPLT, CMPNE, EXP2, FDIV, FLOORDIV, FLOORMOD, LOG2, MAX, MUL, MULACC, NEG, OR, POW, RECIPROCAL, SHL, SHR, SIN, SQRT, SUB, THREEFRY, TRUNC, WHERE, XOR}},
      {"Broadcastable", GroupOp::Broadcastable, {ADD, AND, CDIV, CMOD, CMPEQ, CMPLT, CMPNE, FDIV, FLOORDIV, FLOORMOD, GROUP, MAX, MUL, MULACC, OR, POW, SHL, SHR, STORE, SUB, THREEFRY, WHERE, XOR}},
      {"Elementwise", GroupOp::Elementwise, {ADD, AND, BITCAST, CAST, CDIV, CMOD, CMPEQ, CMPLT, CMPNE, EXP2, FDIV, FLOORDIV, FLOORMOD, LOG2, MAX, MUL, MULACC, NEG, OR, POW, RECIPROCAL, SHL, SHR, SIN, SQRT, SUB, THREEFRY, TRUNC, WHERE, XOR}},
      {"Defines", GroupOp::Defines, {DEFINE_LOCAL, DEFINE_REG, PARAM}},
      {"Irreducible", GroupOp::Irreducible, {CONST, DEFINE_VAR, RANGE, SPECIAL}},
      {"Movement", GroupOp::Movement, {EXPAND, FLIP, PAD, PERMUTE, RESHAPE, SHRINK}},
      {"Buffer", GroupOp::Buffer, {CONST, DEFINE_VAR, LOAD, STORE}},
      {"Commutative", GroupOp::Commutative, {ADD, AND, CMPEQ, CMPNE, MAX, MUL, OR, XOR}},
      {"Associative", GroupOp::Associative, {ADD, AND, MAX, MUL, OR}},
      {"Idempotent", GroupOp::Idempotent, {AND, MAX, OR}},
      {"Comparison", GroupOp::Comparison, {CMPEQ, CMPLT, CMPNE}},
      {"UnsafePad", GroupOp::UnsafePad, {CDIV, EXP2, FLOORDIV, LOG2, POW, RECIPROCAL}},
  };
  for (const auto& g : groups) {
    INFO("GroupOp::" << g.name);
    OpSet want;
    for (Ops o : g.members) want.add(o);
    CHECK(g.set == want);
    CHECK(g.set.size() == int(g.members.size()));
  }
  for (std::size_t i = 0; i < num_ops; ++i) CHECK(GroupOp::All.contains(Ops(i)));
}

TEST_CASE("truncate_int wraps to the width", "[core][dtype]") {
  // tinygrad's truncate[dtype] for ints is ctypes.c_<type>(x).value
  CHECK(truncate_int(dtypes::uint8, 300) == 44);
  CHECK(truncate_int(dtypes::uint8, 256) == 0);
  CHECK(truncate_int(dtypes::uint8, -1) == 255);
  CHECK(truncate_int(dtypes::int8, 200) == -56);
  CHECK(truncate_int(dtypes::int8, 127) == 127);
  CHECK(truncate_int(dtypes::int8, 128) == -128);
  CHECK(truncate_int(dtypes::int8, -129) == 127);
  CHECK(truncate_int(dtypes::int16, 40000) == -25536);
  CHECK(truncate_int(dtypes::uint16, -2) == 65534);
  CHECK(truncate_int(dtypes::uint16, 70000) == 4464);
  CHECK(truncate_int(dtypes::int32, 3000000000LL) == -1294967296LL);
  CHECK(truncate_int(dtypes::int32, -2147483649LL) == 2147483647);
  CHECK(truncate_int(dtypes::uint32, -1) == 4294967295LL);
  CHECK(truncate_int(dtypes::uint32, 4294967296LL + 7) == 7);
  CHECK(truncate_int(dtypes::int64, std::numeric_limits<std::int64_t>::min()) == std::numeric_limits<std::int64_t>::min());
  // uint64 keeps the bit pattern in an int64: c_uint64(-1).value == 2**64-1 has the bits of -1
  CHECK(truncate_int(dtypes::uint64, -1) == -1);
  CHECK(std::uint64_t(truncate_int(dtypes::uint64, -1)) == 18446744073709551615ULL);
  CHECK(std::uint64_t(truncate_int(dtypes::uint64, std::numeric_limits<std::int64_t>::min())) == 9223372036854775808ULL);
  CHECK(truncate_int(dtypes::weakint, 1LL << 62) == 1LL << 62);
  CHECK(truncate_int(dtypes::bool_, 2) == 1);
  CHECK(truncate_int(dtypes::bool_, 0) == 0);
  CHECK(truncate_int(dtypes::bool_, -5) == 1);
  CHECK(truncate_int(dtypes::uint8.vec(4), 300) == 44);  // vectors wrap like their scalar
}

namespace {
void check_rounding(const char* what, DType d, const std::vector<std::pair<double, double>>& cases) {
  int bad = 0;
  for (auto [x, want] : cases) {
    const double got = truncate_float(d, x);
    if (!same_double(got, want)) {
      ++bad;
      FAIL_CHECK(what << "(" << hexf(x) << ") = " << hexf(got) << ", tinygrad gives " << hexf(want));
    }
  }
  CHECK(bad == 0);
  CHECK(cases.size() > 50);
}
}  // namespace

TEST_CASE("truncate_float: float16 matches struct.pack('e')", "[core][dtype][float]") {
  check_rounding("float16", dtypes::float16, f16_cases);
  // readable ones: ties go to even, just under the overflow threshold stays finite
  CHECK(truncate_float(dtypes::float16, 1.0 + 0x1p-11) == 1.0);
  CHECK(truncate_float(dtypes::float16, 1.0 + 3 * 0x1p-11) == 1.0 + 0x1p-9);
  CHECK(truncate_float(dtypes::float16, 1.0 + 0x1p-11 + 0x1p-40) == 1.0 + 0x1p-10);  // no double rounding via float
  CHECK(truncate_float(dtypes::float16, 65504.0) == 65504.0);
  CHECK(truncate_float(dtypes::float16, 65519.999999999) == 65504.0);
  CHECK(truncate_float(dtypes::float16, 65520.0) == INF);
  CHECK(truncate_float(dtypes::float16, -70000.0) == -INF);
  CHECK(truncate_float(dtypes::float16, 0x1p-24) == 0x1p-24);  // smallest subnormal
  CHECK(truncate_float(dtypes::float16, 0x1p-25) == 0.0);      // tie to even: 0
  CHECK(truncate_float(dtypes::float16, 3 * 0x1p-25) == 0x1p-23);
  CHECK(std::signbit(truncate_float(dtypes::float16, -1e-10)));  // underflow keeps the sign
  CHECK(std::isnan(truncate_float(dtypes::float16, NAN_)));
}

TEST_CASE("truncate_float: bfloat16 matches tinygrad's float_to_bf16", "[core][dtype][float]") {
  check_rounding("bfloat16", dtypes::bfloat16, bf16_cases);
  CHECK(truncate_float(dtypes::bfloat16, 1.0 + 0x1p-8) == 1.0);
  CHECK(truncate_float(dtypes::bfloat16, 1.0 + 3 * 0x1p-8) == 1.0 + 0x1p-6);
  CHECK(truncate_float(dtypes::bfloat16, 0.1) == 0x1.9ap-4);
  CHECK(truncate_float(dtypes::bfloat16, INF) == INF);
  CHECK(truncate_float(dtypes::bfloat16, 1e300) == INF);  // tinygrad's struct.pack('f') raises here; we saturate to inf
  CHECK(std::isnan(truncate_float(dtypes::bfloat16, NAN_)));
}

TEST_CASE("truncate_float: float32 and float64", "[core][dtype][float]") {
  CHECK(truncate_float(dtypes::float32, 0.1) == double(0.1f));
  CHECK(truncate_float(dtypes::float32, 1e300) == INF);  // ctypes.c_float(1e300).value
  CHECK(truncate_float(dtypes::float32, -1e-50) == 0.0);
  CHECK(std::signbit(truncate_float(dtypes::float32, -1e-50)));
  CHECK(truncate_float(dtypes::float32, 16777217.0) == 16777216.0);
  CHECK(truncate_float(dtypes::float64, 0.1) == 0.1);
  CHECK(truncate_float(dtypes::float64, 5e-324) == 5e-324);
  CHECK(truncate_float(dtypes::float32.vec(4), 0.1) == double(0.1f));
}

TEST_CASE("truncate_float: fp8 round trips match tinygrad's float_to_fp8/fp8_to_float", "[core][dtype][float]") {
  check_rounding("fp8e4m3", dtypes::fp8e4m3, e4m3_cases);
  check_rounding("fp8e5m2", dtypes::fp8e5m2, e5m2_cases);
  for (auto [x, b] : e4m3_bytes) {
    INFO("fp8e4m3 " << hexf(x));
    CHECK(int(detail::float_to_fp8(x, Scalar::fp8e4m3)) == b);
  }
  for (auto [x, b] : e5m2_bytes) {
    INFO("fp8e5m2 " << hexf(x));
    CHECK(int(detail::float_to_fp8(x, Scalar::fp8e5m2)) == b);
  }
  for (int i = 0; i < 256; ++i) {
    INFO("byte " << i);
    CHECK(same_double(detail::fp8_to_float(std::uint8_t(i), Scalar::fp8e4m3), e4m3_decode[std::size_t(i)]));
    CHECK(same_double(detail::fp8_to_float(std::uint8_t(i), Scalar::fp8e5m2), e5m2_decode[std::size_t(i)]));
  }
  // every finite fp8 value survives a round trip
  for (int i = 0; i < 256; ++i)
    for (Scalar s : {Scalar::fp8e4m3, Scalar::fp8e5m2}) {
      const double v = detail::fp8_to_float(std::uint8_t(i), s);
      if (std::isfinite(v)) CHECK(same_double(truncate_float(DType{s}, v), v));
    }
  // saturation: e4m3 has no inf (448 is its max), e5m2 saturates finite values to 57344
  CHECK(truncate_float(dtypes::fp8e4m3, 1e6) == 448.0);
  CHECK(std::isnan(truncate_float(dtypes::fp8e4m3, INF)));
  CHECK(truncate_float(dtypes::fp8e5m2, 1e6) == 57344.0);
  CHECK(truncate_float(dtypes::fp8e5m2, -INF) == -INF);
}

TEST_CASE("normalize_const: ints wrap, floats round, bools collapse", "[core][dtype][arg]") {
  auto as_i = [](DType d, Arg v) { return normalize_const(d, v).as_int(); };
  CHECK(as_i(dtypes::uint8, 300) == 44);
  CHECK(as_i(dtypes::int8, 200) == -56);
  CHECK(as_i(dtypes::int16, 32768) == -32768);
  CHECK(as_i(dtypes::uint32, -1) == 4294967295LL);
  CHECK(as_i(dtypes::uint64, -1) == -1);  // uint64 keeps its bit pattern
  CHECK(as_i(dtypes::int32, 2.9) == 2);   // float to int truncates toward zero, like int()
  CHECK(as_i(dtypes::int32, -2.9) == -2);
  CHECK(as_i(dtypes::uint8, 257.5) == 1);
  CHECK(as_i(dtypes::int32, true) == 1);
  CHECK(normalize_const(dtypes::int32, 7).is_int());
  CHECK(normalize_const(dtypes::bool_, 5).as_bool() == true);
  CHECK(normalize_const(dtypes::bool_, 0).as_bool() == false);
  CHECK(normalize_const(dtypes::bool_, 0.5).as_bool() == true);
  CHECK(normalize_const(dtypes::bool_, 0.0).is_bool());
  CHECK(normalize_const(dtypes::float32, 1).is_float());  // an int becomes a float for a float dtype
  CHECK(normalize_const(dtypes::float32, 1).as_float() == 1.0);
  CHECK(normalize_const(dtypes::float32, 0.1).as_float() == 0.1);  // float32 consts keep the double, like tinygrad
  CHECK(normalize_const(dtypes::float16, 0.1).as_float() == 0x1.998p-4);
  CHECK(normalize_const(dtypes::bfloat16, 0.1).as_float() == 0x1.9ap-4);
  CHECK(normalize_const(dtypes::fp8e4m3, 1000.0).as_float() == 448.0);
  CHECK(normalize_const(dtypes::float64, 0.1).as_float() == 0.1);
  CHECK(normalize_const(dtypes::float16.vec(4), 0.1).as_float() == 0x1.998p-4);  // by the scalar type
  CHECK(std::signbit(normalize_const(dtypes::float32, -0.0).as_float()));
  CHECK(std::isnan(normalize_const(dtypes::float16, NAN_).as_float()));
  CHECK(normalize_const(dtypes::weakint, Invalid{}).is<Invalid>());
  CHECK(normalize_const(dtypes::int32, Invalid{}).is<Invalid>());
  // not a number, or a float that no integer holds
  CHECK_THROWS_AS(normalize_const(dtypes::int32, "x"), Error);
  CHECK_THROWS_WITH(normalize_const(dtypes::int32, "x"), Catch::Contains("'x'") && Catch::Contains("dtypes.int"));
  CHECK_THROWS_WITH(normalize_const(dtypes::int8, NAN_), Catch::Contains("nan") && Catch::Contains("dtypes.char"));
  CHECK_THROWS_WITH(normalize_const(dtypes::int64, INF), Catch::Contains("inf"));
  CHECK_THROWS_AS(normalize_const(dtypes::int64, 1e19), Error);
  CHECK_THROWS_AS(normalize_const(dtypes::float32, Arg(ArgTuple{1, 2})), Error);
}

TEST_CASE("py_float_repr matches Python's repr", "[core][arg]") {
  for (const auto& [x, want] : float_reprs) {
    INFO(hexf(x));
    CHECK(py_float_repr(x) == want);
  }
  CHECK(py_float_repr(1.0) == "1.0");
  CHECK(py_float_repr(0.1) == "0.1");
  CHECK(py_float_repr(1e16) == "1e+16");
  CHECK(py_float_repr(1e-5) == "1e-05");
  CHECK(py_float_repr(123456789012345.0) == "123456789012345.0");
  CHECK(py_float_repr(-0.0) == "-0.0");
  CHECK(py_float_repr(INF) == "inf");
  CHECK(py_float_repr(-INF) == "-inf");
  CHECK(py_float_repr(NAN_) == "nan");
  CHECK(py_float_repr(1.5e300) == "1.5e+300");
  CHECK(py_float_repr(5e-324) == "5e-324");
}

TEST_CASE("Arg: repr as tinygrad prints args", "[core][arg]") {
  CHECK(Arg().repr() == "None");
  CHECK(Arg(nullptr).is_none());
  CHECK(Arg(true).repr() == "True");
  CHECK(Arg(false).repr() == "False");
  CHECK(Arg(-7).repr() == "-7");
  CHECK(Arg(std::numeric_limits<std::int64_t>::min()).repr() == "-9223372036854775808");
  CHECK(Arg(2.5).repr() == "2.5");
  CHECK(Arg(2.5f).is_float());
  CHECK(Arg("gidx0").repr() == "'gidx0'");
  CHECK(Arg(Ops::ADD).repr() == "Ops.ADD");
  CHECK(Arg(AxisType::REDUCE).repr() == "AxisType.REDUCE");
  CHECK(Arg(dtypes::float32.vec(2)).repr() == "dtypes.float.vec(2)");
  CHECK(Arg(Invalid{}).repr() == "Invalid");
  CHECK(Arg(ArgTuple{}).repr() == "()");
  CHECK(Arg(ArgTuple{1}).repr() == "(1,)");
  CHECK(Arg{1, "a", Arg{2.5, Arg()}, true, Ops::ADD, AxisType::REDUCE, dtypes::float32.vec(2), Invalid{}}.repr() ==
        "(1, 'a', (2.5, None), True, Ops.ADD, AxisType.REDUCE, dtypes.float.vec(2), Invalid)");
  // Python's str repr: quote choice and escapes
  CHECK(Arg("it's").repr() == "\"it's\"");
  CHECK(Arg("a'b\"c").repr() == "'a\\'b\"c'");
  CHECK(Arg("x\ny\tz\r\x01\x7f\\").repr() == "'x\\ny\\tz\\r\\x01\\x7f\\\\'");
  CHECK(Arg("\xc3\xbcn\xc3\xaf").repr() == "'\xc3\xbcn\xc3\xaf'");  // 'ünï': UTF-8 passes through
  // ParamArg prints only what differs from the defaults
  CHECK(Arg(ParamArg{}).repr() == "ParamArg(0)");
  CHECK(Arg(ParamArg{.slot = 2, .name = "it's"}).repr() == "ParamArg(2, name=\"it's\")");
  CHECK(Arg(ParamArg{3, std::pair<std::int64_t, std::int64_t>{0, 10}, "x", AddrSpace::LOCAL, 1, "CPU"}).repr() ==
        "ParamArg(3, vmin_vmax=(0, 10), name='x', addrspace=AddrSpace.LOCAL, axis=1, device='CPU')");
}

TEST_CASE("Arg: identity equality, Python equality, hashing", "[core][arg]") {
  CHECK(Arg(1) == Arg(1));
  CHECK_FALSE(Arg(1) == Arg(2));
  CHECK_FALSE(Arg(1) == Arg(1.0));    // identity: a different alternative
  CHECK_FALSE(Arg(1) == Arg(true));
  CHECK(Arg(1).py_equals(Arg(1.0)));  // Python: 1 == 1.0 == True
  CHECK(Arg(1).py_equals(Arg(true)));
  CHECK(Arg(0.0).py_equals(Arg(false)));
  CHECK_FALSE(Arg(1).py_equals(Arg(2.0)));
  CHECK(Arg{1, 2.0}.py_equals(Arg{1.0, 2}));
  CHECK_FALSE(Arg{1, 2}.py_equals(Arg{1, 2, 3}));
  CHECK_FALSE(Arg("a").py_equals(Arg(1)));
  // floats by bits, like tinygrad's ConstFloat: -0.0 != 0.0, nan == nan
  CHECK_FALSE(Arg(0.0) == Arg(-0.0));
  CHECK(Arg(NAN_) == Arg(NAN_));
  CHECK(Arg(NAN_) == Arg(-NAN_));
  CHECK(Arg(NAN_).hash() == Arg(-NAN_).hash());
  CHECK(Arg(NAN_).hash() == Arg(std::bit_cast<double>(0x7ff0000000000001ull)).hash());
  CHECK(Arg(1.5).hash() == Arg(1.5).hash());
  CHECK(Arg{1, "a"}.hash() == Arg{1, "a"}.hash());
  CHECK(Arg{1, "a"} == Arg{1, "a"});
  CHECK_FALSE(Arg{1, "a"} == Arg{1, "b"});
  CHECK_FALSE(Arg{1, 2} == Arg(ArgTuple{Arg{1, 2}}));  // ((1, 2),) is not (1, 2)
  CHECK(Arg(ParamArg{.slot = 1}) == Arg(ParamArg{.slot = 1}));
  CHECK_FALSE(Arg(ParamArg{.slot = 1}) == Arg(ParamArg{.slot = 1, .addrspace = AddrSpace::LOCAL}));
  CHECK(Arg(ParamArg{.slot = 1}).hash() == Arg(ParamArg{.slot = 1}).hash());
  CHECK(Arg(dtypes::float32) == Arg(dtypes::float32));
  CHECK_FALSE(Arg(dtypes::float32.ptr()) == Arg(dtypes::float32.ptr(-1, AddrSpace::LOCAL)));
  CHECK(Arg(Invalid{}) == Arg(Invalid{}));
  CHECK(Arg() == Arg(nullptr));
}

TEST_CASE("Arg: accessors, and errors that name the arg", "[core][arg]") {
  const Arg t{Arg("a"), Arg(0), Arg(10)};
  CHECK(t.is_tuple());
  CHECK(t.size() == 3);
  CHECK(t[0].as_str() == "a");
  CHECK(t[2].as_int() == 10);
  CHECK(Arg(true).as_int() == 1);
  CHECK(Arg(3).as_float() == 3.0);
  CHECK(Arg(Ops::MUL).as_op() == Ops::MUL);
  CHECK(Arg(AxisType::LOOP).as_axis_type() == AxisType::LOOP);
  CHECK(Arg(dtypes::int8).as_dtype() == dtypes::int8);
  CHECK(Arg(ParamArg{.slot = 4}).as_param().slot == 4);
  CHECK(Arg(5).size() == 0);
  CHECK_THROWS_AS(Arg("x").as_int(), Error);
  CHECK_THROWS_WITH(Arg("x").as_int(), Catch::Contains("as_int") && Catch::Contains("'x'"));
  CHECK_THROWS_WITH(Arg("x").as_float(), Catch::Contains("as_float") && Catch::Contains("'x'"));
  CHECK_THROWS_WITH(Arg(1).as_bool(), Catch::Contains("as_bool") && Catch::Contains("1"));
  CHECK_THROWS_WITH(Arg(1.5).as_str(), Catch::Contains("1.5") && Catch::Contains("string"));
  CHECK_THROWS_WITH(Arg(1).as_op(), Catch::Contains("Ops"));
  CHECK_THROWS_WITH(Arg(1).as_tuple(), Catch::Contains("tuple"));
  CHECK_THROWS_WITH(Arg(1).as_param(), Catch::Contains("ParamArg"));
  CHECK_THROWS_WITH(Arg(1).as_dtype(), Catch::Contains("DType"));
  CHECK_THROWS_WITH(t[3], Catch::Contains("Arg[3]") && Catch::Contains("('a', 0, 10)"));
  CHECK_THROWS_AS(Arg(7)[0], Error);
}
