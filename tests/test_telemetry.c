// SPDX-License-Identifier: Apache-2.0
/* Telemetry (api/telemetry*.c): the replayed machines under
 * tests/telemetry/ checked field by field, rates from two samples of a
 * copy whose counters the test advances, and this machine's /proc. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agpu_test.h"
#include "telemetry_test.h"

static const char *fixtures; /* tests/telemetry */
static char scratch[512];    /* a copy whose counters are advanced */

static agpu_telemetry *sample_at(const char *root, const agpu_telemetry *previous) {
  agpu_telemetry_desc desc = {.sysroot = root, .previous = previous};
  agpu_telemetry *sample = NULL;
  CHECK_OK(agpu_telemetry_sample(&desc, &sample));
  return sample;
}

static agpu_telemetry *fixture(const char *name) {
  char root[512];
  snprintf(root, sizeof root, "%s/%s", fixtures, name);
  return sample_at(root, NULL);
}

static agpu_device_telemetry device_at(const agpu_telemetry *sample, uint32_t index) {
  agpu_device_telemetry device;
  memset(&device, 0, sizeof device);
  CHECK_OK(agpu_telemetry_get_device(sample, index, &device));
  return device;
}

static bool value_is(agpu_telemetry_value value, double expected) {
  return value.known && fabs(value.value - expected) < 1e-9;
}

static bool bytes_are(agpu_telemetry_bytes value, uint64_t expected) {
  return value.known && value.bytes == expected;
}

static const char *missing_reason(const agpu_device_telemetry *d, const char *source) {
  for (uint32_t i = 0; i < d->missing_count; i++)
    if (strcmp(d->missing[i].source, source) == 0) return d->missing[i].reason;
  return NULL;
}

/* The replayed machines' CPU: every fixture has the same host. */
static void check_fixture_cpu(const agpu_device_telemetry *cpu) {
  CHECK(cpu->type == AGPU_DEVICE_TYPE_CPU);
  CHECK(strcmp(cpu->driver, "cpu") == 0);
  CHECK(strcmp(cpu->name, "AMD Ryzen 7 7700X 8-Core Processor") == 0);
  CHECK(bytes_are(cpu->memory_total, 16384000ull * 1024));
  CHECK(bytes_are(cpu->memory_free, 12288000ull * 1024));
  CHECK(bytes_are(cpu->memory_used, 4096000ull * 1024));
  CHECK(value_is(cpu->clock_mhz, 4501.25));
  CHECK(!cpu->utilization_percent.known); /* one sample: no rate */
  CHECK(!cpu->shared_total.known && !cpu->fan_percent.known && !cpu->throttle_known);
  CHECK(cpu->physical_index == UINT32_MAX);
}

static void test_cpu_only(void) {
  agpu_telemetry *sample = fixture("cpu-only");
  if (!sample) return;
  CHECK(agpu_telemetry_device_count(sample) == 1);
  CHECK(agpu_telemetry_window_s(sample) == 0.0);
  agpu_device_telemetry cpu = device_at(sample, 0);
  check_fixture_cpu(&cpu);
  CHECK(value_is(cpu.temperature_c, 61.25));
  CHECK(strcmp(cpu.temperature_sensor, "k10temp Tctl") == 0);
  CHECK(value_is(cpu.clock_max_mhz, 5573.0));
  CHECK(!cpu.power_w.known && !cpu.power_limit_w.known);
  CHECK(missing_reason(&cpu, "powercap") != NULL); /* one energy reading only */
  long page = sysconf(_SC_PAGESIZE);
  CHECK(cpu.processes_known && cpu.process_count == 2 && !cpu.processes_truncated);
  CHECK(cpu.processes[0].pid == 100 && strcmp(cpu.processes[0].name, "trainer") == 0);
  CHECK(bytes_are(cpu.processes[0].memory, 262144ull * (uint64_t)page));
  CHECK(cpu.processes[1].pid == 200 && strcmp(cpu.processes[1].name, "sshd") == 0);
  CHECK(!cpu.processes[0].engine_percent.known);
  const char *drm = source_reason(sample, "drm");
  CHECK(drm && strstr(drm, "No such file or directory"));
  const char *nvml = source_reason(sample, "nvml");
  CHECK(nvml && strstr(nvml, "NVML not read"));
  agpu_telemetry_release(sample);
}

static void test_amdgpu(void) {
  agpu_telemetry *sample = fixture("amdgpu");
  if (!sample) return;
  CHECK(agpu_telemetry_device_count(sample) == 2); /* card1's connector and render node: one GPU */
  agpu_device_telemetry cpu = device_at(sample, 0), gpu = device_at(sample, 1);
  check_fixture_cpu(&cpu);
  CHECK(strcmp(gpu.driver, "amdgpu") == 0 && gpu.has_pci && strcmp(gpu.pci, "0000:03:00.0") == 0);
  CHECK(strcmp(gpu.name, "AMD Radeon RX 6800 XT") == 0);
  CHECK(gpu.type == AGPU_DEVICE_TYPE_DISCRETE_GPU);
  CHECK(value_is(gpu.utilization_percent, 37));
  CHECK(bytes_are(gpu.memory_total, 17163091968ull));
  CHECK(bytes_are(gpu.memory_used, 2147483648ull));
  CHECK(bytes_are(gpu.memory_free, 17163091968ull - 2147483648ull));
  CHECK(bytes_are(gpu.shared_total, 8589934592ull) && bytes_are(gpu.shared_used, 33554432ull));
  CHECK(value_is(gpu.clock_mhz, 1850) && value_is(gpu.clock_max_mhz, 2250));
  CHECK(value_is(gpu.memory_clock_mhz, 1000) && value_is(gpu.memory_clock_max_mhz, 1000));
  CHECK(value_is(gpu.temperature_c, 52) && strcmp(gpu.temperature_sensor, "amdgpu edge") == 0);
  CHECK(value_is(gpu.power_w, 123) && value_is(gpu.power_limit_w, 255));
  CHECK(value_is(gpu.fan_percent, 40));
  CHECK(gpu.processes_known && gpu.process_count == 1);
  CHECK(gpu.processes[0].pid == 300 && strcmp(gpu.processes[0].name, "python3") == 0);
  CHECK(bytes_are(gpu.processes[0].memory, 1ull << 30));
  CHECK(bytes_are(gpu.processes[0].shared_memory, 2ull << 20));
  CHECK(gpu.missing_count == 0);
  CHECK(strcmp(gpu.sources, "drm, amdgpu, hwmon, fdinfo") == 0);
  agpu_telemetry_release(sample);
}

static void test_xe(void) {
  agpu_telemetry *sample = fixture("xe");
  if (!sample) return;
  CHECK(agpu_telemetry_device_count(sample) == 2);
  agpu_device_telemetry gpu = device_at(sample, 1);
  CHECK(strcmp(gpu.driver, "xe") == 0 && strcmp(gpu.pci, "0000:00:02.0") == 0);
  CHECK(strcmp(gpu.name, "xe 8086:E20B") == 0);
  CHECK(value_is(gpu.temperature_c, 47) && strcmp(gpu.temperature_sensor, "xe pkg") == 0);
  CHECK(value_is(gpu.power_limit_w, 190) && !gpu.power_w.known);
  CHECK(!gpu.memory_total.known && !gpu.utilization_percent.known);
  CHECK(gpu.processes_known && gpu.process_count == 2);
  /* pid 400 holds client 11 through two descriptors: counted once. */
  CHECK(gpu.processes[0].pid == 400 && strcmp(gpu.processes[0].name, "blender") == 0);
  CHECK(bytes_are(gpu.processes[0].memory, 524288ull << 10));
  CHECK(bytes_are(gpu.processes[0].shared_memory, 1024ull << 10));
  CHECK(gpu.processes[1].pid == 500 && strcmp(gpu.processes[1].name, "ollama") == 0);
  CHECK(bytes_are(gpu.processes[1].memory, 262144ull << 10));
  CHECK(!gpu.processes[1].shared_memory.known);
  CHECK(!gpu.processes[0].engine_percent.known);
  agpu_telemetry_release(sample);
}

static void test_nvidia_without_nvml(void) {
  agpu_telemetry *sample = fixture("nvidia");
  if (!sample) return;
  CHECK(agpu_telemetry_device_count(sample) == 2);
  agpu_device_telemetry gpu = device_at(sample, 1);
  CHECK(strcmp(gpu.driver, "nvidia") == 0 && strcmp(gpu.pci, "0000:01:00.0") == 0);
  CHECK(gpu.type == AGPU_DEVICE_TYPE_DISCRETE_GPU);
  CHECK(!gpu.memory_total.known && !gpu.utilization_percent.known && !gpu.temperature_c.known);
  CHECK(!gpu.power_w.known && !gpu.processes_known);
  const char *nvml = missing_reason(&gpu, "nvml");
  CHECK(nvml && strstr(nvml, "NVML not read"));
  CHECK(missing_reason(&gpu, "hwmon") != NULL);
  agpu_telemetry_release(sample);
}

static bool write_text(const char *relative, const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", scratch, relative);
  FILE *file = fopen(path, "w");
  if (!file) return false;
  fputs(text, file);
  return fclose(file) == 0;
}

/* A copy of a fixture in the scratch directory. */
static bool copy_fixture(const char *name) {
  char command[2048];
  snprintf(command, sizeof command, "rm -rf '%s' && cp -R '%s/%s' '%s'", scratch, fixtures, name,
           scratch);
  return system(command) == 0;
}

/* /proc/stat advances by 300 busy and 100 idle jiffies: 75% busy; the
 * energy counter advances: power is known. */
static void test_cpu_rates(void) {
  if (!copy_fixture("cpu-only")) SKIP("cannot copy the fixture to %s", scratch);
  agpu_telemetry *first = sample_at(scratch, NULL);
  CHECK(write_text("proc/stat", "cpu  1200 0 600 8100 500 0 0 0 0 0\ncpu0 0\ncpu1 0\n"));
  CHECK(write_text("sys/class/powercap/intel-rapl:0/energy_uj", "124456789\n"));
  CHECK(write_text("proc/100/stat", "100 (trainer) R 1 100 100 0 -1 0 0 0 0 0 900 100 0 0\n"));
  agpu_telemetry *second = sample_at(scratch, first);
  if (!first || !second) return;
  CHECK(agpu_telemetry_window_s(second) > 0);
  agpu_device_telemetry cpu = device_at(second, 0);
  CHECK(value_is(cpu.utilization_percent, 75.0));
  CHECK(cpu.power_w.known && cpu.power_w.value > 0);
  CHECK(cpu.processes[0].pid == 100 && cpu.processes[0].engine_percent.known &&
        cpu.processes[0].engine_percent.value > 0);
  CHECK(cpu.processes[1].engine_percent.known && cpu.processes[1].engine_percent.value == 0);
  /* a previous sample of another machine is refused */
  agpu_telemetry_desc desc = {.sysroot = fixtures, .previous = first};
  agpu_telemetry *other = NULL;
  CHECK_STATUS(agpu_telemetry_sample(&desc, &other), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK(other == NULL);
  agpu_telemetry_release(first);
  agpu_telemetry_release(second);
}

/* xe counts cycles: busy / total cycles between the samples, exactly. */
static void test_xe_rates(void) {
  if (!copy_fixture("xe")) SKIP("cannot copy the fixture to %s", scratch);
  agpu_telemetry *first = sample_at(scratch, NULL);
  const char *client11 =
      "drm-driver:\txe\ndrm-client-id:\t11\ndrm-pdev:\t0000:00:02.0\n"
      "drm-resident-vram0:\t524288 KiB\n"
      "drm-cycles-rcs:\t26000\ndrm-total-cycles-rcs:\t200000\n"
      "drm-cycles-ccs:\t14000\ndrm-total-cycles-ccs:\t200000\n";
  CHECK(write_text("proc/400/fdinfo/7", client11) && write_text("proc/400/fdinfo/8", client11));
  CHECK(write_text("proc/500/fdinfo/3",
                   "drm-client-id:\t12\ndrm-pdev:\t0000:00:02.0\n"
                   "drm-cycles-rcs:\t5500\ndrm-total-cycles-rcs:\t200000\n"));
  CHECK(write_text("sys/class/drm/card0/device/hwmon/hwmon3/energy1_input", "9000000\n"));
  agpu_telemetry *second = sample_at(scratch, first);
  if (!first || !second) return;
  agpu_device_telemetry gpu = device_at(second, 1);
  /* rcs: 25000 + 5000 of 100000 cycles; ccs: 10000 */
  CHECK(value_is(gpu.utilization_percent, 30.0));
  CHECK(gpu.processes[0].pid == 400 && value_is(gpu.processes[0].engine_percent, 35.0));
  CHECK(gpu.processes[1].pid == 500 && value_is(gpu.processes[1].engine_percent, 5.0));
  CHECK(gpu.power_w.known && gpu.power_w.value > 0);
  agpu_telemetry_release(first);
  agpu_telemetry_release(second);
}

/* ---- this machine ---- */

static uint64_t meminfo_total_bytes(void) {
  FILE *file = fopen("/proc/meminfo", "r");
  unsigned long long kib = 0;
  if (!file) return 0;
  if (fscanf(file, "MemTotal: %llu kB", &kib) != 1) kib = 0;
  fclose(file);
  return (uint64_t)kib * 1024;
}

static void test_live_cpu_memory(void) {
  agpu_telemetry *sample = sample_at(NULL, NULL);
  if (!sample) return;
  CHECK(agpu_telemetry_device_count(sample) >= 1);
  agpu_device_telemetry cpu = device_at(sample, 0);
  CHECK(cpu.type == AGPU_DEVICE_TYPE_CPU);
  uint64_t total = meminfo_total_bytes();
  CHECK(total > 0 && cpu.memory_total.known);
  double ratio = (double)cpu.memory_total.bytes / (double)total;
  CHECK(ratio > 0.99 && ratio < 1.01);
  CHECK(cpu.memory_free.known && cpu.memory_free.bytes <= cpu.memory_total.bytes);
  CHECK(cpu.processes_known && cpu.process_count > 0);
  /* the NVML source says why it is absent, or answered */
  const char *nvml = source_reason(sample, "nvml");
  CHECK(nvml != NULL);
  if (nvml && nvml[0]) printf("     nvml: %s\n", nvml);
  agpu_telemetry_release(sample);
}

static atomic_bool spinning;

static void *spin(void *unused) {
  (void)unused;
  volatile uint64_t x = 0;
  while (atomic_load(&spinning)) x++;
  return NULL;
}

/* With one thread spinning, the CPU is at least one core's share busy. */
static void test_live_cpu_busy(void) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 1) cores = 1;
  agpu_telemetry_desc desc = {.interval_ms = 300};
  agpu_telemetry *idle = NULL, *busy = NULL;
  CHECK_OK(agpu_telemetry_sample(&desc, &idle));
  atomic_store(&spinning, true);
  pthread_t thread;
  if (pthread_create(&thread, NULL, spin, NULL) != 0) SKIP("pthread_create failed");
  CHECK_OK(agpu_telemetry_sample(&desc, &busy));
  atomic_store(&spinning, false);
  pthread_join(thread, NULL);
  if (!idle || !busy) return;
  agpu_device_telemetry before = device_at(idle, 0), during = device_at(busy, 0);
  CHECK(before.utilization_percent.known && during.utilization_percent.known);
  printf("     cpu busy: %.1f%% before, %.1f%% with a spinning thread (%ld cores)\n",
         before.utilization_percent.value, during.utilization_percent.value, cores);
  CHECK(during.utilization_percent.value >= 0.8 * 100.0 / (double)cores);
  CHECK(fabs(agpu_telemetry_window_s(busy) - 0.3) < 0.2);
  agpu_telemetry_release(idle);
  agpu_telemetry_release(busy);
}

/* The physical CPU device, through the physical-device API. */
static void test_live_physical(void) {
  uint32_t count = 0;
  CHECK_OK(agpu_physical_device_count(&count));
  for (uint32_t i = 0; i < count; i++) {
    agpu_physical_device_info info;
    CHECK_OK(agpu_physical_device_get_info(i, &info));
    if (info.match != AGPU_PHYSICAL_MATCH_CPU) continue;
    agpu_device_telemetry telemetry;
    CHECK_OK(agpu_physical_device_telemetry(i, 50, &telemetry));
    CHECK(telemetry.physical_index == i && telemetry.type == AGPU_DEVICE_TYPE_CPU);
    CHECK(telemetry.memory_total.known && telemetry.utilization_percent.known);
    return;
  }
  SKIP("no CPU physical device");
}

static void test_arguments(void) {
  agpu_telemetry *sample = NULL;
  CHECK_STATUS(agpu_telemetry_sample(NULL, &sample), AGPU_ERROR_INVALID_ARGUMENT);
  agpu_telemetry_desc desc = {0};
  CHECK_STATUS(agpu_telemetry_sample(&desc, NULL), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK(agpu_telemetry_device_count(NULL) == 0 && agpu_telemetry_source_count(NULL) == 0);
  agpu_device_telemetry device;
  CHECK_STATUS(agpu_telemetry_get_device(NULL, 0, &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_OK(agpu_telemetry_sample(&desc, &sample));
  CHECK_STATUS(agpu_telemetry_get_device(sample, 99, &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("out of range");
  CHECK_STATUS(agpu_physical_device_telemetry(9999, 0, &device), AGPU_ERROR_INVALID_ARGUMENT);
  agpu_telemetry_release(sample);
  agpu_telemetry_release(NULL);
}

/* An allocation larger than the free memory names asked, total and free
 * memory and the processes holding the most. */
static void check_out_of_memory(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no %s", selector);
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  uint64_t asked = info.global_mem_bytes * 4 + (1ull << 30);
  if (asked > SIZE_MAX / 2 || asked <= info.max_alloc_bytes) SKIP("%s takes any size", selector);
  agpu_buffer *buffer = NULL;
  CHECK_STATUS(agpu_buffer_create(device, (size_t)asked, 0, &buffer),
               AGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  CHECK(buffer == NULL);
  printf("     %s\n", agpu_last_error());
  CHECK_MESSAGE("requested on");
  CHECK_MESSAGE(selector);
  CHECK_MESSAGE("now has ");
  CHECK_MESSAGE(" total, ");
  CHECK_MESSAGE(" free");
  CHECK_MESSAGE("; most held by ");
}

static void test_out_of_memory_cpu(void) {
  check_out_of_memory("cpu:0");
}

static void test_out_of_memory_vulkan(void) {
  check_out_of_memory("vulkan:0");
}

/* The CPU backend's own allocation failing (an address-space limit a
 * little above what the process maps): the same explanation. */
static void test_out_of_memory_cpu_backend(void) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  SKIP("the sanitizers' shadow memory does not fit an address-space limit");
#else
  agpu_device *device = agpu_test_device("cpu:0");
  if (!device) SKIP("no cpu:0");
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  FILE *statm = fopen("/proc/self/statm", "r");
  unsigned long long pages = 0;
  if (!statm || fscanf(statm, "%llu", &pages) != 1) pages = 0;
  if (statm) fclose(statm);
  size_t asked = (size_t)4 << 30;
  if (pages == 0 || asked > info.max_alloc_bytes) SKIP("cannot size the limit here");
  struct rlimit saved, limited;
  if (getrlimit(RLIMIT_AS, &saved) != 0) SKIP("getrlimit failed");
  limited = saved;
  limited.rlim_cur = (rlim_t)(pages * (unsigned long long)sysconf(_SC_PAGESIZE) + (1ull << 30));
  if (setrlimit(RLIMIT_AS, &limited) != 0) SKIP("setrlimit failed");
  agpu_buffer *buffer = NULL;
  agpu_status status = agpu_buffer_create(device, asked, 0, &buffer);
  setrlimit(RLIMIT_AS, &saved);
  CHECK(status == AGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  if (buffer) agpu_buffer_release(buffer);
  printf("     %s\n", agpu_last_error());
  CHECK_MESSAGE("cpu: allocation of 4.0 GiB");
  CHECK_MESSAGE(" total, ");
  CHECK_MESSAGE(" free");
#endif
}

/* On an NVIDIA machine (tests/gpu/run.sh): NVML answers for cuda:0's
 * physical device, memory used rises by at least 1 GiB while a 1 GiB
 * buffer is held, and this process is in its process list. */
static void test_nvml_buffer(void) {
  agpu_device *device = agpu_test_device("cuda:0");
  if (!device) SKIP("no cuda:0: %s", agpu_test_backend_reason("cuda"));
  uint32_t physical = 0;
  CHECK_OK(agpu_device_physical_index(device, &physical));
  agpu_device_telemetry before, during;
  CHECK_OK(agpu_physical_device_telemetry(physical, 0, &before));
  if (!strstr(before.sources, "nvml")) {
    CHECK(!"NVML answers for cuda:0");
    for (uint32_t i = 0; i < before.missing_count; i++)
      printf("     %s: %s\n", before.missing[i].source, before.missing[i].reason);
    return;
  }
  agpu_buffer *buffer = NULL;
  CHECK_OK(agpu_buffer_create(device, (size_t)1 << 30, AGPU_BUFFER_ZERO_INIT, &buffer));
  CHECK_OK(agpu_physical_device_telemetry(physical, 0, &during));
  printf("     %s: used %llu -> %llu bytes, %u processes\n", during.name,
         (unsigned long long)before.memory_used.bytes, (unsigned long long)during.memory_used.bytes,
         during.process_count);
  CHECK(before.memory_used.known && during.memory_used.known);
  CHECK(during.memory_used.bytes >= before.memory_used.bytes + (1ull << 30));
  CHECK(during.temperature_c.known && during.power_w.known && during.clock_mhz.known);
  bool self = false, holder = false;
  for (uint32_t i = 0; i < during.process_count; i++) {
    self |= during.processes[i].pid == (uint32_t)getpid();
    holder |= during.processes[i].memory.known && during.processes[i].memory.bytes >= 1ull << 30;
  }
  /* In a container NVML may give the host's pid: then a 1 GiB holder. */
  CHECK(self || holder);
  if (!self) printf("     this process (pid %d) is not listed by its pid\n", (int)getpid());
  agpu_buffer_release(buffer);
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median cost of one sample (no window), printed; bounded loosely. */
static double sample_cost_ms(const char *root) {
  double times[21];
  for (int i = 0; i < 21; i++) {
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    agpu_telemetry *sample = sample_at(root, NULL);
    clock_gettime(CLOCK_MONOTONIC, &end);
    agpu_telemetry_release(sample);
    times[i] =
        (double)(end.tv_sec - start.tv_sec) * 1e3 + (double)(end.tv_nsec - start.tv_nsec) / 1e6;
  }
  qsort(times, 21, sizeof times[0], compare_doubles);
  return times[10];
}

static void test_sample_cost(void) {
  char root[512];
  double live = sample_cost_ms(NULL);
  snprintf(root, sizeof root, "%s/amdgpu", fixtures);
  double amdgpu = sample_cost_ms(root);
  snprintf(root, sizeof root, "%s/xe", fixtures);
  double xe = sample_cost_ms(root);
  printf(
      "     one sample, median of 21: this machine %.2f ms, amdgpu replay %.2f ms, xe replay "
      "%.2f ms\n",
      live, amdgpu, xe);
  CHECK(live < 200 && amdgpu < 200 && xe < 200);
}

/* Samples `scratch` as another user where this one is root (root reads
 * every fdinfo): the child's exit status says what it saw. */
static int sample_unreadable_fdinfo(void) {
  agpu_telemetry *sample = sample_at(scratch, NULL);
  if (!sample) return 10;
  agpu_device_telemetry gpu;
  int result = 0;
  if (agpu_telemetry_get_device(sample, 1, &gpu) != AGPU_SUCCESS)
    result = 11;
  else if (gpu.process_count != 1 || gpu.processes[0].pid != 400)
    result = 12;
  else if (!missing_reason(&gpu, "fdinfo"))
    result = 13;
  else if (strcmp(missing_reason(&gpu, "fdinfo"),
                  "/proc/PID/fdinfo of 1 process unreadable (Permission denied): their use is "
                  "not counted") != 0)
    result = 14;
  agpu_telemetry_release(sample);
  return result;
}

/* A process whose fdinfo cannot be listed is counted and named. */
static void test_unreadable_fdinfo(void) {
  if (!copy_fixture("xe")) SKIP("cannot copy the fixture to %s", scratch);
  char path[1024];
  snprintf(path, sizeof path, "%s/proc/500/fdinfo", scratch);
  if (chmod(path, 0700) != 0) SKIP("chmod %s failed", path);
  if (geteuid() != 0) {
    CHECK(chmod(path, 0) == 0);
    CHECK(sample_unreadable_fdinfo() == 0);
    chmod(path, 0700); /* so that the scratch directory can be removed */
    return;
  }
  pid_t child = fork();
  if (child == 0) _exit(setuid(65534) == 0 ? sample_unreadable_fdinfo() : 20);
  int status = 0;
  CHECK(child > 0 && waitpid(child, &status, 0) == child);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 20) SKIP("cannot become another user");
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (WIFEXITED(status) && WEXITSTATUS(status))
    printf("     child saw case %d\n", WEXITSTATUS(status));
}

typedef struct sampler {
  const char *root;
  int matches; /* samples equal to the first thread's view */
} sampler;

static void *sample_repeatedly(void *argument) {
  sampler *job = argument;
  for (int i = 0; i < 50; i++) {
    agpu_telemetry_desc desc = {.sysroot = job->root};
    agpu_telemetry *sample = NULL;
    if (agpu_telemetry_sample(&desc, &sample) != AGPU_SUCCESS) continue;
    agpu_device_telemetry gpu;
    if (agpu_telemetry_get_device(sample, 1, &gpu) == AGPU_SUCCESS && gpu.process_count == 1 &&
        gpu.memory_used.known && gpu.memory_used.bytes == 2147483648ull)
      job->matches++;
    agpu_telemetry_release(sample);
  }
  return NULL;
}

/* Four threads sampling at once each see the whole machine. */
static void test_threads(void) {
  char root[512];
  snprintf(root, sizeof root, "%s/amdgpu", fixtures);
  sampler jobs[4];
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) {
    jobs[i] = (sampler){root, 0};
    CHECK(pthread_create(&threads[i], NULL, sample_repeatedly, &jobs[i]) == 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(threads[i], NULL);
    CHECK(jobs[i].matches == 50);
  }
}

int main(int argc, char **argv) {
  fixtures = argc > 1 ? argv[1] : "tests/telemetry";
  snprintf(scratch, sizeof scratch, "%s/anygpu-telemetry-%ld",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
  RUN(test_cpu_only);
  RUN(test_amdgpu);
  RUN(test_xe);
  RUN(test_nvidia_without_nvml);
  RUN(test_cpu_rates);
  RUN(test_xe_rates);
  RUN(test_threads);
  RUN(test_unreadable_fdinfo);
  RUN(test_live_cpu_memory);
  RUN(test_live_cpu_busy);
  RUN(test_live_physical);
  RUN(test_arguments);
  RUN(test_sample_cost);
  RUN(test_out_of_memory_cpu);
  RUN(test_out_of_memory_vulkan);
  RUN(test_out_of_memory_cpu_backend);
  RUN(test_nvml_buffer);
  char command[600];
  snprintf(command, sizeof command, "rm -rf '%s'", scratch);
  if (system(command) != 0) printf("could not remove %s\n", scratch);
  return agpu_test_finish();
}
