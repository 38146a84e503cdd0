// SPDX-License-Identifier: Apache-2.0
/* Physical-device grouping: the same GPU seen through several APIs is one
 * physical device. The grouping itself is a pure function of the devices'
 * descriptions (physical_group.c, tested on staged devices); physical.c
 * applies it to the registry's devices once and serves the public API. */
#ifndef AGPU_PHYSICAL_H
#define AGPU_PHYSICAL_H

#include "anygpu.h"

/* Groups `count` devices. `groups` has room for `count` entries (there is at
 * most one group per device); `group_of_device[i]` receives the index of
 * device i's group. Returns the number of groups, numbered and ordered as
 * anygpu.h describes. */
uint32_t agpu_physical_group(const agpu_device_info *devices, uint32_t count,
                             agpu_physical_device_info *groups, uint32_t *group_of_device);

/* "dddd:bb:dd.f" in lowercase from "bb:dd.f" or "dddd:bb:dd.f" (any case);
 * false if `text` is not a PCI address. */
bool agpu_pci_address_normalize(const char *text, size_t length, char out[16]);

/* The registry's grouping, computed on first use. NULL past the end. */
const agpu_physical_device_info *agpu_physical_registry_group(uint32_t index);
uint32_t agpu_physical_registry_group_count(void);
/* The group of the registry's device number `device_index`. */
uint32_t agpu_physical_registry_group_of(uint32_t device_index);

#endif /* AGPU_PHYSICAL_H */
