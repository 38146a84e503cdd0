// SPDX-License-Identifier: Apache-2.0
#include <stdarg.h>
#include <stdio.h>

#include "agpu_error.h"

/* Large enough for a typical build log; longer messages are cut with a note. */
#define AGPU_MESSAGE_CAPACITY 16384

static _Thread_local char agpu_message[AGPU_MESSAGE_CAPACITY];

static const char *const agpu_status_names[AGPU_STATUS_COUNT_] = {
    [AGPU_SUCCESS] = "AGPU_SUCCESS",
    [AGPU_ERROR_INVALID_ARGUMENT] = "AGPU_ERROR_INVALID_ARGUMENT",
    [AGPU_ERROR_INVALID_HANDLE] = "AGPU_ERROR_INVALID_HANDLE",
    [AGPU_ERROR_NOT_FOUND] = "AGPU_ERROR_NOT_FOUND",
    [AGPU_ERROR_BACKEND_UNAVAILABLE] = "AGPU_ERROR_BACKEND_UNAVAILABLE",
    [AGPU_ERROR_UNSUPPORTED] = "AGPU_ERROR_UNSUPPORTED",
    [AGPU_ERROR_OUT_OF_DEVICE_MEMORY] = "AGPU_ERROR_OUT_OF_DEVICE_MEMORY",
    [AGPU_ERROR_OUT_OF_HOST_MEMORY] = "AGPU_ERROR_OUT_OF_HOST_MEMORY",
    [AGPU_ERROR_OUT_OF_RANGE] = "AGPU_ERROR_OUT_OF_RANGE",
    [AGPU_ERROR_BUILD_FAILED] = "AGPU_ERROR_BUILD_FAILED",
    [AGPU_ERROR_INVALID_LAUNCH] = "AGPU_ERROR_INVALID_LAUNCH",
    [AGPU_ERROR_DEVICE_LOST] = "AGPU_ERROR_DEVICE_LOST",
    [AGPU_ERROR_BACKEND] = "AGPU_ERROR_BACKEND",
    [AGPU_ERROR_INTERNAL] = "AGPU_ERROR_INTERNAL",
    [AGPU_ERROR_KERNEL_FAULT] = "AGPU_ERROR_KERNEL_FAULT",
};

AGPU_API const char *agpu_status_name(agpu_status status) {
  if ((unsigned)status >= AGPU_STATUS_COUNT_) return "AGPU_STATUS_UNKNOWN";
  return agpu_status_names[status];
}

AGPU_API const char *agpu_last_error(void) {
  return agpu_message;
}

AGPU_API const char *agpu_version(void) {
  return AGPU_VERSION_STRING;
}

static void agpu_mark_truncated(void) {
  static const char note[] = "... (message truncated)";
  memcpy(agpu_message + AGPU_MESSAGE_CAPACITY - sizeof note, note, sizeof note);
}

agpu_status agpu_error_set(agpu_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsnprintf(agpu_message, sizeof agpu_message, format, args);
  va_end(args);
  if (n >= (int)sizeof agpu_message) agpu_mark_truncated();
  return status;
}

void agpu_error_append(const char *format, ...) {
  size_t used = strlen(agpu_message);
  if (used + 1 >= sizeof agpu_message) return;
  va_list args;
  va_start(args, format);
  int n = vsnprintf(agpu_message + used, sizeof agpu_message - used, format, args);
  va_end(args);
  if (n >= (int)(sizeof agpu_message - used)) agpu_mark_truncated();
}

agpu_status agpu_error_prefix(agpu_status status, const char *function) {
  if (status == AGPU_SUCCESS) return status;
  size_t n = strlen(function);
  if (strncmp(agpu_message, function, n) == 0 && agpu_message[n] == ':') return status;
  size_t used = strlen(agpu_message);
  if (used + n + 3 >= sizeof agpu_message) used = sizeof agpu_message - n - 3;
  memmove(agpu_message + n + 2, agpu_message, used);
  agpu_message[n + 2 + used] = '\0';
  memcpy(agpu_message, function, n);
  agpu_message[n] = ':';
  agpu_message[n + 1] = ' ';
  return status;
}

void agpu_error_clear(void) {
  agpu_message[0] = '\0';
}

const char *agpu_format_bytes(uint64_t bytes, char *out, size_t out_size) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) {
    snprintf(out, out_size, "%llu B", (unsigned long long)bytes);
    return out;
  }
  double value = (double)bytes;
  int unit = 0;
  while (value >= 1024.0 && unit < 5) {
    value /= 1024.0;
    unit++;
  }
  snprintf(out, out_size, "%.1f %s", value, units[unit]);
  return out;
}

agpu_status agpu_status_lookup(const agpu_status_map *map, size_t count, long long code,
                               agpu_status otherwise) {
  for (size_t i = 0; i < count; i++)
    if (map[i].code == code) return map[i].status;
  return otherwise;
}
