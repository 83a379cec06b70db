// nn/trange.hpp: the progress bar draws tinygrad's tqdm line (the expected strings are what tinygrad's
// tqdm.update prints for the same numbers), switches to s/it for slow steps, and off a terminal prints
// whole lines every plain_every steps and at the end.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include <metagrad/nn/trange.hpp>

using namespace mg;

TEST_CASE("tqdm_line is tinygrad's tqdm line", "[nn][trange]") {
  CHECK(tqdm_line("loss:   0.52 test_accuracy: 81.20%", 50, 70, 21.4, 100) ==
        "loss:   0.52 test_accuracy: 81.20%:  71%|███████████████████▎       | 50/70 [00:21<00:08,  2.34it/s]");
  CHECK(tqdm_line("", 0, 70, 0.0, 60) == "  0%|                                | 0/70 [00:00<?, ?it/s]");
  CHECK(tqdm_line("x", 7, 0, 3.5, 80) == "x: 7it [00:03,  2.00it/s]");  // no total: no bar, no time left
  CHECK(tqdm_line("", 70, 70, 30.0, 40) == "100%|███| 70/70 [00:30<00:00,  2.33it/s]");
  CHECK(tqdm_line("", 0, 70, 0.0, 0) == "  0%|                    | 0/70 [00:00<?, ?it/s]");  // ncols 0: 20 columns, no cut
}

TEST_CASE("tqdm_line: seconds per step when a step is slower than one a second, hours, width", "[nn][trange]") {
  const std::string l = tqdm_line("", 1, 4, 3725.0, 60);
  CHECK(l.ends_with("| 1/4 [1:02:05<3:06:15, 3725.00s/it]"));
  CHECK(l.starts_with(" 25%|"));
  CHECK(detail::tqdm_cols(l) == 60);
  // a description longer than the line is cut at the width, counting a block as one column
  const std::string cut = tqdm_line(std::string(100, 'd'), 1, 2, 1.0, 50);
  CHECK(cut == std::string(50, 'd'));
  CHECK(detail::tqdm_cols("█▏ab") == 4);
  CHECK(detail::tqdm_cut("█▏ab", 2) == "█▏");
  CHECK(detail::tqdm_hms(59.9) == "00:59");
  CHECK(detail::tqdm_hms(3600) == "1:00:00");
}

TEST_CASE("Tqdm off a terminal prints plain lines every plain_every steps and the last", "[nn][trange]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  std::int64_t seen = 0;
  {
    Tqdm bar(25, "", f);
    CHECK_FALSE(bar.is_tty());
    CHECK(bar.plain_every == 2);  // a tenth of the steps
    bar.plain_every = 10;
    for (std::int64_t i : bar) {
      CHECK(i == seen++);
      bar.set_description("step " + std::to_string(i));
    }
    CHECK(bar.n() == 25);
  }
  CHECK(seen == 25);
  std::rewind(f);
  std::string out;
  for (int c; (c = std::fgetc(f)) != EOF;) out += char(c);
  std::fclose(f);
  // lines after steps 10 and 20, and the last (25); the description is the one set in that step
  std::vector<std::string> lines;
  for (std::size_t a = 0, b; (b = out.find('\n', a)) != std::string::npos; a = b + 1) lines.push_back(out.substr(a, b - a));
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].starts_with("step 9:  40%|"));
  CHECK(lines[0].find("| 10/25 [") != std::string::npos);
  CHECK(lines[1].starts_with("step 19:  80%|"));
  CHECK(lines[2].starts_with("step 24: 100%|"));
  CHECK(lines[2].find("| 25/25 [") != std::string::npos);
  CHECK(out.find('\r') == std::string::npos);
}
