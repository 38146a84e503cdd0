# SPDX-License-Identifier: Apache-2.0
# Release checks (docs/releasing.md).
set(AGPU_SOURCE ${CMAKE_SOURCE_DIR})

# Every source file carries the license identifier.
add_test(NAME test_spdx COMMAND bash ${AGPU_SOURCE}/scripts/spdx.sh --check)

# libanygpu.so exports agpu_* only, and everything anygpu.h declares.
add_test(NAME test_exported_symbols
         COMMAND bash ${AGPU_SOURCE}/scripts/check-symbols.sh $<TARGET_FILE:anygpu>
                 ${AGPU_SOURCE}/api/anygpu.h)

# anygpu.h alone, as C11, C17 and C++17, without a warning.
set(AGPU_HEADER_FLAGS -Wall -Wextra -pedantic -Werror -fsyntax-only -I${AGPU_SOURCE}/api)
foreach(standard c11 c17)
  add_test(NAME test_header_${standard}
           COMMAND ${CMAKE_C_COMPILER} -std=${standard} ${AGPU_HEADER_FLAGS} -x c
                   ${CMAKE_CURRENT_SOURCE_DIR}/header_check.c)
endforeach()
include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  add_test(NAME test_header_cxx17
           COMMAND ${CMAKE_CXX_COMPILER} -std=c++17 ${AGPU_HEADER_FLAGS} -x c++
                   ${CMAKE_CURRENT_SOURCE_DIR}/header_check.c)
else()
  message(STATUS "anygpu: no C++ compiler: test_header_cxx17 is not registered")
endif()

# The version is the same everywhere it is written down.
add_test(NAME test_version
         COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${AGPU_SOURCE} -DVERSION=${PROJECT_VERSION} -P
                 ${CMAKE_CURRENT_SOURCE_DIR}/version_check.cmake)

# The ABI against the last release's dump (scripts/abi-check.sh): needs
# abigail-tools (skipped without) and debug information.
if(CMAKE_BUILD_TYPE MATCHES "^(RelWithDebInfo|Debug)$")
  add_test(NAME test_abi COMMAND bash ${AGPU_SOURCE}/scripts/abi-check.sh ${CMAKE_BINARY_DIR})
  set_tests_properties(test_abi PROPERTIES SKIP_RETURN_CODE 77)
endif()
