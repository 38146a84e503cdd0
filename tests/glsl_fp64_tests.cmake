# SPDX-License-Identifier: Apache-2.0
# The GLSL double-precision math library (kernels/glsl_fp64_math.c): its text
# compiled by glslangValidator and checked by spirv-val, and its accuracy
# measured by compiling the same text as C with this C compiler and comparing
# with long double references (see the test's header comment).
if(EXISTS ${CMAKE_SOURCE_DIR}/kernels/glsl_fp64_math.c)
  add_executable(test_glsl_fp64_math test_glsl_fp64_math.c test_glsl_fp64_tools.c test_glsl_fp64_c.c
                                    test_glsl_fp64_reference.c test_glsl_fp64_vulkan.c)
  target_link_libraries(test_glsl_fp64_math PRIVATE anygpu_static ${CMAKE_DL_LIBS} m)
  target_include_directories(test_glsl_fp64_math PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_SOURCE_DIR}/kernels
                                                         ${CMAKE_SOURCE_DIR}/api)
  target_compile_definitions(test_glsl_fp64_math PRIVATE _GNU_SOURCE AGPU_TEST_CC="${CMAKE_C_COMPILER}")
  add_test(NAME test_glsl_fp64_math COMMAND test_glsl_fp64_math)
  set_tests_properties(test_glsl_fp64_math PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()

# Rounding doubles to integers on every device against the host's C library,
# bit for bit; on Vulkan as anygpu chooses after its probe, with the software
# versions and with the driver's own (test_f64_rounding.c).
add_executable(test_f64_rounding test_f64_rounding.c)
target_link_libraries(test_f64_rounding PRIVATE anygpu m)
target_include_directories(test_f64_rounding PRIVATE ${CMAKE_SOURCE_DIR}/tests)
target_compile_definitions(test_f64_rounding PRIVATE _GNU_SOURCE)
add_test(NAME test_f64_rounding COMMAND test_f64_rounding)
set_tests_properties(test_f64_rounding PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                     ENVIRONMENT "${AGPU_VULKAN_TEST_ENV}")
