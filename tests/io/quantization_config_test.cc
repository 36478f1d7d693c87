// The quantization_config entry of an int8 directory is read field by field against what cpuft
// quantize writes: a field it cannot honour, a missing one or one it does not know is a one-line error
// naming the field, the value and what was expected. (Weights dtype "int4", symmetric false,
// granularity "per_tensor", modules_not_quantized naming a quantized layer, calibration_windows -5, a
// missing weights key and a range_tensor naming a path all loaded silently.)
#include "cpuft/io/quantization_config.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "cpuft/util/error.h"

namespace cpuft {
namespace {

QuantizationConfig written(bool static_activations) {
  QuantizationConfig q;
  q.static_activations = static_activations;
  q.calibration_windows = static_activations ? 256 : 0;
  return q;
}

// The error of reading config.json with the entry cpuft writes, edited by `edit`.
std::string error_after(bool static_activations, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json config = {{"model_type", "bert"}, {"quantization_config", quantization_config_json(written(static_activations))}};
  edit(config["quantization_config"]);
  try {
    read_quantization_config(config, "m/config.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(QuantizationConfig, WhatQuantizeWritesReadsBack) {
  for (bool s : {false, true}) {
    const nlohmann::json config = {{"quantization_config", quantization_config_json(written(s))}};
    const QuantizationConfig q = read_quantization_config(config, "m/config.json");
    EXPECT_EQ(q.static_activations, s);
    EXPECT_EQ(q.calibration_windows, s ? 256 : 0);
  }
}

// The head's layers stay f32 and are named in modules_not_quantized; a directory is read against the
// head its config.json describes, so a classifier's entry does not load as a QA model's and back.
TEST(QuantizationConfig, EachHeadNamesItsOwnF32Modules) {
  using V = std::vector<std::string>;
  EXPECT_EQ(int8_f32_modules(ModelFamily::kBert, TaskHead::kQuestionAnswering), V{"qa_outputs"});
  EXPECT_EQ(int8_f32_modules(ModelFamily::kDistilBert, TaskHead::kTokenClassification), V{"classifier"});
  EXPECT_EQ(int8_f32_modules(ModelFamily::kBert, TaskHead::kSequenceClassification),
            (V{"bert.pooler.dense", "classifier"}));
  EXPECT_EQ(int8_f32_modules(ModelFamily::kDistilBert, TaskHead::kSequenceClassification),
            (V{"pre_classifier", "classifier"}));
  QuantizationConfig w = written(false);
  w.f32_modules = int8_f32_modules(ModelFamily::kBert, TaskHead::kSequenceClassification);
  const nlohmann::json config = {{"quantization_config", quantization_config_json(w)}};
  EXPECT_EQ(config["quantization_config"]["modules_not_quantized"],
            nlohmann::json::array({"bert.pooler.dense", "classifier"}));
  EXPECT_EQ(read_quantization_config(config, "m/config.json", w.f32_modules).f32_modules, w.f32_modules);
  try {
    read_quantization_config(config, "m/config.json", V{"classifier"});
    ADD_FAILURE() << "a sequence classifier's entry read as a token classifier's";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "m/config.json: quantization_config.modules_not_quantized is [\"bert.pooler.dense\",\"classifier\"]; "
              "expected [\"classifier\"] (the task head's layers, which cpuft keeps in f32)");
  }
  EXPECT_THROW(read_quantization_config(config, "m/config.json"), Error);  // as a QA model's
}

TEST(QuantizationConfig, WeightFieldsCpuftCannotRunAreRefused) {
  EXPECT_EQ(error_after(false, [](nlohmann::json& q) { q["weights"]["dtype"] = "int4"; }),
            "m/config.json: quantization_config.weights.dtype is \"int4\"; expected \"int8\" (cpuft runs s8 weights)");
  EXPECT_EQ(error_after(false, [](nlohmann::json& q) { q["weights"]["symmetric"] = false; }),
            "m/config.json: quantization_config.weights.symmetric is false; expected true (s8 weights without a zero "
            "point)");
  EXPECT_EQ(error_after(false, [](nlohmann::json& q) { q["weights"]["granularity"] = "per_tensor"; }),
            "m/config.json: quantization_config.weights.granularity is \"per_tensor\"; expected \"per_output_channel\" "
            "(one scale per output channel)");
  EXPECT_EQ(error_after(false, [](nlohmann::json& q) { q.erase("weights"); }),
            "m/config.json: quantization_config.weights is missing; expected an object as cpuft quantize writes it");
  EXPECT_EQ(error_after(false, [](nlohmann::json& q) { q["weights"]["scale_tensor"] = "/etc/passwd"; }),
            "m/config.json: quantization_config.weights.scale_tensor is \"/etc/passwd\"; expected "
            "\"<linear>.weight_scale\" (the scales beside each weight)");
  EXPECT_EQ(error_after(false, [](nlohmann::json& q) { q["weights"]["bits"] = 4; }),
            "m/config.json: quantization_config.weights.bits: not a field cpuft writes or reads; expected only dtype, "
            "symmetric, granularity, scale_tensor");
}

TEST(QuantizationConfig, ActivationFieldsCpuftCannotRunAreRefused) {
  EXPECT_EQ(error_after(true, [](nlohmann::json& q) { q["activations"]["calibration_windows"] = -5; }),
            "m/config.json: quantization_config.activations.calibration_windows is -5; expected an integer >= 1 (the "
            "windows the ranges came from)");
  EXPECT_EQ(error_after(true, [](nlohmann::json& q) { q["activations"]["calibration_windows"] = "many"; }),
            "m/config.json: quantization_config.activations.calibration_windows is \"many\"; expected an integer >= 1 "
            "(the windows the ranges came from)");
  EXPECT_EQ(error_after(true, [](nlohmann::json& q) { q["activations"]["range_tensor"] = "../../secret/input_range"; }),
            "m/config.json: quantization_config.activations.range_tensor is \"../../secret/input_range\"; expected "
            "\"<linear>.input_range\" (the calibrated range beside each weight)");
  EXPECT_EQ(error_after(false, [](nlohmann::json& q) { q["activations"]["calibration_windows"] = 16; }),
            "m/config.json: quantization_config.activations.calibration_windows: not a field cpuft writes or reads; "
            "expected only dtype, symmetric, scheme");
  EXPECT_EQ(error_after(false, [](nlohmann::json& q) { q["activations"]["dtype"] = "int8"; }),
            "m/config.json: quantization_config.activations.dtype is \"int8\"; expected \"uint8\" (cpuft quantizes "
            "activations to u8)");
  EXPECT_EQ(error_after(false, [](nlohmann::json& q) { q["activations"]["symmetric"] = true; }),
            "m/config.json: quantization_config.activations.symmetric is true; expected false (u8 activations with a "
            "zero point)");
  EXPECT_EQ(error_after(false, [](nlohmann::json& q) { q["activations"].erase("scheme"); }),
            "m/config.json: quantization_config.activations.scheme is missing; expected \"dynamic_per_token\" or "
            "\"static_per_tensor\"");
  EXPECT_EQ(error_after(false, [](nlohmann::json& q) { q["activations"] = "dynamic"; }),
            "m/config.json: quantization_config.activations is \"dynamic\"; expected an object as cpuft quantize "
            "writes it");
}

TEST(QuantizationConfig, ModulesAndUnknownFieldsAreChecked) {
  EXPECT_EQ(error_after(false,
                        [](nlohmann::json& q) {
                          q["modules_not_quantized"] = {"qa_outputs", "bert.encoder.layer.0.attention.self.query"};
                        }),
            "m/config.json: quantization_config.modules_not_quantized is [\"qa_outputs\",\"bert.encoder.layer.0.attention..."
            "; expected [\"qa_outputs\"] (qa_outputs, the one layer cpuft keeps in f32)");
  EXPECT_EQ(error_after(false, [](nlohmann::json& q) { q.erase("modules_not_quantized"); }),
            "m/config.json: quantization_config.modules_not_quantized is missing; expected [\"qa_outputs\"] "
            "(qa_outputs, the one layer cpuft keeps in f32)");
  EXPECT_EQ(error_after(false, [](nlohmann::json& q) { q["group_size"] = 128; }),
            "m/config.json: quantization_config.group_size: not a field cpuft writes or reads; expected only "
            "quant_method, format_version, weights, activations, modules_not_quantized");
}

}  // namespace
}  // namespace cpuft
