// SPDX-License-Identifier: Apache-2.0
/* Reading Vulkan driver manifests (JSON) without a JSON library. */
#ifndef ANYGPU_TOOLS_DOCTOR_MANIFEST_H
#define ANYGPU_TOOLS_DOCTOR_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

/* The string member `member` of the manifest's "ICD" object
 * ("library_path", "api_version"); false when absent or malformed. */
bool manifest_icd_string(const char *json, const char *member, char *out, size_t capacity);

#endif /* ANYGPU_TOOLS_DOCTOR_MANIFEST_H */
