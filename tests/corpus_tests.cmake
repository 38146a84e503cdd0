# SPDX-License-Identifier: Apache-2.0
# The kernel corpus (tests/kernels/README.md): every valid kernel runs on the
# oracle (PoCL, opencl:0) and on every other device that can build it, and is
# compared with the oracle; every invalid kernel's header is checked, and each
# device with a translator must reject it at the declared line and column.
# Included from tests/CMakeLists.txt.
set(AGPU_CORPUS_LIBRARY_SOURCES corpus/corpus_parse.c corpus/corpus_types.c corpus/corpus_data.c
                                corpus/corpus_compare.c corpus/corpus_run.c)
foreach(name test_corpus test_corpus_self)
  add_executable(${name} corpus/${name}.c ${AGPU_CORPUS_LIBRARY_SOURCES})
  target_link_libraries(${name} PRIVATE anygpu m)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_LIST_DIR}
                                             ${CMAKE_CURRENT_LIST_DIR}/corpus)
  target_compile_definitions(${name} PRIVATE _GNU_SOURCE)
endforeach()

set(AGPU_CORPUS_DIR ${CMAKE_CURRENT_LIST_DIR}/kernels)
# The runner's own parts, without a device.
add_test(NAME test_corpus_self COMMAND test_corpus_self)
# Vulkan runs the corpus per kernel with the validation layer on
# (vulkan_tests.cmake), where kernels hit by known GLSL emitter bugs are marked.
add_test(NAME test_corpus_valid COMMAND test_corpus ${AGPU_CORPUS_DIR} --device "*:*;!vulkan:*")
add_test(NAME test_corpus_invalid COMMAND test_corpus ${AGPU_CORPUS_DIR} --check-invalid)
# PoCL compiles each kernel in 0.1 to 1.5 s on a cold cache (it keeps its own
# on-disk cache): about 30 s for the corpus cold on 2 cores, 5 s warm.
set_tests_properties(test_corpus_self test_corpus_valid test_corpus_invalid
                     PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS corpus)
