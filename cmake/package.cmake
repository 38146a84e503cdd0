# SPDX-License-Identifier: Apache-2.0
# Packages with CPack (docs/releasing.md): `cpack -G DEB` and `cpack -G TGZ`
# in a build folder. One package holds everything `cmake --install` puts in
# place: libanygpu.so and libanygpu.a, anygpu.h, the pkg-config and CMake
# package files, the anygpu command, the license and changelog. Configure with
# -DCMAKE_INSTALL_PREFIX=/usr for the .deb so that GNUInstallDirs chooses
# Debian's multiarch lib/<triplet> folder.
install(FILES LICENSE CHANGELOG.md README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# libanygpu.so contains glslang and SPIRV-Tools: their notices go with it
# (docs/design.md, "License").
if(AGPU_WITH_GLSLANG)
  foreach(dependency glslang-dev spirv-tools)
    if(EXISTS /usr/share/doc/${dependency}/copyright)
      install(FILES /usr/share/doc/${dependency}/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR}
              RENAME copyright.${dependency})
    endif()
  endforeach()
endif()

set(CPACK_PACKAGE_NAME anygpu)
set(CPACK_PACKAGE_VENDOR "the anygpu project")
# The Maintainer field: the project has no list address yet (docs/releasing.md).
set(CPACK_PACKAGE_CONTACT "anygpu maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "one C API for GPU compute over CUDA, HIP, OpenCL, Vulkan and the CPU")
set(CPACK_PACKAGE_DESCRIPTION
    "anygpu enumerates devices, moves buffers and launches kernels written once in a portable
subset of OpenCL C, dispatching at run time to CUDA, HIP/ROCm, OpenCL, Vulkan compute or a
built-in CPU backend. Every vendor library is opened at run time: a missing one makes its
backend unavailable with a reason. The anygpu command lists the GPUs a system exposes and
explains a missing backend (anygpu doctor).")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)

# .tar.gz: anygpu-VERSION-Linux-ARCH/{bin,include,lib,share}, relocatable
# (the .pc and CMake files find their prefix from where they lie, the
# command finds the library through its $ORIGIN rpath).
set(CPACK_PACKAGE_FILE_NAME anygpu-${PROJECT_VERSION}-${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR})

# .deb: anygpu_VERSION_ARCH.deb. Every backend is optional at run time, so
# the loaders are recommended, not required; the CPU backend compiles the
# kernels it runs with the system C compiler.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ocl-icd-libopencl1 | libopencl1, libvulkan1, gcc | c-compiler")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "pocl-opencl-icd, mesa-vulkan-drivers, glslang-dev, spirv-tools, pkg-config, cmake")
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON) # shlibs, and the ldconfig trigger
find_program(AGPU_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(AGPU_DPKG_SHLIBDEPS)
  # Depends: from what the binaries link (libc6, libstdc++6, libgcc-s1);
  # the command's libanygpu.so.0 is the package's own.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR})
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libstdc++6, libgcc-s1")
endif()

include(CPack)
