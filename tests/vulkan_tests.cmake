# SPDX-License-Identifier: Apache-2.0
# The Vulkan backend's tests run against a real driver (lavapipe on a machine
# without a GPU) with the Khronos validation layer on: the backend turns any
# validation message into an error, so a silent layer is part of passing.
# Each exits 77 (skipped) when there is no Vulkan device. Under the
# sanitizers, leaks inside the drivers and the layer are suppressed.
# The kernel cache is the build's own, so that no entry from another build
# (a translator of another version under the same key) can hide a result.
set(AGPU_VULKAN_TEST_ENV ANYGPU_VULKAN_VALIDATION=1
    LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan-vulkan-drivers.supp:print_suppressions=0
    ANYGPU_CACHE_DIR=${CMAKE_BINARY_DIR}/kernel-cache)
foreach(name test_vulkan_device test_vulkan_buffer test_vulkan_launch)
  add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c)
  target_link_libraries(${name} PRIVATE anygpu)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests)
  target_compile_definitions(${name} PRIVATE _GNU_SOURCE)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS vulkan
                                          ENVIRONMENT "${AGPU_VULKAN_TEST_ENV}")
endforeach()

# The same launches through pooled descriptor sets, the path for devices
# without VK_KHR_push_descriptor.
add_test(NAME test_vulkan_launch_pooled_sets COMMAND test_vulkan_launch)
set_tests_properties(test_vulkan_launch_pooled_sets PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                     LABELS vulkan ENVIRONMENT
                     "${AGPU_VULKAN_TEST_ENV};ANYGPU_VULKAN_NO_PUSH_DESCRIPTORS=1")

# Buffers and launches through staging buffers, the path for device memory
# the host cannot map (discrete GPUs).
foreach(name test_vulkan_buffer test_vulkan_launch)
  add_test(NAME ${name}_staging COMMAND ${name})
  set_tests_properties(${name}_staging PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS vulkan
                       ENVIRONMENT "${AGPU_VULKAN_TEST_ENV};ANYGPU_VULKAN_NO_DIRECT_MEMORY=1")
endforeach()

# The corpus on vulkan:0 against the oracle, one test per kernel, with the
# validation layer on; skipped when there is no vulkan:0. Kernels the GLSL
# emitter rejects are skipped with its diagnostic. The kernels listed below
# fail because of a GLSL emitter bug (docs/vulkan.md, "Known failures"):
# their tests pass while the runner reports that failure, so that the fix
# shows up here as a failing test whose name is to be taken off the list.
set(AGPU_VULKAN_CORPUS_EMITTER_BUGS)
file(GLOB AGPU_VULKAN_CORPUS_KERNELS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/kernels/valid/*.cl)
foreach(path ${AGPU_VULKAN_CORPUS_KERNELS})
  get_filename_component(stem ${path} NAME_WE)
  add_test(NAME test_corpus_vulkan_${stem}
           COMMAND test_corpus ${CMAKE_CURRENT_LIST_DIR}/kernels --device vulkan:0 --kernel ${stem})
  set_tests_properties(test_corpus_vulkan_${stem} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                       LABELS "vulkan;corpus" ENVIRONMENT "${AGPU_VULKAN_TEST_ENV}"
                       SKIP_REGULAR_EXPRESSION "--device 'vulkan:0' selects nothing")
  if(stem IN_LIST AGPU_VULKAN_CORPUS_EMITTER_BUGS)
    set_tests_properties(test_corpus_vulkan_${stem} PROPERTIES
                         PASS_REGULAR_EXPRESSION "FAIL ${stem} on vulkan:0"
                         LABELS "vulkan;corpus;known-emitter-bug")
  endif()
endforeach()

# A device without bufferDeviceAddress refuses a kernel that stores
# pointers in structs, naming the feature (docs/kernel-language.md).
add_test(NAME test_corpus_vulkan_no_buffer_address
         COMMAND test_corpus ${CMAKE_CURRENT_LIST_DIR}/kernels --device vulkan:0
                 --kernel 125_struct_of_pointers_by_value)
set_tests_properties(test_corpus_vulkan_no_buffer_address PROPERTIES
                     LABELS "vulkan;corpus" TIMEOUT 300
                     ENVIRONMENT "${AGPU_VULKAN_TEST_ENV};ANYGPU_VULKAN_NO_BUFFER_ADDRESS=1"
                     PASS_REGULAR_EXPRESSION "needs buffer device addresses \\(bufferDeviceAddress\\) for pointers stored in structs"
                     SKIP_REGULAR_EXPRESSION "--device 'vulkan:0' selects nothing")
