# SPDX-License-Identifier: Apache-2.0
# The GPU-target emitters (kernels/emit_opencl.c, emit_cuda.c, emit_glsl.c),
# checked with the real compilers: NVRTC (dlopen) for CUDA, hiprtc where
# ROCm is installed, glslangValidator + spirv-val for GLSL, PoCL for OpenCL.
# Each test says "skipped" with the reason when its compiler is missing.
# The translator's internals (kl_*) are hidden in the shared library, so
# these link the static one.
if(EXISTS ${CMAKE_SOURCE_DIR}/kernels/parse.c AND EXISTS ${CMAKE_SOURCE_DIR}/kernels/emit_cuda.c)
  foreach(name test_emit_cuda test_emit_glsl test_emit_opencl)
    add_executable(${name} ${name}.c)
    target_link_libraries(${name} PRIVATE anygpu_static ${CMAKE_DL_LIBS})
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_SOURCE_DIR}/kernels
                                               ${CMAKE_SOURCE_DIR}/api)
    target_compile_definitions(${name} PRIVATE _GNU_SOURCE
                                               AGPU_KERNELS_DIR="${CMAKE_SOURCE_DIR}/tests/kernels")
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
  endforeach()
endif()
