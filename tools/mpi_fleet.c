// SPDX-License-Identifier: Apache-2.0
/* --mpi: each rank runs the command with its output captured, describes
 * itself (host, local rank, devices, physical devices, exit status, stderr)
 * and sends both to rank 0 in one MPI_Gatherv; rank 0 prints the combined
 * report (mpi_report.c). The command runs in a child process before
 * MPI_Init, so that MPI cannot disturb the drivers, nothing is forked from
 * an MPI process, and a crash of the command is reported as a failure. */
#define _GNU_SOURCE /* open_memstream, gethostname */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "driver_guard.h"
#include "json_writer.h"
#include "mpi_fleet.h"
#include "physical_report.h"

/* fd 1 or 2 redirected into a temporary file while the command runs. */
typedef struct mpi_capture {
  FILE *file;
  int saved;
} mpi_capture;

static bool capture_begin(mpi_capture *capture, FILE *stream) {
  fflush(stream);
  capture->file = tmpfile();
  capture->saved = capture->file ? dup(fileno(stream)) : -1;
  if (capture->saved < 0 || dup2(fileno(capture->file), fileno(stream)) < 0) {
    if (capture->file) fclose(capture->file);
    if (capture->saved >= 0) close(capture->saved);
    return false;
  }
  return true;
}

/* Restores the stream and returns what was written, malloc'd ("" if none). */
static char *capture_end(mpi_capture *capture, FILE *stream) {
  fflush(stream);
  dup2(capture->saved, fileno(stream));
  close(capture->saved);
  long size = fseek(capture->file, 0, SEEK_END) == 0 ? ftell(capture->file) : -1;
  char *text = malloc(size > 0 ? (size_t)size + 1 : 1);
  size_t got = 0;
  if (text && size > 0 && fseek(capture->file, 0, SEEK_SET) == 0)
    got = fread(text, 1, (size_t)size, capture->file);
  if (text) text[got] = '\0';
  fclose(capture->file);
  return text;
}

/* The devices this rank sees, one "selector=name" each, joined with ", ":
 * what ranks are compared by. */
static void append_devices(FILE *out, json_writer *writer) {
  uint32_t count = 0;
  if (agpu_device_count(&count) != AGPU_SUCCESS) count = 0;
  json_key(writer, "devices");
  json_begin_array(writer);
  for (uint32_t i = 0; i < count; i++) {
    agpu_device *device;
    agpu_device_info info;
    if (agpu_device_get(i, &device) || agpu_device_get_info(device, &info)) continue;
    fprintf(out, "%s%s=%s", i ? ", " : "", info.selector, info.name);
    json_begin_object(writer);
    json_key_string(writer, "selector", info.selector);
    json_key_string(writer, "name", info.name);
    json_key_string(writer, "type", agpu_device_type_name(info.type));
    json_end_object(writer);
  }
  json_end_array(writer);
  if (!count) fputs("no devices", out);
  /* Backends without devices: a node where CUDA is missing stands out. */
  uint32_t backends = agpu_backend_count(), listed = 0;
  for (uint32_t b = 0; b < backends; b++) {
    agpu_backend_info backend;
    if (agpu_backend_get_info(b, &backend) || backend.testing || backend.device_count) continue;
    fprintf(out, "%s%s", listed++ ? ", " : "; no devices from ", backend.name);
  }
}

/* Kernels that failed in a `test --json` report ("copy.f32 on opencl:0"):
 * its writer puts "kernel", "device" and "status" of a result in that order. */
static void append_test_failures(FILE *out, const char *report) {
  int failures = 0;
  for (const char *p = report; (p = strstr(p, "\"status\": \"fail\"")) != NULL; p++) {
    const char *kernel = NULL;
    for (const char *q = p; q > report && !kernel; q--)
      if (strncmp(q, "\"kernel\": \"", 11) == 0) kernel = q + 11;
    const char *device = kernel ? strstr(kernel, "\"device\": \"") : NULL;
    if (!kernel || !device || device > p) continue;
    fprintf(out, "%s%.*s on %.*s", failures++ ? ", " : "; failed: ", (int)strcspn(kernel, "\""),
            kernel, (int)strcspn(device + 11, "\""), device + 11);
  }
}

/* What the command worked on, from its --json report: the distinct values
 * of its "device" keys ("cpu:0, opencl:0"), then test's counts. */
static char *work_line(const char *report) {
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  if (!out) return NULL;
  int listed = 0;
  static const char key[] = "\"device\": \"";
  for (const char *p = report; (p = strstr(p, key)) != NULL && listed < 64;) {
    p += sizeof key - 1;
    int length = (int)strcspn(p, "\"");
    bool seen = false; /* earlier in the report? */
    for (const char *q = report; !seen && (q = strstr(q, key)) != NULL && q + sizeof key - 1 < p;)
      q += sizeof key - 1, seen = strncmp(q, p, (size_t)length) == 0 && q[length] == '"';
    if (!seen) fprintf(out, "%s%.*s", listed++ ? ", " : "on ", length, p);
  }
  static const char *const counts[] = {"passed", "failed", "skipped"};
  for (int i = 0; i < 3; i++) {
    char name[24];
    snprintf(name, sizeof name, "\n  \"%s\": ", counts[i]);
    const char *at = strstr(report, name);
    if (at)
      fprintf(out, "%s%ld %s", i ? ", " : "; ", strtol(at + strlen(name), NULL, 10), counts[i]);
  }
  fclose(out);
  return text;
}

/* A compact JSON text written by `write`, malloc'd; NULL when out of memory. */
static char *json_text(void (*write)(json_writer *writer, void *context, FILE *print),
                       void *context, FILE *print) {
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  if (!out) return NULL;
  json_writer writer;
  json_writer_init(&writer, out, false);
  write(&writer, context, print);
  fclose(out);
  return text;
}

static void write_local(json_writer *writer, void *context, FILE *print) {
  (void)context;
  (void)print;
  uint32_t local_rank = 0;
  const char *variable = NULL;
  agpu_local_rank(&local_rank, &variable);
  json_begin_object(writer);
  json_key_uint(writer, "local_rank", local_rank);
  json_key_string_or_null(writer, "variable", variable != NULL, variable ? variable : "");
  json_end_object(writer);
}

static void write_hardware(json_writer *writer, void *context, FILE *print) {
  (void)context;
  json_begin_object(writer);
  append_devices(print, writer);
  agpu_physical_device_info *physical = NULL;
  uint32_t physical_count = 0;
  if (physical_report_collect(&physical, &physical_count) == AGPU_SUCCESS)
    physical_report_write_json(writer, physical, physical_count);
  free(physical);
  json_end_object(writer);
}

/* Everything this rank sends, NUL-separated (MPI_FIELD_*), malloc'd. */
static char *rank_record(const char *command, int exit_status, const char *report,
                         const char *errors, size_t *size) {
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  char *fingerprint = NULL;
  size_t fingerprint_size = 0;
  FILE *print = open_memstream(&fingerprint, &fingerprint_size);
  if (!print) return NULL;
  char *local = json_text(write_local, NULL, print);
  char *hardware = json_text(write_hardware, NULL, print);
  if (strcmp(command, "test") == 0) append_test_failures(print, report);
  if (exit_status)
    fprintf(print, "; exit status %d: %.*s", exit_status, (int)strcspn(errors, "\n"), errors);
  fclose(print);
  char exit_text[16];
  snprintf(exit_text, sizeof exit_text, "%d", exit_status);
  char *work = work_line(report);
  const char *fields[MPI_FIELD_COUNT_] = {host,
                                          fingerprint,
                                          exit_text,
                                          errors,
                                          local ? local : "",
                                          hardware ? hardware : "",
                                          work ? work : "",
                                          report};
  size_t total = 0;
  for (int i = 0; i < MPI_FIELD_COUNT_; i++) total += strlen(fields[i]) + 1;
  char *record = fingerprint && local && hardware && work ? malloc(total) : NULL;
  for (size_t i = 0, at = 0; record && i < MPI_FIELD_COUNT_; i++) {
    size_t length = strlen(fields[i]) + 1;
    memcpy(record + at, fields[i], length);
    at += length;
  }
  free(fingerprint);
  free(local);
  free(hardware);
  free(work);
  *size = total;
  return record;
}

/* Splits rank 0's gathered buffer into records. False on a malformed one. */
static bool split_records(const char *buffer, const int *sizes, const int *offsets, int count,
                          mpi_rank_record *records) {
  for (int r = 0; r < count; r++) {
    const char *p = buffer + offsets[r], *end = p + sizes[r];
    records[r].rank = r;
    records[r].bytes = (size_t)sizes[r];
    for (int f = 0; f < MPI_FIELD_COUNT_; f++) {
      const char *nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
      if (!nul) return false;
      records[r].fields[f] = p;
      p = nul + 1;
    }
  }
  return true;
}

/* MPI_Init, the gather to rank 0 and its report. Rank 0 returns the report's
 * exit status, the others 0 (the report has their failures). */
static int gather_and_report(const char *command, mpi_library *mpi, const char *record, int size,
                             bool json) {
  if (mpi->MPI_Init(NULL, NULL) != 0) {
    fprintf(stderr, "anygpu: --mpi: MPI_Init of %s failed\n", mpi->name);
    return CLI_EXIT_FAILURE;
  }
  int rank = 0, world = 1, exit_status = CLI_EXIT_OK;
  mpi->MPI_Comm_rank(mpi->comm_world, &rank);
  mpi->MPI_Comm_size(mpi->comm_world, &world);
  int *sizes = rank == 0 ? calloc((size_t)world, 2 * sizeof *sizes) : NULL;
  mpi->MPI_Gather(&size, 1, mpi->type_int, sizes, 1, mpi->type_int, 0, mpi->comm_world);
  char *buffer = NULL;
  int *offsets = sizes ? sizes + world : NULL;
  size_t total = 0;
  if (rank == 0 && sizes) {
    for (int r = 0; r < world; r++) {
      offsets[r] = (int)total;
      total += (size_t)sizes[r];
    }
    buffer = total <= 0x7fffffff ? malloc(total ? total : 1) : NULL;
  }
  mpi->MPI_Gatherv(record, size, mpi->type_byte, buffer, sizes, offsets, mpi->type_byte, 0,
                   mpi->comm_world);
  if (rank == 0) {
    mpi_rank_record *records = calloc((size_t)world, sizeof *records);
    if (!buffer || !records) {
      exit_status = cli_out_of_memory();
    } else if (!split_records(buffer, sizes, offsets, world, records)) {
      fputs("anygpu: --mpi: a rank sent a malformed record\n", stderr);
      exit_status = CLI_EXIT_FAILURE;
    } else {
      exit_status = mpi_report_print(command, mpi, records, world, json);
    }
    free(records);
  }
  free(buffer);
  free(sizes);
  mpi->MPI_Finalize();
  return exit_status;
}

/* Runs the command in a child process, so that a driver that crashes it
 * (a GPU that fails the suite the hard way) still leaves this rank alive to
 * report: 128 + the signal, with a line on the captured stderr. */
static int run_isolated(const char *command, int (*run)(int argc, char **argv), int argc,
                        char **argv, bool guard) {
  pid_t child = fork();
  if (child == 0) {
    int status = guard ? driver_guard_run(run, argc, argv, command) : run(argc, argv);
    fflush(stdout);
    fflush(stderr);
    _exit(status);
  }
  int wait_status = 0;
  if (child < 0 || waitpid(child, &wait_status, 0) != child) {
    fprintf(stderr, "anygpu: --mpi: cannot run %s in a child process\n", command);
    return CLI_EXIT_FAILURE;
  }
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  int signal_number = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
  fprintf(stderr, "anygpu: %s was killed by signal %d (%s)\n", command, signal_number,
          strsignal(signal_number));
  return 128 + signal_number;
}

int mpi_fleet_run(const char *command, int (*run)(int argc, char **argv), int argc, char **argv,
                  bool json, bool guard) {
  mpi_library mpi;
  memset(&mpi, 0, sizeof mpi);
  char error[512];
  if (!mpi_library_load(&mpi, error, sizeof error)) {
    fprintf(stderr, "anygpu: %s\n", error);
    return CLI_EXIT_FAILURE;
  }
  mpi_capture out, err;
  if (!capture_begin(&out, stdout)) {
    fputs("anygpu: --mpi: cannot capture the output (no temporary file)\n", stderr);
    return CLI_EXIT_FAILURE;
  }
  if (!capture_begin(&err, stderr)) {
    free(capture_end(&out, stdout));
    fputs("anygpu: --mpi: cannot capture the output (no temporary file)\n", stderr);
    return CLI_EXIT_FAILURE;
  }
  int status = run_isolated(command, run, argc, argv, guard);
  char *errors = capture_end(&err, stderr);
  char *report = capture_end(&out, stdout);
  size_t size = 0;
  char *record = errors && report ? rank_record(command, status, report, errors, &size) : NULL;
  free(errors);
  free(report);
  if (!record || size > 0x7fffffff) {
    free(record);
    return cli_out_of_memory();
  }
  status = gather_and_report(command, &mpi, record, (int)size, json);
  free(record);
  return status;
}
