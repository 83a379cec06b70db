#pragma once
// mg::trange: tinygrad's helpers.trange / tqdm, the progress bar of its training loops:
//
//   loss:   0.52 test_accuracy: 81.20%:  71%|██████████▋    | 50/70 [00:21<00:08,  2.33it/s]
//
// the description the loop sets, the percentage and bar, step i of N, elapsed time < time left, and
// steps per second (seconds per step, `s/it`, when a step takes more than a second). On a terminal it
// redraws one line with '\r'; otherwise (a log file, a pipe, CI) it prints whole lines, every
// `plain_every` steps and at the end, so a log stays readable.
//
// Header of its own, not part of metagrad.hpp: only training programs want it (as tinygrad's helpers).
#include <unistd.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "../core/clock.hpp"

namespace mg {

namespace detail {

// tinygrad's HMS: "MM:SS", with "H:" in front from an hour on
template <class = void> std::string tqdm_hms(double t) {
  const auto s = std::int64_t(t < 0 ? 0 : t);
  char buf[48];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", (long long)(s / 3600), (long long)(s % 3600 / 60), (long long)(s % 60));
  else std::snprintf(buf, sizeof buf, "%02lld:%02lld", (long long)(s / 60), (long long)(s % 60));
  return buf;
}

// columns a UTF-8 string takes (one per code point: the bar's blocks are one column wide)
template <class = void> std::size_t tqdm_cols(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// the first `cols` columns of s
template <class = void> std::string tqdm_cut(std::string_view s, std::size_t cols) {
  std::size_t n = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == cols) break;
  }
  return std::string(s.substr(0, i));
}

}  // namespace detail

// One line of the bar, as tinygrad's tqdm.update draws it (without the '\r'): `desc` (a ": " follows
// a non-empty one), step n of total (total 0: no bar, no time left), `elapsed` seconds, fitted to
// `ncols` columns (0: a bar of 20 columns and no cut, for plain lines).
template <class = void> std::string tqdm_line(std::string_view desc, std::int64_t n, std::int64_t total, double elapsed, int ncols) {
  const std::string d = desc.empty() ? std::string() : std::string(desc) + ": ";
  const double prog = total ? double(n) / double(total) : 0.0;
  char rate[32] = "?it/s";
  if (n && elapsed > 0) {
    const double r = double(n) / elapsed;
    if (r >= 1.0) std::snprintf(rate, sizeof rate, "%5.2fit/s", r);
    else std::snprintf(rate, sizeof rate, "%5.2fs/it", 1.0 / r);
  }
  std::string suf = std::to_string(n) + (total ? "/" + std::to_string(total) : std::string("it")) + " [" + detail::tqdm_hms(elapsed);
  if (total) suf += "<" + (n && elapsed > 0 ? detail::tqdm_hms(elapsed / prog - elapsed) : std::string("?"));
  suf += std::string(", ") + rate + "]";
  std::string line = d;
  if (total) {
    // the bar gets what is left of the width: tinygrad's 3 (percent) + 2 (%|) + 2 (| )
    const std::int64_t left = std::int64_t(ncols) - std::int64_t(detail::tqdm_cols(d)) - 3 - 2 - 2 - std::int64_t(detail::tqdm_cols(suf));
    const std::int64_t sz = ncols <= 0 ? 20 : left > 1 ? left : 1;
    const double num = double(sz) * std::min(prog, 1.0);
    static constexpr const char* eighths[8] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    std::string bar;
    for (std::int64_t i = 0; i < std::int64_t(num); ++i) bar += "█";
    bar += eighths[std::int64_t(8 * num) % 8];
    for (std::size_t c = detail::tqdm_cols(bar); c < std::size_t(sz); ++c) bar += ' ';
    char pct[16];
    std::snprintf(pct, sizeof pct, "%3.0f%%|", 100 * prog);
    line += pct + bar + "| ";
  }
  line += suf;
  return ncols > 0 ? detail::tqdm_cut(line, std::size_t(ncols)) : line;
}

// The bar over `total` steps. Iterate it (`for (std::int64_t i : bar)`): each step ends with update(1),
// as tinygrad's loop does, so a description set in the body shows with that step.
class Tqdm {
 public:
  explicit Tqdm(std::int64_t total, std::string desc = "", std::FILE* out = stdout)
      : total_(total), out_(out), desc_(std::move(desc)), start_(detail::monotonic_seconds()) {
    tty_ = out_ && ::isatty(::fileno(out_));
    plain_every = total_ > 10 ? total_ / 10 : 1;
    draw(false);
  }
  ~Tqdm() { close(); }
  Tqdm(const Tqdm&) = delete;
  Tqdm& operator=(const Tqdm&) = delete;

  void set_description(std::string desc) { desc_ = std::move(desc); }
  // n more steps done; redraws (at most 20 times a second on a terminal)
  void update(std::int64_t n = 1) {
    n_ += n;
    if (n_ >= total_ && total_) return close();
    draw(false);
  }
  // draws the last state and ends the line; later calls do nothing
  void close() {
    if (closed_) return;
    closed_ = true;
    draw(true);
  }
  double elapsed() const { return detail::monotonic_seconds() - start_; }
  std::int64_t n() const { return n_; }
  bool is_tty() const { return tty_; }
  std::int64_t plain_every;  // off a terminal: a line every this many steps (and the last)

  struct iterator {
    Tqdm* bar;
    std::int64_t i;
    std::int64_t operator*() const { return i; }
    iterator& operator++() { return ++i, bar->update(1), *this; }
    bool operator!=(const iterator& o) const { return i != o.i; }
  };
  iterator begin() { return {this, n_}; }
  iterator end() { return {this, total_}; }

 private:
  void draw(bool last) {
    if (!out_) return;
    const double t = elapsed();
    if (tty_) {
      if (!last && n_ && t - drawn_at_ < 0.05) return;
      drawn_at_ = t;
      std::fprintf(out_, "\r%s%s", tqdm_line(desc_, n_, total_, t, columns()).c_str(), last ? "\n" : "");
    } else {
      if (!last && (n_ == 0 || n_ % plain_every)) return;
      std::fprintf(out_, "%s\n", tqdm_line(desc_, n_, total_, t, 0).c_str());
    }
    std::fflush(out_);
  }
  int columns() const {
    winsize w{};
    if (::ioctl(::fileno(out_), TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
    const char* c = std::getenv("COLUMNS");
    return c && std::atoi(c) > 0 ? std::atoi(c) : 80;
  }

  std::int64_t total_, n_ = 0;
  std::FILE* out_;
  std::string desc_;
  double start_;  // monotonic seconds
  double drawn_at_ = -1.0;
  bool tty_ = false, closed_ = false;
};

// tinygrad's trange(n): a bar over the steps 0..n-1
template <class = void> Tqdm trange(std::int64_t n, std::string desc = "", std::FILE* out = stdout) { return Tqdm(n, std::move(desc), out); }

}  // namespace mg
