#include "cpuft/report/training_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

namespace cpuft {

namespace {

using Points = std::vector<std::pair<double, double>>;  // (step, value)

constexpr double kWidth = 640, kHeight = 360;
constexpr double kLeft = 70, kRight = 570, kTop = 50, kBottom = 300;  // the plot area
const char* const kLossColour = "#1f77b4";
const char* const kMetricColour = "#d62728";

std::string num(double v, const char* format = "%.1f") {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out;
}

Points points_of(const nlohmann::json& history, const std::string& key) {
  Points out;
  if (!history.is_array()) return out;
  for (const nlohmann::json& e : history) {
    if (!e.is_object() || !e.contains(key) || !e.contains("step")) continue;
    const nlohmann::json &v = e.at(key), &s = e.at("step");
    if (!v.is_number() || !s.is_number()) continue;
    const double value = v.get<double>(), step = s.get<double>();
    if (std::isfinite(value) && std::isfinite(step)) out.emplace_back(step, value);
  }
  return out;
}

struct Axis {
  double lo = 0, hi = 1;
  double y(double v) const { return kBottom - (v - lo) / (hi - lo) * (kBottom - kTop); }
};

Axis axis_of(const Points& p) {
  Axis a;
  if (p.empty()) return a;
  a.lo = a.hi = p.front().second;
  for (const auto& [s, v] : p) a.lo = std::min(a.lo, v), a.hi = std::max(a.hi, v);
  const double pad = a.hi > a.lo ? 0.05 * (a.hi - a.lo) : std::max(0.5, 0.1 * std::fabs(a.lo));
  a.lo -= pad;
  a.hi += pad;
  return a;
}

// One series: the line, a dot per point, and the axis labels on its side (x_label: where they go).
std::string series(const Points& p, const Axis& a, double max_step, const char* colour, double x_label,
                   const char* anchor) {
  std::string out;
  std::string line;
  for (const auto& [s, v] : p)
    line += num(kLeft + s / max_step * (kRight - kLeft)) + "," + num(a.y(v)) + " ";
  out += "<polyline fill=\"none\" stroke=\"" + std::string(colour) + "\" stroke-width=\"1.5\" points=\"" + line +
         "\"/>\n";
  if (p.size() <= 60)
    for (const auto& [s, v] : p)
      out += "<circle cx=\"" + num(kLeft + s / max_step * (kRight - kLeft)) + "\" cy=\"" + num(a.y(v)) +
             "\" r=\"2.5\" fill=\"" + colour + "\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double v = a.lo + (a.hi - a.lo) * i / 4;
    out += "<text x=\"" + num(x_label) + "\" y=\"" + num(a.y(v) + 4) + "\" text-anchor=\"" + anchor + "\" fill=\"" +
           colour + "\">" + num(v, "%.4g") + "</text>\n";
  }
  return out;
}

}  // namespace

std::string training_plot_svg(const nlohmann::json& log_history, const std::string& metric_key) {
  const Points loss = points_of(log_history, "loss");
  const Points metric = points_of(log_history, metric_key);
  double max_step = 1;
  for (const Points* p : {&loss, &metric})
    for (const auto& [s, v] : *p) max_step = std::max(max_step, s);

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth, "%.0f") + "\" height=\"" +
                    num(kHeight, "%.0f") + "\" viewBox=\"0 0 " + num(kWidth, "%.0f") + " " + num(kHeight, "%.0f") +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(kRight - kLeft) + "\" height=\"" +
         num(kBottom - kTop) + "\" fill=\"none\" stroke=\"#888\"/>\n";
  for (int i = 0; i <= 4; ++i) {  // step ticks
    const double s = std::round(max_step * i / 4);
    const double x = kLeft + s / max_step * (kRight - kLeft);
    svg += "<line x1=\"" + num(x) + "\" y1=\"" + num(kBottom) + "\" x2=\"" + num(x) + "\" y2=\"" + num(kBottom + 5) +
           "\" stroke=\"#888\"/><text x=\"" + num(x) + "\" y=\"" + num(kBottom + 18) + "\" text-anchor=\"middle\">" +
           num(s, "%.0f") + "</text>\n";
  }
  svg += "<text x=\"" + num((kLeft + kRight) / 2) + "\" y=\"" + num(kBottom + 38) +
         "\" text-anchor=\"middle\">step</text>\n";
  if (!loss.empty()) {
    svg += series(loss, axis_of(loss), max_step, kLossColour, kLeft - 6, "end");
    svg += "<text x=\"" + num(kLeft) + "\" y=\"30\" fill=\"" + kLossColour + "\">training loss</text>\n";
  }
  if (!metric.empty()) {
    svg += series(metric, axis_of(metric), max_step, kMetricColour, kRight + 6, "start");
    svg += "<text x=\"" + num(kRight) + "\" y=\"30\" text-anchor=\"end\" fill=\"" + kMetricColour + "\">" +
           escape(metric_key) + "</text>\n";
  }
  if (loss.empty() && metric.empty())
    svg += "<text x=\"" + num((kLeft + kRight) / 2) + "\" y=\"" + num((kTop + kBottom) / 2) +
           "\" text-anchor=\"middle\">no loss or " + escape(metric_key) + " logged</text>\n";
  return svg + "</svg>\n";
}

}  // namespace cpuft
