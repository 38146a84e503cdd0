// SPDX-License-Identifier: Apache-2.0
/* The kernels of a native HIP code object, read from its metadata: the
 * AMDGPU ELF note NT_AMDGPU_METADATA (type 32, owner "AMDGPU"), a MessagePack
 * map whose "amdhsa.kernels" lists each kernel's name, arguments (".size",
 * ".value_kind", ".address_space"), ".reqd_workgroup_size" and
 * ".max_flat_workgroup_size". A clang offload bundle is opened first, taking
 * the entry for the device's target. Everything is bounds-checked: the input
 * comes from the caller. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hip_internal.h"

/* ------------------------------------------------------------ MessagePack */

typedef struct agpu_mp {
  const uint8_t *at, *end;
  bool bad;
} agpu_mp;

typedef enum agpu_mp_kind {
  AGPU_MP_NIL,
  AGPU_MP_BOOL,
  AGPU_MP_UINT,
  AGPU_MP_INT,
  AGPU_MP_FLOAT,
  AGPU_MP_STR,
  AGPU_MP_BIN,
  AGPU_MP_ARRAY,
  AGPU_MP_MAP,
  AGPU_MP_EXT,
} agpu_mp_kind;

typedef struct agpu_mp_item {
  agpu_mp_kind kind;
  uint64_t number;   /* uint, bool; the element count of an array or map */
  const char *bytes; /* str, bin */
  uint32_t length;   /* str, bin */
} agpu_mp_item;

static uint64_t agpu_mp_be(agpu_mp *mp, unsigned bytes) {
  if (mp->bad || (size_t)(mp->end - mp->at) < bytes) {
    mp->bad = true;
    return 0;
  }
  uint64_t value = 0;
  for (unsigned i = 0; i < bytes; i++) value = value << 8 | mp->at[i];
  mp->at += bytes;
  return value;
}

static void agpu_mp_bytes(agpu_mp *mp, agpu_mp_item *item, uint64_t length) {
  if (mp->bad || length > (uint64_t)(mp->end - mp->at)) {
    mp->bad = true;
    return;
  }
  item->bytes = (const char *)mp->at;
  item->length = (uint32_t)length;
  mp->at += length;
}

/* One header; strings and binaries come with their bytes. */
static bool agpu_mp_next(agpu_mp *mp, agpu_mp_item *item) {
  memset(item, 0, sizeof *item);
  unsigned byte = (unsigned)agpu_mp_be(mp, 1);
  if (mp->bad) return false;
  if (byte <= 0x7f) {
    item->kind = AGPU_MP_UINT;
    item->number = byte;
  } else if (byte >= 0xe0) {
    item->kind = AGPU_MP_INT;
  } else if ((byte & 0xf0) == 0x80) {
    item->kind = AGPU_MP_MAP;
    item->number = byte & 0x0f;
  } else if ((byte & 0xf0) == 0x90) {
    item->kind = AGPU_MP_ARRAY;
    item->number = byte & 0x0f;
  } else if ((byte & 0xe0) == 0xa0) {
    item->kind = AGPU_MP_STR;
    agpu_mp_bytes(mp, item, byte & 0x1f);
  } else {
    switch (byte) {
      case 0xc0:
        item->kind = AGPU_MP_NIL;
        break;
      case 0xc2:
      case 0xc3:
        item->kind = AGPU_MP_BOOL;
        item->number = byte & 1;
        break;
      case 0xc4:
      case 0xc5:
      case 0xc6:
        item->kind = AGPU_MP_BIN;
        agpu_mp_bytes(mp, item, agpu_mp_be(mp, 1u << (byte - 0xc4)));
        break;
      case 0xc7:
      case 0xc8:
      case 0xc9: {
        uint64_t length = agpu_mp_be(mp, 1u << (byte - 0xc7));
        item->kind = AGPU_MP_EXT;
        agpu_mp_be(mp, 1);
        agpu_mp_bytes(mp, item, length);
        break;
      }
      case 0xca:
        item->kind = AGPU_MP_FLOAT;
        agpu_mp_be(mp, 4);
        break;
      case 0xcb:
        item->kind = AGPU_MP_FLOAT;
        agpu_mp_be(mp, 8);
        break;
      case 0xcc:
      case 0xcd:
      case 0xce:
      case 0xcf:
        item->kind = AGPU_MP_UINT;
        item->number = agpu_mp_be(mp, 1u << (byte - 0xcc));
        break;
      case 0xd0:
      case 0xd1:
      case 0xd2:
      case 0xd3:
        item->kind = AGPU_MP_INT;
        agpu_mp_be(mp, 1u << (byte - 0xd0));
        break;
      case 0xd4:
      case 0xd5:
      case 0xd6:
      case 0xd7:
      case 0xd8:
        item->kind = AGPU_MP_EXT;
        agpu_mp_be(mp, 1);
        agpu_mp_bytes(mp, item, 1u << (byte - 0xd4));
        break;
      case 0xd9:
      case 0xda:
      case 0xdb:
        item->kind = AGPU_MP_STR;
        agpu_mp_bytes(mp, item, agpu_mp_be(mp, 1u << (byte - 0xd9)));
        break;
      case 0xdc:
      case 0xdd:
        item->kind = AGPU_MP_ARRAY;
        item->number = agpu_mp_be(mp, byte == 0xdc ? 2 : 4);
        break;
      case 0xde:
      case 0xdf:
        item->kind = AGPU_MP_MAP;
        item->number = agpu_mp_be(mp, byte == 0xde ? 2 : 4);
        break;
      default:
        mp->bad = true; /* 0xc1 is never used */
    }
  }
  return !mp->bad;
}

/* Skips one whole value. */
static bool agpu_mp_skip(agpu_mp *mp, int depth) {
  agpu_mp_item item;
  if (depth > 32 || !agpu_mp_next(mp, &item)) return mp->bad = true, false;
  uint64_t children = item.kind == AGPU_MP_ARRAY ? item.number
                      : item.kind == AGPU_MP_MAP ? 2 * item.number
                                                 : 0;
  for (uint64_t i = 0; i < children && !mp->bad; i++) agpu_mp_skip(mp, depth + 1);
  return !mp->bad;
}

static bool agpu_mp_is(const agpu_mp_item *item, const char *text) {
  size_t length = strlen(text);
  return item->kind == AGPU_MP_STR && item->length == length &&
         memcmp(item->bytes, text, length) == 0;
}

static void agpu_mp_copy(const agpu_mp_item *item, char *out, size_t size) {
  size_t length = item->kind == AGPU_MP_STR ? item->length : 0;
  if (length >= size) length = size - 1;
  memcpy(out, item->bytes ? item->bytes : "", length);
  out[length] = '\0';
}

/* ------------------------------------------------------------- kernels */

static void agpu_hip_read_arg(agpu_mp *mp, uint64_t pairs, agpu_kernel_param *param, bool *hidden) {
  char kind[48] = "", space[24] = "";
  *hidden = false;
  for (uint64_t i = 0; i < pairs && !mp->bad; i++) {
    agpu_mp_item key, value;
    if (!agpu_mp_next(mp, &key)) return;
    if (agpu_mp_is(&key, ".size") || agpu_mp_is(&key, ".value_kind") ||
        agpu_mp_is(&key, ".address_space") || agpu_mp_is(&key, ".name") ||
        agpu_mp_is(&key, ".type_name") || agpu_mp_is(&key, ".is_const")) {
      if (!agpu_mp_next(mp, &value)) return;
      if (agpu_mp_is(&key, ".size") && value.kind == AGPU_MP_UINT)
        param->size = (uint32_t)value.number;
      if (agpu_mp_is(&key, ".value_kind")) agpu_mp_copy(&value, kind, sizeof kind);
      if (agpu_mp_is(&key, ".address_space")) agpu_mp_copy(&value, space, sizeof space);
      if (agpu_mp_is(&key, ".name")) agpu_mp_copy(&value, param->name, sizeof param->name);
      if (agpu_mp_is(&key, ".type_name"))
        agpu_mp_copy(&value, param->type_name, sizeof param->type_name);
      if (agpu_mp_is(&key, ".is_const") && value.kind == AGPU_MP_BOOL)
        param->is_const = value.number;
    } else {
      agpu_mp_skip(mp, 4);
    }
  }
  *hidden = strncmp(kind, "hidden_", 7) == 0;
  if (strcmp(kind, "global_buffer") == 0) {
    param->kind =
        strcmp(space, "constant") == 0 ? AGPU_PARAM_CONSTANT_BUFFER : AGPU_PARAM_GLOBAL_BUFFER;
    param->size = 0;
  } else if (strcmp(kind, "by_value") == 0) {
    param->kind = AGPU_PARAM_SCALAR;
  } else {
    param->kind = AGPU_PARAM_UNKNOWN; /* images, samplers, pipes, queues */
  }
}

static bool agpu_hip_read_kernel(agpu_mp *mp, uint64_t pairs, agpu_hip_kernel_entry *entry) {
  for (uint64_t i = 0; i < pairs && !mp->bad; i++) {
    agpu_mp_item key, value;
    if (!agpu_mp_next(mp, &key)) return false;
    if (agpu_mp_is(&key, ".name")) {
      if (agpu_mp_next(mp, &value)) agpu_mp_copy(&value, entry->name, sizeof entry->name);
    } else if (agpu_mp_is(&key, ".reqd_workgroup_size")) {
      if (!agpu_mp_next(mp, &value) || value.kind != AGPU_MP_ARRAY) return mp->bad = true, false;
      for (uint64_t d = 0; d < value.number && !mp->bad; d++) {
        agpu_mp_item size;
        if (agpu_mp_next(mp, &size) && d < 3)
          entry->required_work_group_size[d] =
              size.kind == AGPU_MP_UINT ? (uint32_t)size.number : 0;
      }
      entry->has_required_work_group_size = value.number == 3 && entry->required_work_group_size[0];
    } else if (agpu_mp_is(&key, ".max_flat_workgroup_size")) {
      if (agpu_mp_next(mp, &value) && value.kind == AGPU_MP_UINT)
        entry->max_work_group_size = (uint32_t)value.number;
    } else if (agpu_mp_is(&key, ".args")) {
      if (!agpu_mp_next(mp, &value) || value.kind != AGPU_MP_ARRAY || value.number > 4096)
        return mp->bad = true, false;
      free(entry->params);
      entry->params = calloc(value.number ? value.number : 1, sizeof *entry->params);
      if (!entry->params) return false;
      entry->param_count = 0;
      for (uint64_t a = 0; a < value.number && !mp->bad; a++) {
        agpu_mp_item arg;
        if (!agpu_mp_next(mp, &arg) || arg.kind != AGPU_MP_MAP) return mp->bad = true, false;
        bool hidden = false;
        agpu_kernel_param *param = &entry->params[entry->param_count];
        memset(param, 0, sizeof *param);
        agpu_hip_read_arg(mp, arg.number, param, &hidden);
        if (!hidden) entry->param_count++; /* hidden ones are the runtime's to fill */
      }
    } else {
      agpu_mp_skip(mp, 1);
    }
  }
  return !mp->bad && entry->name[0];
}

static agpu_status agpu_hip_read_kernels(const uint8_t *desc, size_t size, agpu_hip_program *hp) {
  agpu_mp mp = {.at = desc, .end = desc + size};
  agpu_mp_item top, key, kernels;
  if (!agpu_mp_next(&mp, &top) || top.kind != AGPU_MP_MAP) goto bad;
  for (uint64_t i = 0; i < top.number && !mp.bad; i++) {
    if (!agpu_mp_next(&mp, &key)) goto bad;
    if (!agpu_mp_is(&key, "amdhsa.kernels")) {
      agpu_mp_skip(&mp, 1);
      continue;
    }
    if (!agpu_mp_next(&mp, &kernels) || kernels.kind != AGPU_MP_ARRAY || kernels.number > 65536)
      goto bad;
    hp->kernels = calloc(kernels.number ? kernels.number : 1, sizeof *hp->kernels);
    if (!hp->kernels)
      return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "hip: out of host memory");
    for (uint64_t k = 0; k < kernels.number; k++) {
      agpu_mp_item map;
      if (!agpu_mp_next(&mp, &map) || map.kind != AGPU_MP_MAP) goto bad;
      agpu_hip_kernel_entry *entry = &hp->kernels[hp->kernel_count++];
      entry->native_abi = true;
      if (!agpu_hip_read_kernel(&mp, map.number, entry)) goto bad;
    }
    return AGPU_SUCCESS;
  }
bad:
  return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                        "hip: the code object's metadata note is not the MessagePack map of "
                        "amdhsa.kernels that code object v3 and later carry");
}

/* ------------------------------------------------------------ ELF, bundle */

static uint64_t agpu_hip_le(const uint8_t *at, unsigned bytes) {
  uint64_t value = 0;
  for (unsigned i = bytes; i-- > 0;) value = value << 8 | at[i];
  return value;
}

/* The NT_AMDGPU_METADATA note of a 64-bit little-endian ELF. */
static bool agpu_hip_find_note(const uint8_t *elf, size_t size, const uint8_t **desc,
                               size_t *desc_size) {
  if (size < 64 ||
      memcmp(elf,
             "\x7f"
             "ELF",
             4) != 0 ||
      elf[4] != 2 || elf[5] != 1)
    return false;
  uint64_t shoff = agpu_hip_le(elf + 0x28, 8);
  uint64_t shentsize = agpu_hip_le(elf + 0x3a, 2), shnum = agpu_hip_le(elf + 0x3c, 2);
  if (shentsize < 64 || shoff > size || shnum > (size - shoff) / shentsize) return false;
  for (uint64_t s = 0; s < shnum; s++) {
    const uint8_t *section = elf + shoff + s * shentsize;
    if (agpu_hip_le(section + 4, 4) != 7) continue; /* SHT_NOTE */
    uint64_t offset = agpu_hip_le(section + 0x18, 8), length = agpu_hip_le(section + 0x20, 8);
    if (offset > size || length > size - offset) return false;
    const uint8_t *at = elf + offset, *end = at + length;
    while ((size_t)(end - at) >= 12) {
      uint64_t namesz = agpu_hip_le(at, 4), descsz = agpu_hip_le(at + 4, 4);
      uint64_t type = agpu_hip_le(at + 8, 4);
      uint64_t name_padded = (namesz + 3) & ~3ull, desc_padded = (descsz + 3) & ~3ull;
      if (name_padded > (uint64_t)(end - at) - 12 ||
          desc_padded > (uint64_t)(end - at) - 12 - name_padded)
        return false;
      if (type == 32 && namesz == 7 && memcmp(at + 12, "AMDGPU", 7) == 0) {
        *desc = at + 12 + name_padded;
        *desc_size = descsz;
        return true;
      }
      at += 12 + name_padded + desc_padded;
    }
  }
  return false;
}

/* The bundle's entry for `arch` (its triple ends in "-<arch>" or has
 * "-<arch>:"), else its first amdgcn entry. */
static bool agpu_hip_unbundle(const uint8_t *bundle, size_t size, const char *arch,
                              const uint8_t **elf, size_t *elf_size) {
  static const char magic[] = "__CLANG_OFFLOAD_BUNDLE__";
  size_t at = sizeof magic - 1;
  if (size < at + 8) return false;
  uint64_t count = agpu_hip_le(bundle + at, 8);
  at += 8;
  bool found = false;
  for (uint64_t i = 0; i < count && i < 1024; i++) {
    if (size - at < 24) return false;
    uint64_t offset = agpu_hip_le(bundle + at, 8), length = agpu_hip_le(bundle + at + 8, 8);
    uint64_t triple_size = agpu_hip_le(bundle + at + 16, 8);
    at += 24;
    if (triple_size > size - at || offset > size || length > size - offset) return false;
    const char *triple = (const char *)bundle + at;
    at += triple_size;
    char text[256];
    snprintf(text, sizeof text, "%.*s", (int)(triple_size < 255 ? triple_size : 255), triple);
    if (!strstr(text, "amdgcn")) continue;
    char suffix[64];
    snprintf(suffix, sizeof suffix, "-%s", arch ? arch : "");
    const char *match = arch && arch[0] ? strstr(text, suffix) : NULL;
    bool exact = match && (match[strlen(suffix)] == '\0' || match[strlen(suffix)] == ':');
    if (exact || !found) {
      *elf = bundle + offset;
      *elf_size = length;
      found = true;
      if (exact) return true;
    }
  }
  return found;
}

agpu_status agpu_hip_read_metadata(const void *data, size_t size, const char *arch,
                                   agpu_hip_program *hp) {
  const uint8_t *elf = data;
  size_t elf_size = size;
  if (size >= 24 && memcmp(data, "__CLANG_OFFLOAD_BUNDLE__", 24) == 0 &&
      !agpu_hip_unbundle(data, size, arch, &elf, &elf_size))
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "hip: the offload bundle has no amdgcn code object");
  const uint8_t *desc = NULL;
  size_t desc_size = 0;
  if (!agpu_hip_find_note(elf, elf_size, &desc, &desc_size))
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "hip: the code object has no AMDGPU metadata note (NT_AMDGPU_METADATA): "
                          "not an ELF of code object v3 or later, or damaged");
  return agpu_hip_read_kernels(desc, desc_size, hp);
}
