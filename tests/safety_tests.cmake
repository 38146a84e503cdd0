# Reliability: the API misuse matrix, resources under create/release cycles,
# many threads at once, and data hygiene (docs/reliability.md). Each runs on
# every device present; on Vulkan with the validation layer on, as the Vulkan
# tests do (vulkan_tests.cmake), and with the drivers' own leaks suppressed
# under the sanitizers.
set(AGPU_SAFETY_TEST_ENV ANYGPU_VULKAN_VALIDATION=1
    LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan-vulkan-drivers.supp:print_suppressions=0
    ANYGPU_CACHE_DIR=${CMAKE_BINARY_DIR}/kernel-cache)
foreach(name test_misuse test_hygiene test_load test_resources test_queue_null test_messages
             test_deep_expressions)
  agpu_add_c_test(${name})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${AGPU_SAFETY_TEST_ENV}")
endforeach()
set_tests_properties(test_load PROPERTIES LABELS concurrency)
