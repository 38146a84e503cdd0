# SPDX-License-Identifier: Apache-2.0
# Tests of the anygpu command; included from tests/CMakeLists.txt.

# The JSON writer and text formatting on their own.
add_executable(cli_format_json_test ${PROJECT_SOURCE_DIR}/tools/format_json_test.c
                                    ${PROJECT_SOURCE_DIR}/tools/json_writer.c
                                    ${PROJECT_SOURCE_DIR}/tools/format.c)
target_include_directories(cli_format_json_test PRIVATE ${PROJECT_SOURCE_DIR}/api
                                                        ${PROJECT_SOURCE_DIR}/tests
                                                        ${PROJECT_SOURCE_DIR}/tools)
add_test(NAME cli_format_json COMMAND cli_format_json_test)
set_tests_properties(cli_format_json PROPERTIES SKIP_RETURN_CODE 77)

# The built binary, end to end, checked against clinfo where it is installed.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME cli COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_cli.py
                            $<TARGET_FILE:anygpu_cli> --expect-version ${PROJECT_VERSION})
  set_tests_properties(cli PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
else()
  message(STATUS "anygpu: python3 not found: the CLI test (tests/test_cli.py) is not registered")
endif()

# scripts/realworld/agree.py's comparison of two runs and the inputs its
# hints give the kernels that need an invariant (issue 18).
if(Python3_Interpreter_FOUND)
  add_test(NAME realworld_agree COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_agree.py)
endif()

# list and test --mpi under mpirun, 4 ranks, one with a planted fault (issue
# 24, docs/cluster.md); skipped without Open MPI (openmpi-bin, libopenmpi-dev).
if(Python3_Interpreter_FOUND)
  add_test(NAME cli_mpi COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_mpi.py
                                $<TARGET_FILE:anygpu_cli>)
  set_tests_properties(cli_mpi PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 ENVIRONMENT
    LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan-mpi.supp:print_suppressions=0)
endif()

# anygpu run at sizes past 32 and 64 bits (issue 33): element counts whose
# bytes overflow, 64-bit size_t arithmetic compared across every device.
if(Python3_Interpreter_FOUND)
  add_test(NAME cli_run_sizes COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_run_sizes.py
                                      $<TARGET_FILE:anygpu_cli>)
  set_tests_properties(cli_run_sizes PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 ENVIRONMENT
    LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan-vulkan-drivers.supp:print_suppressions=0)
endif()

# The timeline trace of run and bench (issue 21): the files against the
# trace event format, a launch event per launch, device times.
if(Python3_Interpreter_FOUND)
  add_test(NAME cli_trace COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_trace.py
                                  $<TARGET_FILE:anygpu_cli>)
  set_tests_properties(cli_trace PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 ENVIRONMENT
    LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan-vulkan-drivers.supp:print_suppressions=0)
endif()

# Physical-device grouping: the rules on staged devices (the grouping source
# is compiled in), then the API and the selectors on this machine's devices.
add_executable(test_physical test_physical.c ${PROJECT_SOURCE_DIR}/api/physical_group.c)
target_link_libraries(test_physical PRIVATE anygpu)
target_include_directories(test_physical PRIVATE ${PROJECT_SOURCE_DIR}/api
                                                 ${PROJECT_SOURCE_DIR}/tests)
target_compile_definitions(test_physical PRIVATE _GNU_SOURCE)
add_test(NAME test_physical COMMAND test_physical)
set_tests_properties(test_physical PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# anygpu doctor, end to end: staged sysroots and faults injected through the
# environment. The test library stands in for a vendor library's file name.
add_library(doctor_test_library SHARED doctor_test_library.c)
if(Python3_Interpreter_FOUND)
  add_test(NAME doctor COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_doctor.py
                               $<TARGET_FILE:anygpu_cli>
                               --test-library $<TARGET_FILE:doctor_test_library>)
  set_tests_properties(doctor PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
  # the null backend through the CLI (backends/null)
  add_test(NAME test_null_backend COMMAND ${Python3_EXECUTABLE}
                                          ${CMAKE_CURRENT_LIST_DIR}/test_null_backend.py
                                          $<TARGET_FILE:anygpu_cli>)
  set_tests_properties(test_null_backend PROPERTIES TIMEOUT 300)
  # drivers that crash the process as they load (tools/driver_guard.c)
  add_library(crash_icd MODULE drivers/crash_icd.c)
  add_library(crash_vulkan_driver MODULE drivers/crash_vulkan_driver.c)
  add_test(NAME test_driver_guard
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_driver_guard.py
                   $<TARGET_FILE:anygpu_cli> $<TARGET_FILE:crash_icd>
                   $<TARGET_FILE:crash_vulkan_driver>)
  set_tests_properties(test_driver_guard PROPERTIES TIMEOUT 300)
else()
  message(STATUS "anygpu: python3 not found: the doctor test (tests/test_doctor.py) is not registered")
endif()

# anygpu compile over the kernel corpus, every target.
if(Python3_Interpreter_FOUND)
  add_test(NAME compile COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_compile.py
                                $<TARGET_FILE:anygpu_cli> ${CMAKE_CURRENT_LIST_DIR}/kernels)
  set_tests_properties(compile PROPERTIES TIMEOUT 600)
  # bounds checking's group-size ranges, as anygpu compile --check writes them
  add_test(NAME bounds_ranges COMMAND ${Python3_EXECUTABLE}
                                      ${CMAKE_CURRENT_LIST_DIR}/test_bounds_ranges.py
                                      $<TARGET_FILE:anygpu_cli>)
endif()
