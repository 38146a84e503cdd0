# SPDX-License-Identifier: Apache-2.0
# Launch sizes at and past 32 and 64 bits (tests/test_launch_sizes.c, issue
# 33) on every backend: 64-bit size_t and work-item ids, totals of 2^64
# work-items or more, local and value sizes that do not fit 32 bits. The
# Vulkan runs have the validation layer on; the no_int64 one treats lavapipe
# as a device without shaderInt64.
add_executable(test_launch_sizes ${CMAKE_CURRENT_LIST_DIR}/test_launch_sizes.c)
target_link_libraries(test_launch_sizes PRIVATE anygpu)
target_include_directories(test_launch_sizes PRIVATE ${CMAKE_SOURCE_DIR}/tests)
set(AGPU_SIZES_ENV ANYGPU_CACHE_DIR=${CMAKE_BINARY_DIR}/kernel-cache)
set(AGPU_SIZES_VULKAN_ENV ${AGPU_SIZES_ENV} ANYGPU_VULKAN_VALIDATION=1
    LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan-vulkan-drivers.supp:print_suppressions=0)
foreach(selector cpu:0 opencl:0 vulkan:0 cuda:0 hip:0)
  string(REPLACE ":0" "" backend ${selector})
  set(env ${AGPU_SIZES_ENV})
  if(backend STREQUAL "vulkan")
    set(env ${AGPU_SIZES_VULKAN_ENV})
  endif()
  add_test(NAME test_launch_sizes_${backend} COMMAND test_launch_sizes ${selector})
  set_tests_properties(test_launch_sizes_${backend} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                       LABELS "limits;launch_sizes;${backend}" ENVIRONMENT "${env}")
endforeach()
# lavapipe as a device without shaderInt64: a kernel with 64-bit sizes is
# refused naming size_t, one that takes its ids as uint runs.
add_test(NAME test_launch_sizes_vulkan_no_int64 COMMAND test_launch_sizes vulkan:0 no_int64)
set_tests_properties(test_launch_sizes_vulkan_no_int64 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                     LABELS "limits;launch_sizes;vulkan"
                     ENVIRONMENT "${AGPU_SIZES_VULKAN_ENV};ANYGPU_VULKAN_NO_INT64=1")
