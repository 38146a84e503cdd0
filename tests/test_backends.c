// SPDX-License-Identifier: Apache-2.0
/* The registry: every backend is listed, and one that cannot load says why
 * with the loader's own words. */
#include <dlfcn.h>

#include "agpu_test.h"

static void backends_are_listed_in_order(void) {
  static const char *const names[] = {"cuda", "hip", "vulkan", "opencl", "cpu", "null"};
  CHECK(agpu_backend_count() == 6);
  for (uint32_t i = 0; i < agpu_backend_count(); i++) {
    agpu_backend_info info;
    CHECK_OK(agpu_backend_get_info(i, &info));
    CHECK(strcmp(info.name, names[i]) == 0);
    CHECK(info.kind == (agpu_backend_kind)i);
    uint32_t found = 99;
    CHECK_OK(agpu_backend_find(names[i], &found));
    CHECK(found == i);
  }
  agpu_backend_info info;
  CHECK_STATUS(agpu_backend_get_info(6, &info), AGPU_ERROR_INVALID_ARGUMENT);
  uint32_t found;
  CHECK_STATUS(agpu_backend_find("metal", &found), AGPU_ERROR_NOT_FOUND);
  CHECK_MESSAGE("unknown backend 'metal'");
}

/* What api/backend_list.h says of each backend, through the public info:
 * the ranks that order the default selection and the physical groups, the
 * target, the colour, the formats, the variables and the flags. */
static void descriptors_describe_each_backend(void) {
  static const struct {
    const char *name;
    agpu_target target;
    uint32_t gpu_rank, cpu_rank;
    const char *variable; /* one it must list */
    bool survives_fork, testing;
  } expected[] = {
      {"cuda", AGPU_TARGET_CUDA, 0, 3, "CUDA_VISIBLE_DEVICES", false, false},
      {"hip", AGPU_TARGET_HIP, 0, 3, "ROCR_VISIBLE_DEVICES", false, false},
      {"vulkan", AGPU_TARGET_SPIRV, 2, 2, "VK_DRIVER_FILES", false, false},
      {"opencl", AGPU_TARGET_OPENCL, 1, 1, "OCL_ICD_VENDORS", false, false},
      {"cpu", AGPU_TARGET_C, 3, 0, "ANYGPU_CPU_THREADS", true, false},
      {"null", AGPU_TARGET_OPENCL, 9, 9, "ANYGPU_NULL_DEVICES", true, true},
  };
  for (uint32_t i = 0; i < sizeof expected / sizeof *expected; i++) {
    agpu_backend_info info;
    CHECK_OK(agpu_backend_get_info(i, &info));
    CHECK(strcmp(info.name, expected[i].name) == 0);
    CHECK(info.target == (uint32_t)expected[i].target);
    CHECK(info.gpu_rank == expected[i].gpu_rank && info.cpu_rank == expected[i].cpu_rank);
    CHECK(info.colour && info.colour[0] == '#' && strlen(info.colour) == 7);
    CHECK(info.environment && strstr(info.environment, expected[i].variable));
    CHECK(info.survives_fork == expected[i].survives_fork);
    CHECK(info.testing == expected[i].testing);
  }
  agpu_backend_info cuda, vulkan;
  CHECK_OK(agpu_backend_get_info(AGPU_BACKEND_CUDA, &cuda));
  CHECK_OK(agpu_backend_get_info(AGPU_BACKEND_VULKAN, &vulkan));
  CHECK(cuda.native_formats == (1u << AGPU_NATIVE_PTX | 1u << AGPU_NATIVE_CUBIN));
  CHECK(vulkan.native_formats == 1u << AGPU_NATIVE_SPIRV);
}

static void cpu_backend_is_always_available(void) {
  agpu_backend_info info;
  CHECK_OK(agpu_backend_get_info(AGPU_BACKEND_CPU, &info));
  CHECK(info.available);
  CHECK(info.device_count == 1);
}

/* What the dynamic loader itself says about a soname, "" if it loads. */
static void loader_error(const char *soname, char *out, size_t cap) {
  void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (library) {
    out[0] = '\0';
    dlclose(library);
  } else {
    snprintf(out, cap, "%s", dlerror());
  }
}

/* SONAMES: the libraries the backend tries, in its order (NULL-ended). */
static void check_unimplemented_backend(agpu_backend_kind kind, const char *const *sonames) {
  agpu_backend_info info;
  CHECK_OK(agpu_backend_get_info(kind, &info));
  CHECK(!info.available);
  CHECK(info.device_count == 0);
  CHECK(info.reason[0] != '\0');
  const char *loaded = NULL;
  char first_error[512] = "";
  for (const char *const *soname = sonames; *soname && !loaded; soname++) {
    char error[512];
    loader_error(*soname, error, sizeof error);
    if (!error[0])
      loaded = *soname;
    else if (soname == sonames)
      snprintf(first_error, sizeof first_error, "%s", error);
  }
  if (!loaded) {
    /* No library: the reason starts with dlerror()'s message for the first. */
    CHECK(strncmp(info.reason, first_error, strlen(first_error)) == 0);
    if (strncmp(info.reason, first_error, strlen(first_error)) != 0)
      printf("  reason: %s\n  dlerror: %s\n", info.reason, first_error);
    CHECK(strstr(info.reason, "cannot open shared object file") != NULL);
  } else {
    /* The first library that loads is named, with what is missing. */
    CHECK(strstr(info.reason, loaded) != NULL);
    CHECK(strstr(info.reason, "no ") != NULL);
  }
}

/* CUDA is implemented (tests/test_cuda_backend.c has the rest): without a
 * libcuda the reason says the driver is missing, with dlerror()'s words. */
static void cuda_says_why(void) {
  agpu_backend_info info;
  CHECK_OK(agpu_backend_get_info(AGPU_BACKEND_CUDA, &info));
  char first_error[512];
  loader_error("libcuda.so.1", first_error, sizeof first_error);
  char also[512];
  loader_error("libcuda.so", also, sizeof also);
  if (first_error[0] && also[0]) {
    CHECK(!info.available);
    CHECK(info.device_count == 0);
    CHECK(strstr(info.reason, "the NVIDIA driver is not installed: libcuda.so.1 not found") ==
          info.reason);
    CHECK(strstr(info.reason, first_error) != NULL);
  } else {
    CHECK(info.available || info.reason[0] != '\0');
  }
}
static void hip_says_why(void) {
  static const char *const sonames[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so",
                                        "/opt/rocm/lib/libamdhip64.so", NULL};
  check_unimplemented_backend(AGPU_BACKEND_HIP, sonames);
}
/* Vulkan is implemented: where libvulkan.so.1 loads the backend is
 * available (its devices or "no Vulkan devices"), unless this build has no
 * Vulkan headers or the instance cannot be made, which the reason says. */
static void vulkan_loads_or_says_why(void) {
  agpu_backend_info info;
  CHECK_OK(agpu_backend_get_info(AGPU_BACKEND_VULKAN, &info));
  char expected[512];
  loader_error("libvulkan.so.1", expected, sizeof expected);
  if (!info.available) {
    CHECK(info.device_count == 0);
    CHECK(info.reason[0] != '\0');
    if (expected[0] && !strstr(info.reason, "built without"))
      CHECK(strncmp(info.reason, expected, strlen(expected)) == 0);
  } else {
    CHECK(!expected[0]);
    CHECK(strcmp(info.library, "libvulkan.so.1") == 0);
    CHECK(info.device_count > 0 || info.reason[0] != '\0');
  }
}

static void device_list_follows_backends(void) {
  uint32_t count = 0, sum = 0;
  CHECK_OK(agpu_device_count(&count));
  for (uint32_t i = 0; i < agpu_backend_count(); i++) {
    agpu_backend_info info;
    CHECK_OK(agpu_backend_get_info(i, &info));
    for (uint32_t d = 0; d < info.device_count; d++) {
      agpu_device *device;
      agpu_device_info dinfo;
      CHECK_OK(agpu_device_get(sum + d, &device));
      CHECK_OK(agpu_device_get_info(device, &dinfo));
      CHECK(dinfo.backend == info.kind);
      CHECK(dinfo.index == d);
      char selector[32];
      snprintf(selector, sizeof selector, "%s:%u", info.name, d);
      CHECK(strcmp(dinfo.selector, selector) == 0);
    }
    sum += info.device_count;
  }
  CHECK(sum == count);
}

int main(void) {
  RUN(descriptors_describe_each_backend);
  RUN(backends_are_listed_in_order);
  RUN(cpu_backend_is_always_available);
  RUN(cuda_says_why);
  RUN(hip_says_why);
  RUN(vulkan_loads_or_says_why);
  RUN(device_list_follows_backends);
  return agpu_test_finish();
}
