# SPDX-License-Identifier: Apache-2.0
# Telemetry (issue 32): the library over replayed machines (tests/telemetry/)
# and this machine's /proc, then anygpu top end to end. Included from
# tests/CMakeLists.txt.
add_executable(test_telemetry test_telemetry.c)
target_link_libraries(test_telemetry PRIVATE anygpu m Threads::Threads)
target_include_directories(test_telemetry PRIVATE ${CMAKE_SOURCE_DIR}/tests)
target_compile_definitions(test_telemetry PRIVATE _GNU_SOURCE)
add_test(NAME test_telemetry COMMAND test_telemetry ${CMAKE_CURRENT_LIST_DIR}/telemetry)
# vulkan:0 (lavapipe) for the out-of-memory message: its leaks are suppressed
set_tests_properties(test_telemetry PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 ENVIRONMENT
  LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan-vulkan-drivers.supp:print_suppressions=0)

if(Python3_Interpreter_FOUND)
  add_test(NAME cli_top COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_top.py
                                $<TARGET_FILE:anygpu_cli> ${CMAKE_CURRENT_LIST_DIR}/telemetry
                                ${CMAKE_CURRENT_BINARY_DIR}/fake-nvml)
  set_tests_properties(cli_top PROPERTIES TIMEOUT 300)
endif()

# NVML through a stand-in libnvidia-ml.so.1 on LD_LIBRARY_PATH (it comes
# before a real one, so this runs on an NVIDIA machine too).
add_library(fake_nvml SHARED drivers/fake_nvml.c)
set_target_properties(fake_nvml PROPERTIES OUTPUT_NAME nvidia-ml SUFFIX ".so.1"
                                           LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fake-nvml)
add_executable(test_telemetry_nvml test_telemetry_nvml.c)
target_link_libraries(test_telemetry_nvml PRIVATE anygpu)
target_include_directories(test_telemetry_nvml PRIVATE ${CMAKE_SOURCE_DIR}/tests)
add_dependencies(test_telemetry_nvml fake_nvml)
add_test(NAME test_telemetry_nvml COMMAND test_telemetry_nvml)
add_test(NAME test_telemetry_nvml_init_error COMMAND test_telemetry_nvml)
set_tests_properties(test_telemetry_nvml PROPERTIES TIMEOUT 60 ENVIRONMENT
                     LD_LIBRARY_PATH=${CMAKE_CURRENT_BINARY_DIR}/fake-nvml)
set_tests_properties(test_telemetry_nvml_init_error PROPERTIES TIMEOUT 60 ENVIRONMENT
                     "LD_LIBRARY_PATH=${CMAKE_CURRENT_BINARY_DIR}/fake-nvml;FAKE_NVML_INIT_ERROR=9")
