# The README's commands. Each installs dependencies first, then drives CMake.
#   make run    build (Release) and run the main job: serve the bundled example world,
#               its store kept in ./worldkit-data (serve's default --data), and its live
#               view on http://127.0.0.1:8080/
#   make check  build with ASan+UBSan and -Werror, run every test under CTest,
#               then the multi-threaded store tests again under ThreadSanitizer
#   make bench  build (Release) and run every benchmark in bench/
#   make install  build (Release) and install into PREFIX (default /usr/local): the
#               library, its headers, worldkit.pc, the CMake package and the command
#   make fuzz   build the libFuzzer targets (clang) and run each FUZZ_SECONDS
#               on its corpus; new inputs go to $(BUILD)/fuzz/corpus/<name>,
#               crashes to $(BUILD)/fuzz/crash-<name>-*
BUILD ?= build
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
PREFIX ?= /usr/local
FUZZERS = $(basename $(notdir $(wildcard tests/fuzz/fuzz_*.c)))

.PHONY: deps run check bench install fuzz clean

deps:
	@bash scripts/deps.sh

$(BUILD)/release/build.ninja: | deps
	cmake -S . -B $(BUILD)/release -G Ninja -DCMAKE_BUILD_TYPE=Release

$(BUILD)/check/build.ninja: | deps
	cmake -S . -B $(BUILD)/check -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWK_SANITIZE=ON -DWK_WERROR=ON

$(BUILD)/tsan/build.ninja: | deps
	cmake -S . -B $(BUILD)/tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWK_TSAN=ON -DWK_WERROR=ON

$(BUILD)/fuzz/build.ninja: | deps
	CC=clang CXX=clang++ cmake -S . -B $(BUILD)/fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWK_SANITIZE=ON -DWK_FUZZ=ON

run: deps $(BUILD)/release/build.ninja
	cmake --build $(BUILD)/release -j $(JOBS)
	$(BUILD)/release/worldkit serve --world examples/levels.sdf --levels --physics none --http 127.0.0.1:8080

check: deps $(BUILD)/check/build.ninja $(BUILD)/tsan/build.ninja
	cmake --build $(BUILD)/check -j $(JOBS)
	cd $(BUILD)/check && ctest --output-on-failure -j $(JOBS)
	cmake --build $(BUILD)/tsan -j $(JOBS) --target store_test_concurrency store_test_persist
	setarch "$$(uname -m)" -R $(BUILD)/tsan/tests/store_test_concurrency
	setarch "$$(uname -m)" -R $(BUILD)/tsan/tests/store_test_persist threads_commit_while_compacting

bench: deps $(BUILD)/release/build.ninja
	cmake --build $(BUILD)/release -j $(JOBS)
	@set -e; for b in $(BUILD)/release/bench/*; do if [ -f "$$b" ] && [ -x "$$b" ]; then "$$b"; fi; done

install: deps $(BUILD)/release/build.ninja
	cmake --build $(BUILD)/release -j $(JOBS)
	cmake --install $(BUILD)/release --prefix $(PREFIX)

fuzz: deps $(BUILD)/fuzz/build.ninja
	cmake --build $(BUILD)/fuzz -j $(JOBS) --target $(FUZZERS)
	@set -e; for f in $(FUZZERS); do \
		name=$${f#fuzz_}; mkdir -p $(BUILD)/fuzz/corpus/$$name; echo "== $$f"; \
		$(BUILD)/fuzz/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=$(BUILD)/fuzz/crash-$$name- $(BUILD)/fuzz/corpus/$$name tests/fuzz/corpus/$$name; \
	done

clean:
	rm -rf $(BUILD)
