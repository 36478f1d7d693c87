// A flag table with one flag of each kind, for the tests of the machinery (parser and help) apart from
// any real command's flags.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cpuft/flags/flag_table.h"

namespace toy {

enum class Mode { kFast, kExact };

struct Args {
  int64_t count = 3;
  int small = 1;
  std::optional<int64_t> cap;
  double rate = 0.5;
  std::string path;
  std::optional<std::string> note;
  std::vector<std::string> extras;
  bool verbose = false;
  bool tidy = true;
  Mode mode = Mode::kFast;
};

inline cpuft::FlagTable table(Args& a) {
  cpuft::FlagTable t("toy", "Does toy things.\nA second line about them.\n");
  t.group("Numbers");
  t.integer("count", &a.count, 1, 10, "how many").with_env("TOY_COUNT");
  t.integer("small-step", &a.small, 0, 5, "a step").with_alias("small_step").with_placeholder("K");
  t.optional_integer("cap", &a.cap, 1, 100, "at most this many");
  t.number("rate", &a.rate, cpuft::above(0, 1), "a rate");
  t.group("Words");
  t.text("path", "FILE", &a.path, "a file").as_required();
  t.optional_text("note", "TEXT", &a.note, "any text, even empty").with_raw_value();
  t.text_list("extra", "ARG", &a.extras, "passed on").with_raw_value();
  t.boolean("verbose", &a.verbose, "say more");
  t.boolean("tidy", &a.tidy, "clean up");
  t.choice<Mode>("mode", &a.mode, {{"fast", Mode::kFast}, {"exact", Mode::kExact}}, "how");
  t.no_effect("use_gpu", cpuft::FlagArity::kBool, "toys run on CPUs");
  t.no_effect("report_to", cpuft::FlagArity::kMany, "toys report nothing");
  return t;
}

}  // namespace toy
