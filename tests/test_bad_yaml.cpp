// Bad catalogue files (tests/data/bad/*.yaml) fail loudly: ConfigError naming file:line:col and
// the YAML path, "did you mean" for misspelled keys (docs/catalogue-schema.md: "Unknown keys
// are errors (reported as file:line:col)").
#include <doctest/doctest.h>

#include "perfmodel/catalogue.hpp"
#include "perfmodel/errors.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

// Loads `file` expecting a ConfigError; returns it for further checks.
template <typename Load>
ConfigError expect_config_error(const std::string& file, Load load) {
  try {
    (void)load(file);
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("expected ConfigError from " << file);
  return ConfigError("", 0, 0, "", "");
}

ConfigError bad_card(const std::string& name) { return expect_config_error(test::data("bad/" + name), load_card_file); }
ConfigError bad_model(const std::string& name) { return expect_config_error(test::data("bad/" + name), load_model_file); }

}  // namespace

TEST_CASE("the fixtures' base card is valid") {
  const Card c = load_card_file(test::data("card-base.yaml"));
  CHECK(c.warnings.empty());
  CHECK(c.ridge(Precision::bf16) == test::approx(312e12 / 2039.04e9));
}

TEST_CASE("an unknown top-level key: file:line:col and did you mean") {
  const std::string file = test::data("bad/model-unknown-key.yaml");
  const ConfigError e = bad_model("model-unknown-key.yaml");
  const std::string what = e.what();
  CAPTURE(what);
  // hf_rpo sits on line 4, column 1.
  CHECK(test::contains(what, file + ":4:1"));
  CHECK(test::contains(what, "hf_rpo"));
  CHECK(test::contains(what, "did you mean"));
  CHECK(test::contains(what, "hf_repo"));
  CHECK(e.file() == file);
  CHECK(e.line() == 4);
  CHECK(e.column() == 1);
  CHECK(e.yaml_path() == "hf_rpo");
}

TEST_CASE("an unknown nested key names its YAML path") {
  const std::string file = test::data("bad/card-unknown-key.yaml");
  const ConfigError e = bad_card("card-unknown-key.yaml");
  const std::string what = e.what();
  CAPTURE(what);
  // memory.bandwith on line 23, column 3.
  CHECK(test::contains(what, file + ":23:3"));
  CHECK(test::contains(what, "memory.bandwith"));
  CHECK(test::contains(what, "did you mean bandwidth"));
  CHECK(e.yaml_path() == "memory.bandwith");
}

TEST_CASE("a missing required field is named") {
  {
    const ConfigError e = bad_model("model-missing-field.yaml");
    CHECK(test::contains(e.what(), "missing required field 'vocab_size'"));
    CHECK(test::contains(e.what(), test::data("bad/model-missing-field.yaml")));
  }
  {
    const ConfigError e = bad_card("card-missing-field.yaml");
    CHECK(test::contains(e.what(), "missing required field 'sm_count'"));
  }
}

TEST_CASE("a malformed unit points at the value") {
  const ConfigError e = bad_card("card-malformed-unit.yaml");
  const std::string what = e.what();
  CAPTURE(what);
  CHECK(test::contains(what, test::data("bad/card-malformed-unit.yaml") + ":19:13"));
  CHECK(test::contains(what, "memory.capacity"));
  CHECK(test::contains(what, "unknown unit 'GiBs'"));
}

TEST_CASE("a value of the wrong dimension is rejected") {
  const ConfigError e = bad_card("card-wrong-dimension.yaml");
  CAPTURE(e.what());
  CHECK(e.line() == 22);
  CHECK(e.yaml_path() == "memory.l2");
  CHECK(test::contains(e.what(), "expected bytes"));
}

TEST_CASE("zero and negative sizes are rejected") {
  {
    const ConfigError e = bad_card("card-zero-size.yaml");
    CAPTURE(e.what());
    CHECK(e.line() == 19);
    CHECK(test::contains(e.what(), "positive"));
  }
  {
    const ConfigError e = bad_card("card-negative-size.yaml");
    CAPTURE(e.what());
    CHECK(e.line() == 21);
    CHECK(test::contains(e.what(), "positive"));
  }
  {
    const ConfigError e = bad_model("model-zero-size.yaml");
    CAPTURE(e.what());
    CHECK(e.line() == 4);
    CHECK(e.yaml_path() == "hidden_size");
    CHECK(test::contains(e.what(), "at least 1"));
  }
  {
    const ConfigError e = bad_model("model-negative-size.yaml");
    CAPTURE(e.what());
    CHECK(e.line() == 6);
    CHECK(e.yaml_path() == "num_hidden_layers");
    CHECK(test::contains(e.what(), "-2"));
  }
}

TEST_CASE("a model whose heads are not a multiple of its kv heads is refused") {
  // model.hpp validate(): "heads divisible by kv heads". The loader reports it through
  // validate(), which throws InputError naming the model (its file path) and both numbers.
  const std::string file = test::data("bad/model-heads-not-multiple.yaml");
  try {
    (void)load_model_file(file);
    FAIL("expected the model to be refused");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK((dynamic_cast<const InputError*>(&e) || dynamic_cast<const ConfigError*>(&e)));
    CHECK(test::contains(what, file));
    CHECK(test::contains(what, "32"));
    CHECK(test::contains(what, "5"));
    CHECK(test::contains(what, "multiple"));
  }
}

TEST_CASE("a file that is not YAML, and a file that does not exist") {
  const ConfigError e = bad_card("card-not-yaml.yaml");
  CHECK(e.line() > 0);
  CHECK(test::contains(e.what(), "card-not-yaml.yaml"));
  const ConfigError missing = expect_config_error(test::data("bad/nope.yaml"), load_card_file);
  CHECK(test::contains(missing.what(), "cannot open"));
}

TEST_CASE("validate(Model) checks invariants on hand-made models") {
  Model m = test::catalogue().model("llama2-7b");
  CHECK_NOTHROW(validate(m));
  Model z = m;
  z.hidden = 0;
  CHECK_THROWS_AS(validate(z), InputError);
  Model g = m;
  g.kv_heads = 5;
  CHECK_THROWS_AS(validate(g), InputError);
  Model big = m;
  big.vocab = int64_t{1} << 40;
  big.hidden = int64_t{1} << 40;  // vocab x hidden = 2^80: overflows int64
  CHECK_THROWS_AS(validate(big), InputError);
}
