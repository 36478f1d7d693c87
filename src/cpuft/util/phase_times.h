// Where a command's wall-clock time goes, phase by phase (load, features, forward, post-processing,
// metrics, writing, ...), reported as one line at the end: what `cpuft train` and `cpuft evaluate`
// spend outside the model shows there.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cpuft {

class PhaseTimes {
 public:
  PhaseTimes();  // the total counts from here
  // Adds `seconds` to `phase` (phases keep the order they first appear in).
  void add(const std::string& phase, double seconds);
  double seconds(const std::string& phase) const;  // 0 for a phase never added
  // "time: load 1.2 s, features 3.4 s, forward 101.0 s, ..., other 0.1 s; total 106.0 s" ("other":
  // the time no phase covers, when there is a tenth of a second of it).
  std::string line() const;

 private:
  double start_s_;
  std::vector<std::pair<std::string, double>> phases_;
};

// Times one phase from construction to destruction into `times` (nullable: no timing).
class PhaseScope {
 public:
  PhaseScope(PhaseTimes* times, std::string phase);
  ~PhaseScope();
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  PhaseTimes* times_;
  std::string phase_;
  double start_s_;
};

}  // namespace cpuft
