# SPDX-License-Identifier: Apache-2.0
# The CPU backend running kernels (translated to C, compiled at run time).
add_executable(test_cpu_kernels ${CMAKE_CURRENT_LIST_DIR}/test_cpu_kernels.c)
target_link_libraries(test_cpu_kernels PRIVATE anygpu Threads::Threads m)
target_include_directories(test_cpu_kernels PRIVATE ${CMAKE_SOURCE_DIR}/tests)
target_compile_definitions(test_cpu_kernels PRIVATE _GNU_SOURCE)
add_test(NAME test_cpu_kernels COMMAND test_cpu_kernels)
set_tests_properties(test_cpu_kernels PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS cpu)

# Asynchronous queues on cpu:0 (it submits a command to a queue directly, so it
# links the library's objects).
add_executable(test_cpu_async ${CMAKE_CURRENT_LIST_DIR}/test_cpu_async.c)
target_link_libraries(test_cpu_async PRIVATE anygpu_objects Threads::Threads ${CMAKE_DL_LIBS} m)
target_include_directories(test_cpu_async PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_SOURCE_DIR}/api
                           ${CMAKE_SOURCE_DIR}/backends/cpu ${CMAKE_SOURCE_DIR}/kernels)
target_compile_definitions(test_cpu_async PRIVATE _GNU_SOURCE)
add_test(NAME test_cpu_async COMMAND test_cpu_async)
set_tests_properties(test_cpu_async PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS cpu)

# Out of file descriptors in the C compiler: said so, not "a bug in the C
# translation" (issue 33).
agpu_add_c_test(test_cpu_fd_limit)
set_tests_properties(test_cpu_fd_limit PROPERTIES LABELS cpu)

# cpu:0 buffers between canaries and guard pages: stores outside a buffer
# are a KERNEL_FAULT or stop at a guard page, never the host's heap.
agpu_add_c_test(test_cpu_guard)
set_tests_properties(test_cpu_guard PROPERTIES LABELS cpu)

# One kernel a target cannot express is refused alone (cpu:0 and vulkan:0);
# the program's other kernels run.
agpu_add_c_test(test_kernel_refusal)
set_tests_properties(test_kernel_refusal PROPERTIES LABELS "cpu;vulkan")
# printf in kernels (issue 21): the same lines on every device here.
agpu_add_c_test(test_printf)
target_link_libraries(test_printf PRIVATE m)
set_tests_properties(test_printf PROPERTIES LABELS "cpu;opencl;vulkan")
# Barriers under a condition that differs between work-items (issue 31).
agpu_add_c_test(test_divergent_barriers)
target_link_libraries(test_divergent_barriers PRIVATE m)
set_tests_properties(test_divergent_barriers PROPERTIES LABELS "cpu")

# The gangs of docs/cpu-backend.md vectorise: gcc's -fopt-info-vec on the C
# of the suite's reduce_sum and the benchmark's stream_dot (skipped without gcc).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME test_cpu_gang_vec
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_cpu_gang_vec.py
                   $<TARGET_FILE:anygpu_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(test_cpu_gang_vec PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS cpu)
endif()
# Bounds checking (issue 21): planted out-of-bounds kernels give
# AGPU_ERROR_KERNEL_FAULT with kernel, parameter and element on every device.
agpu_add_c_test(test_bounds)
set_tests_properties(test_bounds PROPERTIES LABELS "cpu;opencl;vulkan")
agpu_add_c_test(test_bounds_proof)
agpu_add_c_test(test_bounds_proof_fuzz)
set_tests_properties(test_bounds_proof_fuzz PROPERTIES LABELS cpu)
set_tests_properties(test_bounds_proof PROPERTIES LABELS "cpu;opencl;vulkan")
# Streaming stores (kernels/emit_c_stream.c): every launch streams
# (ANYGPU_CPU_STREAM_BYTES=0), then the same kernels with ordinary stores;
# element by element against a host reference, outputs poisoned.
agpu_add_c_test(test_cpu_stream)
set_tests_properties(test_cpu_stream PROPERTIES LABELS cpu)
add_test(NAME test_cpu_stream_off COMMAND test_cpu_stream)
set_tests_properties(test_cpu_stream_off PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS cpu
                     ENVIRONMENT ANYGPU_CPU_STREAM_BYTES=off)
# ... and where they are used: in the benchmark's triad, with non-temporal
# stores in its object, and not in kernels that read what they write.
if(Python3_Interpreter_FOUND)
  add_test(NAME test_cpu_stream_c
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_cpu_stream_c.py
                   $<TARGET_FILE:anygpu_cli> ${CMAKE_SOURCE_DIR})
  set_tests_properties(test_cpu_stream_c PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS cpu)
endif()
