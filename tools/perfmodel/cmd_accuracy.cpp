// perfmodel accuracy: predictions recomputed for every measured case; error by op kind.
#include <fstream>
#include <iterator>

#include "accuracy_report.hpp"
#include "commands.hpp"
#include "documents.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/profile_accuracy.hpp"

namespace perfmodel::cli {

namespace {
Node case_node(const CaseError& e) {
  Node x = Node::object();
  x.set("set", Node::text(e.set));
  x.set("name", Node::text(e.name));
  x.set("kernel", Node::text(e.detail));
  x.set("predicted_s", Node::number(e.predicted_s, Hint::time));
  x.set("measured_s", Node::number(e.measured_s, Hint::time));
  x.set("error", Node::number(e.error, Hint::percent));
  return x;
}
}  // namespace

Report accuracy_report(const Context& ctx, const Loaded& card, const Measurements& m,
                       const std::vector<CaseError>& errors) {
  Report r;
  r.command = "accuracy";
  r.root.set("meta", make_meta("accuracy", ctx.argv));
  Node inputs = Node::object();
  inputs.set("card", card_node(card));
  inputs.set("device", Node::text(m.device));
  Node files = Node::array();
  for (const auto& f : m.files) files.push(Node::text(f));
  inputs.set("files", std::move(files));
  r.root.set("inputs", std::move(inputs));
  Node sets = Node::array();
  Node worst = Node::array();
  for (const SetStats& s : summarize(errors)) {
    Node n = Node::object();
    n.set("set", Node::text(s.set));
    n.set("cases", Node::integer(s.cases));
    n.set("median_abs_error", Node::number(s.median_abs, Hint::percent));
    n.set("p90_abs_error", Node::number(s.p90_abs, Hint::percent));
    n.set("mean_signed_error", Node::number(s.mean_signed, Hint::percent));
    Node w = Node::array();
    for (const CaseError& e : s.worst) {
      worst.push(case_node(e));
      w.push(case_node(e));
    }
    n.set("worst", std::move(w));
    sets.push(std::move(n));
  }
  r.root.set("sets", std::move(sets));
  r.root.set("worst", std::move(worst));
  Node cases = Node::array();
  for (const CaseError& e : errors) {
    cases.push(case_node(e));
  }
  r.root.set("cases", std::move(cases));
  r.tables.push_back({"error by op kind (predicted / measured - 1; " + std::string(card.calibration ? "calibrated" : "datasheet roofs") + ")",
                      "sets",
                      {{"set", "set", Hint::text},
                       {"cases", "cases", Hint::integer},
                       {"median_abs_error", "median |err|", Hint::percent},
                       {"p90_abs_error", "p90 |err|", Hint::percent},
                       {"mean_signed_error", "mean err", Hint::percent}}});
  r.tables.push_back({"worst five per set", "worst",
                      {{"set", "set", Hint::text},
                       {"name", "case", Hint::text},
                       {"predicted_s", "predicted", Hint::time},
                       {"measured_s", "measured", Hint::time},
                       {"error", "error", Hint::percent}}});
  return r;
}

// Production kernels (cases with an `implementation`): a table per profile, each case priced on
// the profile's roofs; held out = the cases its calibration was not fitted on (odd index).
void add_profile_tables(Report& r, const std::vector<ProfileCaseError>& errors) {
  if (errors.empty()) return;
  // Every case as its profile prices it (JSON only), so a miss can be traced to its shape.
  Node cases = Node::array();
  for (const ProfileCaseError& e : errors) {
    Node n = Node::object();
    n.set("profile", Node::text(to_string(e.profile)));
    n.set("implementation", Node::text(e.implementation));
    n.set("held_out", Node::boolean(e.held_out));
    n.set("name", Node::text(e.error.name));
    n.set("kernel", Node::text(e.error.detail));
    n.set("predicted_s", Node::number(e.error.predicted_s, Hint::time));
    n.set("measured_s", Node::number(e.error.measured_s, Hint::time));
    n.set("error", Node::number(e.error.error, Hint::percent));
    cases.push(std::move(n));
  }
  r.root.set("profile_cases", std::move(cases));
  const auto stats = summarize_profiles(errors);
  for (Impl p : {Impl::fused, Impl::eager, Impl::compiled}) {
    Node rows = Node::array();
    for (const ProfileSetStats& s : stats) {
      if (s.profile != p) continue;
      Node n = Node::object();
      n.set("kernel", Node::text(s.kernel));
      n.set("implementation", Node::text(s.implementation));
      n.set("fitted_cases", Node::integer(s.fitted_cases));
      n.set("held_out_cases", Node::integer(s.held_out_cases));
      n.set("held_out_median_abs_error", Node::number(s.held_out_median_abs, Hint::percent));
      n.set("held_out_p90_abs_error", Node::number(s.held_out_p90_abs, Hint::percent));
      n.set("held_out_mean_signed_error", Node::number(s.held_out_mean_signed, Hint::percent));
      n.set("all_median_abs_error", Node::number(s.all_median_abs, Hint::percent));
      n.set("all_p90_abs_error", Node::number(s.all_p90_abs, Hint::percent));
      rows.push(std::move(n));
    }
    const std::string key = "profile_" + to_string(p);
    r.root.set(key, std::move(rows));
    r.tables.push_back({"production kernels, profile " + to_string(p) + " (held out: odd case index, not fitted on)",
                        key,
                        {{"kernel", "kernel", Hint::text},
                         {"implementation", "implementation", Hint::text},
                         {"fitted_cases", "fit", Hint::integer},
                         {"held_out_cases", "held out", Hint::integer},
                         {"held_out_median_abs_error", "median |err|", Hint::percent},
                         {"held_out_p90_abs_error", "p90 |err|", Hint::percent},
                         {"held_out_mean_signed_error", "mean err", Hint::percent},
                         {"all_median_abs_error", "all: median", Hint::percent},
                         {"all_p90_abs_error", "all: p90", Hint::percent}}});
  }
}

// `--bands`: the error bands measured on this data, one row per profile and set.
void add_band_table(Report& r, const std::map<std::string, ErrorBands>& bands) {
  Node rows = Node::array();
  for (const auto& [profile, b] : bands)
    for (const auto& [set, q] : b.sets) {
      Node n = Node::object();
      n.set("profile", Node::text(profile));
      n.set("set", Node::text(set));
      n.set("p10", Node::number(q.p10, Hint::percent));
      n.set("p90", Node::number(q.p90, Hint::percent));
      n.set("cases", Node::integer(q.cases));
      n.set("source", Node::text(b.source));
      rows.push(std::move(n));
    }
  r.root.set("error_bands", std::move(rows));
  r.tables.push_back({"error bands (p10 / p90 of predicted / measured - 1): the calibration's error_bands:", "error_bands",
                      {{"profile", "profile", Hint::text},
                       {"set", "set", Hint::text},
                       {"p10", "p10", Hint::percent},
                       {"p90", "p90", Hint::percent},
                       {"cases", "cases", Hint::integer}}});
}

int cmd_accuracy(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  CardArgs card;
  card.card = "";
  std::vector<std::string> measured;
  std::string markdown, notes;
  bool bands = false;
  Format format = Format::table;
  add_card(d, card);
  d.add_options()("measured", po::value(&measured)->multitoken()->required(),
                  "result files or folders (kernels.json from validate --suite, step files from validate --output)")(
      "markdown", po::value(&markdown), "also write the report as Markdown (docs/accuracy.md)")(
      "notes", po::value(&notes), "Markdown file appended to the report (the weaknesses, in words)")(
      "bands", po::bool_switch(&bands),
      "also measure the error bands (p10/p90 of predicted / measured - 1 per profile and set) that predictions "
      "carry as time_band_s; they go under error_bands: in the card's calibration file");
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx,
             "perfmodel accuracy: recomputes the prediction for every measured case and prints the error by op kind "
             "(median, p90, worst five)",
             "perfmodel accuracy --measured validation/results/h200"))
    return 0;
  Measurements m;
  for (const auto& f : measured) load_measurements(f, m);
  if (m.cases.empty() && m.steps.empty()) throw InputError("no measured cases in " + measured.front());
  if (card.card.empty()) {
    if (m.card.empty()) throw UsageError("the files do not name a card; pass --card");
    card.card = m.card;
  }
  Loaded l = load_card(card, ctx);
  const Roofs roofs = make_roofs(l.card, l.calibration ? &*l.calibration : nullptr);
  Catalogue cat(ctx.data_root);
  const auto errors = evaluate(m, roofs, [&](const std::string& key) { return cat.model(key); });
  Report r = accuracy_report(ctx, l, m, errors);
  add_profile_tables(r, evaluate_profiles(m, l.card, l.calibration ? &*l.calibration : nullptr));
  if (bands)
    add_band_table(r, measure_error_bands(m, l.card, l.calibration ? &*l.calibration : nullptr,
                                          [&](const std::string& key) { return cat.model(key); }));
  if (!markdown.empty()) {
    AccuracyMarkdown page;
    page.date = today_utc();
    page.kernel_cases = m.cases.size();
    page.steps = m.steps.size();
    if (!notes.empty()) {
      std::ifstream n(notes);
      if (!n) throw InputError("cannot read --notes file '" + notes + "'");
      page.notes = "\n" + std::string(std::istreambuf_iterator<char>(n), {});
    }
    write_document(page, r, markdown, "--markdown");
  }
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
