// SPDX-License-Identifier: Apache-2.0
/* Which devices are one physical device: PCI address first, then UUIDs
 * where the vendor's APIs agree on them, then a marked guess; every CPU
 * device is the host CPU. A pure function of the devices' descriptions. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "agpu_physical.h"

#define AGPU_VENDOR_NVIDIA 0x10de

/* Edge strengths, weakest last; a group's match is its weakest edge. */
enum { AGPU_EDGE_NONE, AGPU_EDGE_PCI, AGPU_EDGE_UUID, AGPU_EDGE_GUESS };

static int agpu_hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = (char)tolower((unsigned char)c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Reads exactly `digits` hex digits at text[*at]. */
static bool agpu_read_hex(const char *text, size_t length, size_t *at, int digits,
                          unsigned *value) {
  *value = 0;
  for (int i = 0; i < digits; i++, (*at)++) {
    if (*at >= length || agpu_hex_value(text[*at]) < 0) return false;
    *value = *value * 16 + (unsigned)agpu_hex_value(text[*at]);
  }
  return true;
}

bool agpu_pci_address_normalize(const char *text, size_t length, char out[16]) {
  unsigned domain = 0, bus, device, function;
  size_t at = 0;
  /* With a domain, the first ':' comes after four digits. */
  bool has_domain = length > 4 && text[4] == ':';
  if (has_domain && (!agpu_read_hex(text, length, &at, 4, &domain) || text[at++] != ':'))
    return false;
  if (!agpu_read_hex(text, length, &at, 2, &bus) || at >= length || text[at++] != ':') return false;
  if (!agpu_read_hex(text, length, &at, 2, &device) || at >= length || text[at++] != '.')
    return false;
  if (!agpu_read_hex(text, length, &at, 1, &function) || at != length) return false;
  if (device > 0x1f || function > 7) return false;
  snprintf(out, 16, "%04x:%02x:%02x.%x", domain, bus, device, function);
  return true;
}

static bool agpu_device_pci(const agpu_device_info *device, char out[16]) {
  return device->has_pci && agpu_pci_address_normalize(device->pci, strlen(device->pci), out);
}

static bool agpu_uuid_is_zero(const uint8_t uuid[16]) {
  for (int i = 0; i < 16; i++)
    if (uuid[i]) return false;
  return true;
}

/* UUIDs mean the same device across APIs only where the vendor makes them
 * agree: NVIDIA's CUDA, OpenCL and Vulkan UUIDs do; AMD's and Intel's do not
 * (and Mesa's lavapipe reports its version string as its UUID). */
static bool agpu_uuids_agree(const agpu_device_info *a, const agpu_device_info *b) {
  return a->vendor_id == AGPU_VENDOR_NVIDIA && b->vendor_id == AGPU_VENDOR_NVIDIA && a->has_uuid &&
         b->has_uuid && !agpu_uuid_is_zero(a->uuid) && memcmp(a->uuid, b->uuid, 16) == 0;
}

typedef struct agpu_union_find {
  uint32_t *parent;
  uint8_t *weakest; /* per root: the weakest edge inside its set */
} agpu_union_find;

static uint32_t agpu_find(agpu_union_find *sets, uint32_t i) {
  while (sets->parent[i] != i) {
    sets->parent[i] = sets->parent[sets->parent[i]];
    i = sets->parent[i];
  }
  return i;
}

static void agpu_union(agpu_union_find *sets, uint32_t a, uint32_t b, uint8_t edge) {
  uint32_t ra = agpu_find(sets, a), rb = agpu_find(sets, b);
  uint8_t weakest = sets->weakest[ra] > sets->weakest[rb] ? sets->weakest[ra] : sets->weakest[rb];
  if (edge > weakest) weakest = edge;
  if (ra == rb) {
    sets->weakest[ra] = weakest;
    return;
  }
  uint32_t root = ra < rb ? ra : rb; /* the earliest device is the root */
  sets->parent[ra == root ? rb : ra] = root;
  sets->weakest[root] = weakest;
}

static bool agpu_is_cpu(const agpu_device_info *device) {
  return device->type == AGPU_DEVICE_TYPE_CPU;
}

static bool agpu_same_name(const char *a, const char *b) {
  while (isspace((unsigned char)*a)) a++;
  while (isspace((unsigned char)*b)) b++;
  size_t la = strlen(a), lb = strlen(b);
  while (la && isspace((unsigned char)a[la - 1])) la--;
  while (lb && isspace((unsigned char)b[lb - 1])) lb--;
  if (la != lb || la == 0) return false;
  for (size_t i = 0; i < la; i++)
    if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return false;
  return true;
}

/* APIs report a card's memory differently (the whole card, one heap, what
 * is left after the driver's reserve): within an eighth counts as equal. */
static bool agpu_memory_close(uint64_t a, uint64_t b) {
  uint64_t larger = a > b ? a : b, smaller = a > b ? b : a;
  return larger > 0 && larger - smaller <= larger / 8;
}

/* Could the sets rooted at ra and rb be the same card, on the weak keys?
 * Never when they share a backend (two identical cards in one machine are
 * two devices of one API) or when stronger keys say they differ. */
static bool agpu_sets_may_match(const agpu_device_info *devices, uint32_t count,
                                agpu_union_find *sets, uint32_t ra, uint32_t rb) {
  const agpu_device_info *a = &devices[ra], *b = &devices[rb];
  if (!a->vendor_id || a->vendor_id != b->vendor_id) return false;
  if (a->device_id && b->device_id ? a->device_id != b->device_id
                                   : !agpu_same_name(a->name, b->name))
    return false;
  if (!agpu_memory_close(a->global_mem_bytes, b->global_mem_bytes)) return false;
  for (uint32_t i = 0; i < count; i++) {
    if (agpu_find(sets, i) != ra) continue;
    for (uint32_t j = 0; j < count; j++) {
      if (agpu_find(sets, j) != rb) continue;
      if (devices[i].backend == devices[j].backend) return false;
      char pi[16], pj[16];
      if (agpu_device_pci(&devices[i], pi) && agpu_device_pci(&devices[j], pj)) return false;
      if (devices[i].vendor_id == AGPU_VENDOR_NVIDIA && devices[i].has_uuid &&
          devices[j].has_uuid && !agpu_uuids_agree(&devices[i], &devices[j]))
        return false;
    }
  }
  return true;
}

/* Joins two sets on the weak keys only when each is the other's one
 * candidate: with two identical cards, a guess would be a coin toss. */
static void agpu_join_guesses(const agpu_device_info *devices, uint32_t count,
                              agpu_union_find *sets) {
  uint32_t *candidates = calloc(count ? count : 1, sizeof *candidates);
  uint32_t *partner = calloc(count ? count : 1, sizeof *partner);
  if (!candidates || !partner) {
    free(candidates);
    free(partner);
    return; /* no guesses: every device stays what the strong keys made it */
  }
  for (uint32_t a = 0; a < count; a++) {
    if (agpu_is_cpu(&devices[a]) || agpu_find(sets, a) != a) continue;
    for (uint32_t b = a + 1; b < count; b++) {
      if (agpu_is_cpu(&devices[b]) || agpu_find(sets, b) != b) continue;
      if (!agpu_sets_may_match(devices, count, sets, a, b)) continue;
      candidates[a]++;
      candidates[b]++;
      partner[a] = b;
      partner[b] = a;
    }
  }
  for (uint32_t a = 0; a < count; a++) {
    if (candidates[a] != 1) continue;
    uint32_t b = partner[a];
    if (a < b && candidates[b] == 1 && partner[b] == a) agpu_union(sets, a, b, AGPU_EDGE_GUESS);
  }
  free(candidates);
  free(partner);
}

/* The member that speaks for the group: the native backend of a GPU (CUDA,
 * HIP), then OpenCL, then Vulkan; for the CPU the built-in backend first. */
static int agpu_representative_rank(const agpu_device_info *device) {
  agpu_backend_info backend; /* its descriptor's ranks */
  if (agpu_backend_get_info((uint32_t)device->backend, &backend) != AGPU_SUCCESS) return 99;
  return (int)(agpu_is_cpu(device) ? backend.cpu_rank : backend.gpu_rank);
}

typedef struct agpu_group_sort_key {
  uint32_t root;
  bool cpu;
  bool has_pci;
  char pci[16];
} agpu_group_sort_key;

static int agpu_group_order(const void *x, const void *y) {
  const agpu_group_sort_key *a = x, *b = y;
  if (a->cpu != b->cpu) return a->cpu ? 1 : -1;
  if (a->has_pci != b->has_pci) return a->has_pci ? -1 : 1;
  if (a->has_pci) {
    int order = strcmp(a->pci, b->pci);
    if (order) return order;
  }
  return (a->root > b->root) - (a->root < b->root);
}

static void agpu_fill_group(const agpu_device_info *devices, uint32_t count, agpu_union_find *sets,
                            const agpu_group_sort_key *key, uint32_t index,
                            agpu_physical_device_info *group) {
  memset(group, 0, sizeof *group);
  group->index = index;
  snprintf(group->id, sizeof group->id, "phys:%u", index);
  group->duplicate_backend = "";
  const agpu_device_info *speaker = NULL;
  bool seen_backend[AGPU_BACKEND_COUNT_] = {false};
  for (uint32_t i = 0; i < count; i++) {
    if (agpu_find(sets, i) != key->root) continue;
    const agpu_device_info *device = &devices[i];
    if (group->member_count < AGPU_PHYSICAL_MAX_MEMBERS)
      snprintf(group->members[group->member_count], sizeof group->members[0], "%s",
               device->selector);
    group->member_count++;
    if (!speaker || agpu_representative_rank(device) < agpu_representative_rank(speaker))
      speaker = device;
    if ((unsigned)device->backend < AGPU_BACKEND_COUNT_) {
      if (seen_backend[device->backend] && !group->duplicate_in_backend) {
        group->duplicate_in_backend = true;
        group->duplicate_backend = device->backend_name;
      }
      seen_backend[device->backend] = true;
    }
  }
  if (!speaker) return;
  snprintf(group->name, sizeof group->name, "%s", speaker->name);
  group->type = speaker->type;
  group->vendor_id = speaker->vendor_id;
  group->device_id = speaker->device_id;
  group->global_mem_bytes = speaker->global_mem_bytes;
  group->has_pci = key->has_pci;
  if (key->has_pci) snprintf(group->pci, sizeof group->pci, "%s", key->pci);
  for (uint32_t i = 0; i < count; i++) {
    if (agpu_find(sets, i) != key->root) continue;
    if (!group->vendor_id) group->vendor_id = devices[i].vendor_id;
    if (!group->device_id) group->device_id = devices[i].device_id;
  }
  if (speaker->has_uuid && !agpu_is_cpu(speaker)) {
    group->has_uuid = true;
    memcpy(group->uuid, speaker->uuid, 16);
  }
  if (key->cpu) {
    group->match = AGPU_PHYSICAL_MATCH_CPU;
  } else if (group->member_count == 1) {
    group->match = AGPU_PHYSICAL_MATCH_SINGLE;
  } else {
    static const agpu_physical_match by_edge[] = {[AGPU_EDGE_NONE] = AGPU_PHYSICAL_MATCH_SINGLE,
                                                  [AGPU_EDGE_PCI] = AGPU_PHYSICAL_MATCH_PCI,
                                                  [AGPU_EDGE_UUID] = AGPU_PHYSICAL_MATCH_UUID,
                                                  [AGPU_EDGE_GUESS] = AGPU_PHYSICAL_MATCH_GUESS};
    group->match = by_edge[sets->weakest[key->root]];
  }
  group->uncertain = group->match == AGPU_PHYSICAL_MATCH_GUESS;
}

uint32_t agpu_physical_group(const agpu_device_info *devices, uint32_t count,
                             agpu_physical_device_info *groups, uint32_t *group_of_device) {
  if (count == 0) return 0;
  agpu_union_find sets = {calloc(count, sizeof(uint32_t)), calloc(count, 1)};
  agpu_group_sort_key *keys = calloc(count, sizeof *keys);
  if (!sets.parent || !sets.weakest || !keys) {
    free(sets.parent);
    free(sets.weakest);
    free(keys);
    return 0;
  }
  for (uint32_t i = 0; i < count; i++) sets.parent[i] = i;

  int first_cpu = -1;
  for (uint32_t i = 0; i < count; i++) {
    if (!agpu_is_cpu(&devices[i])) continue;
    if (first_cpu < 0)
      first_cpu = (int)i;
    else
      agpu_union(&sets, (uint32_t)first_cpu, i, AGPU_EDGE_NONE);
  }
  for (uint32_t i = 0; i < count; i++) {
    char pi[16];
    if (agpu_is_cpu(&devices[i])) continue;
    bool has_pci = agpu_device_pci(&devices[i], pi);
    for (uint32_t j = i + 1; j < count; j++) {
      if (agpu_is_cpu(&devices[j])) continue;
      char pj[16];
      bool both_pci = has_pci && agpu_device_pci(&devices[j], pj);
      if (both_pci && strcmp(pi, pj) == 0)
        agpu_union(&sets, i, j, AGPU_EDGE_PCI);
      else if (!both_pci && agpu_uuids_agree(&devices[i], &devices[j]))
        agpu_union(&sets, i, j, AGPU_EDGE_UUID);
    }
  }
  agpu_join_guesses(devices, count, &sets);

  uint32_t group_count = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (agpu_find(&sets, i) != i) continue;
    agpu_group_sort_key *key = &keys[group_count++];
    key->root = i;
    key->cpu = agpu_is_cpu(&devices[i]);
    for (uint32_t j = i; j < count && !key->has_pci; j++)
      if (agpu_find(&sets, j) == i) key->has_pci = agpu_device_pci(&devices[j], key->pci);
  }
  qsort(keys, group_count, sizeof *keys, agpu_group_order);
  for (uint32_t g = 0; g < group_count; g++) {
    agpu_fill_group(devices, count, &sets, &keys[g], g, &groups[g]);
    for (uint32_t i = 0; i < count; i++)
      if (agpu_find(&sets, i) == keys[g].root && group_of_device) group_of_device[i] = g;
  }
  free(sets.parent);
  free(sets.weakest);
  free(keys);
  return group_count;
}
