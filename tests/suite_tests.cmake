# The conformance suite (docs/conformance.md); included from
# tests/CMakeLists.txt.

# anygpu test on every device this machine has, small sizes, a fresh seed
# each run (printed, so that a failure can be repeated with --seed). About
# 10 s on 2 cores with PoCL's cache cold, under 2 s warm.
add_test(NAME conformance_suite COMMAND anygpu_cli test --size small)
set_tests_properties(conformance_suite PROPERTIES TIMEOUT 600 LABELS suite)

# anygpu test's JSON, the planted bugs it must catch, and anygpu run.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME suite_cli COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_suite.py
                                  $<TARGET_FILE:anygpu_cli> ${PROJECT_SOURCE_DIR}/kernels/suite)
  set_tests_properties(suite_cli PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77 LABELS suite)
else()
  message(STATUS "anygpu: python3 not found: the suite test (tests/test_suite.py) is not registered")
endif()
