// cpuft init-model: a randomly initialised QA model (as transformers' _init_weights) from a
// config.json and a tokenizer directory, written as a Hugging Face model directory. For training
// from scratch, for tests, and for the demo when pretrained weights cannot be had.
#include <cstdio>
#include <filesystem>

#include "cpuft/cli/commands.h"
#include "cpuft/flags/flag_help.h"
#include "cpuft/flags/flag_parser.h"
#include "cpuft/io/hf_config.h"
#include "cpuft/model/qa_model.h"
#include "cpuft/run/setup.h"
#include "cpuft/text/tokenizer.h"
#include "cpuft/util/error.h"

namespace cpuft {

int cmd_init_model(const Argv& argv) {
  std::string config, tokenizer_dir, output_dir;
  uint64_t seed = 42;
  FlagTable t("init-model",
              "Writes a randomly initialised question-answering model as a Hugging Face model directory:\n"
              "OUT/config.json, OUT/model.safetensors (random weights, N(0, initializer_range), as transformers'\n"
              "_init_weights) and the tokenizer files of --tokenizer. OUT must not exist or be empty.\n");
  t.text("config", "FILE", &config, "the config.json of the model (BERT or DistilBERT)").as_required();
  t.text("tokenizer", "DIR", &tokenizer_dir, "a directory with vocab.txt or tokenizer.json").as_required();
  t.text("output_dir", "OUT", &output_dir, "the new model directory").as_required();
  t.integer("seed", &seed, 0, 2147483647, "seed of the random weights");
  if (parse_flags(t, argv).help) {
    std::fputs(flag_help(t).c_str(), stdout);
    return 0;
  }
  // A trained model directory is never overwritten by random weights.
  std::error_code ec;
  if (std::filesystem::exists(output_dir, ec) && !std::filesystem::is_empty(output_dir, ec))
    fail("--output_dir: ", output_dir, " already exists and is not empty; init-model writes a new model directory "
         "(remove it or choose another)");
  ModelConfig cfg = load_model_config(config);
  Tokenizer tok = Tokenizer::load(tokenizer_dir);
  if (tok.vocab_size() > cfg.vocab_size)
    fail(config, ": vocab_size ", cfg.vocab_size, " is smaller than the tokenizer's vocabulary (", tok.vocab_size(),
         ")");
  create_output_dir(output_dir);
  QaModel model(cfg, false, seed);
  model.save_pretrained(output_dir);
  copy_tokenizer_files(tok, output_dir);
  std::printf("cpuft: wrote a random %s model (%zu parameters) to %s\n",
              cfg.family == ModelFamily::kBert ? "BERT" : "DistilBERT", model.num_params(), output_dir.c_str());
  return 0;
}

}  // namespace cpuft
