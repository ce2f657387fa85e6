# warpsim: the two commands on a fresh machine are `make demo` and `make test`.
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build demo docs test bench ubench study sanitize clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)

# Regenerates the reference pages built from the code (docs/params.md,
# docs/counters.md); `make test` fails while they are stale.
docs: build
	@bash scripts/gen-docs.sh $(BUILD)/bin/warpsim

# The bounded fuzz run goes first (one summary line) so that ctest's summary
# closes the output, followed only by the reason for each skipped test.
test: build
	@bash scripts/fuzz-smoke.sh
	@cd $(BUILD) && rc=0 && ctest --output-on-failure -j $(JOBS) || rc=$$?; \
	  bash $(CURDIR)/scripts/ctest-skips.sh .; exit $$rc

bench: build
	$(BUILD)/bin/warpsim_bench

# The microbenchmarks (ubench/*.cu, nvcc) into $(BUILD)/ubench/; run them with
# scripts/ubench-run.sh (docs/validation.md).
ubench: build
	cmake --build $(BUILD) --target ubench -j $(JOBS)

# The bundled design-space study (docs/dse.md) into $(BUILD)/fermi-dse/, with
# its report; rerunning resumes it.
study: build
	WARPSIM_BUILD=$(abspath $(BUILD)) $(BUILD)/bin/warpsim sweep run examples/studies/fermi-dse.toml \
	  --out $(BUILD)/fermi-dse -j $(JOBS)
	$(BUILD)/bin/warpsim sweep report $(BUILD)/fermi-dse --html $(BUILD)/fermi-dse/report.html

# The unit and end-to-end tests under AddressSanitizer and UBSan (slow build;
# not part of `make test`).
sanitize: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWARPSIM_BENCH=OFF \
	  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1"
	cmake --build build-asan -j $(JOBS)
	build-asan/bin/warpsim_tests --gtest_filter='-TraceSpeed*'

clean:
	rm -rf $(BUILD) build-fuzz build-asan
