// SPDX-License-Identifier: Apache-2.0
/* libFuzzer target for the kernel cache's entry loader (api/cache.c): the
 * input becomes the file of one cache entry, which agpu_cache_lookup reads.
 *
 * The first byte chooses how: below 0x80 the rest of the input is the whole
 * file, as found on disk; from 0x80 it is the payload of an entry written
 * with a correct header, then damaged as the byte's low bits say (a flipped
 * byte, a truncation, an extra byte, a wrong size or key, or a loose mode),
 * so that inputs reach the payload's checks and the happy path too.
 *
 * The oracle is a reading of docs/cache.md written here independently: an
 * entry is valid when it is a regular 0600 file of ours with the magic,
 * format 1, the key of its name, the payload size of the file and the
 * payload's SHA-256. A valid entry must hit with exactly its payload and
 * stay; any other must miss (AGPU_ERROR_NOT_FOUND, with a reason) and be
 * removed. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agpu_cache.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { HEADER = 84 };

static char cache_dir[64];
static char entry_path[256];
static char key_hex[AGPU_CACHE_KEY_HEX_SIZE];
static uint8_t key_raw[32];

static void remove_cache_dir(void) {
  unlink(entry_path);
  rmdir(cache_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  snprintf(cache_dir, sizeof cache_dir, "/tmp/anygpu-fuzz-cache-XXXXXX");
  if (!mkdtemp(cache_dir)) abort();
  setenv("ANYGPU_CACHE_DIR", cache_dir, 1);
  unsetenv("ANYGPU_CACHE");
  agpu_cache_key key;
  agpu_cache_key_init(&key);
  agpu_cache_key_add_string(&key, "fuzz", "cache entry");
  if (agpu_cache_key_final(&key, key_hex) || !agpu_sha256_parse_hex(key_hex, key_raw)) abort();
  if (agpu_cache_entry_path(key_hex, entry_path, sizeof entry_path)) abort();
  atexit(remove_cache_dir);
  return 0;
}

static void put_le(uint8_t *p, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(value >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; i++) value |= (uint64_t)p[i] << (8 * i);
  return value;
}

static bool entry_is_valid(const uint8_t *file, size_t size, mode_t mode) {
  if (mode & 022) return false;
  if (size < HEADER || memcmp(file, "ANYGPUKC", 8) != 0 || get_le(file + 8, 4) != 1) return false;
  if (memcmp(file + 12, key_raw, 32) != 0 || get_le(file + 44, 8) != size - HEADER) return false;
  uint8_t digest[32];
  agpu_sha256(file + HEADER, size - HEADER, digest);
  return memcmp(file + 52, digest, 32) == 0;
}

static void fail(const char *what) {
  fprintf(stderr, "fuzz_cache_entry: %s (last reason: %s)\n", what, agpu_cache_last_reason());
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  uint8_t how = data[0];
  data++, size--;
  size_t file_size = how < 0x80 ? size : HEADER + size + 1;
  uint8_t *file = malloc(file_size ? file_size : 1);
  if (!file) return 0;
  mode_t mode = 0600;
  if (how < 0x80) {
    if (size) memcpy(file, data, size);
  } else {
    memcpy(file, "ANYGPUKC", 8);
    put_le(file + 8, 1, 4);
    memcpy(file + 12, key_raw, 32);
    put_le(file + 44, size, 8);
    agpu_sha256(data, size, file + 52);
    if (size) memcpy(file + HEADER, data, size);
    file_size = HEADER + size;
    size_t where = size ? (size_t)data[0] * 7919u % file_size : 0;
    switch (how & 7) {
      case 1:
        file[where] ^= (uint8_t)(1u << (how >> 4 & 7));
        break;
      case 2:
        file_size = where;
        break;
      case 3:
        file[file_size++] = how;
        break;
      case 4:
        put_le(file + 44, size + 1 + (how >> 3), 8);
        break;
      case 5:
        file[12 + where % 32] ^= 1;
        break;
      case 6:
        mode = (how & 0x40) ? 0644 : 0620;
        break; /* ours, loose: fixed; writable: refused */
      default:
        break; /* 0 and 7: intact */
    }
  }
  int fd = open(entry_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) abort();
  if (fchmod(fd, mode) != 0 || (file_size && write(fd, file, file_size) != (ssize_t)file_size))
    abort();
  close(fd);

  bool valid = entry_is_valid(file, file_size, mode);
  void *payload = NULL;
  size_t payload_size = 0;
  agpu_status status = agpu_cache_lookup(key_hex, &payload, &payload_size);
  struct stat st;
  bool still_there = lstat(entry_path, &st) == 0;
  if (valid) {
    if (status != AGPU_SUCCESS) fail("a valid entry missed");
    if (payload_size != file_size - HEADER ||
        (payload_size && memcmp(payload, file + HEADER, payload_size) != 0))
      fail("a hit returned other bytes than the entry's payload");
    if (!still_there || (st.st_mode & 077)) fail("a valid entry was removed or left loose");
  } else {
    if (status != AGPU_ERROR_NOT_FOUND || payload != NULL || payload_size != 0)
      fail("a damaged entry did not miss");
    if (!agpu_cache_last_reason()[0]) fail("a rejected entry without a reason");
    if (still_there) fail("a rejected entry was left in place");
  }
  free(payload);
  free(file);
  unlink(entry_path);
  return 0;
}
