// SPDX-License-Identifier: Apache-2.0
/* What anygpu run's parts share: the request as parsed and each device's
 * run (cmd_run.c parses and runs, run_report.c prints and compares). */
#ifndef ANYGPU_TOOLS_RUN_H
#define ANYGPU_TOOLS_RUN_H

#include "run_args.h"
#include "run_compare.h"

#define RUN_MAX_ARGS 32
#define RUN_MAX_DEVICES 32
#define RUN_OPTIONS_MAX 8192

typedef struct run_request {
  const char *file;
  const char *kernel;
  uint32_t dims;
  size_t global[3];
  size_t local[3];
  bool has_local;
  run_arg args[RUN_MAX_ARGS];
  uint32_t arg_count;
  const char *selector;
  bool all_devices;
  bool compare;
  run_tolerance tolerance; /* for floats; integers are compared bit for bit */
  uint64_t seed;
  const char *out_dir;
  const char *trace; /* --trace FILE */
  char options[RUN_OPTIONS_MAX];
  const char *include_dirs[CLI_MAX_INCLUDE_DIRS]; /* -I DIR */
  uint32_t include_dir_count;
} run_request;

typedef enum run_outcome { RUN_RAN, RUN_SKIPPED, RUN_FAILED } run_outcome;

typedef struct run_device {
  agpu_device *device;
  agpu_device_info info;
  run_outcome outcome;
  char message[4096];
  bool wrong_arg_count; /* the --arg count does not fit the kernel (said once) */
  double milliseconds;
  void *buffers[RUN_MAX_ARGS]; /* every buffer argument after the run */
  char names[RUN_MAX_ARGS][64];
  bool is_const[RUN_MAX_ARGS];
} run_device;

/* Prints each device's outcome, and with --compare every buffer against the
 * reference device's; writes --out files. Returns the exit status. */
int run_report(const run_request *request, run_device *devices, uint32_t count);

#endif /* ANYGPU_TOOLS_RUN_H */
