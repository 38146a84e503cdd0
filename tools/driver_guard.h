// SPDX-License-Identifier: Apache-2.0
/* Commands that load every driver (list, info, doctor) survive a driver
 * that crashes the process as it loads (driver_guard.c). */
#ifndef ANYGPU_TOOLS_DRIVER_GUARD_H
#define ANYGPU_TOOLS_DRIVER_GUARD_H

/* Runs `run` in a child process. When the child dies of a signal before it
 * finished, probes each OpenCL ICD and Vulkan driver in a child of its own,
 * tells on stderr which crashed (file and signal), leaves them out of the
 * loaders' search and runs `run` here. ANYGPU_DRIVER_GUARD=0 runs it here
 * directly (under a debugger). Returns `run`'s exit status. */
int driver_guard_run(int (*run)(int argc, char **argv), int argc, char **argv, const char *command);

/* What crashed when the ICD file or Vulkan manifest at `path` was probed in
 * this run ("SIGSEGV (signal 11) in clIcdGetPlatformIDsKHR of libx.so"), or
 * NULL. The doctor reports these instead of loading them again. */
const char *driver_guard_crash(const char *path);

#endif /* ANYGPU_TOOLS_DRIVER_GUARD_H */
