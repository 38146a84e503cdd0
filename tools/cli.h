// SPDX-License-Identifier: Apache-2.0
/* What the anygpu command's parts share: exit statuses, argument parsing,
 * error reporting and the commands themselves. */
#ifndef ANYGPU_TOOLS_CLI_H
#define ANYGPU_TOOLS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "anygpu.h"

enum {
  CLI_EXIT_OK = 0,
  CLI_EXIT_FAILURE = 1, /* the library or a device failed; the message says why */
  CLI_EXIT_USAGE = 2,   /* unknown command or option, wrong arguments */
};

#define CLI_MAX_POSITIONAL 4
#define CLI_MAX_INCLUDE_DIRS 64 /* -I DIR options of compile and run */

/* The options every command takes, and its positional arguments. */
typedef struct cli_arguments {
  bool json;
  bool help;
  int positional_count;
  const char *positional[CLI_MAX_POSITIONAL];
} cli_arguments;

/* Parses the arguments after the command name. Returns CLI_EXIT_OK, or
 * reports the problem and returns CLI_EXIT_USAGE. */
int cli_parse_arguments(int argc, char **argv, int max_positional, cli_arguments *arguments);

/* Each returns the exit status, after printing "anygpu: ..." on one line of
 * stderr. */
int cli_usage_error(const char *what, const char *argument);
int cli_library_error(agpu_status status);
int cli_out_of_memory(void);

/* --trace FILE of run and bench (docs/debugging.md): cli_trace_start starts
 * the library's trace when `path` is not NULL (CLI_EXIT_FAILURE with the
 * message when it cannot); cli_trace_stop writes it and says where on
 * stderr. Each returns `status`, or CLI_EXIT_FAILURE for a trace that
 * failed where `status` was CLI_EXIT_OK. */
int cli_trace_start(const char *path);
int cli_trace_stop(const char *path, int status);

/* A kernel source file, the way compile and run read one (cli_source.c):
 * PATH, or standard input for "-", NUL-terminated, at most
 * CLI_MAX_SOURCE_BYTES (the library's limit, docs/kernel-language.md). A
 * directory, a FIFO, a device or a larger file is refused without reading
 * it. NULL with the reason ("/dev/zero is a character device, not a regular
 * file") in `error`. */
#define CLI_MAX_SOURCE_BYTES ((size_t)64 << 20)
char *cli_read_source(const char *path, size_t *length, char *error, size_t capacity);

/* Flushes stdout; a failed write (a full disk, a closed pipe) is an error. */
int cli_finish_output(void);

void cli_print_help(FILE *out);
/* A command's own usage (cli_usage.c); false for one without (bench has its own). */
bool cli_print_command_help(FILE *out, const char *command);

/* The commands take the arguments after their name. */
int cmd_list(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_top(int argc, char **argv);

#endif /* ANYGPU_TOOLS_CLI_H */
