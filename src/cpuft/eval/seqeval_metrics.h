// seqeval's entity-level scores as run_ner.py gets them from `evaluate`'s "seqeval" metric (docs/tasks.md,
// Metrics): the default (not strict) mode, i.e. seqeval.metrics.sequence_labeling.get_entities, the
// conlleval-style chunking that reads a tag's first character as its prefix (B, I, E, S, O; anything
// else as written) and the rest after the first '-' as its type ('_' when empty), joins the sentences
// with an 'O' between them, and lets an I- after O, or a type change, start a new entity. Micro-averaged
// precision, recall and F1 over entities (0 where undefined, as zero_division "warn"), per type the same
// with the number of true entities, and accuracy over all tokens.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpuft/eval/classification_metrics.h"

namespace cpuft {

// (type, first, last) token positions of one entity in the joined sequence.
struct Entity {
  std::string type;
  int64_t first = 0;
  int64_t last = 0;
  bool operator==(const Entity& o) const { return type == o.type && first == o.first && last == o.last; }
};

// get_entities(seq) of seqeval for a list of sentences (or one sentence).
std::vector<Entity> get_entities(const std::vector<std::vector<std::string>>& sentences);

struct EntityScores {
  std::string type;
  double precision = 0, recall = 0, f1 = 0;
  int64_t number = 0;  // true entities of this type
};

struct SeqevalScores {
  std::vector<EntityScores> types;  // sorted by type, as seqeval's report
  double overall_precision = 0, overall_recall = 0, overall_f1 = 0, overall_accuracy = 0;
};

// evaluate's seqeval compute(predictions, references): sentences of tag strings, as long as each other.
// Throws on sentences of different lengths, an empty tag, or no token at all.
SeqevalScores seqeval_scores(const std::vector<std::vector<std::string>>& predictions,
                             const std::vector<std::vector<std::string>>& references);

// run_ner's compute_metrics: precision, recall, f1, accuracy; with return_entity_level_metrics the
// per-type TYPE_precision, TYPE_recall, TYPE_f1, TYPE_number then overall_precision, overall_recall,
// overall_f1, overall_accuracy.
std::vector<NamedMetric> run_ner_metrics(const SeqevalScores& scores, bool return_entity_level_metrics);

}  // namespace cpuft
