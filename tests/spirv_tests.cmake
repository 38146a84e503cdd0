# SPDX-License-Identifier: Apache-2.0
# The spirv translation target (kernels/spirv/, cmake/glslang.cmake), through
# the public API: with glslang the module's header and compile times, without
# it the AGPU_ERROR_UNSUPPORTED answer.
agpu_add_c_test(test_spirv)
if(AGPU_WITH_GLSLANG)
  target_compile_definitions(test_spirv PRIVATE AGPU_TEST_HAVE_GLSLANG)
endif()

# glslang's exceptions stay inside the library (kernels/spirv/glslang_guard.cpp):
# a replaced operator new throws std::bad_alloc at the Nth allocation. It
# links the library's objects, so that its operator new is glslang's.
if(AGPU_WITH_GLSLANG)
  add_executable(test_glslang_exceptions test_glslang_exceptions.cpp)
  target_link_libraries(test_glslang_exceptions PRIVATE anygpu_objects Threads::Threads
                        ${CMAKE_DL_LIBS} m)
  target_include_directories(test_glslang_exceptions PRIVATE ${CMAKE_SOURCE_DIR}/tests)
  set_target_properties(test_glslang_exceptions PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
  add_test(NAME test_glslang_exceptions COMMAND test_glslang_exceptions)
  set_tests_properties(test_glslang_exceptions PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
