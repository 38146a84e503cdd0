// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "format.h"

int cli_usage_error(const char *what, const char *argument) {
  fprintf(stderr, "anygpu: %s '", what);
  fput_single_line(argument, stderr);
  fputs("' (try anygpu --help)\n", stderr);
  return CLI_EXIT_USAGE;
}

int cli_library_error(agpu_status status) {
  const char *message = agpu_last_error();
  fputs("anygpu: ", stderr);
  /* Messages may carry a driver's multi-line log: keep the report one line. */
  fput_single_line(message && message[0] ? message : agpu_status_name(status), stderr);
  fputc('\n', stderr);
  return CLI_EXIT_FAILURE;
}

int cli_out_of_memory(void) {
  fputs("anygpu: out of host memory\n", stderr);
  return CLI_EXIT_FAILURE;
}

int cli_finish_output(void) {
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return CLI_EXIT_OK;
  fprintf(stderr, "anygpu: cannot write the output: %s\n", errno ? strerror(errno) : "write error");
  return CLI_EXIT_FAILURE;
}

int cli_trace_start(const char *path) {
  if (!path) return CLI_EXIT_OK;
  agpu_status status = agpu_trace_start(path);
  return status == AGPU_SUCCESS ? CLI_EXIT_OK : cli_library_error(status);
}

int cli_trace_stop(const char *path, int status) {
  if (!path) return status;
  agpu_status stopped = agpu_trace_stop();
  if (stopped != AGPU_SUCCESS) {
    int failed = cli_library_error(stopped);
    return status == CLI_EXIT_OK ? failed : status;
  }
  fprintf(stderr,
          "anygpu: trace written to %s (open it in https://ui.perfetto.dev or chrome://tracing)\n",
          path);
  return status;
}
