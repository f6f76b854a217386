# The README's commands. Each installs dependencies first, then drives CMake.
#   make run    build (Release) and run the main job: serve the bundled example world,
#               its store kept in ./worldkit-data (serve's default --data)
#   make check  build with ASan+UBSan and -Werror, run every test under CTest,
#               then the multi-threaded store tests again under ThreadSanitizer
#   make bench  build (Release) and run every benchmark in bench/
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: deps run check bench clean

deps:
	@bash scripts/deps.sh

$(BUILD)/release/build.ninja: | deps
	cmake -S . -B $(BUILD)/release -G Ninja -DCMAKE_BUILD_TYPE=Release

$(BUILD)/check/build.ninja: | deps
	cmake -S . -B $(BUILD)/check -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWK_SANITIZE=ON -DWK_WERROR=ON

$(BUILD)/tsan/build.ninja: | deps
	cmake -S . -B $(BUILD)/tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWK_TSAN=ON -DWK_WERROR=ON

run: deps $(BUILD)/release/build.ninja
	cmake --build $(BUILD)/release -j $(JOBS)
	$(BUILD)/release/worldkit serve --world examples/levels.sdf --levels

check: deps $(BUILD)/check/build.ninja $(BUILD)/tsan/build.ninja
	cmake --build $(BUILD)/check -j $(JOBS)
	cd $(BUILD)/check && ctest --output-on-failure -j $(JOBS)
	cmake --build $(BUILD)/tsan -j $(JOBS) --target store_test_concurrency store_test_persist
	setarch "$$(uname -m)" -R $(BUILD)/tsan/tests/store_test_concurrency
	setarch "$$(uname -m)" -R $(BUILD)/tsan/tests/store_test_persist threads_commit_while_compacting

bench: deps $(BUILD)/release/build.ninja
	cmake --build $(BUILD)/release -j $(JOBS)
	@set -e; for b in $(BUILD)/release/bench/*; do if [ -f "$$b" ] && [ -x "$$b" ]; then "$$b"; fi; done

clean:
	rm -rf $(BUILD)
