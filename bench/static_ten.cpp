// Ten fused kernels on 256x256 float32, for bench/compile_static.sh: with MG_TEN_EIGEN the same ten
// expressions in Eigen's expression templates, otherwise as metagrad static kernels. Each is a
// function the linker keeps, so both translation units generate their code.
#include <cstdint>
#ifdef MG_TEN_EIGEN
#include <eigen3/Eigen/Dense>
using A = Eigen::Array<float, 256, 256, Eigen::RowMajor>;
using M = Eigen::Map<const Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
using MO = Eigen::Map<Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
using Mat = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
using MatO = Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
#define IN(x) M x(x##_, 256, 256)
#define OUT(r, c) MO o(o_, r, c)
void k1(float* o_, const float* a_, const float* b_, const float* c_) { IN(a); IN(b); IN(c); OUT(256, 256); o = (a * b + c).max(0.f); }
void k2(float* o_, const float* a_, const float* b_) { IN(a); IN(b); *o_ = (a * b).sum(); }
void k3(float* o_, const float* a_) { IN(a); OUT(256, 256); o = (a.colwise() - a.rowwise().maxCoeff()).exp(); o.colwise() /= o.rowwise().sum(); }
void k4(float* o_, const float* a_, const float* b_) { Mat a(a_, 256, 256), b(b_, 256, 256); MatO o(o_, 256, 256); o.noalias() = a * b; }
void k5(float* o_, const float* a_) { IN(a); OUT(256, 256); auto m = (a.colwise() - a.rowwise().maxCoeff()).eval(); o = m.colwise() - m.exp().rowwise().sum().log(); }
void k6(float* o_, const float* a_) { IN(a); OUT(256, 1); o = a.rowwise().mean(); }
void k7(float* o_, const float* a_) { IN(a); OUT(1, 256); o = a.colwise().maxCoeff(); }
void k8(float* o_, const float* a_, const float* b_) { IN(a); IN(b); OUT(256, 256); o = a.transpose() + b; }
void k9(float* o_, const float* a_, const float* b_) { IN(a); IN(b); OUT(256, 1); o = (a - b).square().rowwise().sum(); }
void k10(float* o_, const float* a_, const float* b_) { IN(a); IN(b); OUT(256, 256); o = b / (1.f + (-a).exp()); }
#else
#include <metagrad/static/kernel.hpp>
using namespace mg;
using In = input<float, 256, 256>;
void k1(float* o, const float* a, const float* b, const float* c) { static_kernel<In, In, In>([](auto x, auto y, auto z) { return (x * y + z).relu(); })(o, a, b, c); }
void k2(float* o, const float* a, const float* b) { static_kernel<In, In>([](auto x, auto y) { return (x * y).sum(); })(o, a, b); }
void k3(float* o, const float* a) { static_kernel<In>([](auto x) { return x.softmax(); })(o, a); }
void k4(float* o, const float* a, const float* b) { static_kernel<In, In>([](auto x, auto y) { return x.matmul(y); })(o, a, b); }
void k5(float* o, const float* a) { static_kernel<In>([](auto x) { return x.log_softmax(); })(o, a); }
void k6(float* o, const float* a) { static_kernel<In>([](auto x) { return x.mean(axes<1>{}); })(o, a); }
void k7(float* o, const float* a) { static_kernel<In>([](auto x) { return x.max(axes<0>{}); })(o, a); }
void k8(float* o, const float* a, const float* b) { static_kernel<In, In>([](auto x, auto y) { return x.transpose() + y; })(o, a, b); }
void k9(float* o, const float* a, const float* b) { static_kernel<In, In>([](auto x, auto y) { return (x - y).square().sum(axes<1>{}); })(o, a, b); }
void k10(float* o, const float* a, const float* b) { static_kernel<In, In>([](auto x, auto y) { return x.sigmoid() * y; })(o, a, b); }
#endif
