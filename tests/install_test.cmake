# SPDX-License-Identifier: Apache-2.0
# Installs the built project into a scratch prefix, then builds
# examples/vector_add.c against it out of tree, as a user would, and runs
# each binary (it verifies its result on the device it selects):
# - find_package(anygpu) with anygpu::anygpu and anygpu::anygpu_static;
# - pkg-config, shared, with an rpath to the prefix (run without
#   LD_LIBRARY_PATH, as the README says);
# - pkg-config --static against a prefix holding only libanygpu.a, so that
#   the link must take everything from Libs.private (glslang's archives,
#   libstdc++, -lm -ldl -lpthread); the binary must not need libanygpu.so;
# - the README's static line beside the shared library (anygpu-static.pc).
# EXTRA_FLAGS carries a sanitized build's flags to the consumer; C_COMPILER
# and LIBDIR are the build's compiler and CMAKE_INSTALL_LIBDIR.
# With INSTALLED_PREFIX (scripts/deb-test.sh: /usr after installing the
# .deb) nothing is installed: the consumers use the package already there,
# and the archive-only prefix is left out (it needs BUILD_DIR).
file(REMOVE_RECURSE ${WORK_DIR})
if(INSTALLED_PREFIX)
  set(prefix ${INSTALLED_PREFIX})
else()
  set(prefix ${WORK_DIR}/prefix)
endif()
if(NOT C_COMPILER)
  set(C_COMPILER cc)
endif()
if(NOT LIBDIR)
  set(LIBDIR lib)
endif()
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

if(NOT INSTALLED_PREFIX)
  run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
endif()
separate_arguments(extra UNIX_COMMAND "${EXTRA_FLAGS}")
# The example is built from a copy beside the consumers, out of the tree.
file(COPY ${SOURCE_DIR}/examples/vector_add.c DESTINATION ${WORK_DIR}/example)
set(example ${WORK_DIR}/example/vector_add.c)
set(binaries "")

# find_package
file(MAKE_DIRECTORY ${WORK_DIR}/consumer)
file(WRITE ${WORK_DIR}/consumer/CMakeLists.txt
"cmake_minimum_required(VERSION 3.25)
project(consumer C)
find_package(anygpu REQUIRED)
add_executable(vector_add ${example})
target_link_libraries(vector_add PRIVATE anygpu::anygpu m)
add_executable(vector_add_static ${example})
target_link_libraries(vector_add_static PRIVATE anygpu::anygpu_static m)
")
run(${CMAKE_COMMAND} -S ${WORK_DIR}/consumer -B ${WORK_DIR}/consumer/build -G ${GENERATOR}
    -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${prefix} "-DCMAKE_C_FLAGS=${EXTRA_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer/build)
list(APPEND binaries ${WORK_DIR}/consumer/build/vector_add ${WORK_DIR}/consumer/build/vector_add_static)

find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  # Shared, with an rpath: runs without LD_LIBRARY_PATH.
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
  run(${PKG_CONFIG} --cflags --libs anygpu)
  string(STRIP "${last_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(${C_COMPILER} -std=c11 ${extra} ${example} ${flags} -Wl,-rpath,${prefix}/${LIBDIR} -lm
      -o ${WORK_DIR}/vector_add_pc)
  list(APPEND binaries ${WORK_DIR}/vector_add_pc)
  # Static beside the shared library, the README's line: anygpu-static.pc.
  run(${PKG_CONFIG} --cflags --libs anygpu-static)
  string(STRIP "${last_output}" static_flags)
  separate_arguments(static_flags UNIX_COMMAND "${static_flags}")
  run(${C_COMPILER} -std=c11 ${extra} ${example} ${static_flags} -lm
      -o ${WORK_DIR}/vector_add_pc_static_beside)
  run(readelf -d ${WORK_DIR}/vector_add_pc_static_beside)
  if(last_output MATCHES "libanygpu")
    message(FATAL_ERROR "vector_add_pc_static_beside needs libanygpu.so:\n${last_output}")
  endif()
  list(APPEND binaries ${WORK_DIR}/vector_add_pc_static_beside)
endif()
if(PKG_CONFIG AND NOT INSTALLED_PREFIX)
  # Static, from a prefix with only the archive.
  set(static_prefix ${WORK_DIR}/prefix-static)
  run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${static_prefix})
  file(GLOB shared_objects ${static_prefix}/${LIBDIR}/libanygpu.so*)
  file(REMOVE ${shared_objects})
  set(ENV{PKG_CONFIG_PATH} ${static_prefix}/${LIBDIR}/pkgconfig)
  run(${PKG_CONFIG} --static --cflags --libs anygpu)
  string(STRIP "${last_output}" flags)
  message(STATUS "pkg-config --static --libs anygpu: ${flags}")
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(${C_COMPILER} -std=c11 ${extra} ${example} ${flags} -lm -o ${WORK_DIR}/vector_add_pc_static)
  run(readelf -d ${WORK_DIR}/vector_add_pc_static)
  if(last_output MATCHES "libanygpu")
    message(FATAL_ERROR "vector_add_pc_static needs libanygpu.so:\n${last_output}")
  endif()
  list(APPEND binaries ${WORK_DIR}/vector_add_pc_static)
endif()
if(NOT PKG_CONFIG)
  message(STATUS "pkg-config not found: the pkg-config checks are skipped")
endif()

foreach(exe ${binaries})
  run(${exe} 4099)
  message(STATUS "${exe}: ${last_output}")
endforeach()
