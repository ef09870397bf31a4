#!/usr/bin/env bash
# The sanitizer job (scripts/test.sh runs it after the main suite, and so does CI): core, the CLI and their tests
# built with clang's AddressSanitizer and UndefinedBehaviorSanitizer (no CUDA, no GUI), every test run under them,
# then the stencil-file fuzzer for a bounded time (SE_FUZZ_SECONDS, default 30) on its seeds. Any report fails.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install_packages.sh clang libclang-rt-14-dev

BUILD=build-sanitize
# -fsanitize=fuzzer-no-link gives the fuzzer coverage of core's code too; the tests link without libFuzzer.
FLAGS="-O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link"
# The CPU kernels (three files of always-inlined vector loops, one per ISA) keep ASan and UBSan's arithmetic checks
# but not its pointer-overflow, null and alignment checks on every address they form: those took their clang
# compile from ~25 s to ~80 s a file, most of this job's build. Any access outside an allocation is still ASan's.
KERNEL_FLAGS="-fno-sanitize=pointer-overflow,null,alignment"
# Catch2's implementation and main() (third-party code, the slowest file of this build under ASan: ~75 s) are compiled uninstrumented
# (they still link against the sanitizer runtimes, and every test's own code stays instrumented), and the benchmarks
# in bench/, which CTest never runs, are left out.
CATCH_FLAGS="-fno-sanitize=all"
# The tests' own code is compiled at -O0 (SE_TEST_FLAGS, tests/CMakeLists.txt): under ASan a test file compiles in
# half the time (test_cli_dag.cpp 17 s -> 8 s), and what the tests exercise keeps -O1.
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DSE_WITH_CUDA=OFF -DSE_BUILD_GUI=OFF -DSE_BUILD_FUZZERS=ON "-DCMAKE_CXX_FLAGS=$FLAGS" "-DCMAKE_C_FLAGS=$FLAGS" \
    "-DSE_CPU_KERNELS_FLAGS=$KERNEL_FLAGS" "-DSE_CATCH_MAIN_FLAGS=$CATCH_FLAGS" -DSE_BUILD_BENCH=OFF -DSE_TEST_FLAGS=-O0 \
    "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" >"$BUILD-configure.log" 2>&1 || { cat "$BUILD-configure.log"; exit 1; }
fi
cmake --build "$BUILD" | grep -v '^ninja: no work to do' || test "${PIPESTATUS[0]}" -eq 0

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc 2>/dev/null || echo 2)"

# The fuzzer writes what it finds into a scratch corpus; the seeds in the repository stay as they are.
mkdir -p "$BUILD/fuzz-corpus"
"$BUILD/tests/fuzz/fuzz_stencil_file" -max_total_time="${SE_FUZZ_SECONDS:-30}" -rss_limit_mb=2048 -print_final_stats=1 \
  "$BUILD/fuzz-corpus" tests/fuzz/corpus/stencil_file assets/stencils 2>&1 | tail -12
echo "sanitize: ASan+UBSan tests and the stencil-file fuzzer passed"
