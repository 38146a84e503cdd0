// SPDX-License-Identifier: Apache-2.0
/* Builds one OpenCL C file through anygpu on one device and prints one line:
 * "OK", "PART ..." when the program built with some of its kernels refused
 * (the first refusal), or "FAIL STATUS: the first error line". NATIVE=1 hands the file to
 * the device's own compiler instead (agpu_program_create_native: the
 * baseline of what the driver accepts). Used by measure.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anygpu.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: build_one SELECTOR FILE [OPTION...]\n");
    return 2;
  }
  agpu_device *device = NULL;
  if (agpu_device_select(argv[1], &device) != AGPU_SUCCESS) {
    printf("NODEV %s\n", agpu_last_error());
    return 3;
  }
  FILE *f = fopen(argv[2], "rb");
  if (!f) return 2;
  static char source[1 << 22];
  size_t size = fread(source, 1, sizeof source - 1, f);
  fclose(f);
  source[size] = '\0';
  char options[8192] = "";
  for (int i = 3; i < argc; i++) {
    if (strlen(options) + strlen(argv[i]) + 2 > sizeof options) return 2;
    strcat(options, argv[i]);
    strcat(options, " ");
  }
  agpu_program_desc desc = {.source = source, .source_name = argv[2], .options = options};
  agpu_program *program = NULL;
  agpu_status status = getenv("NATIVE")
                           ? agpu_program_create_native(device, AGPU_NATIVE_OPENCL_C, source, size,
                                                        options, &program)
                           : agpu_program_build(device, &desc, &program);
  if (status != AGPU_SUCCESS) {
    const char *message = agpu_last_error();
    const char *error = strstr(message, "error:");
    const char *start = error ? error : message;
    size_t length = strcspn(start, "\n");
    printf("FAIL %s: %.*s\n", agpu_status_name(status), (int)(length > 300 ? 300 : length), start);
    return 1;
  }
  /* built, but some kernels refused alone (the build log warns): not OK */
  const char *refused = strstr(agpu_program_build_log(program), "is not built for");
  if (refused) {
    printf("PART %.*s\n", (int)strcspn(refused, "\n"), refused);
    agpu_program_release(program);
    return 4;
  }
  printf("OK\n");
  agpu_program_release(program);
  return 0;
}
