// SPDX-License-Identifier: Apache-2.0
/* The findings model: each finding has a severity, what was found, the
 * evidence and the fix, as strings the doctor composes piece by piece. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"

const char *doctor_severity_name(doctor_severity severity) {
  switch (severity) {
    case DOCTOR_OK:
      return "ok";
    case DOCTOR_INFO:
      return "info";
    case DOCTOR_WARNING:
      return "warning";
    case DOCTOR_ERROR:
      return "error";
  }
  return "unknown";
}

int doctor_format(char *out, size_t capacity, const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  int length = vsnprintf(out, capacity, format, arguments);
  va_end(arguments);
  return length;
}

/* A malloc'd string: `prefix` followed by the formatted text. */
static char *format_appended(const char *prefix, const char *separator, const char *format,
                             va_list arguments) {
  va_list copy;
  va_copy(copy, arguments);
  int length = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (length < 0) return NULL;
  size_t prefix_length = prefix ? strlen(prefix) : 0;
  size_t separator_length = prefix_length ? strlen(separator) : 0;
  char *text = malloc(prefix_length + separator_length + (size_t)length + 1);
  if (!text) return NULL;
  if (prefix_length) memcpy(text, prefix, prefix_length);
  if (separator_length) memcpy(text + prefix_length, separator, separator_length);
  vsnprintf(text + prefix_length + separator_length, (size_t)length + 1, format, arguments);
  return text;
}

static char *empty_string(void) {
  char *text = malloc(1);
  if (text) text[0] = '\0';
  return text;
}

doctor_finding *doctor_add(doctor_context *context, doctor_severity severity, const char *check,
                           const char *what_format, ...) {
  if (context->out_of_memory) return NULL;
  if (context->finding_count == context->finding_capacity) {
    size_t capacity = context->finding_capacity ? context->finding_capacity * 2 : 32;
    doctor_finding *grown = realloc(context->findings, capacity * sizeof *grown);
    if (!grown) {
      context->out_of_memory = true;
      return NULL;
    }
    context->findings = grown;
    context->finding_capacity = capacity;
  }
  doctor_finding *finding = &context->findings[context->finding_count];
  memset(finding, 0, sizeof *finding);
  finding->severity = severity;
  snprintf(finding->check, sizeof finding->check, "%s", check);
  va_list arguments;
  va_start(arguments, what_format);
  finding->what = format_appended(NULL, "", what_format, arguments);
  va_end(arguments);
  finding->evidence = empty_string();
  finding->fix = empty_string();
  if (!finding->what || !finding->evidence || !finding->fix) {
    free(finding->what);
    free(finding->evidence);
    free(finding->fix);
    context->out_of_memory = true;
    return NULL;
  }
  context->finding_count++;
  return finding;
}

static void append_to(doctor_context *context, char **field, const char *separator,
                      const char *format, va_list arguments) {
  char *text = format_appended(*field, separator, format, arguments);
  if (!text) {
    context->out_of_memory = true;
    return;
  }
  free(*field);
  *field = text;
}

void doctor_evidence(doctor_context *context, doctor_finding *finding, const char *format, ...) {
  if (!finding) return;
  va_list arguments;
  va_start(arguments, format);
  append_to(context, &finding->evidence, "; ", format, arguments);
  va_end(arguments);
}

void doctor_fix(doctor_context *context, doctor_finding *finding, const char *format, ...) {
  if (!finding) return;
  va_list arguments;
  va_start(arguments, format);
  append_to(context, &finding->fix, " ", format, arguments);
  va_end(arguments);
}

void doctor_free(doctor_context *context) {
  for (size_t i = 0; i < context->finding_count; i++) {
    free(context->findings[i].what);
    free(context->findings[i].evidence);
    free(context->findings[i].fix);
  }
  free(context->findings);
  free(context->devices);
  free(context->physical);
  memset(context, 0, sizeof *context);
}
