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
