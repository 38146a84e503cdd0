// SPDX-License-Identifier: Apache-2.0
/* Device selectors, on the devices this machine really has. The built-in CPU
 * device is always there, so every case can run. */
#include <stdlib.h>

#include "agpu_test.h"

static agpu_device *select_one(const char *selector) {
  agpu_device *device = NULL;
  agpu_status status = agpu_device_select(selector, &device);
  if (status)
    printf("  select('%s'): %s: %s\n", selector, agpu_status_name(status), agpu_last_error());
  return device;
}

static const char *selector_of(agpu_device *device) {
  static agpu_device_info info;
  if (!device || agpu_device_get_info(device, &info)) return "(none)";
  return info.selector;
}

static void cpu_index_selects_builtin_cpu(void) {
  agpu_device *device = select_one("cpu:0");
  CHECK(device != NULL);
  CHECK(strcmp(selector_of(device), "cpu:0") == 0);
  CHECK(strcmp(selector_of(select_one(" cpu : 0 ")), "cpu:0") == 0);
  CHECK(strcmp(selector_of(select_one("cpu")), "cpu:0") == 0);
  CHECK(strcmp(selector_of(select_one("cpu:*")), "cpu:0") == 0);
  CHECK(strcmp(selector_of(select_one("cpu:0,5")), "cpu:0") == 0);
}

static void star_cpu_matches_every_cpu_device(void) {
  uint32_t total = 0, cpus = 0, count = 0;
  CHECK_OK(agpu_device_count(&total));
  for (uint32_t i = 0; i < total; i++) {
    agpu_device *device;
    agpu_device_info info;
    CHECK_OK(agpu_device_get(i, &device));
    CHECK_OK(agpu_device_get_info(device, &info));
    cpus += info.type == AGPU_DEVICE_TYPE_CPU;
  }
  CHECK_OK(agpu_device_select_all("*:cpu", NULL, 0, &count));
  CHECK(count == cpus);
  CHECK_OK(agpu_device_select_all("*:*", NULL, 0, &count));
  CHECK(count == total);
}

static void terms_are_tried_in_order(void) {
  uint32_t total = 0;
  CHECK_OK(agpu_device_count(&total));
  agpu_device **devices = calloc(total, sizeof *devices);
  uint32_t count = 0;
  CHECK_OK(agpu_device_select_all("cpu:0;*:*", devices, total, &count));
  CHECK(count == total);
  CHECK(count > 0 && strcmp(selector_of(devices[0]), "cpu:0") == 0);
  free(devices);
}

static void exclusion_removes_devices(void) {
  uint32_t all = 0, without_cpu = 0, only_neg = 0;
  CHECK_OK(agpu_device_select_all("*:*", NULL, 0, &all));
  CHECK_OK(agpu_device_select_all("*:*;!cpu:*", NULL, 0, &without_cpu));
  CHECK(without_cpu == all - 1);
  CHECK_OK(agpu_device_select_all("!cpu:0", NULL, 0, &only_neg));
  CHECK(only_neg == all - 1);
  agpu_device *device = NULL;
  CHECK_STATUS(agpu_device_select("cpu:*;!cpu:0", &device), AGPU_ERROR_NOT_FOUND);
  CHECK(device == NULL);
}

static void bad_selectors_are_rejected(void) {
  agpu_device *device = NULL;
  CHECK_STATUS(agpu_device_select("bogus:7", &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("unknown backend 'bogus'");
  CHECK(strchr(agpu_last_error(), '\n') == NULL); /* one line */
  CHECK_STATUS(agpu_device_select("cpu:x", &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("bad device filter 'x'");
  CHECK_STATUS(agpu_device_select("cpu:99999999999", &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(agpu_device_select(":0", &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("missing backend name");
  CHECK_STATUS(agpu_device_select(";;", &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("empty device selector");
  CHECK_STATUS(agpu_device_select("cpu:7", &device), AGPU_ERROR_NOT_FOUND);
  CHECK_MESSAGE("no device matches selector 'cpu:7'");
  CHECK_MESSAGE("cpu has 1");
  CHECK(device == NULL);
  CHECK_STATUS(agpu_device_select("cpu:0", NULL), AGPU_ERROR_INVALID_ARGUMENT);
}

static void environment_variable_is_the_default(void) {
  setenv("ANYGPU_DEVICE", "cpu:0", 1);
  CHECK(strcmp(selector_of(select_one(NULL)), "cpu:0") == 0);
  CHECK(strcmp(selector_of(select_one("")), "cpu:0") == 0);
  setenv("ANYGPU_DEVICE", "bogus:7", 1);
  agpu_device *device = NULL;
  CHECK_STATUS(agpu_device_select(NULL, &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("from ANYGPU_DEVICE");
  /* An explicit selector wins over the variable. */
  CHECK(strcmp(selector_of(select_one("cpu:0")), "cpu:0") == 0);
  unsetenv("ANYGPU_DEVICE");
}

static void default_prefers_a_device_that_builds(void) {
  /* With no selector: a GPU if there is one, else a CPU device whose backend
   * can build kernels (PoCL here, until the CPU backend runs kernels). */
  unsetenv("ANYGPU_DEVICE");
  agpu_device *best = select_one(NULL);
  CHECK(best != NULL);
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(best, &info));
  uint32_t gpus = 0;
  CHECK_OK(agpu_device_select_all("*:gpu", NULL, 0, &gpus));
  if (gpus) CHECK(info.type != AGPU_DEVICE_TYPE_CPU);
}

int main(void) {
  RUN(cpu_index_selects_builtin_cpu);
  RUN(star_cpu_matches_every_cpu_device);
  RUN(terms_are_tried_in_order);
  RUN(exclusion_removes_devices);
  RUN(bad_selectors_are_rejected);
  RUN(environment_variable_is_the_default);
  RUN(default_prefers_a_device_that_builds);
  return agpu_test_finish();
}
