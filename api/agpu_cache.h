// SPDX-License-Identifier: Apache-2.0
/* The on-disk cache of compiled kernels, shared by every backend.
 *
 * A backend builds a key from everything that decides the compiled bytes,
 * looks it up, and on a miss compiles and stores:
 *
 *   agpu_cache_key key;
 *   char hex[AGPU_CACHE_KEY_HEX_SIZE];
 *   agpu_cache_key_begin(&key, &fields);          // every standard field
 *   agpu_cache_key_add_string(&key, "nvrtc", v);  // anything else that matters
 *   if (agpu_cache_key_final(&key, hex) == AGPU_SUCCESS &&
 *       agpu_cache_lookup(hex, &data, &size) == AGPU_SUCCESS) { use; free(data); }
 *   else { compile; agpu_cache_store(hex, binary, binary_size); }
 *
 * The cache never fails a build: when it is off (ANYGPU_CACHE=0) or its
 * directory is refused, lookups miss and stores do nothing and succeed;
 * agpu_cache_last_reason() says why. The environment is read on every call.
 * Every function is thread-safe. See docs/cache.md.
 *
 * Exported from the shared library for the tests and tools; not installed. */
#ifndef AGPU_CACHE_H
#define AGPU_CACHE_H

#include "agpu_sha256.h"

#define AGPU_CACHE_KEY_HEX_SIZE AGPU_SHA256_HEX_SIZE /* 64 hex digits and a NUL */

/* ------------------------------------------------------------------- key */

/* A key is the SHA-256 of a list of (name, value) fields, each written with
 * its length first, so that two different lists never give the same bytes. */
typedef struct agpu_cache_key {
  agpu_sha256_ctx sha;
  bool failed; /* an add was given bad arguments: final refuses the key */
  char failure[160];
} agpu_cache_key;

/* What every compiled kernel depends on. Every string must be non-NULL, so
 * that a field left out by mistake is an error and not a silent "" (pass ""
 * for a value that is really empty or unknown). */
typedef struct agpu_cache_key_fields {
  const void *source;             /* the kernel source after preprocessing */
  size_t source_size;             /* 0: source is NUL-terminated */
  const char *options;            /* the build options as given ("" for none) */
  const char *translator_version; /* KL_TRANSLATOR_VERSION; not empty */
  const char *backend;            /* "cuda", "hip", "vulkan", "opencl", "cpu"; not empty */
  const char *target;             /* "sm_90", "gfx90a", "spirv", "c-x86_64"; not empty */
  const char *device_name;
  const char *driver_version;
} agpu_cache_key_fields;

/* Starts a key with no fields but the key format's own version. */
AGPU_API void agpu_cache_key_init(agpu_cache_key *key);
/* agpu_cache_key_init, then the anygpu version and every field of `fields`.
 * Returns AGPU_ERROR_INVALID_ARGUMENT naming a missing field (and the key
 * then fails at final). */
AGPU_API agpu_status agpu_cache_key_begin(agpu_cache_key *key, const agpu_cache_key_fields *fields);
/* agpu_cache_key_begin with the fields `device` gives (its backend's name,
 * its name and driver version) and the translator's version. */
agpu_status agpu_cache_key_begin_device(agpu_cache_key *key, const agpu_device *device,
                                        const char *target, const char *source,
                                        const char *options);
/* Adds one field. `data` may be NULL only when size is 0. A bad argument
 * returns AGPU_ERROR_INVALID_ARGUMENT and makes final fail, so that a chain of
 * adds can be checked once, at final. */
AGPU_API agpu_status agpu_cache_key_add(agpu_cache_key *key, const char *field_name,
                                        const void *data, size_t size);
/* A NUL-terminated value (without its NUL); NULL is refused. */
AGPU_API agpu_status agpu_cache_key_add_string(agpu_cache_key *key, const char *field_name,
                                               const char *value);
/* A number, as 8 little-endian bytes. */
AGPU_API agpu_status agpu_cache_key_add_u64(agpu_cache_key *key, const char *field_name,
                                            uint64_t value);
/* Writes the key as 64 lowercase hex digits. Fails if any add failed. */
AGPU_API agpu_status agpu_cache_key_final(agpu_cache_key *key, char hex[AGPU_CACHE_KEY_HEX_SIZE]);

/* ---------------------------------------------------------------- entries */

/* Hit: AGPU_SUCCESS, *data is a malloc'd copy of the payload (free it; never
 * NULL, even for 0 bytes) and *size its length. Any miss (no entry, an entry
 * rejected and removed, the cache off or refused) is AGPU_ERROR_NOT_FOUND with
 * agpu_last_error() saying why; a malformed key is AGPU_ERROR_INVALID_ARGUMENT
 * and a failed allocation AGPU_ERROR_OUT_OF_HOST_MEMORY. Treat every status
 * other than AGPU_SUCCESS as a miss. */
AGPU_API agpu_status agpu_cache_lookup(const char *key_hex, void **data, size_t *size);

/* Stores `size` bytes under the key, atomically: a reader sees the old entry,
 * the new one, or none, never part of one. AGPU_SUCCESS when stored and when
 * the cache is off or refused (nothing is written; agpu_cache_last_reason()
 * says why). A failed write (disk full) returns AGPU_ERROR_BACKEND with the
 * system's error; a build should go on regardless. */
AGPU_API agpu_status agpu_cache_store(const char *key_hex, const void *data, size_t size);

/* agpu_cache_lookup, and also the payload's SHA-256 as recorded in the
 * entry's header when it was written (the payload was checked against it).
 * A backend that loads code from the payload checks the bytes it is about to
 * load against this digest once more, at the last moment (cpu_compile.c). */
AGPU_API agpu_status agpu_cache_lookup_digest(const char *key_hex, void **data, size_t *size,
                                              uint8_t digest[AGPU_SHA256_DIGEST_SIZE]);

/* What the cache did in this process since it started, for the tests and
 * `anygpu doctor`: a rejected entry (damaged, truncated, a planted link, an
 * unsafe owner or mode) counts as a miss and as rejected, and is removed so
 * that the build that follows stores a good one. */
typedef struct agpu_cache_stats {
  uint64_t hits;
  uint64_t misses;         /* every lookup that did not hit: absent, rejected, cache off */
  uint64_t rejected;       /* entries refused by the checks in docs/cache.md */
  uint64_t stores;         /* entries written */
  uint64_t store_failures; /* writes that failed (disk full) */
  uint64_t modes_fixed;    /* our own directory or entries, readable by others, set to 0700/0600 */
} agpu_cache_stats;
AGPU_API void agpu_cache_get_stats(agpu_cache_stats *stats);

/* Why the last lookup or store on this thread missed or wrote nothing; ""
 * after a hit or a write. Valid until the next cache call on this thread. */
AGPU_API const char *agpu_cache_last_reason(void);

/* ------------------------------------------------------------- directory */

typedef enum agpu_cache_state {
  AGPU_CACHE_ENABLED,  /* the directory exists (created if needed) and is safe */
  AGPU_CACHE_DISABLED, /* ANYGPU_CACHE=0 (or off, no, false) */
  AGPU_CACHE_REFUSED,  /* no usable directory: see agpu_cache_last_reason() */
} agpu_cache_state;

/* Where the cache lives, from the environment, without touching the disk:
 * $ANYGPU_CACHE_DIR, else $XDG_CACHE_HOME/anygpu, else $HOME/.cache/anygpu,
 * else the password database's home directory + /.cache/anygpu. Returns
 * AGPU_ERROR_NOT_FOUND (no home), AGPU_ERROR_INVALID_ARGUMENT (a relative
 * ANYGPU_CACHE_DIR) or AGPU_ERROR_OUT_OF_RANGE (too long for `path`). */
AGPU_API agpu_status agpu_cache_directory_path(char *path, size_t path_size);

/* Resolves the directory, creates it (mode 0700, parents as needed) and
 * checks it is owned by this user and not writable by group or others. The
 * path is written when known (even when refused); the reason when not
 * enabled is in agpu_cache_last_reason(). For `anygpu doctor` and the tests. */
AGPU_API agpu_cache_state agpu_cache_check(char *path, size_t path_size);

/* The file that holds (or would hold) a key's entry. */
AGPU_API agpu_status agpu_cache_entry_path(const char *key_hex, char *path, size_t path_size);

#endif /* AGPU_CACHE_H */
