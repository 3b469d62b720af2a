# Convenience front end over CMake. The README's two commands: `make run` and `make test`.
# Both first make sure the Debian packages they need are installed (tools/install-deps.sh with
# the groups of tools/debian-packages.txt: `build` for building and running, `test` as well for
# the test suite), installing missing ones with apt-get; with everything installed that check
# is one dpkg-query call.
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
CTEST_FLAGS ?=
# The CANN API groups cannon implements, checked by ../shared/conformance/check_api.py.
API_GROUPS ?= runtime,runtime-client,aclnn-base,aclnn-softmax,aclnn-norm,aclnn-training,aclnn-client,aclnn-attention-amp,hccl,profiling
CHECK_API ?= ../shared/conformance/check_api.py

# Package groups to ensure before configuring; `make test` adds the test group.
DEPS_GROUPS ?= build

.PHONY: all deps configure build run tour test bench install clean check-api asan tsan valgrind fuzz-build fuzz-smoke \
	fuzz

all: build

deps:
	@tools/install-deps.sh $(DEPS_GROUPS)

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

configure: $(BUILD)/CMakeCache.txt

build: configure | deps
	cmake --build $(BUILD) -j $(JOBS)

# The main demo: data-parallel training with SyncBatchNorm on 4 local ranks (cannonrun), then the
# same training on 1 rank with the whole batch, and the agreement of the final weights.
run: build
	examples/train_syncbn/run_demo.sh $(BUILD)

# A tour of the ACL runtime, one API family after another.
tour: build
	$(BUILD)/bin/runtime_tour

test: DEPS_GROUPS = build test
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_FLAGS)
	@if [ -f $(CHECK_API) ]; then python3 $(CHECK_API) --include include --groups $(API_GROUPS) --strict; \
	  else echo "conformance checker $(CHECK_API) not found: skipped"; fi

bench: build
	$(BUILD)/bin/bench_runtime

install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

check-api:
	python3 $(CHECK_API) --include include --groups $(API_GROUPS) --strict

# Sanitizer builds (separate build folders).
asan:
	$(MAKE) test BUILD=build-asan BUILD_TYPE=Debug CMAKE_FLAGS="$(CMAKE_FLAGS) -DCANNON_SANITIZE=address"
tsan:
	$(MAKE) build BUILD=build-tsan BUILD_TYPE=Debug CMAKE_FLAGS="$(CMAKE_FLAGS) -DCANNON_SANITIZE=thread"
	cd build-tsan && ctest --output-on-failure -L concurrency $(CTEST_FLAGS)

# libFuzzer targets (fuzz/): a clang build with coverage and ASan+UBSan in every library.
FUZZ_TIME ?= 3600
fuzz-build:
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCANNON_SANITIZE=fuzzer \
	  -DBUILD_TESTING=OFF $(CMAKE_FLAGS)
	cmake --build build-fuzz -j $(JOBS) --target fuzz_all
# CI: each target's committed corpus replayed, then 30 s of fuzzing each.
fuzz-smoke: fuzz-build
	fuzz/run.sh smoke 30
# The long campaign: FUZZ_TIME seconds per target (default one hour).
fuzz: fuzz-build
	fuzz/run.sh campaign $(FUZZ_TIME)

clean:
	rm -rf build build-asan build-tsan build-fuzz
