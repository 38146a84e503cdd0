# SPDX-License-Identifier: Apache-2.0
# The CUDA backend (backends/cuda): its declarations against the toolkit's
# headers, the backend on a machine without an NVIDIA driver (and with the
# toolkit's stub first on LD_LIBRARY_PATH), NVRTC compiles, and
# `anygpu compile --target cuda` over the corpus compiled for sm_90.
# Included from tests/CMakeLists.txt.

find_path(AGPU_CUDA_TOOLKIT_INCLUDE cuda.h nvrtc.h
          HINTS ENV CUDA_PATH ENV CUDA_HOME PATH_SUFFIXES include
          PATHS /usr/local/cuda/include NO_CMAKE_SYSTEM_PATH)
include(CheckLanguage)
check_language(CXX)
if(AGPU_CUDA_TOOLKIT_INCLUDE AND EXISTS ${AGPU_CUDA_TOOLKIT_INCLUDE}/nvrtc.h AND CMAKE_CXX_COMPILER)
  enable_language(CXX)
  add_executable(test_cuda_abi test_cuda_abi.cpp)
  # The C-only warning flags of the top directory do not apply to C++.
  set_target_properties(test_cuda_abi PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON
                                                 COMPILE_OPTIONS "-Wall;-Wextra;-Werror")
  target_include_directories(test_cuda_abi PRIVATE ${AGPU_CUDA_TOOLKIT_INCLUDE}
                                                   ${CMAKE_SOURCE_DIR}/backends/cuda)
  add_test(NAME test_cuda_abi COMMAND test_cuda_abi)
else()
  message(STATUS "anygpu: cuda.h/nvrtc.h or a C++ compiler not found: test_cuda_abi is skipped")
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    add_test(NAME test_cuda_abi
             COMMAND ${Python3_EXECUTABLE} -c
                     "print('skipped: the CUDA toolkit headers (cuda.h, nvrtc.h) or a C++ compiler were not found at configure time'); raise SystemExit(77)")
    set_tests_properties(test_cuda_abi PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endif()

# agpu_cuda_compile is internal to the library: link the static one.
add_executable(test_cuda_compile test_cuda_compile.c)
target_link_libraries(test_cuda_compile PRIVATE anygpu_static ${CMAKE_DL_LIBS} Threads::Threads)
target_include_directories(test_cuda_compile PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_SOURCE_DIR}/kernels
                                                     ${CMAKE_SOURCE_DIR}/api ${CMAKE_SOURCE_DIR}/backends/cuda)
target_compile_definitions(test_cuda_compile PRIVATE _GNU_SOURCE
                                                     AGPU_KERNELS_DIR="${CMAKE_SOURCE_DIR}/tests/kernels")
add_test(NAME test_cuda_compile COMMAND test_cuda_compile)
set_tests_properties(test_cuda_compile PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# On a CUDA device (skipped without one; tests/gpu/run.sh runs it on an H200).
add_executable(test_cuda_device test_cuda_device.c)
target_link_libraries(test_cuda_device PRIVATE anygpu_static ${CMAKE_DL_LIBS} Threads::Threads m)
target_include_directories(test_cuda_device PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_SOURCE_DIR}/kernels
                                                    ${CMAKE_SOURCE_DIR}/api ${CMAKE_SOURCE_DIR}/backends/cuda)
target_compile_definitions(test_cuda_device PRIVATE _GNU_SOURCE)
add_test(NAME test_cuda_device COMMAND test_cuda_device)
set_tests_properties(test_cuda_device PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  # The backend here: no driver, or the toolkit's stub through LD_LIBRARY_PATH.
  add_test(NAME test_cuda_backend
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_cuda_backend.py
                   $<TARGET_FILE:anygpu_cli>)
  set_tests_properties(test_cuda_backend PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
  # The issue's acceptance: every corpus kernel through the CLI, then NVRTC.
  add_test(NAME test_cuda_cli_compile
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_cuda_cli_compile.py
                   $<TARGET_FILE:anygpu_cli> $<TARGET_FILE:test_cuda_compile>
                   ${CMAKE_SOURCE_DIR}/tests/kernels)
  set_tests_properties(test_cuda_cli_compile PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
  # The GPU script on this machine: it must end cleanly saying "no GPU".
  # Where a GPU is present it says "skipped" (tests/gpu/run.sh runs ctest).
  add_test(NAME test_cuda_gpu_script
           COMMAND ${CMAKE_SOURCE_DIR}/tests/gpu/run.sh --build-dir ${CMAKE_BINARY_DIR} --no-build
                   --no-ctest --expect-no-gpu --out ${CMAKE_CURRENT_BINARY_DIR}/gpu-script-results)
  set_tests_properties(test_cuda_gpu_script PROPERTIES TIMEOUT 300
                       PASS_REGULAR_EXPRESSION "\nno GPU: .*results: [^\n]*\\([1-8] files\\)"
                       SKIP_REGULAR_EXPRESSION "^skipped: ")
endif()
