#include "explain_cli.hpp"

namespace perfmodel::cli {

void add_explain(po::options_description& d, bool& explain) {
  d.add_options()("explain", po::bool_switch(&explain),
                  "expand every number into its formula, the inputs plugged in and where each comes from "
                  "(datasheet, calibration key, model file, seed)");
}

namespace {
Node items_node(const std::vector<Explained>& items) {
  Node a = Node::array();
  for (const Explained& e : items) {
    Node n = Node::object();
    n.set("name", Node::text(e.name));
    n.set("formula", Node::text(e.formula));
    n.set("substituted", Node::text(e.substituted));
    n.set("value", Node::number(e.value));
    n.set("unit", Node::text(e.unit));
    Node in = Node::array();
    for (const std::string& s : e.inputs) in.push(Node::text(s));
    n.set("inputs", std::move(in));
    a.push(std::move(n));
  }
  return a;
}
}  // namespace

void attach_explanation(Report& r, const ExplainSections& sections) {
  Node all = Node::array();
  std::string text = "explain (SI units; every '=' line can be redone by hand)\n";
  for (const auto& [title, items] : sections) {
    Node s = Node::object();
    s.set("section", Node::text(title));
    s.set("items", items_node(items));
    all.push(std::move(s));
    text += "\n" + title + "\n" + render_explained(items);
  }
  r.root.set("explain", std::move(all));
  r.notes.push_back(text);
}

ExplainSections explain_evaluation(const Model& m, const Evaluation& e, const Roofs& roofs, double utilization) {
  ExplainSections s;
  s.emplace_back("step", explain_step(e, roofs));
  s.emplace_back("analysis", explain_analysis(m, e, roofs.card, utilization));
  for (size_t i = 0; i < e.step.ops.size(); ++i)
    s.emplace_back("op " + e.step.ops[i].name + " (one instance of " + std::to_string(e.step.ops[i].count) + ")",
                   explain_op(e.step.ops[i], e.cost.ops[i], roofs));
  return s;
}

}  // namespace perfmodel::cli
