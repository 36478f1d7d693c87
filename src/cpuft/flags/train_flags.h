// The flag table of `cpuft train | evaluate | predict` (flags/flag_table.h), bound to a TrainArgs:
// the run_qa.py / TrainingArguments flags cpuft takes, the reference-stack flags it accepts with no
// effect, and predict's question flags. train shows every flag by section; evaluate and predict show
// their own flags first and only those, and take train's others with a notice (a pasted run_qa
// command line still runs).
#pragma once

#include <string>
#include <vector>

#include "cpuft/flags/flag_table.h"
#include "cpuft/flags/train_args.h"

namespace cpuft {

FlagTable train_flags(Command command, TrainArgs& args);

// The integrations --report_to accepts besides none and all, as transformers names them; cpuft reports
// to tensorboard and takes the others with a notice.
std::vector<std::string> report_integrations();

}  // namespace cpuft
