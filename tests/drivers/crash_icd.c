// SPDX-License-Identifier: Apache-2.0
/* An OpenCL ICD that crashes the process in clIcdGetPlatformIDsKHR, the
 * first call the ICD loader makes into it: the driver guard's test
 * (tests/test_driver_guard.py, issue 33 item 10). */
#include <signal.h>
#include <string.h>

int clIcdGetPlatformIDsKHR(unsigned entries, void **platforms, unsigned *count);
void *clGetExtensionFunctionAddress(const char *name);

int clIcdGetPlatformIDsKHR(unsigned entries, void **platforms, unsigned *count) {
  (void)entries, (void)platforms, (void)count;
  raise(SIGSEGV);
  return -1001;
}

void *clGetExtensionFunctionAddress(const char *name) {
  return strcmp(name, "clIcdGetPlatformIDsKHR") == 0 ? (void *)clIcdGetPlatformIDsKHR : NULL;
}
