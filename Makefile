# attractor — build entry points. `make run` and `make test` work on a fresh Debian 12 machine.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build binary run install test test-asan test-tsan lint format fuzz bench clean

all: build

deps:
	@bash .ci/deps.sh

$(BUILD_DIR)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The binary, the retrieval and HTTP modules beside it (dependencies of the attractor target) and the
# data it reads (token rank files), nothing else: what `make run` needs.
binary: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target attractor attractor_token_data

# Installs $(PREFIX)/bin/attractor (token data linked in) and, in $(PREFIX)/lib/attractor/,
# libattractor_retrieval.so (the code index) and libattractor_http.so (cpp-httplib, OpenSSL), the
# modules it loads on first use (docs/architecture.md section 8); a copy of the binary alone anywhere
# works for everything but index, search, retrieval steps, serve and the HTTP LLM backends.
PREFIX ?= /usr/local
install: binary
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

run: binary
	@bash graphs/demo.sh $(BUILD_DIR)/attractor

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# Sanitizer builds (issue 8): their own build dirs, -O1 with line tables, every report fatal.
SAN_CMAKE = -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
	-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" $(CMAKE_FLAGS)
SAN_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0 \
	TSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/tsan.supp:halt_on_error=1:second_deadlock_stack=1
TSAN_TESTS = engine_tests tokens_tests  # ctest labels engine, tokens

# AddressSanitizer + UndefinedBehaviorSanitizer over the whole test suite.
test-asan: deps
	cmake -S . -B build-asan $(SAN_CMAKE) -DATTRACTOR_SANITIZE=address,undefined
	cmake --build build-asan -j $(JOBS)
	# ASan's frames are several times larger: the C# extractor's 1000 levels of nesting need more
	# than the default 8 MiB of stack there (docs/hardening.md).
	cd build-asan && ulimit -s 65536 && $(SAN_ENV) ctest --output-on-failure -j $(JOBS)

# ThreadSanitizer over the engine tests (parallel fan-out, context, manager loop, checkpoints) and the
# token counter's count_many workers.
test-tsan: deps
	cmake -S . -B build-tsan $(SAN_CMAKE) -DATTRACTOR_SANITIZE=thread
	cmake --build build-tsan -j $(JOBS) --target attractor $(TSAN_TESTS)
	cd build-tsan && $(SAN_ENV) ctest --output-on-failure -j $(JOBS) -L '^(engine|tokens)$$'

# Static checks (tools/lint.sh): clang-format over the C++ files of src, tests, tools and bench,
# tools/check_layers.py, and clang-tidy (.clang-tidy, with the compile commands of $(BUILD_DIR)) on
# the .cc files changed since TIDY_BASE (empty: all of them, about 10 CPU seconds a file).
# FORMAT_CHECK=report prints how many files clang-format would change and passes; enforce fails.
FORMAT_CHECK ?= enforce
TIDY_BASE ?= HEAD~20
lint: configure
	@bash .ci/deps.sh --lint
	bash tools/lint.sh --build $(BUILD_DIR) --jobs $(JOBS) --format $(FORMAT_CHECK) \
	  $(if $(TIDY_BASE),--tidy-base $(TIDY_BASE),--tidy-all)

# Rewrites every C++ file of the tree in the house style (.clang-format).
format:
	@bash .ci/deps.sh --lint
	bash tools/lint.sh --fix

# libFuzzer targets (tests/fuzz, clang-14): build, then run each for FUZZ_SECONDS.
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
fuzz:
	@bash .ci/deps.sh --fuzz
	cmake -S tests/fuzz -B $(FUZZ_DIR) -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14
	cmake --build $(FUZZ_DIR) -j $(JOBS)
	bash tests/fuzz/run_fuzzers.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD_DIR)
