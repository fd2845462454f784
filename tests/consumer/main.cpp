// Loads a card from the installed catalogue (<prefix>/share/perfmodel) and prints its ridge.
#include <cstdio>
#include <exception>

#include "perfmodel/card.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/version.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: perfmodel_consumer <prefix>/share/perfmodel\n");
    return 2;
  }
  try {
    const std::string data = argv[1];
    // Both entry points: the file loader and the catalogue lookup by key.
    const perfmodel::Card byfile = perfmodel::load_card_file(data + "/hardware/rtx-4080.yaml");
    const perfmodel::Card card = perfmodel::Catalogue(data).card("rtx-4080");
    if (byfile.bandwidth != card.bandwidth) return 1;
    std::printf("perfmodel %s: %s bf16 ridge %.1f FLOP/B\n", perfmodel::kVersion, card.key.c_str(),
                card.ridge(perfmodel::Precision::bf16));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "perfmodel_consumer: %s\n", e.what());
    return 1;
  }
}
