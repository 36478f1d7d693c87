# cpuft: `make demo` and `make test` do all the set-up on a fresh Debian machine (they call
# scripts/install-deps.sh first); `make build` only configures and builds, and never installs.
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build demo test test-isa test-asan bench fuzz fuzz-run clean

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

# The unit tests once per kernel ISA this CPU can run (CPUFT_ISA=ref, avx2, avx512), so that every
# kernel path is tested on the CPU that runs it; `make test` runs them with the best ISA only.
test-isa: build
	@for isa in ref avx2 avx512; do \
	  if ! CPUFT_ISA=$$isa $(BUILD)/cpuft doctor > /dev/null 2>&1; then \
	    echo "test-isa: CPUFT_ISA=$$isa: not supported by this CPU, skipped"; continue; fi; \
	  echo "test-isa: unit tests with CPUFT_ISA=$$isa ($$($(BUILD)/cpuft doctor | sed -n 's/^bf16: */bf16 /p'))"; \
	  (cd $(BUILD) && CPUFT_ISA=$$isa ctest -L unit -j $(JOBS) --output-on-failure) || exit 1; \
	done

# Unit tests once more under AddressSanitizer + UndefinedBehaviorSanitizer (separate build folder; -O1
# without debug info keeps the build short enough for CI).
test-asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O1 -DCPUFT_SANITIZE=ON -DCPUFT_BUILD_BENCH=OFF > /dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && ctest --output-on-failure -j $(JOBS) -L unit

bench: build
	@$(BUILD)/cpuft bench

# libFuzzer targets (fuzz/*_fuzz.cc) for the tokenizer and the SQuAD reader under ASan+UBSan, each run for
# FUZZ_TIME seconds from the seed corpus in fuzz/corpus (new finds are kept in $(FUZZ_BUILD)/corpus).
# Needs clang; `make test` does not. The library sources they need are compiled here, not by CMake.
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME ?= 20
FUZZ_CXX ?= clang++
FUZZ_FLAGS = -std=c++17 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -Isrc -MMD -MP
FUZZ_TARGETS := tokenizer squad_reader
FUZZ_LIB_OBJS := $(patsubst src/%.cc,$(FUZZ_BUILD)/%.o,\
  src/cpuft/util/atomic_file.cc $(wildcard src/cpuft/text/*.cc) src/cpuft/data/squad_reader.cc)

fuzz:
	@bash scripts/install-deps.sh fuzz
	@$(MAKE) --no-print-directory fuzz-run

fuzz-run: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/%_fuzz)
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t && \
	  $(FUZZ_BUILD)/$${t}_fuzz -max_total_time=$(FUZZ_TIME) -timeout=10 -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/ \
	    $(FUZZ_BUILD)/corpus/$$t fuzz/corpus/$$t > $(FUZZ_BUILD)/$$t.log 2>&1; rc=$$?; \
	  if [ $$rc -ne 0 ]; then tail -n 60 $(FUZZ_BUILD)/$$t.log; echo "fuzz: $$t failed"; exit 1; fi; \
	  echo "fuzz: $$t: $$(grep -m1 -o 'number_of_executed_units: *[0-9]*' $(FUZZ_BUILD)/$$t.log), no crash"; \
	done

$(FUZZ_BUILD)/%.o: src/%.cc
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/%_fuzz: fuzz/%_fuzz.cc $(FUZZ_LIB_OBJS)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer -DCPUFT_FUZZ_TOKENIZER_DIR='"$(CURDIR)/tests/data/text"' \
	  $(filter %.cc %.o,$^) -lutf8proc -o $@

.SECONDARY: $(FUZZ_LIB_OBJS)
-include $(wildcard $(FUZZ_BUILD)/*.d $(FUZZ_BUILD)/*/*/*.d)

clean:
	rm -rf $(BUILD) build-asan $(FUZZ_BUILD)
