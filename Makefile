# cpuft: `make demo` and `make test` do all the set-up on a fresh Debian machine (they call
# scripts/install-deps.sh first); `make build` only configures and builds, and never installs.
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build demo test test-isa test-isa-emulated test-asan bench fuzz fuzz-run clean

all: build

deps:
	@bash scripts/install-deps.sh

configure:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) > /dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo:
	@bash scripts/install-deps.sh demo
	@$(MAKE) --no-print-directory build
	@bash scripts/demo.sh $(BUILD)/cpuft

test:
	@bash scripts/install-deps.sh
	@$(MAKE) --no-print-directory build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The in-process tests (CTest labels unit and parity; tests/README.md) once per kernel ISA this CPU can
# run (CPUFT_ISA=ref, avx2, avx512, avx512_bf16, amx: cpu/isa.h), so that every kernel path, bf16 conversion and
# bf16 tile product is tested on the CPU that runs it; `make test` runs them with the best ISA only.
test-isa: build
	@for isa in ref avx2 avx512 avx512_bf16 amx; do \
	  if ! CPUFT_ISA=$$isa $(BUILD)/cpuft doctor > /dev/null 2>&1; then \
	    echo "test-isa: CPUFT_ISA=$$isa: not supported by this CPU, skipped"; continue; fi; \
	  echo "test-isa: unit tests with CPUFT_ISA=$$isa"; \
	  (cd $(BUILD) && CPUFT_ISA=$$isa ctest -L 'unit|parity' -j $(JOBS) --output-on-failure) || exit 1; \
	done

# The in-process tests (labels unit and parity) with the avx512 and avx512_bf16 kernel builds on any AVX2
# CPU: a separate build folder whose *_avx512.cc (and *_amx.cc) sources are compiled for AVX2 with the
# AVX-512 and AVX512_BF16 intrinsics emulated (tests/emulation/avx512_on_avx2.h, SIMDe), under
# AddressSanitizer + UndefinedBehaviorSanitizer. The same kernel source as on an AVX-512 CPU, so its logic
# (masks, tails, lane order, bf16 pairs) is tested where `make test-isa` cannot run it, and a full vector
# read or written past an array's end (where a masked one belongs) is caught, which the instructions
# themselves would mostly let pass. Their speed and the instructions need such a CPU; AMX is not emulated.
EMU_BUILD ?= build-emu
test-isa-emulated:
	@bash scripts/install-deps.sh emulated
	@cmake -S . -B $(EMU_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O1 -DCPUFT_SANITIZE=ON \
	  -DCPUFT_EMULATE_AVX512=ON -DCPUFT_BUILD_BENCH=OFF > /dev/null
	@cmake --build $(EMU_BUILD) -j $(JOBS)
	@for isa in avx512 avx512_bf16; do \
	  echo "test-isa-emulated: unit tests with CPUFT_ISA=$$isa (emulated on AVX2, ASan + UBSan)"; \
	  (cd $(EMU_BUILD) && CPUFT_ISA=$$isa ctest -L 'unit|parity' -j $(JOBS) --output-on-failure) || exit 1; \
	done

# The in-process tests (labels unit and parity) once more under AddressSanitizer + UndefinedBehaviorSanitizer
# (separate build folder; -O1 without debug info keeps the build short enough for CI).
test-asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O1 -DCPUFT_SANITIZE=ON -DCPUFT_BUILD_BENCH=OFF > /dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && ctest --output-on-failure -j $(JOBS) -L 'unit|parity'

bench: build
	@$(BUILD)/cpuft bench

# libFuzzer targets (fuzz/*_fuzz.cc) under ASan+UBSan, one per input cpuft parses: every JSON reader
# (config.json, the safetensors header, tokenizer.json, tokenizer_config.json, SQuAD, cpuft_state.json,
# trainer_state.json, predict's JSON lines), the classification jobs' tables (CSV / JSON lines), the
# tokenizer's text and the command lines of train / evaluate / predict. Each runs FUZZ_TIME seconds from
# its seeds in fuzz/corpus/TARGET with the dictionary fuzz/json.dict (deep nesting, huge numbers, odd
# bytes); new finds are kept in $(FUZZ_BUILD)/corpus. Needs clang; `make test` does not. The library
# sources they need are compiled here, not by CMake, into one archive each target takes what it uses from.
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME ?= 20
FUZZ_CXX ?= clang++
FUZZ_FLAGS = -std=c++17 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -Isrc -Ifuzz -MMD -MP
FUZZ_TARGETS := tokenizer squad_reader config safetensors tokenizer_json tokenizer_config checkpoint_state \
  trainer_state question_lines table_file token_file flags
FUZZ_LIB_OBJS := $(patsubst src/%.cc,$(FUZZ_BUILD)/%.o,\
  $(addprefix src/cpuft/util/,atomic_file.cc read_file.cc json_read.cc py_json.cc checksum.cc log.cc memory.cc utf8.cc) \
  $(wildcard src/cpuft/text/*.cc) \
  $(addprefix src/cpuft/data/,squad_reader.cc question_lines.cc csv_reader.cc table_file.cc \
    text_classification_data.cc token_classification_data.cc) \
  $(addprefix src/cpuft/io/,hf_config.cc safetensors_reader.cc safetensors_writer.cc st_dtype.cc) \
  $(wildcard src/cpuft/flags/*.cc) \
  src/cpuft/eval/results_files.cc \
  $(addprefix src/cpuft/train/,checkpoint.cc checkpoint_dirs.cc trainer_state.cc resume_check.cc))
FUZZ_LIB := $(FUZZ_BUILD)/libcpuft_fuzz.a

fuzz:
	@bash scripts/install-deps.sh fuzz
	@$(MAKE) --no-print-directory fuzz-run

fuzz-run: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/%_fuzz)
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t && \
	  $(FUZZ_BUILD)/$${t}_fuzz -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -dict=fuzz/json.dict -artifact_prefix=$(FUZZ_BUILD)/$$t- \
	    $(FUZZ_BUILD)/corpus/$$t fuzz/corpus/$$t > $(FUZZ_BUILD)/$$t.log 2>&1; rc=$$?; \
	  if [ $$rc -ne 0 ]; then tail -n 60 $(FUZZ_BUILD)/$$t.log; echo "fuzz: $$t failed"; exit 1; fi; \
	  echo "fuzz: $$t: $$(grep -m1 -o 'number_of_executed_units: *[0-9]*' $(FUZZ_BUILD)/$$t.log), no crash"; \
	done

$(FUZZ_BUILD)/%.o: src/%.cc
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

# The archive is remade when the list of sources changes (the Makefile) as well as when one does.
$(FUZZ_LIB): $(FUZZ_LIB_OBJS) Makefile
	@rm -f $@
	ar rcs $@ $(FUZZ_LIB_OBJS)

$(FUZZ_BUILD)/%_fuzz: fuzz/%_fuzz.cc $(FUZZ_LIB)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer -DCPUFT_FUZZ_TOKENIZER_DIR='"$(CURDIR)/tests/fixtures/text"' \
	  $< $(FUZZ_LIB) -lutf8proc -o $@

-include $(wildcard $(FUZZ_BUILD)/*.d $(FUZZ_BUILD)/*/*/*.d)

clean:
	rm -rf $(BUILD) build-asan $(FUZZ_BUILD)
