# SPDX-License-Identifier: Apache-2.0
include(CMakePackageConfigHelpers)

install(TARGETS anygpu anygpu_static EXPORT anygpuTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES api/anygpu.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT anygpuTargets NAMESPACE anygpu:: FILE anygpuTargets.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/anygpu)

configure_package_config_file(cmake/anygpuConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/anygpuConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/anygpu)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/anygpuConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/anygpuConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/anygpuConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/anygpu)

# The .pc file finds its prefix from where it lies, so a relocated install works.
file(RELATIVE_PATH AGPU_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" AGPU_PC_TO_PREFIX "${AGPU_PC_TO_PREFIX}")
# Libs.private: what libanygpu.a needs at the final link (pkg-config --static):
# the glslang and SPIRV-Tools archives when it has the SPIR-V target, then
# the C++ runtime they need, then the system libraries.
set(AGPU_PC_LIBS_PRIVATE "")
if(AGPU_WITH_GLSLANG)
  foreach(archive ${AGPU_GLSLANG_LIBRARIES})
    string(APPEND AGPU_PC_LIBS_PRIVATE "${archive} ")
  endforeach()
  string(APPEND AGPU_PC_LIBS_PRIVATE "-lstdc++ ")
endif()
string(APPEND AGPU_PC_LIBS_PRIVATE "-lm -ldl -lpthread")
configure_file(cmake/anygpu.pc.in ${CMAKE_CURRENT_BINARY_DIR}/anygpu.pc @ONLY)
# anygpu-static.pc names the archive itself: beside libanygpu.so, -lanygpu
# would pick the shared library whatever --static says.
configure_file(cmake/anygpu-static.pc.in ${CMAKE_CURRENT_BINARY_DIR}/anygpu-static.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/anygpu.pc ${CMAKE_CURRENT_BINARY_DIR}/anygpu-static.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
