// The flag machinery every command uses (flags/flag_table.h, flags/flag_parser.h) on a toy table: typed
// values in both forms, the one-line errors, aliases, repeatable and raw values, the words after "--",
// required flags, the environment, and the notices of flags with no effect.
#include "cpuft/flags/flag_parser.h"

#include <gtest/gtest.h>

#include <map>

#include "cpuft/util/error.h"
#include "flags/toy_table.h"

namespace {

using Flags = std::vector<std::string>;
const Flags kPath = {"--path", "p"};  // the toy's required flag

Flags with_path(Flags extra) {
  extra.insert(extra.end(), kPath.begin(), kPath.end());
  return extra;
}

const char* no_env(const char*) { return nullptr; }

toy::Args parse(const Flags& flags, cpuft::ParsedFlags* out = nullptr) {
  toy::Args a;
  cpuft::ParsedFlags p = cpuft::parse_flags(toy::table(a), flags, no_env);
  if (out) *out = p;
  return a;
}

std::string error_of(const Flags& flags, const cpuft::EnvLookup& env = no_env) {
  toy::Args a;
  try {
    cpuft::parse_flags(toy::table(a), flags, env);
  } catch (const cpuft::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(FlagParser, DefaultsStayWhenNothingIsGiven) {
  const toy::Args a = parse(kPath);
  EXPECT_EQ(a.count, 3);
  EXPECT_EQ(a.rate, 0.5);
  EXPECT_FALSE(a.cap.has_value());
  EXPECT_FALSE(a.note.has_value());
  EXPECT_TRUE(a.tidy);
  EXPECT_EQ(a.mode, toy::Mode::kFast);
}

TEST(FlagParser, EveryKindInBothForms) {
  const toy::Args a = parse({"--count", "7", "--small-step=4", "--cap", "100", "--rate=0.25", "--path=f.json", "--note",
                             "", "--extra", "x", "--extra=y", "--verbose", "--tidy", "false", "--mode=exact"});
  EXPECT_EQ(a.count, 7);
  EXPECT_EQ(a.small, 4);
  EXPECT_EQ(*a.cap, 100);
  EXPECT_EQ(a.rate, 0.25);
  EXPECT_EQ(a.path, "f.json");
  ASSERT_TRUE(a.note.has_value());  // given, though empty
  EXPECT_EQ(*a.note, "");
  EXPECT_EQ(a.extras, (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(a.verbose);
  EXPECT_FALSE(a.tidy);
  EXPECT_EQ(a.mode, toy::Mode::kExact);
  EXPECT_FALSE(parse(with_path({"--no_tidy"})).tidy);
  EXPECT_TRUE(parse(with_path({"--verbose=yes"})).verbose);
}

TEST(FlagParser, BadValuesAreOneLineNamingFlagValueAndRange) {
  const std::vector<std::pair<Flags, std::string>> cases = {
      {{"--count", "x"}, "--count: found 'x', expected an integer in [1, 10]"},
      {{"--count", "11"}, "--count: found '11', expected an integer in [1, 10]"},
      {{"--count", "2.0"}, "--count: found '2.0', expected an integer in [1, 10]"},
      {{"--count", "99999999999999999999"}, "--count: found '99999999999999999999', expected an integer in [1, 10]"},
      {{"--cap=0"}, "--cap: found '0', expected an integer in [1, 100]"},
      {{"--rate", "0"}, "--rate: found '0', expected a number in (0, 1]"},
      {{"--rate", "0x1"}, "--rate: found '0x1', expected a number in (0, 1]"},
      {{"--path", ""}, "--path: found '', expected a non-empty FILE"},
      {{"--mode", "slow"}, "--mode: found 'slow', expected one of fast exact"},
      {{"--verbose=maybe"}, "--verbose: found 'maybe', expected true or false"},
      {{"--count"}, "--count: missing its value (N)"},
      {{"--small-step", "--verbose"}, "--small-step: missing its value (K)"},
      {{"--path", "--verbose"}, "--path: missing its value (FILE)"},
  };
  for (const auto& [flags, message] : cases) EXPECT_EQ(error_of(with_path(flags)), message);
}

TEST(FlagParser, UnknownFlagsSuggestTheClosest) {
  EXPECT_EQ(error_of(with_path({"--cout", "3"})),
            "unknown flag --cout; did you mean --count? (`cpuft toy --help` lists every flag)");
  EXPECT_EQ(error_of(with_path({"--small_stpe", "3"})),
            "unknown flag --small_stpe; did you mean --small_step? (`cpuft toy --help` lists every flag)");
  EXPECT_EQ(error_of(with_path({"--zzzzzzzz"})), "unknown flag --zzzzzzzz (`cpuft toy --help` lists every flag)");
  EXPECT_EQ(error_of(with_path({"stray"})),
            "unexpected argument 'stray'; flags start with -- (see `cpuft toy --help`)");
  EXPECT_EQ(error_of(with_path({"--"})), "unexpected argument '--'; flags start with -- (see `cpuft toy --help`)");
  EXPECT_EQ(error_of(with_path({"--no_use_gpu"})),  // a flag with no effect has no negated form
            "unknown flag --no_use_gpu; did you mean --use_gpu? (`cpuft toy --help` lists every flag)");
}

TEST(FlagParser, AliasesAreTheSameFlagAndErrorsSayTheSpellingGiven) {
  EXPECT_EQ(parse(with_path({"--small_step", "2"})).small, 2);
  EXPECT_EQ(parse(with_path({"--small-step", "2"})).small, 2);
  cpuft::ParsedFlags p;
  parse(with_path({"--small_step=2"}), &p);
  EXPECT_TRUE(p.given.count("small-step"));
  EXPECT_EQ(error_of(with_path({"--small_step", "9"})), "--small_step: found '9', expected an integer in [0, 5]");
}

TEST(FlagParser, RawValuesMayStartWithDashes) {
  const toy::Args a = parse(with_path({"--extra", "--mca", "--extra", "btl", "--note", "--really?"}));
  EXPECT_EQ(a.extras, (std::vector<std::string>{"--mca", "btl"}));
  EXPECT_EQ(*a.note, "--really?");
  EXPECT_EQ(error_of({"--path", "p", "--extra"}), "--extra: missing its value (ARG)");
}

TEST(FlagParser, WordsAfterDashesBelongToTheCommand) {
  toy::Args a;
  cpuft::FlagTable t = toy::table(a);
  t.rest_after_dashes("<command>");
  const cpuft::ParsedFlags p =
      cpuft::parse_flags(t, {"--count", "2", "--path", "p", "--", "run", "--count", "9"}, no_env);
  EXPECT_EQ(a.count, 2);
  EXPECT_EQ(p.rest, (Flags{"run", "--count", "9"}));
  try {
    cpuft::parse_flags(t, {"run"}, no_env);
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_STREQ(e.what(),
                 "unexpected argument 'run'; flags start with -- and the command to run comes after -- (see `cpuft toy "
                 "--help`)");
  }
}

TEST(FlagParser, RequiredFlagsAreCheckedAfterAllFlagsUnlessHelpWasAsked) {
  EXPECT_EQ(error_of({"--count", "2"}), "--path: missing; `cpuft toy` needs --path FILE");
  cpuft::ParsedFlags p;
  parse({"--help"}, &p);
  EXPECT_TRUE(p.help);
  // Help stops the reading: what follows is not checked.
  parse({"--count", "2", "-h", "--count", "x"}, &p);
  EXPECT_TRUE(p.help);
}

TEST(FlagParser, EnvironmentFirstThenFlags) {
  std::map<std::string, std::string> env = {{"TOY_COUNT", "9"}};
  auto lookup = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  toy::Args a;
  cpuft::ParsedFlags p = cpuft::parse_flags(toy::table(a), kPath, lookup);
  EXPECT_EQ(a.count, 9);
  EXPECT_FALSE(p.given.count("count"));  // the command line did not give it
  toy::Args b;
  cpuft::parse_flags(toy::table(b), with_path({"--count", "4"}), lookup);
  EXPECT_EQ(b.count, 4);
  env["TOY_COUNT"] = "0";
  EXPECT_EQ(error_of(kPath, lookup), "TOY_COUNT: found '0', expected an integer in [1, 10]");
}

TEST(FlagParser, FlagsWithNoEffectGiveOneNoticeEach) {
  cpuft::ParsedFlags p;
  const toy::Args a = parse(with_path({"--use_gpu", "--report_to", "a", "b", "--count", "5", "--use_gpu", "true"}), &p);
  EXPECT_EQ(a.count, 5);  // the words of --report_to were its own, the next flag was read
  ASSERT_EQ(p.notices.size(), 2u);
  EXPECT_EQ(p.notices[0], "--use_gpu has no effect in cpuft: toys run on CPUs");
  EXPECT_EQ(p.notices[1], "--report_to has no effect in cpuft: toys report nothing");
}

// A sibling command's flags: still checked (a command line fails as it did), then a notice naming the command.
TEST(FlagParser, FlagsOfASiblingCommandAreCheckedThenNoticed) {
  toy::Args a;
  cpuft::FlagTable t = toy::table(a);
  t.keep_only({{"Kept", {"path", "count"}}}, "toy-train", "it only reads");
  const cpuft::ParsedFlags p = cpuft::parse_flags(t, with_path({"--rate", "0.75", "--rate", "0.5"}), no_env);
  ASSERT_EQ(p.notices.size(), 1u);
  EXPECT_EQ(p.notices[0], "--rate has no effect in cpuft toy: it only reads");
  try {
    cpuft::parse_flags(t, with_path({"--rate", "2"}), no_env);
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_STREQ(e.what(), "--rate: found '2', expected a number in (0, 1]");
  }
}

TEST(FlagParser, EditDistance) {
  EXPECT_EQ(cpuft::edit_distance("", "abc"), 3u);
  EXPECT_EQ(cpuft::edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(cpuft::edit_distance("same", "same"), 0u);
}
