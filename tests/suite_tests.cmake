# SPDX-License-Identifier: Apache-2.0
# The conformance suite (docs/conformance.md); included from
# tests/CMakeLists.txt.
find_package(Python3 COMPONENTS Interpreter)

# anygpu test on every device this machine has, small sizes: once with a
# fresh seed (printed: a failure can be repeated with --seed) and once with
# seed 0. Exit 77 (skipped) when no device could build a kernel. About 10 s
# on 2 cores with PoCL's cache cold, 2 s warm.
if(Python3_Interpreter_FOUND)
  add_test(NAME conformance_suite COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_suite.py
                                          $<TARGET_FILE:anygpu_cli> --suite)
else()
  add_test(NAME conformance_suite COMMAND anygpu_cli test --size small)
endif()
# Under the sanitizers, leaks inside lavapipe are suppressed (as for the
# Vulkan tests); anygpu's own are still reported.
set(AGPU_SUITE_TEST_ENV LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan-vulkan-drivers.supp:print_suppressions=0)
set_tests_properties(conformance_suite PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77 LABELS suite
                                                  ENVIRONMENT "${AGPU_SUITE_TEST_ENV}")

# anygpu test's JSON, the planted bugs it must catch, and anygpu run.
if(Python3_Interpreter_FOUND)
  add_test(NAME suite_cli COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_suite.py
                                  $<TARGET_FILE:anygpu_cli> ${PROJECT_SOURCE_DIR}/tools/suite)
  set_tests_properties(suite_cli PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77 LABELS suite
                                            ENVIRONMENT "${AGPU_SUITE_TEST_ENV}")
else()
  message(STATUS "anygpu: python3 not found: the suite test (tests/test_suite.py) is not registered")
endif()
