#include "svg_labels.hpp"

namespace perfmodel::cli {

double text_width(size_t chars, double font_px) { return 0.62 * font_px * static_cast<double>(chars); }

std::optional<PlacedLabel> LabelPlacer::place(const std::string& text, double ax, double ay, double font_px) {
  const double w = text_width(text.size(), font_px), h = font_px + 2, gap = 7;
  // Candidate top-left corners: right of the anchor, left, above, below; then the same sides
  // stepped away one line height at a time (alternately up and down).
  std::vector<std::pair<double, double>> corners{
      {ax + gap, ay - h / 2}, {ax - gap - w, ay - h / 2}, {ax + 2, ay - gap - h}, {ax + 2, ay + gap}};
  for (int k = 1; k <= 40; ++k)
    for (int sign : {-1, 1}) {
      const double dy = sign * k * h;
      corners.push_back({ax + gap, ay - h / 2 + dy});
      corners.push_back({ax - gap - w, ay - h / 2 + dy});
    }
  for (size_t i = 0; i < corners.size(); ++i) {
    const auto [x, y] = corners[i];
    const Box b{x, y, x + w, y + h};
    if (b.x0 < area_.x0 || b.x1 > area_.x1 || b.y0 < area_.y0 || b.y1 > area_.y1) continue;
    bool free = true;
    // A pixel apart at least, so that the 6 significant digits the SVG prints cannot make
    // neighbours touch.
    const Box padded{b.x0 - 1, b.y0 - 1, b.x1 + 1, b.y1 + 1};
    for (const Box& t : taken_)
      if (padded.overlaps(t)) {
        free = false;
        break;
      }
    if (!free) continue;
    taken_.push_back(b);
    // Baseline: the box's top plus the font's ascent (about 0.8 em) and half the padding.
    return PlacedLabel{x, y + 1 + 0.8 * font_px, b, i >= 4};
  }
  return std::nullopt;
}

}  // namespace perfmodel::cli
