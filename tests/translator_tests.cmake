# SPDX-License-Identifier: Apache-2.0
# The kernel-language front end's tests. They call the translator's kl_
# functions, which the shared library keeps hidden, so they link the
# library's objects directly.
foreach(name test_translator_frontend test_translator_corpus test_translator_include
             test_translator_features test_fuzz_regressions)
  add_executable(${name} ${name}.c)
  target_link_libraries(${name} PRIVATE anygpu_objects Threads::Threads ${CMAKE_DL_LIBS} m)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_SOURCE_DIR}/kernels)
  target_compile_definitions(${name} PRIVATE _GNU_SOURCE
                                             AGPU_KERNEL_CORPUS="${CMAKE_SOURCE_DIR}/tests/kernels")
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
