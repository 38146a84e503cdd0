// SPDX-License-Identifier: Apache-2.0
/* The installed header on its own, compiled by tests/release_tests.cmake as
 * C11, C17 and C++17 with -Wall -Wextra -pedantic -Werror: it must need
 * nothing else and warn about nothing in any of them. */
#include <anygpu.h>

static const char header_version[] = AGPU_VERSION_STRING;

int main(void) {
  agpu_device *device = NULL;
  agpu_status status = agpu_device_select(NULL, &device);
  return status == AGPU_SUCCESS && header_version[0] != '\0' ? 0 : 1;
}
