// SPDX-License-Identifier: Apache-2.0
/* anygpu: which GPUs does this system expose, through which APIs? */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "driver_guard.h"
#include "mpi_fleet.h"

typedef struct cli_command {
  const char *name;
  int (*run)(int argc, char **argv);
} cli_command;

static const cli_command cli_commands[] = {
    {"list", cmd_list}, /* one per line */
    {"info", cmd_info}, {"doctor", cmd_doctor}, {"compile", cmd_compile}, {"test", cmd_test},
    {"run", cmd_run},   {"bench", cmd_bench},   {"top", cmd_top},
};

void cli_print_help(FILE *out) {
  fputs(
      "Usage: anygpu <command> [options]\n"
      "\n"
      "Commands:\n"
      "  list [--json] [--mpi]     every device of every backend, and why a backend\n"
      "                            has no devices; --mpi: of every MPI rank, in one\n"
      "                            report (list, test, bench; docs/cluster.md)\n"
      "  info [SELECTOR] [--json]  every property of one device (default: the device\n"
      "                            $ANYGPU_DEVICE selects, else the best one)\n"
      "  doctor [--json] [--sysroot DIR] [--watch SECONDS]\n"
      "                            why a backend or a GPU is missing: libraries,\n"
      "                            drivers, ICD files, variables, permissions\n"
      "  compile FILE [-D NAME[=VALUE]]... [-I DIR]... [--target T] [--kernel NAME]\n"
      "          [--signature] [--no-fp64] [--fp16] [-o OUT]\n"
      "                            translate a kernel for a target (opencl, cuda,\n"
      "                            hip, glsl, c, spirv), print its signature as JSON,\n"
      "                            or its errors (file:line:col) with exit status 1;\n"
      "                            --fp16/--no-fp64 the device traits assumed\n"
      "  test [--device SEL] [--kernel NAME[,NAME...]] [--size small|medium|large]\n"
      "       [--seed N] [--json] [--list] [--kernels-dir DIR]\n"
      "                            the conformance suite (vector, matmul, reduction,\n"
      "                            transpose, scan, histogram, stencil kernels) on\n"
      "                            every device, checked against host references;\n"
      "                            exit status 1 on any failure\n"
      "  run FILE --kernel NAME --global X[,Y[,Z]] [--local X[,Y[,Z]]] --arg SPEC...\n"
      "      [-D NAME[=VALUE]]... [-I DIR]... [--device SEL | --all-devices] [--compare]\n"
      "      [--atol A] [--rtol R] [--ulp N] [--seed N] [--out DIR] [--trace FILE]\n"
      "                            run a kernel with generated or file inputs; SPEC is\n"
      "                            buf:TYPE:N[:random|random=LO,HI|fill=V|iota|file=F],\n"
      "                            local:TYPE:N, TYPE:VALUE or bytes:HEX (a struct\n"
      "                            by value); --compare runs it on\n"
      "                            every device and compares each buffer with the\n"
      "                            first device's (OpenCL where present)\n"
      "  bench [-d SEL] [--bench NAME[,NAME...]] [--size N] [--quick] [--json]\n"
      "        [--html FILE] [--trace FILE]\n"
      "                            bandwidth (BabelStream), reduction, sgemm, launch\n"
      "                            latency, transfers and build time per device, a\n"
      "                            table per physical device with a column per\n"
      "                            backend, against the theoretical peak and the\n"
      "                            native API (anygpu bench --help)\n"
      "  top [--interval S] [--count N] [--json] [--sysroot DIR] [--apis]\n"
      "                            memory, utilisation, temperature, power, clocks\n"
      "                            and processes of every device, every S seconds\n"
      "  help [COMMAND]            this help, or a command's (also COMMAND --help)\n"
      "\n"
      "Options:\n"
      "  --json      print one JSON object instead of text\n"
      "  -h, --help  print this help\n"
      "  --version   print the version\n"
      "\n"
      "  --sysroot DIR  (doctor) read /sys, /proc, /dev and /etc under DIR\n"
      "\n"
      "A selector is BACKEND:FILTER, where BACKEND is cuda, hip, vulkan, opencl, cpu\n"
      "or *, and FILTER is an index, *, gpu, cpu, discrete or integrated, or several\n"
      "joined by ',' (opencl:0,1); phys:N names physical device N (anygpu list) and\n"
      "pci:0000:01:00.0 the device at that address. ';' joins terms, tried in order;\n"
      "'!' before a term excludes what it matches, wherever it stands.\n"
      "\n"
      "Exit status: 0 success, 1 a library or device error, 2 a usage error.\n",
      out);
}

/* `git describe --always --dirty` of the checkout it was built from; "" when
 * it was not built from one (cmake/git_describe.cmake). */
extern const char agpu_git_description[];

static int print_version(void) {
  const char *library_version = agpu_version();
  printf("anygpu %s", AGPU_VERSION_STRING);
  if (agpu_git_description[0]) printf(" (git %s)", agpu_git_description);
  /* The shared library may have been replaced by another release. */
  if (strcmp(library_version, AGPU_VERSION_STRING) != 0) printf(" (library %s)", library_version);
  putchar('\n');
  return cli_finish_output();
}

static bool is_help_request(const char *argument) {
  return strcmp(argument, "--help") == 0 || strcmp(argument, "-h") == 0 ||
         strcmp(argument, "help") == 0;
}

/* --help or -h among a command's arguments, before any "--". */
static bool asks_for_help(int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return false;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return true;
  }
  return false;
}

/* list, test and bench --mpi (docs/cluster.md): the command runs on every
 * rank with --json and rank 0 prints the combined report. Returns -1 when
 * there is no --mpi among the arguments (before any "--"). */
static int run_under_mpi(const cli_command *command, int argc, char **argv, bool guard) {
  int mpi_at = -1;
  bool json = false;
  for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (strcmp(argv[i], "--mpi") == 0) mpi_at = i;
    json |= strcmp(argv[i], "--json") == 0;
  }
  if (mpi_at < 0) return -1;
  if (strcmp(command->name, "list") != 0 && strcmp(command->name, "test") != 0 &&
      strcmp(command->name, "bench") != 0)
    return cli_usage_error("--mpi is for list, test and bench, not", command->name);
  char **arguments = calloc((size_t)argc + 2, sizeof *arguments);
  if (!arguments) return cli_out_of_memory();
  int count = 0;
  if (!json) arguments[count++] = "--json"; /* ranks always send JSON */
  for (int i = 0; i < argc; i++)
    if (i != mpi_at) arguments[count++] = argv[i];
  int status = mpi_fleet_run(command->name, command->run, count, arguments, json, guard);
  free(arguments);
  return status;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_print_help(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *command = argv[1];
  if (is_help_request(command)) {
    /* help COMMAND: that command's usage. */
    if (argc > 2 && cli_print_command_help(stdout, argv[2])) return cli_finish_output();
    if (argc > 2 && strcmp(argv[2], "bench") == 0) return cmd_bench(1, (char *[]){"--help", NULL});
    cli_print_help(stdout);
    return cli_finish_output();
  }
  if (strcmp(command, "--version") == 0) {
    if (argc > 2) return cli_usage_error("unexpected argument", argv[2]);
    return print_version();
  }
  for (size_t i = 0; i < sizeof cli_commands / sizeof cli_commands[0]; i++) {
    if (strcmp(command, cli_commands[i].name) != 0) continue;
    /* COMMAND --help: that command's usage, exit 0. */
    if (asks_for_help(argc - 2, argv + 2) && cli_print_command_help(stdout, command))
      return cli_finish_output();
    /* The commands that load every driver, to list or diagnose them,
     * survive a driver that crashes as it loads. */
    bool guard = strcmp(command, "list") == 0 || strcmp(command, "info") == 0 ||
                 strcmp(command, "doctor") == 0;
    int mpi_status = run_under_mpi(&cli_commands[i], argc - 2, argv + 2, guard);
    if (mpi_status >= 0) return mpi_status;
    if (guard) return driver_guard_run(cli_commands[i].run, argc - 2, argv + 2, command);
    return cli_commands[i].run(argc - 2, argv + 2);
  }
  if (command[0] == '-') return cli_usage_error("unknown option", command);
  return cli_usage_error("unknown command", command);
}
