// SPDX-License-Identifier: Apache-2.0
/* What agpu_kernel_create says the same on every backend: a kernel name the
 * program lacks, and the parameters' type names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_core.h"

char *agpu_join_kernel_names(const char *first_name, size_t count, size_t stride) {
  size_t length = 1;
  for (size_t i = 0; i < count; i++) length += strlen(first_name + i * stride) + 1;
  char *names = malloc(length);
  if (!names) return NULL;
  size_t used = 0;
  names[0] = '\0';
  for (size_t i = 0; i < count; i++)
    used += (size_t)snprintf(names + used, length - used, "%s%s", i ? " " : "",
                             first_name + i * stride);
  return names;
}

static bool agpu_names_contain(const char *names, const char *name) {
  size_t length = strlen(name);
  for (const char *p = names; *p;) {
    size_t word = strcspn(p, " ");
    if (word == length && strncmp(p, name, length) == 0) return true;
    p += word + (p[word] == ' ');
  }
  return false;
}

agpu_status agpu_kernel_check_name(const agpu_program *program, const char *name) {
  const agpu_backend_ops *ops = program->device->backend->ops;
  if (!ops->program_kernel_names) return AGPU_SUCCESS;
  char *names = ops->program_kernel_names(program);
  if (!names) return AGPU_SUCCESS; /* unknown: the backend will say */
  agpu_status status = AGPU_SUCCESS;
  if (!agpu_names_contain(names, name)) {
    status = agpu_error_set(AGPU_ERROR_NOT_FOUND,
                            "agpu_kernel_create: the program on %s has no kernel '%s'; ",
                            program->device->info.selector, name);
    if (!*names)
      agpu_error_append("it has none");
    else
      agpu_error_append("it has:");
    for (const char *p = names; *p;) {
      size_t word = strcspn(p, " ");
      agpu_error_append("%s%.*s", p == names ? " " : ", ", (int)word, p);
      p += word + (p[word] == ' ');
    }
  }
  free(names);
  return status;
}

/* Removes the word `word` (and one space after it) wherever it stands alone. */
static void agpu_remove_word(char *text, const char *word) {
  size_t length = strlen(word);
  for (char *p = text; (p = strstr(p, word)) != NULL;) {
    bool starts = p == text || p[-1] == ' ' || p[-1] == '*';
    bool ends = p[length] == ' ' || p[length] == '*' || p[length] == '\0';
    if (!starts || !ends) {
      p += length;
      continue;
    }
    size_t skip = length + (p[length] == ' ');
    memmove(p, p + skip, strlen(p + skip) + 1);
  }
}

/* One spelling on every backend: the element type with `const` for a
 * pointer to const, without the address space (which the kind says):
 * "const float*", "float*", "uint", "float4". */
static void agpu_normalize_type_name(agpu_kernel_param *param) {
  static const char *const address_spaces[] = {"__global", "global", "__constant", "constant",
                                               "__local",  "local",  "__private",  "private"};
  if (param->kind == AGPU_PARAM_CONSTANT_BUFFER) param->is_const = true; /* read-only memory */
  char *text = param->type_name;
  for (size_t i = 0; i < sizeof address_spaces / sizeof *address_spaces; i++)
    agpu_remove_word(text, address_spaces[i]);
  bool pointer = strchr(text, '*') != NULL;
  if (!pointer) {
    agpu_remove_word(text, "const"); /* a value's const says nothing to the caller */
    param->is_const = false;
  } else if (param->is_const && strncmp(text, "const ", 6) != 0 && !strstr(text, " const")) {
    size_t length = strlen(text);
    if (length + 6 < sizeof param->type_name) {
      memmove(text + 6, text, length + 1);
      memcpy(text, "const ", 6);
    }
  }
  /* "float *" and "float*" alike. */
  for (char *star; (star = strstr(text, " *")) != NULL;) memmove(star, star + 1, strlen(star));
  size_t length = strlen(text);
  while (length && text[length - 1] == ' ') text[--length] = '\0';
}

void agpu_kernel_normalize_params(agpu_kernel *kernel) {
  for (uint32_t i = 0; i < kernel->info.param_count; i++)
    if (kernel->params[i].kind != AGPU_PARAM_UNKNOWN) agpu_normalize_type_name(&kernel->params[i]);
}

void agpu_copy_text(char *out, size_t capacity, const char *text) {
  size_t length = text ? strlen(text) : 0;
  if (length >= capacity) length = capacity - 1;
  if (length) memcpy(out, text, length);
  out[length] = '\0';
}

char *agpu_strdup(const char *text) {
  size_t length = strlen(text);
  char *copy = malloc(length + 1);
  if (copy) memcpy(copy, text, length + 1);
  return copy;
}
