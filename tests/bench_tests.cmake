# SPDX-License-Identifier: Apache-2.0
# anygpu bench, end to end (tests/test_bench.py); included from
# tests/CMakeLists.txt. The HTML case renders the page in headless Chromium
# (Debian package chromium) and is skipped, saying so, without it.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME bench_cli COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_bench.py
                                  $<TARGET_FILE:anygpu_cli>)
  # lavapipe's own leaks, as for the other tests that run Vulkan.
  set_tests_properties(
    bench_cli PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77 ENVIRONMENT
                         LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan-vulkan-drivers.supp:print_suppressions=0)
else()
  message(STATUS "anygpu: python3 not found: the bench test (tests/test_bench.py) is not registered")
endif()

# The GPU sgemm of `anygpu bench` (issue 22): every shape against a
# double-precision reference on each device here, orders that are not
# multiples of its blocks included (tests/test_sgemm_gpu.c); and statically
# for sm_90, translated by `anygpu compile --target cuda`, compiled by NVRTC
# and `ptxas -v`: no spills, registers and shared memory within bounds
# (tests/test_sgemm_ptxas.py; skipped, saying why, without NVRTC or ptxas).
add_executable(test_sgemm_gpu ${CMAKE_CURRENT_LIST_DIR}/test_sgemm_gpu.c)
target_link_libraries(test_sgemm_gpu PRIVATE anygpu m)
target_include_directories(test_sgemm_gpu PRIVATE ${CMAKE_SOURCE_DIR}/tests
                           ${CMAKE_SOURCE_DIR}/tools/bench ${CMAKE_SOURCE_DIR}/bench/native)
target_compile_definitions(test_sgemm_gpu
                           PRIVATE AGPU_SGEMM_SOURCE="${CMAKE_SOURCE_DIR}/tools/bench/bench_sgemm.cl")
foreach(selector cpu:0 opencl:0 vulkan:0 cuda:0 hip:0)
  string(REPLACE ":0" "" backend ${selector})
  add_test(NAME test_sgemm_gpu_${backend} COMMAND test_sgemm_gpu ${selector})
  set_tests_properties(
    test_sgemm_gpu_${backend}
    PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "bench;sgemm;${backend}" ENVIRONMENT
               "ANYGPU_CACHE_DIR=${CMAKE_BINARY_DIR}/kernel-cache;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan-vulkan-drivers.supp:print_suppressions=0")
endforeach()
if(Python3_Interpreter_FOUND)
  add_test(NAME test_sgemm_ptxas
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_sgemm_ptxas.py
                   $<TARGET_FILE:anygpu_cli> $<TARGET_FILE:test_sgemm_gpu>
                   ${CMAKE_SOURCE_DIR}/tools/bench/bench_sgemm.cl)
  set_tests_properties(test_sgemm_ptxas PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                                                   LABELS "bench;sgemm;cuda")
endif()
