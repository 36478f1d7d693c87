#!/usr/bin/env bash
# Renames enum values to the house style, kCamelCase (docs/ARCHITECTURE.md, "Style"), with sed over the
# C++ of src/, tests/, bench/ and fuzz/. Idempotent: run it again after merging a branch that still
# spells the old names (it rewrites `Type::old` everywhere and the value's declaration in its enum).
# Usage: tools/rename_enums.sh [REPO_ROOT]; then build and run the tests.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

# TYPE OLD NEW, one value a line.
renames='
LogLevel Info kInfo
LogLevel Notice kNotice
LogLevel Warn kWarn
Op embedding kEmbedding
Op matmul kMatmul
Op attention kAttention
Op layernorm kLayernorm
Op gelu kGelu
Op dropout kDropout
Op bf16_round kBf16Round
Op loss kLoss
Op grad_norm kGradNorm
Op optimizer kOptimizer
WireType f32 kF32
WireType bf16 kBf16
Command Train kTrain
Command Evaluate kEvaluate
Command Predict kPredict
TaskHead question_answering kQuestionAnswering
TaskHead sequence_classification kSequenceClassification
TaskHead token_classification kTokenClassification
LrSchedulerType Linear kLinear
LrSchedulerType Constant kConstant
LrSchedulerType ConstantWithWarmup kConstantWithWarmup
LrSchedulerType Cosine kCosine
SaveStrategy Steps kSteps
SaveStrategy Epoch kEpoch
SaveStrategy No kNo
EvalStrategy No kNo
EvalStrategy Steps kSteps
EvalStrategy Epoch kEpoch
FlagArity Bool kBool
FlagArity One kOne
FlagArity Many kMany
FlagRole Used kUsed
FlagRole NoEffect kNoEffect
FlagRole OtherCommand kOtherCommand
Isa ref kRef
Isa avx2 kAvx2
Isa avx512 kAvx512
Isa avx512_bf16 kAvx512Bf16
DType f32 kF32
DType bf16 kBf16
DType i32 kI32
DType i64 kI64
ModelFamily distilbert kDistilBert
ModelFamily bert kBert
StDtype F32 kF32
StDtype BF16 kBf16
StDtype F16 kF16
StDtype I64 kI64
StDtype I32 kI32
StDtype F64 kF64
StDtype U8 kU8
StDtype I8 kI8
StDtype I16 kI16
StDtype U16 kU16
StDtype U32 kU32
StDtype U64 kU64
StDtype BOOL kBool
StDtype OTHER kOther
MpiFlavour open_mpi kOpenMpi
MpiFlavour mpich kMpich
MpiFlavour intel_mpi kIntelMpi
MpiFlavour unknown kUnknown
LinearOp forward kForward
LinearOp backward_data kBackwardData
LinearOp backward_weight kBackwardWeight
Mode Fast kFast
Mode Exact kExact
'

mapfile -t files < <(git ls-files -co --exclude-standard -- src tests bench fuzz | grep -E '\.(h|cc)$')
script=$(mktemp)
trap 'rm -f "$script"' EXIT
# A value in its declaration: after "{" or "," or at the start of a line, before ",", "}", "=" or the
# end of the line (so that the words of a comment beside it stay).
item_before='(^[[:space:]]*|[{,][[:space:]]*)'
item_after='([[:space:]]*(,|\}|=|$))'
while read -r type old new; do
  [[ -z $type ]] && continue
  # Uses: Type::old (also cpuft::Type::old), never a longer name that starts the same way.
  echo "s/\\b${type}::${old}\\b/${type}::${new}/g" >> "$script"
  # The declaration on one line: enum class Type [: base] { a, b, c };
  echo "/\\benum class ${type}\\b[^{]*\\{[^}]*\\}/ s/${item_before}${old}${item_after}/\\1${new}\\2/g" >> "$script"
  # The declaration over several lines: from "enum class Type ... {" (no "}" on that line) to the "}".
  echo "/\\benum class ${type}\\b[^}]*\$/,/\\}/ s/${item_before}${old}${item_after}/\\1${new}\\2/g" >> "$script"
done <<< "$renames"
sed -i -E -f "$script" "${files[@]}"
echo "rename_enums: $(wc -l <<< "$renames") enum values renamed where spelled the old way, in ${#files[@]} files"
