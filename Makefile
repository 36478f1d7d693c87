# cpuft: `make demo` and `make test` do all the set-up on a fresh Debian machine.
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build demo test test-asan bench clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) > /dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)/cpuft

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Unit tests once more under AddressSanitizer + UndefinedBehaviorSanitizer (separate build folder).
test-asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCPUFT_SANITIZE=ON -DCPUFT_BUILD_BENCH=OFF > /dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && ctest --output-on-failure -j $(JOBS) -L unit

bench: build
	@$(BUILD)/cpuft bench

clean:
	rm -rf $(BUILD) build-asan
