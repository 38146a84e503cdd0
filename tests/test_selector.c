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

static const char *const launcher_variables[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                                 "SLURM_LOCALID", "PMI_LOCAL_RANK"};

static void clear_launcher_variables(void) {
  for (size_t i = 0; i < sizeof launcher_variables / sizeof *launcher_variables; i++)
    unsetenv(launcher_variables[i]);
}

/* The device "*:*@local" picks for a rank given through `variable`. */
static const char *local_pick(const char *variable, const char *rank, const char *selector) {
  static char picked[32];
  clear_launcher_variables();
  if (variable) setenv(variable, rank, 1);
  snprintf(picked, sizeof picked, "%s", selector_of(select_one(selector)));
  clear_launcher_variables();
  return picked;
}

static void local_rank_reads_each_launcher_variable(void) {
  clear_launcher_variables();
  uint32_t rank = 99;
  const char *variable = "x";
  CHECK_OK(agpu_local_rank(&rank, &variable));
  CHECK(rank == 0 && variable == NULL); /* no launcher: rank 0 */
  for (size_t i = 0; i < sizeof launcher_variables / sizeof *launcher_variables; i++) {
    setenv(launcher_variables[i], "3", 1);
    CHECK_OK(agpu_local_rank(&rank, &variable));
    CHECK(rank == 3 && variable && strcmp(variable, launcher_variables[i]) == 0);
    unsetenv(launcher_variables[i]);
  }
  /* The first one set wins; an empty one counts as unset. */
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "", 1);
  setenv("MPI_LOCALRANKID", "2", 1);
  setenv("SLURM_LOCALID", "5", 1);
  CHECK_OK(agpu_local_rank(&rank, &variable));
  CHECK(rank == 2 && strcmp(variable, "MPI_LOCALRANKID") == 0);
  clear_launcher_variables();
  setenv("SLURM_LOCALID", "one", 1);
  CHECK_STATUS(agpu_local_rank(&rank, NULL), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("SLURM_LOCALID='one' is not a node-local rank");
  agpu_device *device = NULL;
  CHECK_STATUS(agpu_device_select("*:*@local", &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("SLURM_LOCALID='one'");
  CHECK_OK(agpu_device_select("cpu:0", &device)); /* only @local reads the variables */
  clear_launcher_variables();
  CHECK_STATUS(agpu_local_rank(NULL, NULL), AGPU_ERROR_INVALID_ARGUMENT);
}

static void local_picks_the_ranks_device(void) {
  uint32_t total = 0;
  CHECK_OK(agpu_device_select_all("*:*", NULL, 0, &total));
  uint32_t opencl_count = 0;
  CHECK_OK(agpu_device_select_all("opencl:*", NULL, 0, &opencl_count));
  bool has_opencl = opencl_count > 0;
  /* Every launcher variable gives the same mapping. */
  for (size_t i = 0; i < sizeof launcher_variables / sizeof *launcher_variables; i++) {
    char rank0[32], rank1[32];
    snprintf(rank0, sizeof rank0, "%s", local_pick(launcher_variables[i], "0", "*:*@local"));
    snprintf(rank1, sizeof rank1, "%s", local_pick(launcher_variables[i], "1", "*:*@local"));
    CHECK(strcmp(rank0, local_pick(NULL, NULL, "*:*@local")) == 0); /* no variable: rank 0 */
    if (total >= 2) CHECK(strcmp(rank0, rank1) != 0);
    char wrapped[32];
    snprintf(wrapped, sizeof wrapped, "%u", total);
    CHECK(strcmp(rank0, local_pick(launcher_variables[i], wrapped, "*:*@local")) == 0);
    snprintf(wrapped, sizeof wrapped, "%u", total + 1);
    CHECK(strcmp(rank1, local_pick(launcher_variables[i], wrapped, "*:*@local")) == 0);
  }
  /* The issue's case: CPU devices are one physical device, so "*:cpu@local"
   * follows the best-first order of "*:cpu": with cpu:0 and opencl:0 (PoCL),
   * rank 1 gets the second of them. */
  agpu_device *cpus[8];
  uint32_t cpu_count = 0;
  CHECK_OK(agpu_device_select_all("*:cpu", cpus, 8, &cpu_count));
  if (has_opencl && cpu_count >= 2) {
    const char *rank1 = local_pick("OMPI_COMM_WORLD_LOCAL_RANK", "1", "*:cpu@local");
    CHECK(strcmp(rank1, selector_of(cpus[1])) == 0);
    CHECK(strcmp(local_pick("OMPI_COMM_WORLD_LOCAL_RANK", "0", "*:cpu@local"),
                 selector_of(cpus[0])) == 0);
    if (total == cpu_count) /* no GPU: "*:*@local" is the same list */
      CHECK(strcmp(local_pick("OMPI_COMM_WORLD_LOCAL_RANK", "1", "*:*@local"),
                   selector_of(cpus[1])) == 0);
  }
  /* A single match: every rank gets it (wrap-around of one). */
  CHECK(strcmp(local_pick("SLURM_LOCALID", "7", "cpu:*@local"), "cpu:0") == 0);
  /* "@local" terms combine with others: the picked device, then the rest. */
  uint32_t count = 0;
  setenv("PMI_LOCAL_RANK", "1", 1);
  CHECK_OK(agpu_device_select_all("*:*@local", NULL, 0, &count));
  CHECK(count == (total ? 1u : 0u));
  CHECK_OK(agpu_device_select_all("*:*@local;cpu:0", NULL, 0, &count));
  CHECK(count >= 1 && count <= 2);
  clear_launcher_variables();
}

static void bad_local_spellings_are_rejected(void) {
  static const char *const bad[] = {"*:*@lokal", "*:gpu@", "*:*@local@local", "cpu:0@ local x",
                                    "*:*@LOCAL"};
  agpu_device *device = NULL;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    CHECK_STATUS(agpu_device_select(bad[i], &device), AGPU_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("the only one is @local");
  }
  CHECK_STATUS(agpu_device_select("@local", &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("missing backend name");
  CHECK_STATUS(agpu_device_select("bogus:*@local", &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("unknown backend 'bogus'");
  CHECK_OK(agpu_device_select(" cpu : * @ local ", &device));
  CHECK(strcmp(selector_of(device), "cpu:0") == 0);
  CHECK_STATUS(agpu_device_select("cpu:7@local", &device), AGPU_ERROR_NOT_FOUND);
  CHECK_MESSAGE("no device matches selector 'cpu:7@local'");
}

int main(void) {
  RUN(cpu_index_selects_builtin_cpu);
  RUN(star_cpu_matches_every_cpu_device);
  RUN(terms_are_tried_in_order);
  RUN(exclusion_removes_devices);
  RUN(bad_selectors_are_rejected);
  RUN(environment_variable_is_the_default);
  RUN(default_prefers_a_device_that_builds);
  RUN(local_rank_reads_each_launcher_variable);
  RUN(local_picks_the_ranks_device);
  RUN(bad_local_spellings_are_rejected);
  return agpu_test_finish();
}
