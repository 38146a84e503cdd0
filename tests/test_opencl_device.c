// SPDX-License-Identifier: Apache-2.0
/* The OpenCL backend's devices, checked against what `clinfo --raw` reports
 * for the same device, and the reason given when no platform is installed. */
#include <stdbool.h>
#include <unistd.h>

#include "agpu_test.h"

/* The first device's properties from `clinfo --raw`: lines such as
 * "[POCL/0]    CL_DEVICE_NAME      pthread-haswell-AMD EPYC". */
#define CLINFO_KEYS 16
typedef struct clinfo_device {
  int count;
  char key[CLINFO_KEYS][64];
  char value[CLINFO_KEYS][256];
} clinfo_device;

static const char *const clinfo_wanted[] = {
    "CL_DEVICE_NAME",
    "CL_DEVICE_VENDOR",
    "CL_DEVICE_VENDOR_ID",
    "CL_DRIVER_VERSION",
    "CL_DEVICE_VERSION",
    "CL_DEVICE_TYPE",
    "CL_DEVICE_MAX_COMPUTE_UNITS",
    "CL_DEVICE_GLOBAL_MEM_SIZE",
    "CL_DEVICE_MAX_MEM_ALLOC_SIZE",
    "CL_DEVICE_LOCAL_MEM_SIZE",
    "CL_DEVICE_MAX_WORK_GROUP_SIZE",
    "CL_DEVICE_MAX_WORK_ITEM_SIZES",
    "CL_DEVICE_MAX_CLOCK_FREQUENCY",
    "CL_DEVICE_HOST_UNIFIED_MEMORY",
    "CL_DEVICE_DOUBLE_FP_CONFIG",
};

static bool clinfo_read(clinfo_device *out) {
  memset(out, 0, sizeof *out);
  FILE *pipe = popen("clinfo --raw 2>/dev/null", "r");
  if (!pipe) return false;
  char line[4096];
  while (fgets(line, sizeof line, pipe)) {
    /* Device lines are tagged "[PLATFORM/N]", platform lines "[PLATFORM/ *]" (no space). */
    if (line[0] != '[' || strstr(line, "/*]")) continue;
    char key[64];
    int value_at = 0;
    if (sscanf(line, "[%*[^]]] %63s %n", key, &value_at) != 1 || value_at == 0) continue;
    for (size_t k = 0; k < sizeof clinfo_wanted / sizeof clinfo_wanted[0]; k++) {
      if (strcmp(key, clinfo_wanted[k]) != 0) continue;
      bool seen = false; /* the first device's value wins */
      for (int i = 0; i < out->count; i++) seen |= strcmp(out->key[i], key) == 0;
      if (seen || out->count == CLINFO_KEYS) break;
      char *value = line + value_at;
      value[strcspn(value, "\n")] = '\0';
      size_t length = strlen(value);
      while (length > 0 && value[length - 1] == ' ') value[--length] = '\0';
      snprintf(out->key[out->count], sizeof out->key[0], "%s", key);
      snprintf(out->value[out->count], sizeof out->value[0], "%s", value);
      out->count++;
    }
  }
  int status = pclose(pipe);
  return status == 0 && out->count > 0;
}

static const char *clinfo_get(const clinfo_device *device, const char *key) {
  for (int i = 0; i < device->count; i++)
    if (strcmp(device->key[i], key) == 0) return device->value[i];
  return NULL;
}

static unsigned long long clinfo_number(const clinfo_device *device, const char *key) {
  const char *value = clinfo_get(device, key);
  return value ? strtoull(value, NULL, 0) : ~0ull;
}

static void device_matches_clinfo(void) {
  agpu_device *device = agpu_test_device("opencl:0");
  if (!device) SKIP("no OpenCL device: %s", agpu_test_backend_reason("opencl"));
  clinfo_device clinfo;
  if (!clinfo_read(&clinfo)) SKIP("clinfo is not installed or lists no device");
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  CHECK(info.backend == AGPU_BACKEND_OPENCL && strcmp(info.backend_name, "opencl") == 0);
  CHECK(strcmp(info.selector, "opencl:0") == 0);

  const char *name = clinfo_get(&clinfo, "CL_DEVICE_NAME");
  CHECK(name && strcmp(info.name, name) == 0);
  if (name && strcmp(info.name, name) != 0) printf("  name '%s', clinfo '%s'\n", info.name, name);
  const char *vendor = clinfo_get(&clinfo, "CL_DEVICE_VENDOR");
  CHECK(vendor && strcmp(info.vendor, vendor) == 0);
  const char *driver = clinfo_get(&clinfo, "CL_DRIVER_VERSION");
  CHECK(driver && strcmp(info.driver_version, driver) == 0);
  const char *version = clinfo_get(&clinfo, "CL_DEVICE_VERSION");
  CHECK(version && strcmp(info.api_version, version) == 0);

  CHECK(info.vendor_id == clinfo_number(&clinfo, "CL_DEVICE_VENDOR_ID"));
  CHECK(info.compute_units == clinfo_number(&clinfo, "CL_DEVICE_MAX_COMPUTE_UNITS"));
  CHECK(info.global_mem_bytes == clinfo_number(&clinfo, "CL_DEVICE_GLOBAL_MEM_SIZE"));
  CHECK(info.max_alloc_bytes == clinfo_number(&clinfo, "CL_DEVICE_MAX_MEM_ALLOC_SIZE"));
  CHECK(info.local_mem_bytes == clinfo_number(&clinfo, "CL_DEVICE_LOCAL_MEM_SIZE"));
  CHECK(info.max_work_group_size == clinfo_number(&clinfo, "CL_DEVICE_MAX_WORK_GROUP_SIZE"));
  CHECK(info.max_clock_mhz == clinfo_number(&clinfo, "CL_DEVICE_MAX_CLOCK_FREQUENCY"));

  const char *item_sizes = clinfo_get(&clinfo, "CL_DEVICE_MAX_WORK_ITEM_SIZES");
  unsigned long long items[3] = {0, 0, 0};
  CHECK(item_sizes && sscanf(item_sizes, "%llu %llu %llu", &items[0], &items[1], &items[2]) >= 1);
  for (int d = 0; d < 3; d++) {
    if (items[d]) CHECK(info.max_work_item_sizes[d] == items[d]);
    CHECK(info.max_work_groups[d] == UINT32_MAX); /* OpenCL sets no limit */
  }

  const char *type = clinfo_get(&clinfo, "CL_DEVICE_TYPE");
  const char *unified = clinfo_get(&clinfo, "CL_DEVICE_HOST_UNIFIED_MEMORY");
  CHECK(type && unified);
  if (type && unified) {
    bool is_unified = strcmp(unified, "CL_TRUE") == 0;
    CHECK(info.unified_memory == is_unified);
    if (strstr(type, "CL_DEVICE_TYPE_GPU"))
      CHECK(info.type ==
            (is_unified ? AGPU_DEVICE_TYPE_INTEGRATED_GPU : AGPU_DEVICE_TYPE_DISCRETE_GPU));
    else if (strstr(type, "CL_DEVICE_TYPE_CPU"))
      CHECK(info.type == AGPU_DEVICE_TYPE_CPU);
    else
      CHECK(info.type == AGPU_DEVICE_TYPE_OTHER);
  }
  const char *double_config = clinfo_get(&clinfo, "CL_DEVICE_DOUBLE_FP_CONFIG");
  CHECK(info.fp64 == (double_config && double_config[0] != '\0' && strcmp(double_config, "0")));
  if (info.has_pci) CHECK(strlen(info.pci) == 12 && info.pci[4] == ':' && info.pci[10] == '.');
}

static void backend_reports_its_library(void) {
  uint32_t index = 0;
  agpu_backend_info info;
  CHECK_OK(agpu_backend_find("opencl", &index));
  CHECK_OK(agpu_backend_get_info(index, &info));
  if (!info.available) SKIP("OpenCL unavailable: %s", info.reason);
  CHECK(strncmp(info.library, "libOpenCL.so", 12) == 0);
  if (info.device_count == 0) CHECK(info.reason[0] != '\0');
}

static void memory_is_reported(void) {
  agpu_device *device = agpu_test_device("opencl:0");
  if (!device) SKIP("no OpenCL device: %s", agpu_test_backend_reason("opencl"));
  agpu_device_info info;
  agpu_memory_info memory;
  CHECK_OK(agpu_device_get_info(device, &info));
  CHECK_OK(agpu_device_memory(device, &memory));
  CHECK(memory.total_bytes == info.global_mem_bytes);
  if (memory.free_known) CHECK(memory.free_bytes <= memory.total_bytes);
}

/* Enumeration runs once per process, so the no-platform case runs in a child
 * whose ICD loader looks in an empty vendor directory. */
static int check_no_platform_child(void) {
  uint32_t index = 0;
  agpu_backend_info info;
  if (agpu_backend_find("opencl", &index) || agpu_backend_get_info(index, &info)) return 2;
  printf("available=%d devices=%u reason=%s\n", info.available, info.device_count, info.reason);
  if (!info.available || info.device_count != 0) return 1;
  if (!strstr(info.reason, "no OpenCL platform") || !strstr(info.reason, "OCL_ICD_VENDORS="))
    return 1;
  agpu_device *device = NULL;
  return agpu_device_select("opencl:0", &device) == AGPU_SUCCESS ? 1 : 0;
}

static const char *program_path; /* argv[0], for running this program again */

static void no_platform_is_explained(void) {
  if (!agpu_test_device("opencl:0"))
    SKIP("no OpenCL device: %s", agpu_test_backend_reason("opencl"));
  if (!strchr(program_path, '/') || strchr(program_path, '\'')) SKIP("argv[0] is not a path");
  char empty_dir[] = "/tmp/agpu_no_icd_XXXXXX";
  if (!mkdtemp(empty_dir)) SKIP("cannot make a temporary directory");
  char command[512];
  snprintf(command, sizeof command,
           "OCL_ICD_VENDORS=%s OCL_ICD_FILENAMES= '%s' --no-platform-child", empty_dir,
           program_path);
  FILE *child = popen(command, "r");
  CHECK(child != NULL);
  if (!child) return;
  char line[2048] = "";
  if (!fgets(line, sizeof line, child)) line[0] = '\0';
  int status = pclose(child);
  rmdir(empty_dir);
  CHECK(status == 0);
  CHECK(strstr(line, "available=1 devices=0") != NULL);
  CHECK(strstr(line, empty_dir) != NULL);
  if (status != 0) printf("  child said: %s", line);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--no-platform-child") == 0) return check_no_platform_child();
  program_path = argv[0];
  RUN(device_matches_clinfo);
  RUN(backend_reports_its_library);
  RUN(memory_is_reported);
  RUN(no_platform_is_explained);
  return agpu_test_finish();
}
