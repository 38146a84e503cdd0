# SPDX-License-Identifier: Apache-2.0
# libFuzzer targets (tests/fuzz/, docs/fuzzing.md):
#
#   fuzz_translator   kernel source text through the translator and every emitter
#   fuzz_codegen      bytes driving a generator of valid kernels, through every emitter
#   fuzz_selector     device selectors
#   fuzz_cache_entry  bytes as a kernel-cache entry file, through the loader
#
#   cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DAGPU_FUZZ=ON
#   cmake --build build-fuzz --target fuzz_codegen
#
# or scripts/fuzz.sh TARGET SECONDS. The library's portable part (api/,
# kernels/, the CPU backend, and the other backends' stubs, which report
# themselves unavailable) is compiled again with coverage instrumentation and
# ASan/UBSan; the rest of the build is unchanged.
option(AGPU_FUZZ "Build the libFuzzer targets (needs clang)" OFF)
if(NOT AGPU_FUZZ)
  return()
endif()
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "AGPU_FUZZ needs clang (-DCMAKE_C_COMPILER=clang), not ${CMAKE_C_COMPILER_ID}")
endif()

set(AGPU_FUZZ_FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                    -fno-omit-frame-pointer -g)
file(GLOB AGPU_FUZZ_LIBRARY_SOURCES CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_SOURCE_DIR}/kernels/*.c ${CMAKE_CURRENT_SOURCE_DIR}/api/*.c
     ${CMAKE_CURRENT_SOURCE_DIR}/backends/cpu/*.c ${CMAKE_CURRENT_SOURCE_DIR}/backends/cuda/*.c
     ${CMAKE_CURRENT_SOURCE_DIR}/backends/hip/*.c ${CMAKE_CURRENT_SOURCE_DIR}/backends/null/*.c)
list(APPEND AGPU_FUZZ_LIBRARY_SOURCES
     ${CMAKE_CURRENT_SOURCE_DIR}/backends/vulkan/vulkan_backend.c
     ${CMAKE_CURRENT_SOURCE_DIR}/backends/opencl/opencl_backend.c)
include(${CMAKE_CURRENT_LIST_DIR}/translator_version.cmake)
agpu_translator_version_source(AGPU_FUZZ_TRANSLATOR_VERSION_SOURCE)
add_library(agpu_fuzz_library OBJECT ${AGPU_FUZZ_LIBRARY_SOURCES}
                                     ${AGPU_FUZZ_TRANSLATOR_VERSION_SOURCE})
target_include_directories(agpu_fuzz_library PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/kernels
                                                    ${CMAKE_CURRENT_SOURCE_DIR}/api)
target_compile_definitions(agpu_fuzz_library PRIVATE AGPU_BUILDING_LIBRARY _GNU_SOURCE)
target_compile_options(agpu_fuzz_library PRIVATE ${AGPU_FUZZ_FLAGS})

foreach(target fuzz_translator fuzz_codegen fuzz_selector fuzz_cache_entry)
  set(sources ${CMAKE_CURRENT_SOURCE_DIR}/tests/fuzz/${target}.c)
  if(target STREQUAL "fuzz_codegen")
    foreach(part kernel_gen kernel_gen_expr kernel_gen_vector kernel_gen_stmt)
      list(APPEND sources ${CMAKE_CURRENT_SOURCE_DIR}/tests/fuzz/${part}.c)
    endforeach()
  endif()
  add_executable(${target} ${sources})
  target_compile_options(${target} PRIVATE ${AGPU_FUZZ_FLAGS})
  target_compile_definitions(${target} PRIVATE _GNU_SOURCE)
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests/fuzz)
  target_link_libraries(${target} PRIVATE agpu_fuzz_library Threads::Threads ${CMAKE_DL_LIBS} m)
  target_link_options(${target} PRIVATE -fsanitize=fuzzer,address,undefined)
endforeach()
add_custom_target(fuzz_targets DEPENDS fuzz_translator fuzz_codegen fuzz_selector fuzz_cache_entry)
