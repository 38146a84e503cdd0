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
                                $<TARGET_FILE:anygpu_cli> ${CMAKE_CURRENT_LIST_DIR}/telemetry)
  set_tests_properties(cli_top PROPERTIES TIMEOUT 300)
endif()
