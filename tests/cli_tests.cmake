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
