# Installs the built project into a scratch prefix, then builds
# examples/vector_add.c against it as a user would: through
# find_package(anygpu) (shared and static) and through pkg-config, and runs
# each binary, which must verify on the device it selects. EXTRA_FLAGS
# carries a sanitized build's flags to the consumer.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# find_package
file(MAKE_DIRECTORY ${WORK_DIR}/consumer)
file(WRITE ${WORK_DIR}/consumer/CMakeLists.txt
"cmake_minimum_required(VERSION 3.25)
project(consumer C)
find_package(anygpu REQUIRED)
add_executable(vector_add ${SOURCE_DIR}/examples/vector_add.c)
target_link_libraries(vector_add PRIVATE anygpu::anygpu m)
add_executable(vector_add_static ${SOURCE_DIR}/examples/vector_add.c)
target_link_libraries(vector_add_static PRIVATE anygpu::anygpu_static m)
")
run(${CMAKE_COMMAND} -S ${WORK_DIR}/consumer -B ${WORK_DIR}/consumer/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} "-DCMAKE_C_FLAGS=${EXTRA_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer/build)

# pkg-config
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig:${prefix}/lib/x86_64-linux-gnu/pkgconfig)
  run(${PKG_CONFIG} --cflags --libs anygpu)
  string(STRIP "${last_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  separate_arguments(extra UNIX_COMMAND "${EXTRA_FLAGS}")
  run(cc -std=c11 ${extra} ${SOURCE_DIR}/examples/vector_add.c ${flags} -lm -o ${WORK_DIR}/vector_add_pc)
else()
  message(STATUS "pkg-config not found: the pkg-config check is skipped")
endif()

foreach(exe ${WORK_DIR}/consumer/build/vector_add ${WORK_DIR}/consumer/build/vector_add_static
        ${WORK_DIR}/vector_add_pc)
  if(EXISTS ${exe})
    set(ENV{LD_LIBRARY_PATH} ${prefix}/lib:${prefix}/lib/x86_64-linux-gnu)
    run(${exe})
    message(STATUS "${exe}: ${last_output}")
  endif()
endforeach()
