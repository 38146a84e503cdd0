// SPDX-License-Identifier: Apache-2.0
/* Each command's own usage: `anygpu COMMAND --help` and `anygpu help COMMAND`
 * (the general help is cli_print_help in main.c). */
#include <string.h>

#include "cli.h"

typedef struct cli_usage {
  const char *command;
  const char *text;
} cli_usage;

static const cli_usage cli_usages[] = {
    {"list",
     "Usage: anygpu list [--json] [--mpi]\n"
     "\n"
     "Every device of every backend, the physical devices they are, and why a\n"
     "backend has no devices. Exit status 0 whatever the backends report.\n"
     "\n"
     "  --json  one JSON object (docs/cli.md: list --json)\n"
     "  --mpi   under mpirun or srun: every rank lists its devices and rank 0\n"
     "          prints one report naming ranks and hosts that differ from the\n"
     "          majority; exit status 1 when one does (docs/cluster.md)\n"},
    {"info",
     "Usage: anygpu info [SELECTOR] [--json]\n"
     "\n"
     "Every property of one device and its memory now. Without SELECTOR: the\n"
     "device $ANYGPU_DEVICE selects, else the best device (anygpu --help says\n"
     "what a selector is).\n"
     "\n"
     "  --json  one JSON object (docs/cli.md: info --json)\n"},
    {"doctor",
     "Usage: anygpu doctor [--json] [--sysroot DIR] [--watch SECONDS]\n"
     "\n"
     "Why a backend or a GPU is missing: every library tried and its loader\n"
     "error, drivers, ICD files, Vulkan manifests, device nodes, groups and\n"
     "variables, each finding with its evidence and fix (docs/doctor.md).\n"
     "\n"
     "  --json          one JSON object\n"
     "  --sysroot DIR   read /sys, /proc, /dev and /etc under DIR\n"
     "  --watch S       instead: sample the devices for S seconds while your\n"
     "                  program runs and name a process holding device memory\n"
     "                  on a device that stays mostly idle (docs/telemetry.md)\n"},
    {"top",
     "Usage: anygpu top [--interval S] [--count N] [--json] [--sysroot DIR] [--apis]\n"
     "\n"
     "What each device is doing: memory used and free, utilisation, temperature,\n"
     "power and its limit, clocks, fan, and the processes using it, from NVML,\n"
     "the amdgpu and hwmon sysfs files, DRM fdinfo and /proc (docs/telemetry.md).\n"
     "A source that cannot be read is named with its reason.\n"
     "\n"
     "  --interval S    seconds between samples (default 1); the first sample's\n"
     "                  rates cover 30 ms so that --count 1 answers at once\n"
     "  --count N       stop after N samples (default: until interrupted)\n"
     "  --json          one JSON document per sample, a line each\n"
     "  --sysroot DIR   read /sys and /proc under DIR (a replayed machine)\n"
     "  --apis          name each device's APIs (loads the backends: slower)\n"},
    {"compile",
     "Usage: anygpu compile FILE [-D NAME[=VALUE]]... [-U NAME]... [--target T]\n"
     "                      [--kernel NAME] [--signature] [--no-fp64] [--fp16] [--check]\n"
     "                      [-o OUT]\n"
     "\n"
     "The kernel translator on its own: FILE ('-': standard input) in the\n"
     "portable kernel language, out the target's program, or its errors as\n"
     "file:line:col with exit status 1.\n"
     "\n"
     "  --target T      opencl (default), cuda, hip, glsl, c, or spirv (a SPIR-V\n"
     "                  module for Vulkan: binary, so -o FILE or a pipe)\n"
     "  --kernel NAME   the kernel for glsl and spirv (one shader per kernel;\n"
     "                  needed when FILE has more than one)\n"
     "  --signature     the kernels' signatures as JSON instead\n"
     "  -D, -U          define or undefine a macro\n"
     "  --no-fp64       assume a device without double\n"
     "  --fp16          assume a device with half arithmetic\n"
     "  --check         with bounds checks on every access (docs/debugging.md)\n"
     "  -o OUT          write to OUT ('-': standard output)\n"},
    {"test",
     "Usage: anygpu test [--device SEL] [--kernel NAME[,NAME...]]\n"
     "                   [--size small|medium|large] [--seed N] [--json] [--list]\n"
     "                   [--kernels-dir DIR] [--check] [--mpi]\n"
     "\n"
     "The conformance suite (vector, matmul, reduction, transpose, scan,\n"
     "histogram, stencil kernels) on every device, each output checked against\n"
     "a host reference; exit status 1 on any failure (docs/conformance.md).\n"
     "--mpi under mpirun or srun: every rank tests (--device '*:gpu@local': its\n"
     "own device) and rank 0 prints one report (docs/cluster.md).\n"
     "--check: every kernel checks its accesses; one out of bounds fails its\n"
     "case with AGPU_ERROR_KERNEL_FAULT (docs/debugging.md).\n"},
    {"run",
     "Usage: anygpu run FILE --kernel NAME --global X[,Y[,Z]] [--local X[,Y[,Z]]]\n"
     "                  --arg SPEC... [-D NAME[=VALUE]]... [--device SEL | --all-devices]\n"
     "                  [--compare] [--atol A] [--rtol R] [--ulp N] [--seed N] [--out DIR]\n"
     "                  [--trace FILE] [--check]\n"
     "\n"
     "Runs one kernel with generated or file inputs, one --arg per parameter:\n"
     "  buf:TYPE:N[:random|:random=LO,HI|:fill=V|:iota|:file=PATH]  a buffer\n"
     "  local:TYPE:N                                               __local scratch\n"
     "  TYPE:VALUE                                                 a value\n"
     "TYPE is char, uchar, short, ushort, int, uint, long, ulong, float, double.\n"
     "\n"
     "  --compare        run on every device (or those --device matches) and compare\n"
     "                   each written buffer with the first device's\n"
     "  --atol A, --rtol R\n"
     "                   floats agree when |a - b| <= A + R * |b| (numpy.allclose);\n"
     "                   defaults: --rtol 1e-4 (float) or 1e-10 (double), --atol rtol\n"
     "                   times the buffer's largest |b| (they accept fma contraction\n"
     "                   and another summation order; docs/cli.md)\n"
     "  --ulp N          floats agree within N units in the last place instead\n"
     "  --seed N         the random inputs (printed; a fresh seed without it)\n"
     "  --out DIR        write every buffer after the run to DIR\n"
     "  --trace FILE     write a timeline of the builds, transfers, launch and waits\n"
     "                   to FILE (Chrome trace format: Perfetto, chrome://tracing;\n"
     "                   docs/debugging.md)\n"
     "  --check          check every access against its buffer's extent: out of\n"
     "                   bounds fails with the kernel, parameter, element and\n"
     "                   work-item (AGPU_ERROR_KERNEL_FAULT; docs/debugging.md)\n"},
    {"bench", NULL}, /* cmd_bench prints its own */
};

bool cli_print_command_help(FILE *out, const char *command) {
  for (size_t i = 0; i < sizeof cli_usages / sizeof cli_usages[0]; i++) {
    if (strcmp(cli_usages[i].command, command) != 0) continue;
    if (!cli_usages[i].text) return false;
    fputs(cli_usages[i].text, out);
    return true;
  }
  return false;
}
