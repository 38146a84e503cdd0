# SPDX-License-Identifier: Apache-2.0
# anygpu._speedups, the package's C extension (src/_speedups.c): the launch
# and DLPack capsules. pyproject.toml has CMake include this file right
# after the repository's project() (CMAKE_PROJECT_anygpu_INCLUDE), so that the
# C library's CMakeLists.txt stays as it is. The extension links nothing of
# anygpu (it gets agpu_launch's address from the ctypes-loaded library); where
# Python's headers are missing it is left out and the package runs on ctypes
# alone.
if(DEFINED SKBUILD_PLATLIB_DIR)
  find_package(Python 3.9 COMPONENTS Interpreter Development.Module)
  if(Python_Development.Module_FOUND)
    Python_add_library(_speedups MODULE WITH_SOABI "${CMAKE_CURRENT_LIST_DIR}/src/_speedups.c")
    set_target_properties(_speedups PROPERTIES C_STANDARD 11 C_VISIBILITY_PRESET hidden)
    install(TARGETS _speedups LIBRARY DESTINATION "${SKBUILD_PLATLIB_DIR}/anygpu")
  else()
    message(WARNING "anygpu: no Python headers (python3-dev): the package is built without "
                    "its C extension; launches and get() work, slower, and DLPack is off")
  endif()
endif()
