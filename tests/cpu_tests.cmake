# The CPU backend running kernels (translated to C, compiled at run time).
add_executable(test_cpu_kernels ${CMAKE_CURRENT_LIST_DIR}/test_cpu_kernels.c)
target_link_libraries(test_cpu_kernels PRIVATE anygpu Threads::Threads m)
target_include_directories(test_cpu_kernels PRIVATE ${CMAKE_SOURCE_DIR}/tests)
target_compile_definitions(test_cpu_kernels PRIVATE _GNU_SOURCE)
add_test(NAME test_cpu_kernels COMMAND test_cpu_kernels)
set_tests_properties(test_cpu_kernels PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS cpu)
