#pragma once
// Text labels of a chart placed so that none overlaps another, a marker or the chart's edge
// (roofline_svg.cpp). Greedy: each label tries positions around its anchor, nearest first, and
// takes the first free one; a label pushed away from its anchor is drawn with a leader line.
#include <optional>
#include <string>
#include <vector>

namespace perfmodel::cli {

struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // SVG pixels, y down
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// The box a string of `chars` characters takes at `font_px`: 0.62 em per character, a generous
// mean width of sans-serif text (digits and lower case are 0.5-0.56 em in DejaVu Sans and Arial).
double text_width(size_t chars, double font_px);

struct PlacedLabel {
  double x = 0, y = 0;  // the text's start and baseline
  Box box;
  bool moved = false;   // away from the anchor: draw a leader line
};

class LabelPlacer {
 public:
  explicit LabelPlacer(Box area) : area_(area) {}
  // Something labels must not cover (a marker, a title).
  void block(const Box& b) { taken_.push_back(b); }
  // A free place for `text` near the anchor (ax, ay); nullopt when none is left in the area.
  std::optional<PlacedLabel> place(const std::string& text, double ax, double ay, double font_px);

 private:
  Box area_;
  std::vector<Box> taken_;
};

}  // namespace perfmodel::cli
