// SPDX-License-Identifier: Apache-2.0
/* anygpu doctor --watch SECONDS: samples the devices' utilisation while the
 * user's program runs and names a process holding device memory on a
 * device that stays mostly idle, with the usual causes as hints. */
#ifndef ANYGPU_TOOLS_DOCTOR_WATCH_H
#define ANYGPU_TOOLS_DOCTOR_WATCH_H

#include <stdbool.h>

/* Takes `--watch SECONDS` (or `--watch=SECONDS`) out of argv, shifting the
 * rest down; *seconds stays 0 without it. Returns CLI_EXIT_OK or a usage
 * error. */
int doctor_take_watch(int *argc, char **argv, double *seconds);

/* Watches for `seconds` (sysroot "" for this machine); prints text or one
 * JSON object. Exit 0 whatever it found. */
int doctor_watch(const char *sysroot, double seconds, bool json);

#endif /* ANYGPU_TOOLS_DOCTOR_WATCH_H */
