// SPDX-License-Identifier: Apache-2.0
/* libFuzzer target for device selectors ("cuda:0;!opencl:*", "phys:1",
 * "pci:0000:01:00.0", "*:gpu@local", api/selector.c and the PCI address
 * parser): the input, cut at its first NUL, is a selector given to
 * agpu_device_select_all and agpu_device_select over the devices of this
 * machine (the fuzz build has the CPU backend; the others report themselves
 * unavailable).
 *
 * Besides crashes, leaks and sanitizer reports, the two calls must agree:
 * a selector either fails in both with the same status and a message, or
 * matches the same devices, each once, the first of which is the one
 * agpu_device_select returns. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anygpu.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { CAPACITY = 64 };

/* Device discovery happens once, here, so that its allocations are not
 * counted against the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  unsetenv("ANYGPU_DEVICE");
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1); /* "@local" picks by it, modulo */
  agpu_device *devices[CAPACITY];
  uint32_t count = 0;
  agpu_device_select_all("*:*", devices, CAPACITY, &count);
  return 0;
}

static void check(int ok, const char *what, const char *selector) {
  if (ok) return;
  fprintf(stderr, "fuzz_selector: %s for selector \"%s\"\n", what, selector);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *selector = malloc(size + 1);
  if (!selector) return 0;
  memcpy(selector, data, size);
  selector[size] = '\0';
  if (!selector[0]) { /* "" means $ANYGPU_DEVICE or every device: not the parser's */
    free(selector);
    return 0;
  }
  agpu_device *devices[CAPACITY];
  uint32_t count = 0;
  agpu_status all = agpu_device_select_all(selector, devices, CAPACITY, &count);
  char first_error[256];
  snprintf(first_error, sizeof first_error, "%s", agpu_last_error());
  agpu_device *device = NULL;
  agpu_status one = agpu_device_select(selector, &device);
  if (all != AGPU_SUCCESS) {
    check(one == all, "agpu_device_select and agpu_device_select_all disagree", selector);
    check(first_error[0] != '\0', "a failure without a message", selector);
    check(device == NULL, "a failure that returned a device", selector);
  } else if (count == 0) {
    check(one == AGPU_ERROR_NOT_FOUND && device == NULL, "no match but select succeeded", selector);
  } else {
    check(one == AGPU_SUCCESS && device == devices[0], "select is not the first match", selector);
    uint32_t listed = count < CAPACITY ? count : CAPACITY;
    for (uint32_t i = 0; i < listed; i++)
      for (uint32_t j = i + 1; j < listed; j++)
        check(devices[i] != devices[j], "a device matched twice", selector);
  }
  free(selector);
  return 0;
}
