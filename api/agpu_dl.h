// SPDX-License-Identifier: Apache-2.0
/* Run-time loading of vendor libraries. Every backend opens its library with
 * dlopen so that one binary runs on every machine; what was tried and why it
 * failed is kept for `anygpu list` and `anygpu doctor`. */
#ifndef AGPU_DL_H
#define AGPU_DL_H

#include "agpu_backend.h"

/* Tries each name in order (sonames, then paths) and returns the first that
 * loads, or NULL. Each attempt and its dlerror() is recorded in the backend;
 * on success backend->library is the name that loaded; on failure
 * backend->reason lists every attempt. */
void *agpu_dl_open_first(agpu_backend *backend, const char *const names[], size_t count);

typedef struct agpu_dl_symbol {
  const char *name;
  void **slot;
  bool optional; /* a missing optional symbol leaves the slot NULL */
} agpu_dl_symbol;

/* Resolves every symbol; on a missing required one, sets backend->reason
 * naming it and returns false. */
bool agpu_dl_load_symbols(agpu_backend *backend, void *library, const agpu_dl_symbol symbols[],
                          size_t count);

/* A backend's table of `size` bytes (zeroed) for the functions of
 * `library`; out of memory: NULL, the library closed and backend->reason
 * "<name>: out of host memory". */
void *agpu_dl_api_new(agpu_backend *backend, void *library, size_t size);

/* For a backend this build does not implement yet: tries its libraries so
 * that the reason says what the machine has, then leaves it unavailable. */
agpu_status agpu_dl_probe_unimplemented(agpu_backend *backend, const char *const names[],
                                        size_t count, const char *api_name);

#endif /* AGPU_DL_H */
