// --help generated from a flag table (flags/flag_help.h): the usage line with the required flags, the
// command's description, then every flag with its placeholder, help, range and default, by section.
#include "cpuft/flags/flag_help.h"

#include <gtest/gtest.h>

#include "flags/toy_table.h"

namespace {

// The line of `help` that describes --name.
std::string line_of(const std::string& help, const std::string& name) {
  const size_t at = help.find("\n  --" + name + " ");
  if (at == std::string::npos) return "";
  return help.substr(at + 1, help.find('\n', at + 1) - at - 1);
}

}  // namespace

TEST(FlagHelp, UsageAndDescriptionComeFirst) {
  toy::Args a;
  cpuft::FlagTable t = toy::table(a);
  t.rest_after_dashes("<command>");
  const std::string help = cpuft::flag_help(t);
  const std::string head =
      "usage: cpuft toy --path FILE [flags] -- <command>\nDoes toy things.\nA second line about them.\n";
  EXPECT_EQ(help.rfind(head, 0), 0u) << help;
}

TEST(FlagHelp, EveryFlagWithItsRangeAndDefault) {
  toy::Args a;
  const cpuft::FlagTable t = toy::table(a);
  const std::string help = cpuft::flag_help(t);
  for (const cpuft::Flag& f : t.flags()) {
    if (f.role != cpuft::FlagRole::kUsed) continue;
    const std::string line = line_of(help, f.name);
    ASSERT_FALSE(line.empty()) << f.name << " missing from\n" << help;
    EXPECT_NE(line.find(f.help), std::string::npos) << line;
    if (!f.range.empty()) {
      EXPECT_NE(line.find("range " + f.range), std::string::npos) << line;
    }
    EXPECT_NE(line.find(f.required ? "required" : "default: " + f.default_text), std::string::npos) << line;
  }
  EXPECT_EQ(line_of(help, "count"), "  --count N          how many (range [1, 10], default: 3; env TOY_COUNT)");
  EXPECT_EQ(line_of(help, "small-step"),
            "  --small-step K     a step (range [0, 5], default: 1; also --small_step)");
  EXPECT_EQ(line_of(help, "cap"), "  --cap N            at most this many (range [1, 100], default: none)");
  EXPECT_EQ(line_of(help, "rate"), "  --rate FLOAT       a rate (range (0, 1], default: 0.5)");
  EXPECT_EQ(line_of(help, "path"), "  --path FILE        a file (required)");
  EXPECT_EQ(line_of(help, "extra"), "  --extra ARG        passed on (default: none, repeatable)");
  EXPECT_EQ(line_of(help, "tidy"), "  --tidy             clean up (default: true)");
  EXPECT_EQ(line_of(help, "mode"), "  --mode fast|exact  how (default: fast)");
}

TEST(FlagHelp, SectionsInOrderThenTheFlagsWithNoEffect) {
  toy::Args a;
  const std::string help = cpuft::flag_help(toy::table(a));
  const size_t numbers = help.find("\nNumbers:\n"), words = help.find("\nWords:\n");
  const size_t compat = help.find("\nAccepted for compatibility, with no effect:\n  --use_gpu --report_to\n");
  ASSERT_NE(numbers, std::string::npos) << help;
  ASSERT_NE(words, std::string::npos) << help;
  ASSERT_NE(compat, std::string::npos) << help;
  EXPECT_LT(numbers, words);
  EXPECT_LT(words, compat);
  EXPECT_LT(help.find("--count"), help.find("--rate"));
}

// A sibling's flags are accepted but not listed: the help shows what the command uses.
TEST(FlagHelp, KeptFlagsOnlyInTheirNewSections) {
  toy::Args a;
  cpuft::FlagTable t = toy::table(a);
  t.keep_only({{"Main", {"path", "mode"}}, {"More", {"count"}}}, "toy-train", "it only reads");
  const std::string help = cpuft::flag_help(t);
  EXPECT_LT(help.find("\nMain:\n  --path FILE"), help.find("\n  --mode "));
  EXPECT_LT(help.find("\n  --mode "), help.find("\nMore:\n  --count N"));
  for (const char* gone : {"--rate", "--cap", "--small-step", "--verbose", "Numbers:", "Words:"})
    EXPECT_EQ(help.find(gone), std::string::npos) << gone << " in\n" << help;
  EXPECT_NE(help.find("--use_gpu"), std::string::npos);
  EXPECT_NE(help.find("The other flags of cpuft toy-train are accepted, with a notice that they have no effect here."),
            std::string::npos)
      << help;
}
