#include "cpuft/report/training_plot.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The points of the n-th polyline, as (x, y) pairs.
std::vector<std::pair<double, double>> polyline(const std::string& svg, int n) {
  size_t at = 0;
  for (int i = 0; i <= n; ++i) at = svg.find("points=\"", at) + 8;
  const std::string pts = svg.substr(at, svg.find('"', at) - at);
  std::vector<std::pair<double, double>> out;
  std::regex pair("([0-9.]+),([0-9.]+)");
  for (auto it = std::sregex_iterator(pts.begin(), pts.end(), pair); it != std::sregex_iterator(); ++it)
    out.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
  return out;
}

TEST(TrainingPlot, DrawsTheLossAndTheMetricByStep) {
  const nlohmann::json history = {
      {{"loss", 4.0}, {"step", 2}},         {{"loss", 3.0}, {"step", 4}},
      {{"eval_f1", 10.0}, {"step", 4}},     {{"loss", 2.5}, {"step", 6}},
      {{"loss", 2.0}, {"step", 8}},         {{"eval_f1", 30.0}, {"step", 8}},
      {{"train_runtime", 1.0}, {"step", 8}}};
  const std::string svg = cpuft::training_plot_svg(history, "eval_f1");
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  const auto loss = polyline(svg, 0), f1 = polyline(svg, 1);
  ASSERT_EQ(loss.size(), 4u);
  ASSERT_EQ(f1.size(), 2u);
  for (size_t i = 1; i < loss.size(); ++i) {
    EXPECT_GT(loss[i].first, loss[i - 1].first);   // later steps to the right
    EXPECT_GT(loss[i].second, loss[i - 1].second);  // a falling loss goes down (SVG y grows downwards)
  }
  EXPECT_EQ(f1[0].first, loss[1].first);  // both at step 4
  EXPECT_LT(f1[1].second, f1[0].second);  // a rising F1 goes up
  EXPECT_EQ(f1[1].first, loss[3].first);  // step 8 is the right edge
  EXPECT_NE(svg.find(">training loss<"), std::string::npos);
  EXPECT_NE(svg.find(">eval_f1<"), std::string::npos);
}

TEST(TrainingPlot, WithoutPointsSaysSoAndEscapesNames) {
  const std::string svg = cpuft::training_plot_svg(nlohmann::json::array(), "eval_<b>&\"");
  EXPECT_EQ(count(svg, "<polyline"), 0u);
  EXPECT_NE(svg.find("no loss or eval_&lt;b&gt;&amp;&quot; logged"), std::string::npos) << svg;
  // Entries without a step, non-numbers and non-finite values are left out; a non-array draws nothing.
  const nlohmann::json odd = {{{"loss", 1.0}}, {{"loss", "x"}, {"step", 1}}, {{"loss", 2.0}, {"step", 2}}};
  EXPECT_EQ(polyline(cpuft::training_plot_svg(odd, "eval_f1"), 0).size(), 1u);
  EXPECT_EQ(count(cpuft::training_plot_svg(nlohmann::json::object(), "eval_f1"), "<polyline"), 0u);
}

}  // namespace
