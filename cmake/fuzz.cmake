# A libFuzzer target for the kernel-language translator (tests/fuzz/).
#
#   cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DAGPU_FUZZ=ON
#   cmake --build build-fuzz --target fuzz_translator
#
# or scripts/fuzz.sh SECONDS, which also runs it with the dictionary and the
# kernel corpus as seeds. The translator (kernels/*.c, which needs nothing
# from api/) is compiled again with coverage instrumentation and ASan/UBSan;
# the rest of the build is unchanged.
option(AGPU_FUZZ "Build the libFuzzer target for the translator (needs clang)" OFF)
if(NOT AGPU_FUZZ)
  return()
endif()
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "AGPU_FUZZ needs clang (-DCMAKE_C_COMPILER=clang), not ${CMAKE_C_COMPILER_ID}")
endif()

set(AGPU_FUZZ_FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                    -fno-omit-frame-pointer -g)
file(GLOB AGPU_FUZZ_TRANSLATOR_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/kernels/*.c)
include(${CMAKE_CURRENT_LIST_DIR}/translator_version.cmake)
agpu_translator_version_source(AGPU_FUZZ_TRANSLATOR_VERSION_SOURCE)
add_library(agpu_fuzz_translator OBJECT ${AGPU_FUZZ_TRANSLATOR_SOURCES}
                                        ${AGPU_FUZZ_TRANSLATOR_VERSION_SOURCE})
target_include_directories(agpu_fuzz_translator PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/kernels
                                                       ${CMAKE_CURRENT_SOURCE_DIR}/api)
target_compile_definitions(agpu_fuzz_translator PRIVATE AGPU_BUILDING_LIBRARY _GNU_SOURCE)
target_compile_options(agpu_fuzz_translator PRIVATE ${AGPU_FUZZ_FLAGS})

add_executable(fuzz_translator ${CMAKE_CURRENT_SOURCE_DIR}/tests/fuzz/fuzz_translator.c)
target_compile_options(fuzz_translator PRIVATE ${AGPU_FUZZ_FLAGS})
target_compile_definitions(fuzz_translator PRIVATE _GNU_SOURCE)
target_link_libraries(fuzz_translator PRIVATE agpu_fuzz_translator m)
target_link_options(fuzz_translator PRIVATE -fsanitize=fuzzer,address,undefined)
