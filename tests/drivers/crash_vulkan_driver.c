// SPDX-License-Identifier: Apache-2.0
/* A Vulkan driver whose constructor crashes the process as the loader opens
 * it: the driver guard's test (tests/test_driver_guard.py, issue 33 item 10). */
#include <signal.h>
#include <stddef.h>

typedef void (*vk_void_function)(void);
vk_void_function vk_icdGetInstanceProcAddr(void *instance, const char *name);

__attribute__((constructor)) static void crash_on_load(void) {
  raise(SIGSEGV);
}

vk_void_function vk_icdGetInstanceProcAddr(void *instance, const char *name) {
  (void)instance, (void)name;
  return NULL;
}
