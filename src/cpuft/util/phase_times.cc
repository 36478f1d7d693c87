#include "cpuft/util/phase_times.h"

#include <cstdio>

#include "cpuft/util/clock.h"

namespace cpuft {
namespace {

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

}  // namespace

PhaseTimes::PhaseTimes() : start_s_(now_s()) {}

void PhaseTimes::add(const std::string& phase, double seconds) {
  for (auto& [name, total] : phases_)
    if (name == phase) {
      total += seconds;
      return;
    }
  phases_.emplace_back(phase, seconds);
}

double PhaseTimes::seconds(const std::string& phase) const {
  for (const auto& [name, total] : phases_)
    if (name == phase) return total;
  return 0.0;
}

std::string PhaseTimes::line() const {
  const double total = now_s() - start_s_;
  std::string parts;
  double covered = 0;
  for (const auto& [name, s] : phases_) {
    parts += (parts.empty() ? "" : ", ") + name + " " + seconds_text(s);
    covered += s;
  }
  if (total - covered >= 0.1) parts += (parts.empty() ? "" : ", ") + std::string("other ") + seconds_text(total - covered);
  return "time: " + parts + (parts.empty() ? "" : "; ") + "total " + seconds_text(total);
}

PhaseScope::PhaseScope(PhaseTimes* times, std::string phase)
    : times_(times), phase_(std::move(phase)), start_s_(now_s()) {}

PhaseScope::~PhaseScope() {
  if (times_) times_->add(phase_, now_s() - start_s_);
}

}  // namespace cpuft
