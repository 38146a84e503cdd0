# The spirv translation target (kernels/spirv/, cmake/glslang.cmake), through
# the public API: with glslang the module's header and compile times, without
# it the AGPU_ERROR_UNSUPPORTED answer.
agpu_add_c_test(test_spirv)
if(AGPU_WITH_GLSLANG)
  target_compile_definitions(test_spirv PRIVATE AGPU_TEST_HAVE_GLSLANG)
endif()
