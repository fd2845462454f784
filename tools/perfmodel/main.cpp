// perfmodel: the command-line shell around the library (dispatch.cpp does the work).
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
  return perfmodel::cli::run_cli({argv, argv + argc}, std::cout, std::cerr);
}
