# SPDX-License-Identifier: Apache-2.0
# The version is set in api/anygpu.h and read by CMake (VERSION); the places
# that cannot read it must agree: the Python package's pyproject.toml, and
# CHANGELOG.md, which has a section for it (docs/releasing.md).
file(READ ${SOURCE_DIR}/python/pyproject.toml pyproject)
string(REGEX MATCH "\nversion = \"([^\"]*)\"" _ "${pyproject}")
if(NOT CMAKE_MATCH_1 STREQUAL VERSION)
  message(FATAL_ERROR "python/pyproject.toml says version \"${CMAKE_MATCH_1}\", "
                      "api/anygpu.h ${VERSION}")
endif()
file(READ ${SOURCE_DIR}/CHANGELOG.md changelog)
string(REPLACE "." "\\." version_regex "${VERSION}")
if(NOT changelog MATCHES "\n## (\\[?Unreleased\\]? \\()?${version_regex}[ )]")
  message(FATAL_ERROR "CHANGELOG.md has no section for ${VERSION} (## ${VERSION} - DATE)")
endif()
message(STATUS "version ${VERSION}: api/anygpu.h, python/pyproject.toml and CHANGELOG.md agree")
