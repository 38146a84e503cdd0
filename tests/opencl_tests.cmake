# SPDX-License-Identifier: Apache-2.0
# The OpenCL backend's tests run against a real driver (PoCL on a machine
# without a GPU); each exits 77 (skipped) when no OpenCL device is present.
foreach(name test_opencl_device test_opencl_buffer test_opencl_launch
        test_opencl_cache)
  add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c)
  target_link_libraries(${name} PRIVATE anygpu Threads::Threads)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests)
  target_compile_definitions(${name} PRIVATE _GNU_SOURCE)
  add_test(NAME ${name} COMMAND ${name})
  # PoCL compiles every kernel with LLVM on first use: allow for a cold cache.
  # PoCL's own leak when a program's binary is read (lsan-vulkan-drivers.supp
  # says which), suppressed in the sanitizer builds.
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS opencl
    ENVIRONMENT LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan-vulkan-drivers.supp:print_suppressions=0)
endforeach()
target_link_libraries(test_opencl_launch PRIVATE m)
target_link_libraries(test_opencl_cache PRIVATE m)
