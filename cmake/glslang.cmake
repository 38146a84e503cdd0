# SPDX-License-Identifier: Apache-2.0
# GLSL to SPIR-V inside the library (the `spirv` translation target), with
# glslang's C interface linked from the static archives of Debian's
# glslang-dev and spirv-tools (libshaderc.so.1 on Debian 12 cannot be loaded
# or linked). The archives are position-independent, so they go into
# libanygpu.so too, their symbols kept hidden (--exclude-libs); libanygpu then
# needs libstdc++ and libm. Without them the spirv target reports
# AGPU_ERROR_UNSUPPORTED and says what to install.
find_path(AGPU_GLSLANG_INCLUDE_DIR glslang/Include/glslang_c_interface.h)
find_path(AGPU_GLSLANG_RESOURCE_INCLUDE_DIR glslang/Public/resource_limits_c.h)
# In link order: each archive needs only those after it.
set(AGPU_GLSLANG_ARCHIVES glslang-default-resource-limits glslang SPIRV SPIRV-Tools-opt
                          SPIRV-Tools MachineIndependent GenericCodeGen OSDependent OGLCompiler)
set(AGPU_GLSLANG_MISSING "")
if(NOT AGPU_GLSLANG_INCLUDE_DIR OR NOT AGPU_GLSLANG_RESOURCE_INCLUDE_DIR)
  set(AGPU_GLSLANG_MISSING "glslang/Include/glslang_c_interface.h or glslang/Public/resource_limits_c.h")
endif()
set(AGPU_GLSLANG_LIBRARIES "")
foreach(archive ${AGPU_GLSLANG_ARCHIVES})
  find_library(AGPU_GLSLANG_LIB_${archive} NAMES lib${archive}.a)
  if(AGPU_GLSLANG_LIB_${archive})
    list(APPEND AGPU_GLSLANG_LIBRARIES ${AGPU_GLSLANG_LIB_${archive}})
  else()
    string(APPEND AGPU_GLSLANG_MISSING " lib${archive}.a")
  endif()
endforeach()
if(AGPU_GLSLANG_MISSING STREQUAL "")
  set(AGPU_GLSLANG_FOUND ON)
else()
  set(AGPU_GLSLANG_FOUND OFF)
endif()

option(AGPU_WITH_GLSLANG "Compile GLSL to SPIR-V in the library with glslang (glslang-dev)"
       ${AGPU_GLSLANG_FOUND})
if(AGPU_WITH_GLSLANG AND NOT AGPU_GLSLANG_FOUND)
  message(FATAL_ERROR "anygpu: AGPU_WITH_GLSLANG is ON but glslang is missing: "
                      "${AGPU_GLSLANG_MISSING} (install glslang-dev and spirv-tools)")
elseif(AGPU_WITH_GLSLANG)
  # glslang is called from C++ only (kernels/spirv/glslang_guard.cpp), which
  # catches its exceptions: none may cross the C API.
  enable_language(CXX)
  message(STATUS "anygpu: SPIR-V target enabled (glslang static archives in "
                 "${AGPU_GLSLANG_INCLUDE_DIR}, ${AGPU_GLSLANG_LIB_glslang})")
  target_sources(anygpu_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../kernels/spirv/glslang_compile.c
                                        ${CMAKE_CURRENT_LIST_DIR}/../kernels/spirv/glslang_guard.cpp)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/../kernels/spirv/glslang_guard.cpp
                              PROPERTIES COMPILE_OPTIONS "-std=c++17")
  target_include_directories(anygpu_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../kernels/spirv)
  target_compile_definitions(anygpu_objects PRIVATE AGPU_HAVE_GLSLANG)
  set(AGPU_GLSLANG_LINK ${AGPU_GLSLANG_LIBRARIES} stdc++ m Threads::Threads)
  target_link_libraries(anygpu PRIVATE ${AGPU_GLSLANG_LINK})
  target_link_options(anygpu PRIVATE LINKER:--exclude-libs,ALL)
  # The static archive, and programs linking the objects themselves (the
  # translator's tests), leave them to the final link.
  target_link_libraries(anygpu_static INTERFACE ${AGPU_GLSLANG_LINK})
  target_link_libraries(anygpu_objects INTERFACE ${AGPU_GLSLANG_LINK})
elseif(AGPU_GLSLANG_FOUND)
  message(STATUS "anygpu: SPIR-V target disabled (AGPU_WITH_GLSLANG=OFF): "
                 "it will report itself unsupported")
else()
  message(STATUS "anygpu: glslang not found (${AGPU_GLSLANG_MISSING}; install glslang-dev): "
                 "the SPIR-V target will report itself unsupported")
endif()
