#include "printer.hpp"

#include <fstream>

#include "cli.hpp"
#include "perfmodel/errors.hpp"

namespace perfmodel::cli {

namespace {

struct TablePrinter : Printer {
  std::string print(const Report& r) const override { return render_table(r); }
};
struct CsvPrinter : Printer {
  std::string print(const Report& r) const override { return render_csv(r); }
};
struct JsonPrinter : Printer {
  std::string print(const Report& r) const override { return to_json(r.root); }
};

}  // namespace

Format parse_format(const std::string& name) {
  if (name == "table") return Format::table;
  if (name == "csv") return Format::csv;
  if (name == "json") return Format::json;
  throw UsageError("--format must be table, csv or json, got '" + name + "'");
}

const Printer& printer(Format f) {
  static const TablePrinter table;
  static const CsvPrinter csv;
  static const JsonPrinter json;
  switch (f) {
    case Format::table: return table;
    case Format::csv: return csv;
    case Format::json: return json;
    default: break;
  }
  throw UsageError("markdown and svg are written to files (--markdown, --svg), not to standard output");
}

void validate(boost::any& v, const std::vector<std::string>& values, Format*, int) {
  namespace po = boost::program_options;
  po::validators::check_first_occurrence(v);
  v = parse_format(po::validators::get_single_string(values));
}

void add_format(po::options_description& d, Format& format) {
  d.add_options()("format", po::value(&format)->default_value(Format::table, "table"),
                  "output: table (readable), csv (the main table) or json (everything, with meta)");
}

void emit(const Report& r, Format format, Context& ctx) { *ctx.out << printer(format).print(r); }

void write_document(const Printer& p, Report& r, const std::string& path, const std::string& flag) {
  const std::string text = p.print(r);
  std::ofstream f(path);
  if (!f) throw InputError("cannot write " + flag + " file '" + path + "'");
  f << text;
  r.notes.push_back("wrote " + path);
}

void add_format(po::options_description& d, std::string& format) {
  d.add_options()("format", po::value(&format)->default_value("table"),
                  "output: table (readable), csv (the main table) or json (everything, with meta)");
}

void emit(const Report& r, const std::string& format, Context& ctx) { emit(r, parse_format(format), ctx); }

}  // namespace perfmodel::cli
