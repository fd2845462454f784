#pragma once
// How a command's Report becomes text: one Printer per format, and `--format` parsed here only.
//
//   table, csv, json   stdout (`--format`, emit()): render_table / render_csv / to_json of
//                      report.hpp over the Report's tree
//   markdown, svg      documents written to a file (`accuracy --markdown`, `roofline --svg`):
//                      printers that draw the same tree as a page or a chart
//
// A command builds one Report (tree + table views), declares `--format` with add_format() and
// ends with emit(); a document format is a Printer subclass and write_document().
// Adding an output format: a Printer subclass, a Format value, and its name in parse_format().
// Migrating a command still on strings (step_report.cpp, cmd_step.cpp, cmd_sweep.cpp,
// cmd_gpu.cpp): declare `Format format = Format::table;` instead of `std::string format`, keep
// add_format(d, format) and emit(r, format, ctx) — the Format overloads take over and the string
// overloads below can go.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "perfmodel/report.hpp"

namespace perfmodel::cli {

struct Context;

enum class Format { table, csv, json, markdown, svg };

// `--format`'s value: table, csv or json; UsageError otherwise.
Format parse_format(const std::string& name);

class Printer {
 public:
  virtual ~Printer() = default;
  virtual std::string print(const Report& r) const = 0;
};

// The printer of a stdout format (table, csv, json).
const Printer& printer(Format f);

// --format table|csv|json, parsed when the flags are.
void add_format(boost::program_options::options_description& d, Format& format);
void emit(const Report& r, Format format, Context& ctx);
// Writes `printer`'s page of `r` to `path`, the value of `flag` (InputError naming both when it
// cannot), and notes it in `r`.
void write_document(const Printer& printer, Report& r, const std::string& path, const std::string& flag);

// Transitional: commands that still keep --format as a string (see above).
void add_format(boost::program_options::options_description& d, std::string& format);
void emit(const Report& r, const std::string& format, Context& ctx);

// Boost.Program_options' hook for `po::value<Format>` (found by argument-dependent lookup).
void validate(boost::any& v, const std::vector<std::string>& values, Format*, int);

}  // namespace perfmodel::cli
