#include "cpuft/data/qa_data.h"

#include "cpuft/data/feature_builder.h"
#include "cpuft/data/squad_reader.h"
#include "cpuft/util/log.h"

namespace cpuft {
namespace {

QaData read_examples(const std::string& path, std::optional<int64_t> max_samples) {
  SquadDataset ds = read_squad(path);
  if (ds.examples.empty()) fail(path, ": no questions found, expected at least one");
  if (ds.mismatched_answers > 0)
    log_notice(path, ": ", ds.mismatched_answers,
               " answers do not match the context at answer_start; used as given (as run_qa does)");
  QaData d;
  d.path = path;
  d.version = ds.version;
  d.examples = std::move(ds.examples);
  if (max_samples && *max_samples < static_cast<int64_t>(d.examples.size()))
    d.examples.resize(static_cast<size_t>(*max_samples));
  return d;
}

void cap_features(QaData& d, std::optional<int64_t> max_samples) {
  if (max_samples && *max_samples < static_cast<int64_t>(d.features.size()))
    d.features.resize(static_cast<size_t>(*max_samples));
}

}  // namespace

void build_features_of(QaData& d, const Tokenizer& tokenizer, const FeatureOptions& options, bool train) {
  try {
    d.features = train ? build_train_features(d.examples, tokenizer, options)
                       : build_eval_features(d.examples, tokenizer, options);
  } catch (const Error& e) {
    fail(d.path, ": ", e.what());
  }
}

void warn_if_v2_without_flag(const QaData& d, bool version_2_with_negative) {
  if (d.version == 2 && !version_2_with_negative)
    log_warn(d.path, " has unanswerable questions (SQuAD v2.0) but --version_2_with_negative is not set");
}

QaData load_train_data(const std::string& path, const Tokenizer& tokenizer, const FeatureOptions& options,
                       std::optional<int64_t> max_samples) {
  QaData d = read_examples(path, max_samples);
  build_features_of(d, tokenizer, options, true);
  cap_features(d, max_samples);
  return d;
}

QaData load_eval_data(const std::string& path, const Tokenizer& tokenizer, const FeatureOptions& options,
                      std::optional<int64_t> max_samples) {
  QaData d = read_examples(path, max_samples);
  build_features_of(d, tokenizer, options, false);
  cap_features(d, max_samples);
  return d;
}

}  // namespace cpuft
