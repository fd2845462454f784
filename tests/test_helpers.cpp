// stats.hpp and text.hpp: the shared quantile, median, edit distance and JSON escaper.
#include <doctest/doctest.h>

#include "perfmodel/stats.hpp"
#include "perfmodel/text.hpp"

using namespace perfmodel;

TEST_CASE("quantile interpolates between ranks; upper_median picks a measured value") {
  const std::vector<double> v{4, 1, 3, 2};
  CHECK(quantile(v, 0.5) == 2.5);
  CHECK(quantile(v, 0.0) == 1);
  CHECK(quantile(v, 1.0) == 4);
  CHECK(quantile(v, 0.9) == doctest::Approx(3.7));
  CHECK(quantile({7}, 0.9) == 7);
  CHECK(quantile({}, 0.5) == 0);
  CHECK(upper_median(v) == 3);
  CHECK(upper_median({5, 1, 9}) == 5);
  CHECK(upper_median({}) == 0);
}

TEST_CASE("edit_distance counts insertions, deletions and substitutions") {
  CHECK(edit_distance("--batch", "--batch") == 0);
  CHECK(edit_distance("--bach", "--batch") == 1);
  CHECK(edit_distance("rmsnrom", "rmsnorm") == 2);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("json_escape: quotes, backslashes and control characters; UTF-8 passes through") {
  CHECK(json_escape("a\"b\\c") == "a\\\"b\\\\c");
  CHECK(json_escape("line\nnext\ttab") == "line\\nnext\\ttab");
  CHECK(json_escape(std::string("\x01\x1f", 2)) == "\\u0001\\u001f");
  CHECK(json_escape("μs −") == "μs −");
}
