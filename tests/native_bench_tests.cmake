# SPDX-License-Identifier: Apache-2.0
# The native baseline programs of bench/native/ (built by bench/CMakeLists.txt
# where their headers are found), each run once with a small size against
# the protocol `anygpu bench` reads; included from tests/CMakeLists.txt.
find_package(Python3 COMPONENTS Interpreter)
set(native_programs native_cpu native_opencl native_vulkan native_cuda native_cublas
                    native_openblas native_clblast)
foreach(program IN LISTS native_programs)
  if(NOT TARGET ${program})
    continue()
  endif()
  if(NOT Python3_Interpreter_FOUND)
    message(STATUS "anygpu: python3 not found: the ${program} test is not registered")
    continue()
  endif()
  add_test(NAME test_${program}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_native_bench.py
                   $<TARGET_FILE:${program}>)
  set_tests_properties(test_${program} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
                                                  LABELS native_bench)
  # Under the sanitizers: lavapipe leaks at instance creation and is unloaded
  # by vkDestroyInstance, so its leak has no module name left to suppress.
  if(AGPU_SANITIZE AND program STREQUAL "native_vulkan")
    set_tests_properties(test_${program} PROPERTIES ENVIRONMENT ASAN_OPTIONS=detect_leaks=0)
  endif()
endforeach()
