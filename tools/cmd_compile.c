// SPDX-License-Identifier: Apache-2.0
/* anygpu compile FILE: the translator on its own, for looking at what each
 * backend will compile, checking a kernel, or reading its signature. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define COMPILE_MAX_OPTIONS_LENGTH 8192

typedef struct compile_request {
  const char *file;
  const char *output_file; /* NULL: standard output */
  bool explicit_stdout;    /* -o -: even a binary to a terminal */
  agpu_translate_desc desc;
  bool signature;
  char options[COMPILE_MAX_OPTIONS_LENGTH];
  const char *include_dirs[CLI_MAX_INCLUDE_DIRS];
} compile_request;

static bool parse_target(const char *name, agpu_target *target) {
  for (int t = 0; t < AGPU_TARGET_COUNT_; t++) {
    if (strcmp(agpu_target_name((agpu_target)t), name) == 0) {
      *target = (agpu_target)t;
      return true;
    }
  }
  return false;
}

/* Appends " -DNAME=VALUE" (or -U) to the build options. */
static int add_option(compile_request *request, const char *flag, const char *value) {
  size_t used = strlen(request->options);
  int n = snprintf(request->options + used, sizeof request->options - used, "%s%s%s",
                   used ? " " : "", flag, value);
  if (n < 0 || (size_t)n >= sizeof request->options - used)
    return cli_usage_error("too many build options at", value);
  return CLI_EXIT_OK;
}

/* An option's value: "-DX" carries it, "-D X" takes the next argument. */
static const char *option_value(int argc, char **argv, int *i, size_t prefix_length) {
  if (argv[*i][prefix_length] != '\0') return argv[*i] + prefix_length;
  if (*i + 1 >= argc) return NULL;
  return argv[++*i];
}

static int parse_compile_arguments(int argc, char **argv, compile_request *request) {
  for (int i = 0; i < argc; i++) {
    const char *argument = argv[i];
    const char *value;
    if (strcmp(argument, "--help") == 0 || strcmp(argument, "-h") == 0) {
      cli_print_command_help(stdout, "compile");
      return -1;
    } else if (strncmp(argument, "-D", 2) == 0 || strncmp(argument, "-U", 2) == 0) {
      char flag[3] = {argument[0], argument[1], '\0'};
      if (!(value = option_value(argc, argv, &i, 2)))
        return cli_usage_error("missing value after", argument);
      int status = add_option(request, flag, value);
      if (status != CLI_EXIT_OK) return status;
    } else if (strncmp(argument, "-I", 2) == 0) {
      if (!(value = option_value(argc, argv, &i, 2)))
        return cli_usage_error("missing directory after", argument);
      if (request->desc.include_dir_count == CLI_MAX_INCLUDE_DIRS)
        return cli_usage_error("too many -I directories at", value);
      request->include_dirs[request->desc.include_dir_count++] = value;
      request->desc.include_dirs = request->include_dirs;
    } else if (strcmp(argument, "--target") == 0 || strncmp(argument, "--target=", 9) == 0) {
      value = argument[8] == '=' ? argument + 9 : (i + 1 < argc ? argv[++i] : NULL);
      if (!value) return cli_usage_error("missing value after", argument);
      if (!parse_target(value, &request->desc.target))
        return cli_usage_error("unknown target (opencl, cuda, hip, glsl, c, spirv)", value);
    } else if (strcmp(argument, "--kernel") == 0) {
      if (i + 1 >= argc) return cli_usage_error("missing value after", argument);
      request->desc.kernel = argv[++i];
    } else if (strcmp(argument, "-o") == 0) {
      if (i + 1 >= argc) return cli_usage_error("missing value after", argument);
      request->output_file = argv[++i];
      if (strcmp(request->output_file, "-") == 0) {
        request->output_file = NULL;
        request->explicit_stdout = true;
      }
    } else if (strcmp(argument, "--signature") == 0) {
      request->signature = true;
    } else if (strcmp(argument, "--check") == 0) {
      int status = add_option(request, AGPU_PROGRAM_CHECK_BOUNDS, "");
      if (status != CLI_EXIT_OK) return status;
    } else if (strcmp(argument, "--no-fp64") == 0) {
      request->desc.no_fp64 = true;
    } else if (strcmp(argument, "--fp16") == 0) {
      request->desc.fp16 = true;
    } else if (argument[0] == '-' && argument[1] != '\0') {
      return cli_usage_error("unknown option", argument);
    } else if (!request->file) {
      request->file = argument;
    } else {
      return cli_usage_error("unexpected argument", argument);
    }
  }
  if (!request->file) return cli_usage_error("missing kernel file after", "compile");
  return CLI_EXIT_OK;
}

static int write_result(const compile_request *request, const char *text) {
  if (!request->output_file) {
    fputs(text, stdout);
    return cli_finish_output();
  }
  FILE *out = fopen(request->output_file, "w");
  if (!out || fputs(text, out) < 0 || fclose(out) != 0) {
    fprintf(stderr, "anygpu: cannot write %s: %s\n", request->output_file, strerror(errno));
    return CLI_EXIT_FAILURE;
  }
  return CLI_EXIT_OK;
}

/* A binary output (SPIR-V) goes to -o, a pipe or a file; never to a
 * terminal. */
static int write_binary(const compile_request *request, const void *bytes, size_t size) {
  if (!request->output_file) {
    if (!request->explicit_stdout && isatty(STDOUT_FILENO)) {
      fprintf(stderr,
              "anygpu: refusing to write SPIR-V (binary) to a terminal; use -o FILE.spv (or -o - "
              "to insist)\n");
      return CLI_EXIT_FAILURE;
    }
    fwrite(bytes, 1, size, stdout);
    return cli_finish_output();
  }
  FILE *out = fopen(request->output_file, "wb");
  bool written = out && fwrite(bytes, 1, size, out) == size;
  if (out && fclose(out) != 0) written = false;
  if (!written) {
    fprintf(stderr, "anygpu: cannot write %s: %s\n", request->output_file, strerror(errno));
    return CLI_EXIT_FAILURE;
  }
  return CLI_EXIT_OK;
}

int cmd_compile(int argc, char **argv) {
  compile_request request;
  memset(&request, 0, sizeof request);
  request.desc.target = AGPU_TARGET_OPENCL;
  int status = parse_compile_arguments(argc, argv, &request);
  if (status != CLI_EXIT_OK) return status < 0 ? cli_finish_output() : status;

  size_t length = 0;
  char error[1024];
  char *source = cli_read_source(request.file, &length, error, sizeof error);
  if (!source) {
    fprintf(stderr, "anygpu: %s\n", error);
    return CLI_EXIT_FAILURE;
  }
  request.desc.source = source;
  request.desc.source_size = length;
  request.desc.source_name = request.file;
  request.desc.options = request.options;
  agpu_translation *translation = NULL;
  agpu_status result = agpu_translate(&request.desc, &translation);
  free(source);
  if (result == AGPU_ERROR_BUILD_FAILED) {
    /* Diagnostics are meant to be read whole: the lines and carets stay. */
    fputs(agpu_last_error(), stderr);
    return CLI_EXIT_FAILURE;
  }
  bool one_shader =
      request.desc.target == AGPU_TARGET_GLSL || request.desc.target == AGPU_TARGET_SPIRV;
  if (result == AGPU_ERROR_INVALID_ARGUMENT && one_shader && !request.desc.kernel) {
    /* The library names its field; here the option says it. */
    const char *names = strstr(agpu_last_error(), "agpu_translate_desc.kernel:");
    fprintf(stderr,
            "anygpu: the %s target makes one shader per kernel: pass --kernel NAME, one of:%s\n",
            agpu_target_name(request.desc.target),
            names ? names + strlen("agpu_translate_desc.kernel:") : "");
    return CLI_EXIT_FAILURE;
  }
  if (result != AGPU_SUCCESS) return cli_library_error(result);
  fputs(agpu_translation_diagnostics(translation), stderr);
  size_t binary_size = 0;
  const void *binary = agpu_translation_binary(translation, &binary_size);
  if (binary && !request.signature)
    status = write_binary(&request, binary, binary_size);
  else
    status = write_result(&request, request.signature ? agpu_translation_signature_json(translation)
                                                      : agpu_translation_output(translation));
  agpu_translation_release(translation);
  return status;
}
