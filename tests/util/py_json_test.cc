#include "cpuft/util/py_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

// Expected strings below were printed by CPython 3.11 (repr, round, json.dumps).

TEST(PyJson, FloatReprMatchesPython) {
  EXPECT_EQ(cpuft::py_float_repr(5e-05), "5e-05");
  EXPECT_EQ(cpuft::py_float_repr(0.1), "0.1");
  EXPECT_EQ(cpuft::py_float_repr(1.0), "1.0");
  EXPECT_EQ(cpuft::py_float_repr(2.5e-06), "2.5e-06");
  EXPECT_EQ(cpuft::py_float_repr(1e16), "1e+16");
  EXPECT_EQ(cpuft::py_float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(cpuft::py_float_repr(123456789012345678.0), "1.2345678901234568e+17");
  EXPECT_EQ(cpuft::py_float_repr(0.0001), "0.0001");
  EXPECT_EQ(cpuft::py_float_repr(1e-05), "1e-05");
  EXPECT_EQ(cpuft::py_float_repr(-0.0), "-0.0");
  EXPECT_EQ(cpuft::py_float_repr(0.0), "0.0");
  EXPECT_EQ(cpuft::py_float_repr(3.14159), "3.14159");
  EXPECT_EQ(cpuft::py_float_repr(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(cpuft::py_float_repr(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(cpuft::py_float_repr(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(cpuft::py_float_repr(100.0), "100.0");
  EXPECT_EQ(cpuft::py_float_repr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(cpuft::py_float_repr(-4.0001e-5), "-4.0001e-05");
  EXPECT_EQ(cpuft::py_float_repr(NAN), "NaN");
  EXPECT_EQ(cpuft::py_float_repr(-INFINITY), "-Infinity");
}

TEST(PyJson, RoundMatchesPython) {
  EXPECT_EQ(cpuft::py_round(1.23456, 4), 1.2346);
  EXPECT_EQ(cpuft::py_round(0.00005, 4), 0.0001);  // 5e-05 is slightly above the tie in binary
  EXPECT_EQ(cpuft::py_round(2.675, 2), 2.67);      // 2.675 is slightly below the tie in binary
  EXPECT_EQ(cpuft::py_round(1.00005, 4), 1.0001);
  EXPECT_EQ(cpuft::py_round(0.12345, 4), 0.1235);
}

TEST(PyJson, DumpsMatchesPythonIndentSortedAsciiEscaped) {
  nlohmann::json j = {{"b", {1, 2.5, {{"x", nullptr}}}},
                      {"a", "h\xC3\xA9\"\\\n\x7f\xF0\x9F\x98\x80"},
                      {"c", nlohmann::json::object()},
                      {"d", nlohmann::json::array()},
                      {"e", true}};
  const char* expected =
      "{\n"
      "  \"a\": \"h\\u00e9\\\"\\\\\\n\\u007f\\ud83d\\ude00\",\n"
      "  \"b\": [\n"
      "    1,\n"
      "    2.5,\n"
      "    {\n"
      "      \"x\": null\n"
      "    }\n"
      "  ],\n"
      "  \"c\": {},\n"
      "  \"d\": [],\n"
      "  \"e\": true\n"
      "}";
  EXPECT_EQ(cpuft::py_json_dumps(j, 2), expected);
}
