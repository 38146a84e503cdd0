# SPDX-License-Identifier: Apache-2.0
# The HIP backend (backends/hip/, docs/hip.md); included from
# tests/CMakeLists.txt. hiprtc runs for real where ROCm is installed; each
# test says "skipped" with the reason where it is not.

# The backend's own declarations against ROCm's headers, where installed.
find_path(AGPU_HIP_INCLUDE_DIR hip/hip_runtime_api.h PATHS /opt/rocm/include)
add_executable(test_hip_abi test_hip_abi.c)
target_include_directories(test_hip_abi PRIVATE ${CMAKE_SOURCE_DIR}/tests
                                                ${CMAKE_SOURCE_DIR}/backends/hip)
target_link_libraries(test_hip_abi PRIVATE anygpu)
if(AGPU_HIP_INCLUDE_DIR)
  target_include_directories(test_hip_abi SYSTEM PRIVATE ${AGPU_HIP_INCLUDE_DIR})
  target_compile_definitions(test_hip_abi PRIVATE AGPU_HAVE_HIP_HEADERS __HIP_PLATFORM_AMD__)
endif()
add_test(NAME test_hip_abi COMMAND test_hip_abi)
set_tests_properties(test_hip_abi PROPERTIES SKIP_RETURN_CODE 77)

# The backend through the public API: why it is unavailable here, devices
# and kernels where there is an AMD GPU.
add_executable(test_hip_backend test_hip_backend.c)
target_link_libraries(test_hip_backend PRIVATE anygpu ${CMAKE_DL_LIBS})
target_include_directories(test_hip_backend PRIVATE ${CMAKE_SOURCE_DIR}/tests)
target_compile_definitions(test_hip_backend PRIVATE _GNU_SOURCE)
add_test(NAME test_hip_backend COMMAND test_hip_backend)
set_tests_properties(test_hip_backend PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# The hiprtc routine, and `anygpu compile --target hip` over the corpus:
# they call library internals, hidden in the shared library, so they link
# the static one.
foreach(name test_hip_compile test_hip_cli_compile)
  add_executable(${name} ${name}.c)
  target_link_libraries(${name} PRIVATE anygpu_static ${CMAKE_DL_LIBS})
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_SOURCE_DIR}/kernels
                                             ${CMAKE_SOURCE_DIR}/api ${CMAKE_SOURCE_DIR}/backends/hip)
  target_compile_definitions(${name} PRIVATE _GNU_SOURCE
                                             AGPU_KERNELS_DIR="${CMAKE_SOURCE_DIR}/tests/kernels")
endforeach()
add_test(NAME test_hip_compile COMMAND test_hip_compile)
add_test(NAME test_hip_cli_compile COMMAND test_hip_cli_compile $<TARGET_FILE:anygpu_cli>)
set_tests_properties(test_hip_compile test_hip_cli_compile PROPERTIES SKIP_RETURN_CODE 77
                                                                       TIMEOUT 900)
