// cpuft init-model: a randomly initialised QA model (as transformers' _init_weights) from a
// config.json and a tokenizer directory, written as a Hugging Face model directory. For training
// from scratch, for tests, and for the demo when pretrained weights cannot be had.
#include <cstdio>
#include <filesystem>

#include "cpuft/cli/commands.h"
#include "cpuft/flags/flag_values.h"
#include "cpuft/io/hf_config.h"
#include "cpuft/model/qa_model.h"
#include "cpuft/run/setup.h"
#include "cpuft/text/tokenizer.h"
#include "cpuft/util/error.h"

namespace cpuft {

int cmd_init_model(const Argv& argv) {
  std::string config, tokenizer_dir, output_dir;
  uint64_t seed = 42;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& f = argv[i];
    if (f == "--help" || f == "-h") {
      std::fputs(
          "usage: cpuft init-model --config config.json --tokenizer DIR --output_dir OUT [--seed N]\n"
          "Writes OUT/config.json, OUT/model.safetensors (random weights, N(0, initializer_range)) and the\n"
          "tokenizer files of DIR. OUT must not exist or be empty. --seed: 0..2147483647 (default 42).\n",
          stdout);
      return 0;
    }
    if (i + 1 >= argv.size()) fail(f, ": missing value (see cpuft init-model --help)");
    const std::string& v = argv[++i];
    if (f == "--config") config = v;
    else if (f == "--tokenizer") tokenizer_dir = v;
    else if (f == "--output_dir") output_dir = v;
    else if (f == "--seed") seed = static_cast<uint64_t>(flag_int(f, v, 0, 2147483647));
    else fail("cpuft init-model: unknown flag '", f, "'");
  }
  if (config.empty() || tokenizer_dir.empty() || output_dir.empty())
    fail("cpuft init-model: --config, --tokenizer and --output_dir are required");
  // A trained model directory is never overwritten by random weights.
  std::error_code ec;
  if (std::filesystem::exists(output_dir, ec) && !std::filesystem::is_empty(output_dir, ec))
    fail("--output_dir: ", output_dir, " already exists and is not empty; init-model writes a new model directory "
         "(remove it or choose another)");
  ModelConfig cfg = load_model_config(config);
  Tokenizer tok = Tokenizer::load(tokenizer_dir);
  if (tok.vocab_size() > cfg.vocab_size)
    fail(config, ": vocab_size ", cfg.vocab_size, " is smaller than the tokenizer's vocabulary (", tok.vocab_size(), ")");
  create_output_dir(output_dir);
  QaModel model(cfg, false, seed);
  model.save_pretrained(output_dir);
  copy_tokenizer_files(tok, output_dir);
  std::printf("cpuft: wrote a random %s model (%zu parameters) to %s\n",
              cfg.family == ModelFamily::bert ? "BERT" : "DistilBERT", model.num_params(), output_dir.c_str());
  return 0;
}

}  // namespace cpuft
