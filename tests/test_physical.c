// SPDX-License-Identifier: Apache-2.0
/* Physical-device grouping: the grouping rules on staged device
 * descriptions (api/physical_group.c is compiled into this test), then the
 * public API, the physical selectors and the load attempts on the devices
 * this machine really has. */
#include <stdlib.h>

#include "agpu_physical.h"
#include "agpu_test.h"

#define NVIDIA 0x10de
#define AMD 0x1002
#define INTEL 0x8086
#define GIB (1024ull * 1024 * 1024)

static const char *const backend_names[] = {"cuda", "hip", "vulkan", "opencl", "cpu"};

/* A staged device: backend, index, type, vendor, device id, memory. */
static agpu_device_info staged(agpu_backend_kind backend, uint32_t index, agpu_device_type type,
                               uint32_t vendor, uint32_t device_id, uint64_t memory,
                               const char *name) {
  agpu_device_info info;
  memset(&info, 0, sizeof info);
  info.backend = backend;
  info.backend_name = backend_names[backend];
  info.index = index;
  snprintf(info.selector, sizeof info.selector, "%s:%u", backend_names[backend], index);
  snprintf(info.name, sizeof info.name, "%s", name);
  info.type = type;
  info.vendor_id = vendor;
  info.device_id = device_id;
  info.global_mem_bytes = memory;
  return info;
}

static void with_pci(agpu_device_info *info, const char *pci) {
  info->has_pci = true;
  snprintf(info->pci, sizeof info->pci, "%s", pci);
}

static void with_uuid(agpu_device_info *info, uint8_t seed) {
  info->has_uuid = true;
  for (int i = 0; i < 16; i++) info->uuid[i] = (uint8_t)(seed + i);
}

typedef struct grouping {
  uint32_t count;
  agpu_physical_device_info groups[16];
  uint32_t group_of[16];
} grouping;

static void group(const agpu_device_info *devices, uint32_t count, grouping *out) {
  memset(out, 0, sizeof *out);
  out->count = agpu_physical_group(devices, count, out->groups, out->group_of);
}

static bool has_member(const agpu_physical_device_info *group, const char *selector) {
  for (uint32_t i = 0; i < group->member_count; i++)
    if (strcmp(group->members[i], selector) == 0) return true;
  return false;
}

static void nvidia_joins_by_pci_and_uuid(void) {
  agpu_device_info devices[3];
  devices[0] = staged(AGPU_BACKEND_CUDA, 0, AGPU_DEVICE_TYPE_DISCRETE_GPU, NVIDIA, 0x2684, 24 * GIB,
                      "NVIDIA GeForce RTX 4090");
  devices[1] = staged(AGPU_BACKEND_VULKAN, 0, AGPU_DEVICE_TYPE_DISCRETE_GPU, NVIDIA, 0x2684,
                      24 * GIB, "NVIDIA GeForce RTX 4090");
  devices[2] = staged(AGPU_BACKEND_OPENCL, 0, AGPU_DEVICE_TYPE_DISCRETE_GPU, NVIDIA, 0, 23 * GIB,
                      "NVIDIA GeForce RTX 4090");
  with_pci(&devices[0], "0000:01:00.0");
  with_pci(&devices[1], "0000:01:00.0");
  for (int i = 0; i < 3; i++) with_uuid(&devices[i], 7);
  grouping g;
  group(devices, 3, &g);
  CHECK(g.count == 1);
  CHECK(g.groups[0].member_count == 3);
  /* The OpenCL view joined on its UUID alone: the group is as strong as that. */
  CHECK(g.groups[0].match == AGPU_PHYSICAL_MATCH_UUID);
  CHECK(!g.groups[0].uncertain);
  CHECK(g.groups[0].has_pci && strcmp(g.groups[0].pci, "0000:01:00.0") == 0);
  CHECK(strcmp(g.groups[0].id, "phys:0") == 0);
  CHECK(!g.groups[0].duplicate_in_backend);
  CHECK(g.groups[0].global_mem_bytes == 24 * GIB); /* the native backend speaks for it */

  /* Without the OpenCL view, PCI alone joins them. */
  group(devices, 2, &g);
  CHECK(g.count == 1 && g.groups[0].match == AGPU_PHYSICAL_MATCH_PCI);
}

static void amd_uuids_are_not_trusted(void) {
  agpu_device_info devices[2];
  devices[0] = staged(AGPU_BACKEND_HIP, 0, AGPU_DEVICE_TYPE_DISCRETE_GPU, AMD, 0x744c, 24 * GIB,
                      "AMD Radeon RX 7900 XTX");
  devices[1] = staged(AGPU_BACKEND_VULKAN, 0, AGPU_DEVICE_TYPE_DISCRETE_GPU, AMD, 0x73bf, 16 * GIB,
                      "AMD Radeon RX 6800 XT");
  with_pci(&devices[0], "0000:03:00.0");
  with_uuid(&devices[0], 1);
  with_uuid(&devices[1], 1); /* same bytes, but AMD's APIs do not agree on UUIDs */
  grouping g;
  group(devices, 2, &g);
  CHECK(g.count == 2);

  /* Same ids and memory, different backends, no address on one: a guess. */
  devices[1] = staged(AGPU_BACKEND_OPENCL, 0, AGPU_DEVICE_TYPE_DISCRETE_GPU, AMD, 0x744c, 23 * GIB,
                      "gfx1100");
  group(devices, 2, &g);
  CHECK(g.count == 1);
  CHECK(g.groups[0].match == AGPU_PHYSICAL_MATCH_GUESS);
  CHECK(g.groups[0].uncertain);
  CHECK(strcmp(g.groups[0].name, "AMD Radeon RX 7900 XTX") == 0);

  /* Memory that differs by more than an eighth is another card. */
  devices[1].global_mem_bytes = 16 * GIB;
  group(devices, 2, &g);
  CHECK(g.count == 2);
}

static void intel_integrated_joins_by_pci(void) {
  agpu_device_info devices[2];
  devices[0] = staged(AGPU_BACKEND_VULKAN, 0, AGPU_DEVICE_TYPE_INTEGRATED_GPU, INTEL, 0x9a49,
                      8 * GIB, "Intel(R) Xe Graphics (TGL GT2)");
  devices[1] = staged(AGPU_BACKEND_OPENCL, 0, AGPU_DEVICE_TYPE_INTEGRATED_GPU, INTEL, 0x9a49,
                      6 * GIB, "Intel(R) Iris(R) Xe Graphics");
  with_pci(&devices[0], "0000:00:02.0");
  with_pci(&devices[1], "0000:00:02.0");
  with_uuid(&devices[0], 3);
  with_uuid(&devices[1], 9);
  grouping g;
  group(devices, 2, &g);
  CHECK(g.count == 1 && g.groups[0].match == AGPU_PHYSICAL_MATCH_PCI);
  CHECK(g.groups[0].type == AGPU_DEVICE_TYPE_INTEGRATED_GPU);
  /* OpenCL speaks for a GPU before Vulkan. */
  CHECK(strcmp(g.groups[0].name, "Intel(R) Iris(R) Xe Graphics") == 0);
}

static void identical_cards_are_never_guessed(void) {
  agpu_device_info devices[4];
  for (uint32_t i = 0; i < 2; i++) {
    devices[i] = staged(AGPU_BACKEND_CUDA, i, AGPU_DEVICE_TYPE_DISCRETE_GPU, NVIDIA, 0x20b0,
                        40 * GIB, "NVIDIA A100");
    devices[2 + i] = staged(AGPU_BACKEND_OPENCL, i, AGPU_DEVICE_TYPE_DISCRETE_GPU, NVIDIA, 0x20b0,
                            40 * GIB, "NVIDIA A100");
  }
  with_pci(&devices[0], "0000:41:00.0");
  with_pci(&devices[1], "0000:01:00.0");
  grouping g;
  group(devices, 4, &g);
  CHECK(g.count == 4); /* which OpenCL device is which card would be a coin toss */
  /* Groups with an address come first, in address order. */
  CHECK(strcmp(g.groups[0].pci, "0000:01:00.0") == 0 && has_member(&g.groups[0], "cuda:1"));
  CHECK(strcmp(g.groups[1].pci, "0000:41:00.0") == 0 && has_member(&g.groups[1], "cuda:0"));
  CHECK(!g.groups[2].has_pci && g.groups[2].match == AGPU_PHYSICAL_MATCH_SINGLE);
  CHECK(g.group_of[0] == 1 && g.group_of[1] == 0);
}

static void two_drivers_for_one_card_are_flagged(void) {
  agpu_device_info devices[2];
  devices[0] = staged(AGPU_BACKEND_VULKAN, 0, AGPU_DEVICE_TYPE_DISCRETE_GPU, AMD, 0x73bf, 16 * GIB,
                      "AMD Radeon RX 6800 XT (RADV NAVI21)");
  devices[1] = staged(AGPU_BACKEND_VULKAN, 1, AGPU_DEVICE_TYPE_DISCRETE_GPU, AMD, 0x73bf, 16 * GIB,
                      "AMD Radeon RX 6800 XT (AMDVLK)");
  with_pci(&devices[0], "0000:0A:00.0"); /* case does not matter */
  with_pci(&devices[1], "0a:00.0");      /* nor a missing domain */
  grouping g;
  group(devices, 2, &g);
  CHECK(g.count == 1);
  CHECK(g.groups[0].duplicate_in_backend);
  CHECK(strcmp(g.groups[0].duplicate_backend, "vulkan") == 0);
  CHECK(strcmp(g.groups[0].pci, "0000:0a:00.0") == 0);
}

static void cpu_devices_are_one_cpu_listed_last(void) {
  agpu_device_info devices[4];
  devices[0] = staged(AGPU_BACKEND_VULKAN, 0, AGPU_DEVICE_TYPE_CPU, 0x10005, 0, 4 * GIB,
                      "llvmpipe (LLVM 15.0.6, 256 bits)");
  with_uuid(&devices[0], 0x4d); /* lavapipe's UUID is Mesa's version string */
  devices[1] = staged(AGPU_BACKEND_VULKAN, 1, AGPU_DEVICE_TYPE_INTEGRATED_GPU, INTEL, 0x9a49,
                      8 * GIB, "Intel(R) Xe Graphics");
  devices[2] =
      staged(AGPU_BACKEND_OPENCL, 0, AGPU_DEVICE_TYPE_CPU, 0x1022, 0, 3 * GIB, "pthread-znver4");
  devices[3] = staged(AGPU_BACKEND_CPU, 0, AGPU_DEVICE_TYPE_CPU, 0x1022, 0, 23 * GIB, "AMD EPYC");
  grouping g;
  group(devices, 4, &g);
  CHECK(g.count == 2);
  CHECK(g.groups[1].match == AGPU_PHYSICAL_MATCH_CPU);
  CHECK(g.groups[1].member_count == 3);
  CHECK(strcmp(g.groups[1].name, "AMD EPYC") == 0); /* the built-in backend speaks for it */
  CHECK(!g.groups[1].has_uuid);
  CHECK(strcmp(g.groups[1].members[0], "vulkan:0") == 0); /* members in device order */
  CHECK(g.group_of[1] == 0 && g.group_of[0] == 1 && g.group_of[3] == 1);
  CHECK(strcmp(agpu_physical_match_name(AGPU_PHYSICAL_MATCH_CPU), "cpu") == 0);
  CHECK(strcmp(agpu_physical_match_name(AGPU_PHYSICAL_MATCH_GUESS), "guess") == 0);
}

static void pci_addresses_normalize(void) {
  char out[16];
  CHECK(agpu_pci_address_normalize("01:00.0", 7, out) && strcmp(out, "0000:01:00.0") == 0);
  CHECK(agpu_pci_address_normalize("0000:0A:1F.7", 12, out) && strcmp(out, "0000:0a:1f.7") == 0);
  CHECK(!agpu_pci_address_normalize("zz", 2, out));
  CHECK(!agpu_pci_address_normalize("0000:01:00.8", 12, out));
  CHECK(!agpu_pci_address_normalize("0000:01:00.0x", 13, out));
}

/* ------------------------------------------------- this machine's devices */

static void registry_groups_every_device_once(void) {
  uint32_t devices = 0, physical = 0;
  CHECK_OK(agpu_device_count(&devices));
  CHECK_OK(agpu_physical_device_count(&physical));
  CHECK(physical >= 1 && physical <= devices);
  uint32_t members = 0, cpu_groups = 0;
  for (uint32_t p = 0; p < physical; p++) {
    agpu_physical_device_info info;
    CHECK_OK(agpu_physical_device_get_info(p, &info));
    CHECK(info.index == p);
    members += info.member_count;
    cpu_groups += info.match == AGPU_PHYSICAL_MATCH_CPU;
    for (uint32_t m = 0; m < info.member_count; m++) {
      agpu_device *device = NULL;
      agpu_device_info device_info;
      uint32_t back = UINT32_MAX;
      CHECK_OK(agpu_physical_device_member(p, m, &device));
      CHECK_OK(agpu_device_get_info(device, &device_info));
      CHECK(strcmp(device_info.selector, info.members[m]) == 0);
      CHECK_OK(agpu_device_physical_index(device, &back));
      CHECK(back == p);
      if (info.match == AGPU_PHYSICAL_MATCH_CPU) CHECK(device_info.type == AGPU_DEVICE_TYPE_CPU);
    }
    agpu_device *none = NULL;
    CHECK_STATUS(agpu_physical_device_member(p, info.member_count, &none), AGPU_ERROR_NOT_FOUND);
  }
  CHECK(members == devices);
  CHECK(cpu_groups == 1); /* the built-in CPU device is always there */
  agpu_physical_device_info info;
  CHECK_STATUS(agpu_physical_device_get_info(physical, &info), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(agpu_physical_device_count(NULL), AGPU_ERROR_INVALID_ARGUMENT);
}

static uint32_t cpu_physical_index(void) {
  agpu_device *cpu = agpu_test_device("cpu:0");
  uint32_t index = UINT32_MAX;
  if (cpu) agpu_device_physical_index(cpu, &index);
  return index;
}

static void physical_selectors(void) {
  uint32_t physical = cpu_physical_index();
  CHECK(physical != UINT32_MAX);
  agpu_physical_device_info info;
  CHECK_OK(agpu_physical_device_get_info(physical, &info));
  char selector[64];
  uint32_t count = 0, all = 0;
  snprintf(selector, sizeof selector, "phys:%u", physical);
  CHECK_OK(agpu_device_select_all(selector, NULL, 0, &count));
  CHECK(count == info.member_count);
  CHECK_OK(agpu_device_select_all("*:*", NULL, 0, &all));
  snprintf(selector, sizeof selector, "!phys:%u", physical);
  CHECK_OK(agpu_device_select_all(selector, NULL, 0, &count));
  CHECK(count == all - info.member_count);
  /* Discard wins, wherever the exclusion stands. */
  snprintf(selector, sizeof selector, "!cpu:0;phys:%u", physical);
  CHECK_OK(agpu_device_select_all(selector, NULL, 0, &count));
  CHECK(count == info.member_count - 1);
  /* Within a physical device the best backend comes first. */
  agpu_device *best = NULL;
  snprintf(selector, sizeof selector, "phys:%u", physical);
  CHECK_OK(agpu_device_select(selector, &best));
  CHECK(best != NULL);
}

static void physical_selector_errors_name_what_exists(void) {
  agpu_device *device = NULL;
  CHECK_STATUS(agpu_device_select("phys:999", &device), AGPU_ERROR_NOT_FOUND);
  CHECK_MESSAGE("no device matches selector 'phys:999'");
  CHECK_MESSAGE("physical devices: phys:0");
  CHECK_MESSAGE("cpu:0");
  CHECK(strchr(agpu_last_error(), '\n') == NULL);
  CHECK_STATUS(agpu_device_select("pci:zz", &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("bad PCI address 'zz'");
  CHECK_STATUS(agpu_device_select("pci:0000:99:1f.7", &device), AGPU_ERROR_NOT_FOUND);
  CHECK_STATUS(agpu_device_select("phys:x", &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(agpu_device_select("gpu:0", &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("phys:N or pci:ADDRESS");
}

static void load_attempts_are_exposed(void) {
  uint32_t cuda = 0, count = 0;
  CHECK_OK(agpu_backend_find("cuda", &cuda));
  CHECK_OK(agpu_backend_load_attempt_count(cuda, &count));
  CHECK(count >= 1);
  const char *name = NULL, *error = NULL;
  CHECK_OK(agpu_backend_get_load_attempt(cuda, 0, &name, &error));
  CHECK(name && strcmp(name, "libcuda.so.1") == 0);
  CHECK(error != NULL);
  agpu_backend_info info;
  CHECK_OK(agpu_backend_get_info(cuda, &info));
  /* An unavailable backend's first attempt failed with a loader message. */
  if (!info.available && !info.library[0]) CHECK(error[0] != '\0');
  CHECK_STATUS(agpu_backend_get_load_attempt(cuda, count, &name, &error), AGPU_ERROR_NOT_FOUND);
  CHECK_STATUS(agpu_backend_get_load_attempt(99, 0, &name, &error), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(agpu_backend_get_load_attempt(cuda, 0, NULL, &error), AGPU_ERROR_INVALID_ARGUMENT);
  uint32_t cpu = 0;
  CHECK_OK(agpu_backend_find("cpu", &cpu));
  CHECK_OK(agpu_backend_load_attempt_count(cpu, &count));
  CHECK(count == 0); /* the built-in backend opens no library */
}

int main(void) {
  RUN(nvidia_joins_by_pci_and_uuid);
  RUN(amd_uuids_are_not_trusted);
  RUN(intel_integrated_joins_by_pci);
  RUN(identical_cards_are_never_guessed);
  RUN(two_drivers_for_one_card_are_flagged);
  RUN(cpu_devices_are_one_cpu_listed_last);
  RUN(pci_addresses_normalize);
  RUN(registry_groups_every_device_once);
  RUN(physical_selectors);
  RUN(physical_selector_errors_name_what_exists);
  RUN(load_attempts_are_exposed);
  return agpu_test_finish();
}
