// SPDX-License-Identifier: Apache-2.0
/* agpu_program_create_native with SPIR-V: the module is read just enough
 * to bind it. The convention (docs/vulkan.md) is the translator's ABI with
 * the parameters in a fixed order: the storage buffers of set 0 by binding
 * (0, 1, ... without gaps), then the push-constant members at offsets 32
 * and up, by offset (scalars and vectors); the first 32 bytes of the
 * push-constant block are the header of kernels/glsl_layout.h. A work-group
 * size with specialisation ids 0-2 is free, else the LocalSize is required.
 * Every GLCompute entry point is a kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glsl_layout.h"
#include "vulkan_internal.h"

enum {
  SPV_OP_NAME = 5,
  SPV_OP_ENTRY_POINT = 15,
  SPV_OP_EXECUTION_MODE = 16,
  SPV_OP_TYPE_INT = 21,
  SPV_OP_TYPE_FLOAT = 22,
  SPV_OP_TYPE_VECTOR = 23,
  SPV_OP_TYPE_STRUCT = 30,
  SPV_OP_TYPE_POINTER = 32,
  SPV_OP_VARIABLE = 59,
  SPV_OP_DECORATE = 71,
  SPV_OP_MEMBER_DECORATE = 72,
  SPV_DECORATION_SPEC_ID = 1,
  SPV_DECORATION_BINDING = 33,
  SPV_DECORATION_DESCRIPTOR_SET = 34,
  SPV_DECORATION_OFFSET = 35,
  SPV_STORAGE_UNIFORM = 2,
  SPV_STORAGE_PUSH_CONSTANT = 9,
  SPV_STORAGE_STORAGE_BUFFER = 12,
  SPV_MODEL_GLCOMPUTE = 5,
  SPV_MODE_LOCAL_SIZE = 17,
  SPV_MAX_MEMBERS = 64,
};

/* What one pass over the module finds, indexed by result id. */
typedef struct spv_ids {
  uint32_t bound;
  uint32_t *binding, *set, *pointee, *storage, *kind, *width, *count, *component;
  uint8_t *has_binding;
} spv_ids;

typedef struct spv_value {
  uint32_t offset, size;
} spv_value;

static agpu_status agpu_vk_native_fail(const char *what) {
  return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_program_create_native: SPIR-V: %s",
                        what);
}

/* Bytes of a scalar or vector type; 0 for anything else. */
static uint32_t spv_type_size(const spv_ids *ids, uint32_t type) {
  if (type >= ids->bound) return 0;
  if (ids->kind[type] == SPV_OP_TYPE_INT || ids->kind[type] == SPV_OP_TYPE_FLOAT)
    return ids->width[type] / 8;
  if (ids->kind[type] == SPV_OP_TYPE_VECTOR) {
    uint32_t component = spv_type_size(ids, ids->component[type]);
    return component * (ids->count[type] == 3 ? 4 : ids->count[type]);
  }
  return 0;
}

static int spv_by_offset(const void *a, const void *b) {
  const spv_value *x = a, *y = b;
  return (x->offset > y->offset) - (x->offset < y->offset);
}

/* What the two passes over a native module found. */
typedef struct spv_module {
  const uint32_t *words;
  size_t count;
  spv_ids ids;
  spv_value values[SPV_MAX_MEMBERS];
  uint32_t value_count, push_struct, buffers, entries, block_size;
  uint32_t local_size[3];
  bool has_local_size, spec_size;
} spv_module;

/* Pass 1: types, decorations, entry points counted. */
static agpu_status spv_scan_declarations(spv_module *m) {
  const uint32_t *words = m->words;
  size_t count = m->count;
  spv_ids *ids = &m->ids;
  /* Pass 1: types, decorations, variables, entry points counted. */
  for (size_t at = 5; at < count;) {
    uint32_t op = words[at] & 0xffffu, n = words[at] >> 16;
    if (n == 0 || at + n > count) {
      return agpu_vk_native_fail("truncated instruction");
    }
    const uint32_t *w = &words[at];
    if (op == SPV_OP_ENTRY_POINT && n >= 4 && w[1] == SPV_MODEL_GLCOMPUTE) m->entries++;
    if (op == SPV_OP_EXECUTION_MODE && n >= 6 && w[2] == SPV_MODE_LOCAL_SIZE) {
      m->has_local_size = true;
      memcpy(m->local_size, &w[3], sizeof m->local_size);
    }
    if ((op == SPV_OP_TYPE_INT || op == SPV_OP_TYPE_FLOAT) && n >= 3 && w[1] < ids->bound)
      ids->kind[w[1]] = op, ids->width[w[1]] = w[2];
    if (op == SPV_OP_TYPE_VECTOR && n >= 4 && w[1] < ids->bound)
      ids->kind[w[1]] = op, ids->component[w[1]] = w[2], ids->count[w[1]] = w[3];
    if (op == SPV_OP_TYPE_STRUCT && n >= 2 && w[1] < ids->bound) ids->kind[w[1]] = op;
    if (op == SPV_OP_TYPE_POINTER && n >= 4 && w[1] < ids->bound)
      ids->kind[w[1]] = op, ids->storage[w[1]] = w[2], ids->pointee[w[1]] = w[3];
    if (op == SPV_OP_DECORATE && n >= 4 && w[1] < ids->bound) {
      if (w[2] == SPV_DECORATION_BINDING) ids->binding[w[1]] = w[3], ids->has_binding[w[1]] = 1;
      if (w[2] == SPV_DECORATION_DESCRIPTOR_SET) ids->set[w[1]] = w[3];
      if (w[2] == SPV_DECORATION_SPEC_ID && w[3] <= 2) m->spec_size = true;
      /* the enqueued size (kernels/glsl_layout.h) is set like ids 0-2 */
      if (w[2] == SPV_DECORATION_SPEC_ID && w[3] >= KL_GLSL_FIRST_LOCAL_SPEC_ID &&
          w[3] != KL_GLSL_ENQUEUED_SPEC_ID) {
        return agpu_vk_native_fail(
            "specialisation ids above 2 (__local parameters) are not "
            "supported in native modules");
      }
    }
    at += n;
  }
  return AGPU_SUCCESS;
}

/* Pass 2: the bound buffers and the push-constant members' offsets, then
 * the members' types from the struct's declaration, in offset order. */
static agpu_status spv_scan_variables(spv_module *m) {
  const uint32_t *words = m->words;
  size_t count = m->count;
  spv_ids *ids = &m->ids;
  /* Pass 2: variables (types known now) and push-constant member offsets. */
  for (size_t at = 5; at < count; at += words[at] >> 16) {
    const uint32_t *w = &words[at];
    uint32_t op = w[0] & 0xffffu, n = w[0] >> 16;
    if (op == SPV_OP_VARIABLE && n >= 4 && w[1] < ids->bound && w[2] < ids->bound) {
      uint32_t storage = w[3];
      if (storage == SPV_STORAGE_PUSH_CONSTANT) m->push_struct = ids->pointee[w[1]];
      if ((storage == SPV_STORAGE_STORAGE_BUFFER || storage == SPV_STORAGE_UNIFORM) &&
          ids->has_binding[w[2]]) {
        if (ids->set[w[2]] != 0) {
          return agpu_vk_native_fail("a buffer outside descriptor set 0");
        }
        m->buffers++;
        ids->count[w[2]] = 1; /* marks a bound variable */
      }
    }
  }
  for (size_t at = 5; at < count; at += words[at] >> 16) {
    const uint32_t *w = &words[at];
    uint32_t op = w[0] & 0xffffu, n = w[0] >> 16;
    if (op == SPV_OP_MEMBER_DECORATE && n >= 5 && m->push_struct && w[1] == m->push_struct &&
        w[3] == SPV_DECORATION_OFFSET && w[4] >= KL_GLSL_HEADER_SIZE) {
      if (m->value_count == SPV_MAX_MEMBERS) {
        return agpu_vk_native_fail("more than 64 push-constant members");
      }
      m->values[m->value_count++] =
          (spv_value){.offset = w[4], .size = w[2]}; /* member index for now */
    }
  }
  /* Member types, from the struct's declaration. */
  for (size_t at = 5; at < count; at += words[at] >> 16) {
    const uint32_t *w = &words[at];
    uint32_t op = w[0] & 0xffffu, n = w[0] >> 16;
    if (op != SPV_OP_TYPE_STRUCT || w[1] != m->push_struct) continue;
    for (uint32_t v = 0; v < m->value_count; v++) {
      uint32_t member = m->values[v].size;
      m->values[v].size = member + 2 < n ? spv_type_size(ids, w[2 + member]) : 0;
      if (!m->values[v].size) {
        return agpu_vk_native_fail("a push-constant member that is not a scalar or vector");
      }
    }
  }
  qsort(m->values, m->value_count, sizeof *m->values, spv_by_offset);
  for (uint32_t v = 0; v < m->value_count; v++)
    if (m->values[v].offset + m->values[v].size > m->block_size)
      m->block_size = m->values[v].offset + m->values[v].size;
  if (m->push_struct && m->block_size < KL_GLSL_HEADER_SIZE) m->block_size = KL_GLSL_HEADER_SIZE;
  return AGPU_SUCCESS;
}

/* Buffer bindings 0 .. buffers-1, each once. */
static agpu_status spv_check_bindings(spv_module *m) {
  spv_ids *ids = &m->ids;
  for (uint32_t b = 0; b < m->buffers; b++) { /* bindings 0 .. m->buffers-1, each once */
    uint32_t found = 0;
    for (uint32_t id = 0; id < ids->bound; id++)
      found += ids->count[id] == 1 && ids->has_binding[id] && ids->kind[id] == 0 &&
               ids->binding[id] == b;
    if (found != 1) {
      return agpu_vk_native_fail("buffer bindings must be 0, 1, ... without gaps or repeats");
    }
  }
  return AGPU_SUCCESS;
}

/* A kernel entry per GLCompute entry point, its parameters the buffers
 * then the push-constant values, with its pipeline objects. */
static agpu_status spv_make_entries(agpu_vk_device *device, agpu_vk_program *vp, spv_module *m,
                                    size_t size) {
  const uint32_t *words = m->words;
  size_t count = m->count;
  agpu_status status = AGPU_SUCCESS;
  for (size_t at = 5; at < count && status == AGPU_SUCCESS; at += words[at] >> 16) {
    const uint32_t *w = &words[at];
    uint32_t op = w[0] & 0xffffu, n = w[0] >> 16;
    if (op != SPV_OP_ENTRY_POINT || n < 4 || w[1] != SPV_MODEL_GLCOMPUTE) continue;
    agpu_vk_kernel_entry *entry = &vp->kernels[vp->kernel_count++];
    pthread_mutex_init(&entry->lock, NULL);
    size_t name_bytes = (size_t)(n - 3) * 4;
    snprintf(entry->name, sizeof entry->name, "%.*s", (int)strnlen((const char *)&w[3], name_bytes),
             (const char *)&w[3]);
    entry->param_count = m->buffers + m->value_count;
    entry->params = calloc(entry->param_count + 1, sizeof *entry->params);
    entry->layout = calloc(entry->param_count + 1, sizeof *entry->layout);
    if (!entry->params || !entry->layout) {
      status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
      break;
    }
    for (uint32_t b = 0; b < m->buffers; b++) {
      entry->params[b].kind = AGPU_PARAM_GLOBAL_BUFFER;
      snprintf(entry->params[b].name, sizeof entry->params[b].name, "binding%u", b);
      entry->layout[b] = (agpu_vk_param){.kind = KL_GLSL_PARAM_BUFFER, .binding = b};
    }
    for (uint32_t v = 0; v < m->value_count; v++) {
      agpu_kernel_param *param = &entry->params[m->buffers + v];
      param->kind = AGPU_PARAM_SCALAR;
      param->size = m->values[v].size;
      snprintf(param->name, sizeof param->name, "offset%u", m->values[v].offset);
      entry->layout[m->buffers + v] = (agpu_vk_param){
          .kind = KL_GLSL_PARAM_VALUE, .offset = m->values[v].offset, .size = m->values[v].size};
    }
    entry->buffer_count = m->buffers;
    entry->block_size = m->block_size;
    entry->has_required_work_group_size = m->has_local_size && !m->spec_size;
    memcpy(entry->required_work_group_size, m->local_size, sizeof m->local_size);
    status = agpu_vk_kernel_objects(device, entry, words, size);
  }
  return status;
}

agpu_status agpu_vk_program_create_native(agpu_program *program, agpu_native_format format,
                                          const void *data, size_t size, const char *options) {
  (void)options;
  if (format != AGPU_NATIVE_SPIRV)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "agpu_program_create_native: %s takes SPIR-V only (format %d given)",
                          program->device->info.selector, (int)format);
  const uint32_t *words = data;
  size_t count = size / 4;
  if (size % 4 || count < 5 || words[0] != 0x07230203u)
    return agpu_vk_native_fail("not a SPIR-V module (bad size or magic number)");
  agpu_vk_device *device = agpu_vk_device_of(program->device);
  spv_module *m = calloc(1, sizeof *m);
  if (!m) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  *m = (spv_module){
      .words = words, .count = count, .ids = {.bound = words[3]}, .local_size = {1, 1, 1}};
  spv_ids *ids = &m->ids;
  if (ids->bound == 0 || ids->bound > (1u << 22)) {
    free(m);
    return agpu_vk_native_fail("bad id bound");
  }
  uint32_t **arrays[] = {&ids->binding, &ids->set,   &ids->pointee, &ids->storage,
                         &ids->kind,    &ids->width, &ids->count,   &ids->component};
  bool ok = true;
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    ok = (*arrays[i] = calloc(ids->bound, sizeof(uint32_t))) != NULL && ok;
  ids->has_binding = calloc(ids->bound, 1);
  agpu_vk_program *vp = calloc(1, sizeof *vp);
  agpu_status status = AGPU_SUCCESS;
  if (!ok || !ids->has_binding || !vp)
    status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  if (status == AGPU_SUCCESS) status = spv_scan_declarations(m);
  if (status == AGPU_SUCCESS) status = spv_scan_variables(m);
  if (status == AGPU_SUCCESS && m->block_size > device->properties.limits.maxPushConstantsSize)
    status = agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                            "agpu_program_create_native: the push constants take %u bytes; %s "
                            "allows %u",
                            m->block_size, program->device->info.selector,
                            device->properties.limits.maxPushConstantsSize);
  if (status == AGPU_SUCCESS) status = spv_check_bindings(m);
  if (status == AGPU_SUCCESS && !m->entries)
    status = agpu_vk_native_fail("no GLCompute entry point");
  if (status == AGPU_SUCCESS && !(vp->kernels = calloc(m->entries, sizeof *vp->kernels)))
    status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  if (status == AGPU_SUCCESS) status = spv_make_entries(device, vp, m, size);
  if (status == AGPU_SUCCESS)
    status = agpu_vk_check_validation(device, "agpu_program_create_native");

  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) free(*arrays[i]);
  free(ids->has_binding);
  free(m);
  if (status == AGPU_SUCCESS) {
    program->native = vp;
  } else if (vp) {
    for (uint32_t i = 0; i < vp->kernel_count; i++)
      agpu_vk_kernel_entry_destroy(device, &vp->kernels[i]);
    free(vp->kernels);
    free(vp);
  }
  return status;
}
