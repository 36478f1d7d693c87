// Collects what a loader tells the user through a NoticeSink (util/log.h), one line each, prefixed
// "notice: " or "warning: " as cpuft prints them, for a test to read back.
#pragma once

#include <string>

#include "cpuft/util/log.h"

namespace cpuft_test {

class Notices {
 public:
  cpuft::NoticeSink sink() {
    return [this](cpuft::LogLevel level, const std::string& message) {
      text_ += level == cpuft::LogLevel::kWarn ? "warning: " : level == cpuft::LogLevel::kNotice ? "notice: " : "";
      text_ += message + "\n";
    };
  }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

}  // namespace cpuft_test
