// SPDX-License-Identifier: Apache-2.0
/* Device selectors: "cuda:0", "opencl:*", "*:gpu", "!vulkan:*", "phys:1",
 * "pci:0000:01:00.0"; within a term, filters are alternatives joined by ','
 * ("opencl:0,2", "phys:0,cpu"); terms are joined by ';'. A term may end in
 * "@local" ("*:gpu@local"): it then matches one device, the Nth of what it
 * would match, where N is the process's rank on its node (launcher variables,
 * agpu_local_rank), modulo the count. The grammar is in docs/cli.md.
 *
 * Positive terms are tried in order and the devices each one matches are
 * ranked best first; negative terms remove devices from the result, whatever
 * their position (discard wins). A selector with only negative terms starts
 * from every device. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "agpu_core.h"
#include "agpu_physical.h"

#define AGPU_SELECTOR_MAX_TERMS 32
#define AGPU_SELECTOR_MAX_FILTERS 16

typedef enum agpu_filter_kind {
  AGPU_FILTER_ANY,
  AGPU_FILTER_INDEX,
  AGPU_FILTER_GPU,
  AGPU_FILTER_CPU,
  AGPU_FILTER_DISCRETE,
  AGPU_FILTER_INTEGRATED,
} agpu_filter_kind;

typedef struct agpu_filter {
  agpu_filter_kind kind;
  uint32_t index;
} agpu_filter;

typedef struct agpu_selector_term {
  bool exclude;
  bool any_backend;
  bool physical; /* "phys:N": an index filter names a physical device */
  bool by_pci;   /* "pci:ADDRESS": every device of the physical device at ADDRESS */
  bool local;    /* "...@local": only local_device, picked by the node-local rank */
  int64_t local_device; /* registry index; -1 when the term matches nothing */
  char pci[16];
  agpu_backend_kind backend;
  agpu_filter filters[AGPU_SELECTOR_MAX_FILTERS];
  uint32_t filter_count;
} agpu_selector_term;

typedef struct agpu_selector {
  agpu_selector_term terms[AGPU_SELECTOR_MAX_TERMS];
  uint32_t term_count;
} agpu_selector;

static void agpu_trim(const char **begin, const char **end) {
  while (*begin < *end && isspace((unsigned char)**begin)) (*begin)++;
  while (*end > *begin && isspace((unsigned char)(*end)[-1])) (*end)--;
}

static bool agpu_token_is(const char *begin, const char *end, const char *word) {
  size_t n = strlen(word);
  return (size_t)(end - begin) == n && strncmp(begin, word, n) == 0;
}

static agpu_status agpu_parse_filter(const char *selector, const char *begin, const char *end,
                                     agpu_filter *filter) {
  static const struct {
    const char *word;
    agpu_filter_kind kind;
  } words[] = {{"*", AGPU_FILTER_ANY},
               {"gpu", AGPU_FILTER_GPU},
               {"cpu", AGPU_FILTER_CPU},
               {"discrete", AGPU_FILTER_DISCRETE},
               {"integrated", AGPU_FILTER_INTEGRATED}};
  agpu_trim(&begin, &end);
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    if (agpu_token_is(begin, end, words[i].word)) {
      filter->kind = words[i].kind;
      return AGPU_SUCCESS;
    }
  }
  uint64_t value = 0;
  const char *p = begin;
  while (p < end && isdigit((unsigned char)*p) && value <= UINT32_MAX)
    value = value * 10 + (uint64_t)(*p++ - '0');
  if (p == begin || p != end || value > UINT32_MAX)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "bad device filter '%.*s' in selector '%s' (expected an index, '*', "
                          "gpu, cpu, discrete or integrated)",
                          (int)(end - begin), begin, selector);
  filter->kind = AGPU_FILTER_INDEX;
  filter->index = (uint32_t)value;
  return AGPU_SUCCESS;
}

static agpu_status agpu_parse_term(const char *selector, const char *begin, const char *end,
                                   agpu_selector_term *term) {
  memset(term, 0, sizeof *term);
  const char *at = memchr(begin, '@', (size_t)(end - begin));
  if (at) {
    const char *suffix = at + 1, *suffix_end = end;
    agpu_trim(&suffix, &suffix_end);
    if (!agpu_token_is(suffix, suffix_end, "local"))
      return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                            "bad suffix '@%.*s' in selector '%s' (the only one is @local, the "
                            "device of this node-local rank, e.g. *:gpu@local)",
                            (int)(suffix_end - suffix), suffix, selector);
    term->local = true;
    end = at;
    agpu_trim(&begin, &end);
  }
  if (begin < end && *begin == '!') {
    term->exclude = true;
    begin++;
    agpu_trim(&begin, &end);
  }
  const char *colon = memchr(begin, ':', (size_t)(end - begin));
  const char *name_end = colon ? colon : end;
  const char *name_begin = begin;
  agpu_trim(&name_begin, &name_end);
  if (name_begin == name_end)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "missing backend name in selector '%s' (e.g. opencl:0, *:gpu)", selector);
  if (agpu_token_is(name_begin, name_end, "*")) {
    term->any_backend = true;
  } else if (agpu_token_is(name_begin, name_end, "phys")) {
    term->any_backend = true;
    term->physical = true;
  } else if (agpu_token_is(name_begin, name_end, "pci")) {
    const char *address = colon ? colon + 1 : end;
    const char *address_end = end;
    agpu_trim(&address, &address_end);
    if (!agpu_pci_address_normalize(address, (size_t)(address_end - address), term->pci))
      return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                            "bad PCI address '%.*s' in selector '%s' (expected "
                            "domain:bus:device.function, e.g. pci:0000:01:00.0)",
                            (int)(address_end - address), address, selector);
    term->any_backend = true;
    term->by_pci = true;
    return AGPU_SUCCESS;
  } else {
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)(name_end - name_begin), name_begin);
    uint32_t index;
    if (agpu_backend_find(name, &index) != AGPU_SUCCESS) {
      char known[256];
      agpu_backend_names(known, sizeof known);
      return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                            "unknown backend '%s' in selector '%s' (known: %s, *, and phys:N or "
                            "pci:ADDRESS for a physical device)",
                            name, selector, known);
    }
    term->backend = (agpu_backend_kind)index;
  }
  if (!colon) { /* "opencl" alone means every opencl device */
    term->filters[term->filter_count++].kind = AGPU_FILTER_ANY;
    return AGPU_SUCCESS;
  }
  const char *p = colon + 1;
  for (;;) {
    const char *comma = memchr(p, ',', (size_t)(end - p));
    const char *filter_end = comma ? comma : end;
    if (term->filter_count == AGPU_SELECTOR_MAX_FILTERS)
      return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                            "too many filters in selector '%s' (at most %d per term)", selector,
                            AGPU_SELECTOR_MAX_FILTERS);
    agpu_status status =
        agpu_parse_filter(selector, p, filter_end, &term->filters[term->filter_count++]);
    if (status != AGPU_SUCCESS) return status;
    if (!comma) break;
    p = comma + 1;
  }
  return AGPU_SUCCESS;
}

static agpu_status agpu_selector_parse(const char *text, agpu_selector *selector) {
  selector->term_count = 0;
  const char *p = text;
  for (;;) {
    const char *semicolon = strchr(p, ';');
    const char *end = semicolon ? semicolon : p + strlen(p);
    const char *begin = p;
    agpu_trim(&begin, &end);
    if (begin < end) { /* empty terms ("a;;b", a trailing ';') are ignored */
      if (selector->term_count == AGPU_SELECTOR_MAX_TERMS)
        return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                              "too many terms in selector '%s' (at most %d)", text,
                              AGPU_SELECTOR_MAX_TERMS);
      agpu_status status =
          agpu_parse_term(text, begin, end, &selector->terms[selector->term_count++]);
      if (status != AGPU_SUCCESS) return status;
    }
    if (!semicolon) break;
    p = semicolon + 1;
  }
  if (selector->term_count == 0)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "empty device selector '%s'", text);
  return AGPU_SUCCESS;
}

static bool agpu_is_gpu(agpu_device_type type) {
  return type == AGPU_DEVICE_TYPE_DISCRETE_GPU || type == AGPU_DEVICE_TYPE_INTEGRATED_GPU ||
         type == AGPU_DEVICE_TYPE_VIRTUAL_GPU;
}

static bool agpu_filter_matches(const agpu_filter *filter, const agpu_device *device, bool physical,
                                uint32_t physical_index) {
  switch (filter->kind) {
    case AGPU_FILTER_ANY:
      return true;
    case AGPU_FILTER_INDEX:
      return physical ? physical_index == filter->index : device->info.index == filter->index;
    case AGPU_FILTER_GPU:
      return agpu_is_gpu(device->info.type);
    case AGPU_FILTER_CPU:
      return device->info.type == AGPU_DEVICE_TYPE_CPU;
    case AGPU_FILTER_DISCRETE:
      return device->info.type == AGPU_DEVICE_TYPE_DISCRETE_GPU;
    case AGPU_FILTER_INTEGRATED:
      return device->info.type == AGPU_DEVICE_TYPE_INTEGRATED_GPU;
  }
  return false;
}

/* `device_index` is the device's place in the registry. What the term matches
 * without its "@local" suffix. */
static bool agpu_term_matches_all(const agpu_selector_term *term, const agpu_device *device,
                                  uint32_t device_index) {
  if (!term->any_backend && device->info.backend != term->backend) return false;
  uint32_t physical_index = agpu_physical_registry_group_of(device_index);
  if (term->by_pci) {
    const agpu_physical_device_info *group = agpu_physical_registry_group(physical_index);
    return group && group->has_pci && strcmp(group->pci, term->pci) == 0;
  }
  for (uint32_t i = 0; i < term->filter_count; i++)
    if (agpu_filter_matches(&term->filters[i], device, term->physical, physical_index)) return true;
  return false;
}

static bool agpu_term_matches(const agpu_selector_term *term, const agpu_device *device,
                              uint32_t device_index) {
  if (term->local) return term->local_device == (int64_t)device_index;
  return agpu_term_matches_all(term, device, device_index);
}

/* Lower is better: a discrete GPU through its native API first, a CPU last,
 * and any device whose backend cannot build portable kernels after the rest. */
static int agpu_device_rank(agpu_device *device) {
  static const int type_rank[] = {
      [AGPU_DEVICE_TYPE_DISCRETE_GPU] = 0, [AGPU_DEVICE_TYPE_INTEGRATED_GPU] = 1,
      [AGPU_DEVICE_TYPE_VIRTUAL_GPU] = 2,  [AGPU_DEVICE_TYPE_OTHER] = 3,
      [AGPU_DEVICE_TYPE_CPU] = 4,
  };
  const agpu_backend_descriptor *descriptor = device->backend->descriptor;
  agpu_device_type type = device->info.type;
  int backend = type == AGPU_DEVICE_TYPE_CPU ? descriptor->cpu_rank : descriptor->gpu_rank;
  uint32_t caps = device->backend->ops->device_caps ? device->backend->ops->device_caps(device) : 0;
  int builds = (caps & AGPU_CAP_BUILD_PORTABLE) ? 0 : 1;
  int testing = (descriptor->flags & AGPU_BACKEND_TESTING) ? 1 : 0; /* never the default */
  return testing * 1000 + builds * 100 + type_rank[type] * 10 + backend;
}

/* A device a "@local" term may pick: the list is ordered so that consecutive
 * ranks land on different physical devices first (the best device of each
 * physical device, in physical order, then the second best of each, ...). */
typedef struct agpu_local_candidate {
  uint32_t device_index;
  uint32_t physical;
  uint32_t level; /* place within its physical device, best first */
  int rank;
} agpu_local_candidate;

static int agpu_local_by_physical(const void *a, const void *b) {
  const agpu_local_candidate *x = a, *y = b;
  if (x->physical != y->physical) return x->physical < y->physical ? -1 : 1;
  if (x->rank != y->rank) return x->rank - y->rank;
  return (x->device_index > y->device_index) - (x->device_index < y->device_index);
}

static int agpu_local_by_level(const void *a, const void *b) {
  const agpu_local_candidate *x = a, *y = b;
  if (x->level != y->level) return x->level < y->level ? -1 : 1;
  return agpu_local_by_physical(a, b);
}

/* Sets the "@local" terms' local_device from the node-local rank. */
static agpu_status agpu_selector_pick_local(agpu_selector *selector, uint32_t total) {
  bool any_local = false;
  for (uint32_t t = 0; t < selector->term_count; t++) any_local |= selector->terms[t].local;
  if (!any_local) return AGPU_SUCCESS;
  uint32_t local_rank = 0;
  agpu_status status = agpu_local_rank(&local_rank, NULL);
  if (status != AGPU_SUCCESS) return status;
  agpu_local_candidate *candidates = calloc(total ? total : 1, sizeof *candidates);
  if (!candidates)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "device selection: out of host memory");
  for (uint32_t t = 0; t < selector->term_count; t++) {
    agpu_selector_term *term = &selector->terms[t];
    if (!term->local) continue;
    uint32_t count = 0;
    for (uint32_t i = 0; i < total; i++) {
      agpu_device *device = agpu_registry_device(i);
      if (!agpu_term_matches_all(term, device, i)) continue;
      candidates[count++] = (agpu_local_candidate){i, agpu_physical_registry_group_of(i), 0,
                                                   agpu_device_rank(device)};
    }
    qsort(candidates, count, sizeof *candidates, agpu_local_by_physical);
    for (uint32_t i = 1; i < count; i++)
      if (candidates[i].physical == candidates[i - 1].physical)
        candidates[i].level = candidates[i - 1].level + 1;
    qsort(candidates, count, sizeof *candidates, agpu_local_by_level);
    term->local_device = count ? (int64_t)candidates[local_rank % count].device_index : -1;
  }
  free(candidates);
  return AGPU_SUCCESS;
}

typedef struct agpu_ranked {
  agpu_device *device;
  int term;
  int rank;
  uint32_t order;
} agpu_ranked;

static int agpu_ranked_compare(const void *a, const void *b) {
  const agpu_ranked *x = a, *y = b;
  if (x->term != y->term) return x->term - y->term;
  if (x->rank != y->rank) return x->rank - y->rank;
  return (x->order > y->order) - (x->order < y->order);
}

/* The devices the selector matches, best first, in a malloc'd array. */
static agpu_status agpu_selector_match(const char *text, agpu_ranked **out, uint32_t *out_count) {
  agpu_selector *selector = malloc(sizeof *selector);
  uint32_t total = agpu_registry_device_count();
  agpu_ranked *ranked = calloc(total ? total : 1, sizeof *ranked);
  if (!selector || !ranked) {
    free(selector);
    free(ranked);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "device selection: out of host memory");
  }
  agpu_status status = agpu_selector_parse(text, selector);
  if (status == AGPU_SUCCESS) status = agpu_selector_pick_local(selector, total);
  if (status != AGPU_SUCCESS) {
    free(selector);
    free(ranked);
    return status;
  }
  bool has_positive = false;
  for (uint32_t t = 0; t < selector->term_count; t++) has_positive |= !selector->terms[t].exclude;

  uint32_t count = 0;
  for (uint32_t i = 0; i < total; i++) {
    agpu_device *device = agpu_registry_device(i);
    int first_term = has_positive ? -1 : 0;
    bool excluded = false;
    for (uint32_t t = 0; t < selector->term_count; t++) {
      const agpu_selector_term *term = &selector->terms[t];
      if (!agpu_term_matches(term, device, i)) continue;
      if (term->exclude)
        excluded = true;
      else if (first_term < 0)
        first_term = (int)t;
    }
    if (excluded || first_term < 0) continue;
    ranked[count++] = (agpu_ranked){device, first_term, agpu_device_rank(device), i};
  }
  qsort(ranked, count, sizeof *ranked, agpu_ranked_compare);
  free(selector);
  *out = ranked;
  *out_count = count;
  return AGPU_SUCCESS;
}

static const char *agpu_default_selector(void) {
  const char *env = getenv("ANYGPU_DEVICE");
  return env && *env ? env : "*:*";
}

/* Says why nothing matched: which backends exist and how many devices each has. */
static agpu_status agpu_no_match(const char *text) {
  agpu_error_set(AGPU_ERROR_NOT_FOUND, "no device matches selector '%s'; devices:", text);
  for (int kind = 0; kind < AGPU_BACKEND_COUNT_; kind++) {
    agpu_backend *backend = agpu_registry_backend((agpu_backend_kind)kind);
    if (backend->device_count)
      agpu_error_append(" %s has %u (%s:0..%u)%s", backend->descriptor->name, backend->device_count,
                        backend->descriptor->name, backend->device_count - 1,
                        kind + 1 < AGPU_BACKEND_COUNT_ ? "," : "");
    else
      agpu_error_append(" %s has none%s", backend->descriptor->name,
                        kind + 1 < AGPU_BACKEND_COUNT_ ? "," : "");
  }
  uint32_t physical_count = agpu_physical_registry_group_count();
  for (uint32_t p = 0; p < physical_count; p++) {
    const agpu_physical_device_info *group = agpu_physical_registry_group(p);
    agpu_error_append("%s %s (%s%s%s:", p == 0 ? "; physical devices:" : ",", group->id,
                      group->name[0] ? group->name : agpu_device_type_name(group->type),
                      group->has_pci ? " at " : "", group->has_pci ? group->pci : "");
    for (uint32_t m = 0; m < group->member_count && m < AGPU_PHYSICAL_MAX_MEMBERS; m++)
      agpu_error_append(" %s", group->members[m]);
    agpu_error_append(")");
  }
  return AGPU_ERROR_NOT_FOUND;
}

AGPU_API agpu_status agpu_device_select_all(const char *selector, agpu_device **devices,
                                            uint32_t capacity, uint32_t *count) {
  if (!count)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_select_all: count is NULL");
  if (capacity && !devices)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_device_select_all: devices is NULL with capacity %u", capacity);
  const char *text = selector && *selector ? selector : agpu_default_selector();
  agpu_ranked *ranked;
  uint32_t matched;
  agpu_status status = agpu_selector_match(text, &ranked, &matched);
  if (status != AGPU_SUCCESS) return status;
  for (uint32_t i = 0; i < matched && i < capacity; i++) devices[i] = ranked[i].device;
  free(ranked);
  *count = matched;
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_device_select(const char *selector, agpu_device **device) {
  if (!device)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_select: device is NULL");
  *device = NULL;
  const char *text = selector && *selector ? selector : agpu_default_selector();
  agpu_ranked *ranked;
  uint32_t matched;
  agpu_status status = agpu_selector_match(text, &ranked, &matched);
  if (status == AGPU_SUCCESS) {
    if (matched) *device = ranked[0].device;
    free(ranked);
    if (!matched) status = agpu_no_match(text);
  }
  if (status != AGPU_SUCCESS && !(selector && *selector) && getenv("ANYGPU_DEVICE"))
    agpu_error_append(" (selector taken from ANYGPU_DEVICE)");
  return status;
}
