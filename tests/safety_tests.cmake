# SPDX-License-Identifier: Apache-2.0
# Reliability: the API misuse matrix, resources under create/release cycles,
# many threads at once, and data hygiene (docs/reliability.md). Each runs on
# every device present; on Vulkan with the validation layer on, as the Vulkan
# tests do (vulkan_tests.cmake), and with the drivers' own leaks suppressed
# under the sanitizers.
set(AGPU_SAFETY_TEST_ENV ANYGPU_VULKAN_VALIDATION=1
    LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan-vulkan-drivers.supp:print_suppressions=0
    ANYGPU_CACHE_DIR=${CMAKE_BINARY_DIR}/kernel-cache)
foreach(name test_misuse test_hygiene test_load test_resources test_queue_null test_messages
             test_process test_release_race test_deep_expressions)
  agpu_add_c_test(${name})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${AGPU_SAFETY_TEST_ENV}")
endforeach()
set_tests_properties(test_load PROPERTIES LABELS concurrency)
# The misuse matrix on the null backend (backends/null): the core's checks
# and lifetimes with no driver under them.
add_test(NAME test_misuse_null COMMAND test_misuse --null)
set_tests_properties(test_misuse_null PROPERTIES ENVIRONMENT "ANYGPU_NULL_DEVICES=1" TIMEOUT 300)
