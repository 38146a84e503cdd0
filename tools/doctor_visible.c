// SPDX-License-Identifier: Apache-2.0
/* CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES: a list of
 * indices or UUIDs. Set but empty, it hides every device; the runtimes stop
 * at the first entry they cannot parse, hiding it and all that follow. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "doctor.h"

static bool is_index(const char *text, size_t length) {
  if (length == 0) return false;
  for (size_t i = 0; i < length; i++)
    if (!isdigit((unsigned char)text[i])) return false;
  return true;
}

static bool is_uuid_entry(const char *text, size_t length) {
  return length > 4 && (strncmp(text, "GPU-", 4) == 0 || strncmp(text, "MIG-", 4) == 0);
}

void doctor_check_visible_devices(doctor_context *context, const char *variable, const char *api,
                                  const char *check) {
  const char *value = doctor_getenv(variable);
  if (!value) return;
  doctor_finding *finding;
  const char *p = value;
  while (*p == ' ') p++;
  if (*p == '\0') {
    finding = doctor_add(context, DOCTOR_WARNING, check,
                         "%s is set but empty: it hides every %s device", variable, api);
    doctor_evidence(context, finding, "environment: %s=\"%s\"", variable, value);
    doctor_fix(context, finding, "Unset it (unset %s) or list the devices to use (%s=0 or %s=0,1).",
               variable, variable, variable);
    return;
  }
  size_t position = 0, visible = 0;
  for (;;) {
    size_t length = strcspn(p, ",");
    const char *entry = p;
    size_t trimmed = length;
    while (trimmed && entry[trimmed - 1] == ' ') trimmed--;
    while (trimmed && *entry == ' ') entry++, trimmed--;
    if (!is_index(entry, trimmed) && !is_uuid_entry(entry, trimmed)) {
      finding = doctor_add(context, DOCTOR_WARNING, check,
                           "%s entry %zu, '%.*s', is not a device index or UUID: %s ignores it "
                           "and every entry after it, leaving %zu device%s visible",
                           variable, position + 1, (int)trimmed, entry, api, visible,
                           visible == 1 ? "" : "s");
      doctor_evidence(context, finding, "environment: %s=\"%s\"", variable, value);
      doctor_fix(context, finding,
                 "Use indices (0,1) or UUIDs (GPU-...) separated by commas, or unset %s.",
                 variable);
      return;
    }
    visible++;
    position++;
    if (p[length] != ',') break;
    p += length + 1;
  }
  finding = doctor_add(context, DOCTOR_INFO, check, "%s limits %s to %zu device%s", variable, api,
                       visible, visible == 1 ? "" : "s");
  doctor_evidence(context, finding, "environment: %s=\"%s\"", variable, value);
  doctor_fix(context, finding, "Unset %s to see every device.", variable);
}
