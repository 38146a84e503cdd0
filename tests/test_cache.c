// SPDX-License-Identifier: Apache-2.0
/* The on-disk kernel cache: SHA-256, keys, entries, the directory rules, and
 * concurrent use from threads and processes. Every case works in its own
 * folder under one mkdtemp directory, removed at the end. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <pwd.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agpu_test.h"
#include "agpu_cache.h"

static char test_root[64];

/* ---------------------------------------------------------------- helpers */

/* Points ANYGPU_CACHE_DIR at a fresh folder under the test root. */
static const char *use_cache_dir(const char *name, char *path, size_t path_size) {
  snprintf(path, path_size, "%s/%s", test_root, name);
  setenv("ANYGPU_CACHE_DIR", path, 1);
  unsetenv("ANYGPU_CACHE");
  return path;
}

static void key_of(const char *text, char hex[AGPU_CACHE_KEY_HEX_SIZE]) {
  agpu_cache_key key;
  agpu_cache_key_init(&key);
  agpu_cache_key_add_string(&key, "test", text);
  if (agpu_cache_key_final(&key, hex)) printf("  key_of: %s\n", agpu_last_error());
}

/* A payload that says which writer made it: 8 bytes of seed, then bytes drawn
 * from the seed, so that a reader can tell a whole entry from a mixed one. */
static uint8_t *make_payload(uint64_t seed, size_t size) {
  uint8_t *data = malloc(size ? size : 1);
  uint64_t state = seed | 1;
  for (size_t i = 0; i < size; i++) data[i] = (uint8_t)(agpu_test_rand(&state) >> 56);
  if (size >= 8) memcpy(data, &seed, 8);
  return data;
}

static bool payload_is_whole(const uint8_t *data, size_t size) {
  if (size < 8) return false;
  uint64_t seed;
  memcpy(&seed, data, 8);
  uint8_t *expected = make_payload(seed, size);
  bool same = memcmp(expected + 8, data + 8, size - 8) == 0;
  free(expected);
  return same;
}

static bool file_exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

static mode_t mode_of(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return (mode_t)-1;
  return st.st_mode & 07777;
}

/* Files in a directory other than "<key>.bin" entries (left-over temporaries). */
static int stray_files(const char *dir_path) {
  DIR *dir = opendir(dir_path);
  if (!dir) return -1;
  int strays = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (!strcmp(e->d_name, "CACHEDIR.TAG")) continue; /* the cache's own tag */
    size_t n = strlen(e->d_name);
    if (n != 68 || strcmp(e->d_name + 64, ".bin") != 0) strays++;
  }
  closedir(dir);
  return strays;
}

static bool hit_equals(const char *hex, const void *expected, size_t size) {
  void *data = NULL;
  size_t got = 0;
  if (agpu_cache_lookup(hex, &data, &got) != AGPU_SUCCESS) {
    printf("  lookup missed: %s\n", agpu_last_error());
    return false;
  }
  bool same = got == size && data != NULL && (size == 0 || memcmp(data, expected, size) == 0);
  free(data);
  return same;
}

static bool misses(const char *hex) {
  void *data = (void *)1;
  size_t size = 1;
  agpu_status status = agpu_cache_lookup(hex, &data, &size);
  return status == AGPU_ERROR_NOT_FOUND && data == NULL && size == 0;
}

/* ---------------------------------------------------------------- sha-256 */

static void sha256_matches_fips_180_4(void) {
  static const struct {
    const char *message;
    const char *digest;
  } vectors[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlm"
       "nopqrsmnopqrstnopqrstu",
       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
  };
  uint8_t digest[AGPU_SHA256_DIGEST_SIZE];
  char hex[AGPU_SHA256_HEX_SIZE];
  for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
    agpu_sha256(vectors[i].message, strlen(vectors[i].message), digest);
    agpu_sha256_hex(digest, hex);
    if (strcmp(hex, vectors[i].digest) != 0) printf("  vector %zu: %s\n", i, hex);
    CHECK(strcmp(hex, vectors[i].digest) == 0);
  }
  /* one million 'a', fed in uneven pieces to exercise the block buffer */
  char *million = malloc(1000000);
  memset(million, 'a', 1000000);
  agpu_sha256_ctx sha;
  agpu_sha256_init(&sha);
  for (size_t done = 0, piece = 1; done < 1000000; piece = piece * 7 % 1000 + 1) {
    size_t take = piece < 1000000 - done ? piece : 1000000 - done;
    agpu_sha256_update(&sha, million + done, take);
    done += take;
  }
  agpu_sha256_final(&sha, digest);
  agpu_sha256_hex(digest, hex);
  CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
  agpu_sha256(million, 1000000, digest);
  agpu_sha256_hex(digest, hex);
  CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
  free(million);
}

/* Where the processor's SHA instructions compress the blocks, they give the
 * portable code's state for random blocks from random states, one block and
 * many at a time (the FIPS vectors above go through whichever is used). */
static void sha256_hardware_matches_portable(void) {
  if (!agpu_sha256_hardware())
    SKIP("no SHA instructions on this processor: the portable code only");
  uint64_t seed = 7;
  static uint8_t data[64 * 40];
  for (int round = 0; round < 200; round++) {
    uint32_t portable[8], hardware[8];
    for (int i = 0; i < 8; i++) portable[i] = (uint32_t)agpu_test_rand(&seed);
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)agpu_test_rand(&seed);
    size_t blocks = 1 + (size_t)(agpu_test_rand(&seed) % 40);
    memcpy(hardware, portable, sizeof hardware);
    agpu_sha256_blocks_portable(portable, data, blocks);
    /* the public path: an update of whole blocks from the same state */
    agpu_sha256_ctx sha;
    agpu_sha256_init(&sha);
    memcpy(sha.state, hardware, sizeof hardware);
    agpu_sha256_update(&sha, data, 64 * blocks);
    CHECK(sha.block_used == 0 && memcmp(sha.state, portable, sizeof portable) == 0);
  }
}

static void sha256_hex_round_trips(void) {
  uint8_t digest[AGPU_SHA256_DIGEST_SIZE], parsed[AGPU_SHA256_DIGEST_SIZE];
  char hex[AGPU_SHA256_HEX_SIZE];
  agpu_sha256("abc", 3, digest);
  agpu_sha256_hex(digest, hex);
  CHECK(agpu_sha256_parse_hex(hex, parsed) && memcmp(parsed, digest, sizeof digest) == 0);
  char longer[AGPU_SHA256_HEX_SIZE + 1];
  snprintf(longer, sizeof longer, "%s0", hex);
  CHECK(!agpu_sha256_parse_hex(longer, parsed));
  hex[63] = '\0';
  CHECK(!agpu_sha256_parse_hex(hex, parsed));
  CHECK(!agpu_sha256_parse_hex("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD",
                               parsed));
  CHECK(!agpu_sha256_parse_hex(NULL, parsed));
}

/* -------------------------------------------------------------------- keys */

static const char *const field_names[] = {"source", "options",     "translator_version", "backend",
                                          "target", "device_name", "driver_version"};

static agpu_cache_key_fields base_fields(void) {
  agpu_cache_key_fields f = {
      .source = "__kernel void k(__global float *x) { x[0] = 1.0f; }",
      .source_size = 0,
      .options = "-DN=64",
      .translator_version = "1",
      .backend = "cuda",
      .target = "sm_90",
      .device_name = "NVIDIA H100",
      .driver_version = "550.54",
  };
  return f;
}

static void set_field(agpu_cache_key_fields *f, int index, const char *value) {
  const char **slots[] = {
      (const char **)&f->source, &f->options,       &f->translator_version, &f->backend, &f->target,
      &f->device_name,           &f->driver_version};
  *slots[index] = value;
}

static void key_from_fields(const agpu_cache_key_fields *f, const char *extra,
                            char hex[AGPU_CACHE_KEY_HEX_SIZE]) {
  agpu_cache_key key;
  CHECK_OK(agpu_cache_key_begin(&key, f));
  if (extra) CHECK_OK(agpu_cache_key_add_string(&key, "nvrtc_version", extra));
  CHECK_OK(agpu_cache_key_final(&key, hex));
}

static void key_changes_with_every_field(void) {
  agpu_cache_key_fields base = base_fields();
  char base_hex[AGPU_CACHE_KEY_HEX_SIZE], again[AGPU_CACHE_KEY_HEX_SIZE];
  key_from_fields(&base, NULL, base_hex);
  key_from_fields(&base, NULL, again);
  CHECK(strcmp(base_hex, again) == 0); /* deterministic */
  CHECK(strlen(base_hex) == 64);

  for (int i = 0; i < 7; i++) {
    agpu_cache_key_fields f = base_fields();
    set_field(&f, i, i == 0 ? "__kernel void k(__global float *x) { x[0] = 2.0f; }" : "other");
    char hex[AGPU_CACHE_KEY_HEX_SIZE];
    key_from_fields(&f, NULL, hex);
    if (strcmp(hex, base_hex) == 0)
      printf("  changing %s did not change the key\n", field_names[i]);
    CHECK(strcmp(hex, base_hex) != 0);
    /* an empty value differs from the original too (where empty is allowed) */
    if (i == 1 || i >= 5) {
      set_field(&f, i, "");
      key_from_fields(&f, NULL, hex);
      CHECK(strcmp(hex, base_hex) != 0);
    }
  }
  /* the same value moved to another field gives another key */
  agpu_cache_key_fields swapped = base_fields();
  swapped.device_name = base.driver_version;
  swapped.driver_version = base.device_name;
  char hex[AGPU_CACHE_KEY_HEX_SIZE];
  key_from_fields(&swapped, NULL, hex);
  CHECK(strcmp(hex, base_hex) != 0);

  /* an extra backend field, and its value */
  char extra1[AGPU_CACHE_KEY_HEX_SIZE], extra2[AGPU_CACHE_KEY_HEX_SIZE];
  key_from_fields(&base, "12.4", extra1);
  key_from_fields(&base, "12.5", extra2);
  CHECK(strcmp(extra1, base_hex) != 0 && strcmp(extra2, base_hex) != 0);
  CHECK(strcmp(extra1, extra2) != 0);

  /* source_size 0 means NUL-terminated; an explicit size covers exactly those bytes */
  agpu_cache_key_fields sized = base_fields();
  sized.source_size = strlen(base.source);
  key_from_fields(&sized, NULL, hex);
  CHECK(strcmp(hex, base_hex) == 0);
  sized.source_size--;
  key_from_fields(&sized, NULL, hex);
  CHECK(strcmp(hex, base_hex) != 0);
}

static void key_add_pairs(char hex[AGPU_CACHE_KEY_HEX_SIZE], const char *n1, const char *v1,
                          const char *n2, const char *v2) {
  agpu_cache_key key;
  agpu_cache_key_init(&key);
  if (n1) CHECK_OK(agpu_cache_key_add_string(&key, n1, v1));
  if (n2) CHECK_OK(agpu_cache_key_add_string(&key, n2, v2));
  CHECK_OK(agpu_cache_key_final(&key, hex));
}

static void key_respects_field_boundaries(void) {
  char a[AGPU_CACHE_KEY_HEX_SIZE], b[AGPU_CACHE_KEY_HEX_SIZE];
  key_add_pairs(a, "x", "ab", "y", "c");
  key_add_pairs(b, "x", "a", "y", "bc");
  CHECK(strcmp(a, b) != 0);
  key_add_pairs(a, "ab", "c", NULL, NULL); /* name and value boundary */
  key_add_pairs(b, "a", "bc", NULL, NULL);
  CHECK(strcmp(a, b) != 0);
  key_add_pairs(a, "x", "abc", NULL, NULL); /* one field against two */
  key_add_pairs(b, "x", "ab", "", "c");
  CHECK(strcmp(a, b) != 0);
  key_add_pairs(a, "x", "", NULL, NULL); /* an empty field against none */
  key_add_pairs(b, NULL, NULL, NULL, NULL);
  CHECK(strcmp(a, b) != 0);
  key_add_pairs(a, "x", "1", "y", "2"); /* order matters */
  key_add_pairs(b, "y", "2", "x", "1");
  CHECK(strcmp(a, b) != 0);

  /* bytes that look like a length prefix cannot forge a boundary */
  agpu_cache_key key;
  const uint8_t raw[] = {'a', 1, 0, 0, 0, 0, 0, 0, 0, 'b'};
  agpu_cache_key_init(&key);
  CHECK_OK(agpu_cache_key_add(&key, "x", raw, sizeof raw));
  CHECK_OK(agpu_cache_key_final(&key, a));
  agpu_cache_key_init(&key);
  CHECK_OK(agpu_cache_key_add(&key, "x", raw, 1));
  CHECK_OK(agpu_cache_key_add(&key, "b", NULL, 0));
  CHECK_OK(agpu_cache_key_final(&key, b));
  CHECK(strcmp(a, b) != 0);

  /* u64 fields are fixed-size little-endian */
  agpu_cache_key_init(&key);
  CHECK_OK(agpu_cache_key_add_u64(&key, "n", 1));
  CHECK_OK(agpu_cache_key_final(&key, a));
  agpu_cache_key_init(&key);
  CHECK_OK(agpu_cache_key_add(&key, "n", "\1\0\0\0\0\0\0\0", 8));
  CHECK_OK(agpu_cache_key_final(&key, b));
  CHECK(strcmp(a, b) == 0);
}

static void key_refuses_missing_fields(void) {
  char hex[AGPU_CACHE_KEY_HEX_SIZE];
  for (int i = 0; i < 7; i++) {
    agpu_cache_key_fields f = base_fields();
    set_field(&f, i, NULL);
    agpu_cache_key key;
    CHECK_STATUS(agpu_cache_key_begin(&key, &f), AGPU_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE(field_names[i]);
    CHECK_STATUS(agpu_cache_key_final(&key, hex), AGPU_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("incomplete");
  }
  for (int i = 2; i <= 4; i++) { /* translator version, backend and target may not be empty */
    agpu_cache_key_fields f = base_fields();
    set_field(&f, i, "");
    agpu_cache_key key;
    CHECK_STATUS(agpu_cache_key_begin(&key, &f), AGPU_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE(field_names[i]);
  }
  agpu_cache_key key;
  CHECK_STATUS(agpu_cache_key_begin(&key, NULL), AGPU_ERROR_INVALID_ARGUMENT);
  agpu_cache_key_init(&key);
  CHECK_STATUS(agpu_cache_key_add_string(&key, "driver", NULL), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_OK(agpu_cache_key_add_string(&key, "later", "fine"));
  CHECK_STATUS(agpu_cache_key_final(&key, hex), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("driver");
  agpu_cache_key_init(&key);
  CHECK_STATUS(agpu_cache_key_add(&key, "x", NULL, 3), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(agpu_cache_key_final(&key, hex), AGPU_ERROR_INVALID_ARGUMENT);
}

/* ----------------------------------------------------------------- entries */

static void store_then_lookup_returns_the_same_bytes(void) {
  char dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE];
  use_cache_dir("roundtrip", dir, sizeof dir);
  const size_t sizes[] = {0, 1, 4097, 1u << 20};
  for (int i = 0; i < 4; i++) {
    char name[32];
    snprintf(name, sizeof name, "roundtrip-%d", i);
    key_of(name, hex);
    CHECK(misses(hex));
    CHECK_MESSAGE("no entry");
    uint8_t *payload = make_payload(0x1234 + (uint64_t)i, sizes[i]);
    CHECK_OK(agpu_cache_store(hex, payload, sizes[i]));
    CHECK(strcmp(agpu_cache_last_reason(), "") == 0);
    CHECK(hit_equals(hex, payload, sizes[i]));
    CHECK(strcmp(agpu_cache_last_reason(), "") == 0);
    /* storing again replaces the entry */
    uint8_t *other = make_payload(0x9999 + (uint64_t)i, sizes[i] + 3);
    CHECK_OK(agpu_cache_store(hex, other, sizes[i] + 3));
    CHECK(hit_equals(hex, other, sizes[i] + 3));
    free(other);
    free(payload);
  }
  CHECK(stray_files(dir) == 0);
  /* the entry lives where agpu_cache_entry_path says */
  char path[512];
  CHECK_OK(agpu_cache_entry_path(hex, path, sizeof path));
  CHECK(strncmp(path, dir, strlen(dir)) == 0 && file_exists(path));

  CHECK_STATUS(agpu_cache_store("not-a-key", "x", 1), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("64 lowercase hex");
  void *data;
  size_t size;
  CHECK_STATUS(agpu_cache_lookup("../../etc/passwd", &data, &size), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(agpu_cache_lookup(NULL, &data, &size), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(agpu_cache_lookup(hex, NULL, &size), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(agpu_cache_store(hex, NULL, 5), AGPU_ERROR_INVALID_ARGUMENT);
}

static void directory_is_0700_and_entries_0600(void) {
  char dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE], parent[256], grandparent[256];
  snprintf(grandparent, sizeof grandparent, "%s/modes", test_root);
  snprintf(parent, sizeof parent, "%s/modes/deeper", test_root);
  use_cache_dir("modes/deeper/cache", dir, sizeof dir);
  mode_t old_umask = umask(0); /* the modes must not depend on the umask */
  key_of("modes", hex);
  CHECK_OK(agpu_cache_store(hex, "payload", 7));
  umask(old_umask);
  char path[512];
  CHECK_OK(agpu_cache_entry_path(hex, path, sizeof path));
  CHECK(mode_of(grandparent) == 0700 && mode_of(parent) == 0700);
  CHECK(mode_of(dir) == 0700);
  CHECK(mode_of(path) == 0600);

  char checked[512];
  CHECK(agpu_cache_check(checked, sizeof checked) == AGPU_CACHE_ENABLED);
  CHECK(strcmp(checked, dir) == 0);

  /* a restrictive umask still gives a usable 0700 directory */
  use_cache_dir("modes/umask077", dir, sizeof dir);
  old_umask = umask(0277);
  CHECK_OK(agpu_cache_store(hex, "payload", 7));
  umask(old_umask);
  CHECK(mode_of(dir) == 0700);
  CHECK(hit_equals(hex, "payload", 7));
}

/* Stores an entry and returns its path, for the corruption cases. */
static void store_fresh(const char *hex, const uint8_t *payload, size_t size, char *path,
                        size_t path_size) {
  CHECK_OK(agpu_cache_store(hex, payload, size));
  CHECK_OK(agpu_cache_entry_path(hex, path, path_size));
}

static void flip_byte(const char *path, off_t offset) {
  int fd = open(path, O_RDWR);
  uint8_t byte = 0;
  if (fd < 0 || pread(fd, &byte, 1, offset) != 1) printf("  cannot read %s\n", path);
  byte ^= 0x20;
  if (fd < 0 || pwrite(fd, &byte, 1, offset) != 1) printf("  cannot write %s\n", path);
  if (fd >= 0) close(fd);
}

enum { HEADER_SIZE = 84 }; /* docs/cache.md: 8 + 4 + 32 + 8 + 32 */

static void corrupt_entries_miss_and_are_removed(void) {
  char dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE], path[512];
  use_cache_dir("corrupt", dir, sizeof dir);
  key_of("corrupt", hex);
  const size_t size = 1000;
  uint8_t *payload = make_payload(77, size);
  struct stat st;

  store_fresh(hex, payload, size, path, sizeof path);
  CHECK(stat(path, &st) == 0 && st.st_size == HEADER_SIZE + (off_t)size);

  /* a flipped byte in the payload */
  flip_byte(path, HEADER_SIZE + 500);
  CHECK(misses(hex));
  CHECK_MESSAGE("SHA-256");
  CHECK(!file_exists(path));
  /* and it is rebuilt */
  store_fresh(hex, payload, size, path, sizeof path);
  CHECK(hit_equals(hex, payload, size));

  /* a flipped byte anywhere in the header */
  int header_failures = 0;
  for (off_t offset = 0; offset < HEADER_SIZE; offset++) {
    store_fresh(hex, payload, size, path, sizeof path);
    flip_byte(path, offset);
    if (!misses(hex) || file_exists(path)) {
      printf("  a flipped header byte at offset %lld was not rejected\n", (long long)offset);
      header_failures++;
    }
  }
  CHECK(header_failures == 0);

  /* truncated: inside the header, inside the payload; and a byte too many */
  const off_t lengths[] = {0, 10, HEADER_SIZE - 1, HEADER_SIZE, HEADER_SIZE + (off_t)size - 1};
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    store_fresh(hex, payload, size, path, sizeof path);
    CHECK(truncate(path, lengths[i]) == 0);
    CHECK(misses(hex));
    CHECK(!file_exists(path));
  }
  store_fresh(hex, payload, size, path, sizeof path);
  int fd = open(path, O_WRONLY | O_APPEND);
  CHECK(fd >= 0 && write(fd, "x", 1) == 1);
  if (fd >= 0) close(fd);
  CHECK(misses(hex));
  CHECK(!file_exists(path));

  /* a valid entry under another key's name */
  char other_hex[AGPU_CACHE_KEY_HEX_SIZE], other_path[512];
  key_of("corrupt-other", other_hex);
  store_fresh(hex, payload, size, path, sizeof path);
  CHECK_OK(agpu_cache_entry_path(other_hex, other_path, sizeof other_path));
  CHECK(rename(path, other_path) == 0);
  CHECK(misses(other_hex));
  CHECK_MESSAGE("key");
  CHECK(!file_exists(other_path));

  /* something other than a regular file */
  CHECK(mkdir(path, 0700) == 0);
  CHECK(misses(hex));
  CHECK_MESSAGE("not a regular file");
  CHECK(rmdir(path) == 0);

  /* an entry others may write is not trusted */
  store_fresh(hex, payload, size, path, sizeof path);
  CHECK(chmod(path, 0622) == 0);
  CHECK(misses(hex));
  CHECK_MESSAGE("writable by group or others");
  CHECK(!file_exists(path));
  store_fresh(hex, payload, size, path, sizeof path);
  CHECK(hit_equals(hex, payload, size));
  free(payload);
}

static void planted_symlink_is_not_followed(void) {
  char dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE], path[512], target[512];
  use_cache_dir("symlink", dir, sizeof dir);
  key_of("symlink", hex);
  uint8_t *payload = make_payload(5, 256);
  /* the link points at a perfectly valid entry for the same key, so only
   * O_NOFOLLOW can make this a miss */
  store_fresh(hex, payload, 256, path, sizeof path);
  snprintf(target, sizeof target, "%s/outside.bin", test_root);
  CHECK(rename(path, target) == 0);
  CHECK(symlink(target, path) == 0);
  struct stat before, after;
  CHECK(stat(target, &before) == 0);
  CHECK(misses(hex));
  CHECK_MESSAGE("symbolic link");
  CHECK(stat(target, &after) == 0);
  CHECK(before.st_size == after.st_size && before.st_ino == after.st_ino &&
        before.st_mtime == after.st_mtime);
  struct stat link_st;
  CHECK(lstat(path, &link_st) != 0); /* the link itself was removed */

  /* a store over a planted link replaces the link, not its target */
  CHECK(symlink(target, path) == 0);
  uint8_t *other = make_payload(6, 100);
  CHECK_OK(agpu_cache_store(hex, other, 100));
  CHECK(lstat(path, &link_st) == 0 && S_ISREG(link_st.st_mode));
  CHECK(stat(target, &after) == 0 && after.st_size == before.st_size &&
        after.st_ino == before.st_ino);
  CHECK(hit_equals(hex, other, 100));
  free(other);
  free(payload);
}

static void unsafe_directories_are_refused(void) {
  char dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE], path[512];
  key_of("refused", hex);
  const mode_t unsafe_modes[] = {0777, 0770, 0702, 01777};
  for (int i = 0; i < 4; i++) {
    char name[32];
    snprintf(name, sizeof name, "open-%04o", (unsigned)unsafe_modes[i]);
    use_cache_dir(name, dir, sizeof dir);
    CHECK(mkdir(dir, 0700) == 0 && chmod(dir, unsafe_modes[i]) == 0);
    CHECK(agpu_cache_check(path, sizeof path) == AGPU_CACHE_REFUSED);
    CHECK(strstr(agpu_cache_last_reason(), "writable by group or others") != NULL);
    CHECK(strcmp(path, dir) == 0);
    CHECK_OK(agpu_cache_store(hex, "x", 1)); /* uncached, not failed */
    CHECK(strstr(agpu_cache_last_reason(), "writable by group or others") != NULL);
    CHECK(misses(hex));
    CHECK_MESSAGE("cache off");
    CHECK(stray_files(dir) == 0);
    CHECK_OK(agpu_cache_entry_path(hex, path, sizeof path));
    CHECK(!file_exists(path));
  }
  /* a relative ANYGPU_CACHE_DIR */
  setenv("ANYGPU_CACHE_DIR", "relative/cache", 1);
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_REFUSED);
  CHECK(strstr(agpu_cache_last_reason(), "not an absolute path") != NULL);
  CHECK_OK(agpu_cache_store(hex, "x", 1));
  CHECK(misses(hex));
  CHECK(!file_exists("relative"));
  /* a path through a regular file cannot be created */
  char file[256];
  snprintf(file, sizeof file, "%s/plain-file", test_root);
  FILE *f = fopen(file, "w");
  if (f) fclose(f);
  use_cache_dir("plain-file/cache", dir, sizeof dir);
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_REFUSED);
  CHECK(strstr(agpu_cache_last_reason(), "Not a directory") != NULL);
  CHECK_OK(agpu_cache_store(hex, "x", 1));
}

static void other_users_files_are_refused(void) {
  if (geteuid() != 0) SKIP("needs root to make files owned by another user");
  const uid_t nobody = 65534;
  char dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE], path[512];
  key_of("owner", hex);
  use_cache_dir("foreign", dir, sizeof dir);
  CHECK(mkdir(dir, 0700) == 0 && chown(dir, nobody, nobody) == 0);
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_REFUSED);
  CHECK(strstr(agpu_cache_last_reason(), "belongs to user 65534") != NULL);
  CHECK_OK(agpu_cache_store(hex, "x", 1));
  CHECK(stray_files(dir) == 0);
  CHECK(misses(hex));

  use_cache_dir("foreign-entry", dir, sizeof dir);
  store_fresh(hex, (const uint8_t *)"abc", 3, path, sizeof path);
  CHECK(chown(path, nobody, nobody) == 0);
  CHECK(misses(hex));
  CHECK_MESSAGE("owned by user 65534");
  CHECK(!file_exists(path));
}

static void anygpu_cache_0_turns_it_off(void) {
  char dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE], path[512];
  use_cache_dir("off", dir, sizeof dir);
  key_of("off", hex);
  CHECK_OK(agpu_cache_store(hex, "kept", 4));
  const char *off_values[] = {"0", "off", "OFF", "no", "false"};
  for (int i = 0; i < 5; i++) {
    setenv("ANYGPU_CACHE", off_values[i], 1);
    CHECK(agpu_cache_check(path, sizeof path) == AGPU_CACHE_DISABLED);
    CHECK(strstr(agpu_cache_last_reason(), "ANYGPU_CACHE") != NULL);
    CHECK(misses(hex)); /* the entry is there, but the cache is off */
    CHECK_MESSAGE("off");
  }
  setenv("ANYGPU_CACHE", "0", 1);
  char other_hex[AGPU_CACHE_KEY_HEX_SIZE];
  key_of("off-other", other_hex);
  CHECK_OK(agpu_cache_store(other_hex, "new", 3)); /* a no-op that succeeds */
  CHECK_OK(agpu_cache_entry_path(other_hex, path, sizeof path));
  CHECK(!file_exists(path));
  setenv("ANYGPU_CACHE", "1", 1);
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_ENABLED);
  CHECK(hit_equals(hex, "kept", 4));
  CHECK(misses(other_hex));
  unsetenv("ANYGPU_CACHE");
  CHECK(hit_equals(hex, "kept", 4));
}

static void directory_comes_from_the_environment(void) {
  char path[512], expected[512];
  unsetenv("ANYGPU_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
  setenv("HOME", "/home/someone", 1);
  CHECK_OK(agpu_cache_directory_path(path, sizeof path));
  CHECK(strcmp(path, "/xdg/cache/anygpu") == 0);
  setenv("XDG_CACHE_HOME", "relative", 1); /* ignored, as the XDG spec says */
  CHECK_OK(agpu_cache_directory_path(path, sizeof path));
  CHECK(strcmp(path, "/home/someone/.cache/anygpu") == 0);
  unsetenv("XDG_CACHE_HOME");
  CHECK_OK(agpu_cache_directory_path(path, sizeof path));
  CHECK(strcmp(path, "/home/someone/.cache/anygpu") == 0);
  unsetenv("HOME");
  struct passwd *pw = getpwuid(geteuid());
  if (pw && pw->pw_dir && pw->pw_dir[0] == '/') {
    snprintf(expected, sizeof expected, "%s/.cache/anygpu", pw->pw_dir);
    CHECK_OK(agpu_cache_directory_path(path, sizeof path));
    CHECK(strcmp(path, expected) == 0);
  }
  setenv("ANYGPU_CACHE_DIR", "/explicit/dir", 1);
  CHECK_OK(agpu_cache_directory_path(path, sizeof path));
  CHECK(strcmp(path, "/explicit/dir") == 0);
  CHECK_STATUS(agpu_cache_directory_path(path, 5), AGPU_ERROR_OUT_OF_RANGE);
}

/* ------------------------------------------------------------- concurrency */

enum { THREADS = 8, THREAD_ROUNDS = 150, PROCESSES = 4, PROCESS_ROUNDS = 60 };

static char shared_hex[AGPU_CACHE_KEY_HEX_SIZE];
static char own_hex[THREADS][AGPU_CACHE_KEY_HEX_SIZE];
static atomic_int thread_errors;

static bool store_and_check(const char *hex, uint64_t seed, size_t size, bool *hit) {
  uint8_t *payload = make_payload(seed, size);
  bool ok = agpu_cache_store(hex, payload, size) == AGPU_SUCCESS;
  free(payload);
  void *data = NULL;
  size_t got = 0;
  *hit = agpu_cache_lookup(hex, &data, &got) == AGPU_SUCCESS;
  if (*hit && !payload_is_whole(data, got)) ok = false;
  free(data);
  return ok;
}

static void *thread_main(void *arg) {
  int index = (int)(intptr_t)arg;
  for (int round = 0; round < THREAD_ROUNDS; round++) {
    uint64_t seed = (uint64_t)index << 32 | (uint64_t)round;
    size_t size = 8 + (size_t)((seed * 2654435761u) % 50000);
    bool hit;
    const char *hex = round % 2 ? own_hex[index] : shared_hex;
    if (!store_and_check(hex, seed, size, &hit)) atomic_fetch_add(&thread_errors, 1);
    /* the shared entry may be replaced in between, never torn or missing */
    if (!hit) atomic_fetch_add(&thread_errors, 1);
  }
  return NULL;
}

static bool entry_is_valid(const char *hex) {
  void *data = NULL;
  size_t size = 0;
  bool valid = agpu_cache_lookup(hex, &data, &size) == AGPU_SUCCESS && payload_is_whole(data, size);
  free(data);
  return valid;
}

static void threads_share_the_cache(void) {
  char dir[256];
  use_cache_dir("threads", dir, sizeof dir);
  key_of("shared", shared_hex);
  for (int i = 0; i < THREADS; i++) {
    char name[32];
    snprintf(name, sizeof name, "own-%d", i);
    key_of(name, own_hex[i]);
  }
  atomic_store(&thread_errors, 0);
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; i++) {
    CHECK(pthread_create(&threads[i], NULL, thread_main, (void *)(intptr_t)i) == 0);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  CHECK(atomic_load(&thread_errors) == 0);
  CHECK(entry_is_valid(shared_hex));
  for (int i = 0; i < THREADS; i++) CHECK(entry_is_valid(own_hex[i]));
  CHECK(stray_files(dir) == 0);
}

static void processes_share_the_cache(void) {
  char dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE];
  use_cache_dir("processes", dir, sizeof dir);
  key_of("processes", hex);
  fflush(stdout);
  pid_t children[PROCESSES];
  for (int i = 0; i < PROCESSES; i++) {
    children[i] = fork();
    if (children[i] == 0) {
      int errors = 0;
      for (int round = 0; round < PROCESS_ROUNDS; round++) {
        bool hit;
        uint64_t seed = (uint64_t)(i + 1) << 40 | (uint64_t)round;
        if (!store_and_check(hex, seed, 1000 + (size_t)(round * 997 % 30000), &hit) || !hit) {
          errors++;
        }
      }
      _exit(errors ? 1 : 0);
    }
    CHECK(children[i] > 0);
  }
  for (int i = 0; i < PROCESSES; i++) {
    int status = 0;
    CHECK(children[i] > 0 && waitpid(children[i], &status, 0) == children[i]);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  CHECK(entry_is_valid(hex));
  CHECK(stray_files(dir) == 0);
}

/* ------------------------------------------------------------------- speed */

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void lookup_of_100_kib_is_fast(void) {
  char dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE];
  use_cache_dir("speed", dir, sizeof dir);
  key_of("speed", hex);
  const size_t size = 100 * 1024;
  uint8_t *payload = make_payload(42, size);
  CHECK_OK(agpu_cache_store(hex, payload, size));
  double micros[100];
  for (int i = 0; i < 100; i++) {
    struct timespec t0, t1;
    void *data = NULL;
    size_t got = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    agpu_status status = agpu_cache_lookup(hex, &data, &got);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(status == AGPU_SUCCESS && got == size);
    free(data);
    micros[i] = (double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
  }
  qsort(micros, 100, sizeof micros[0], compare_doubles);
  printf("  lookup of a 100 KiB entry: median %.1f us (min %.1f, max %.1f) over 100 lookups\n",
         (micros[49] + micros[50]) / 2, micros[0], micros[99]);
  free(payload);
}

/* -------------------------------------------------------------------- main */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  return remove(path);
}

typedef struct saved_env {
  const char *name;
  char *value;
} saved_env;

int main(void) {
  saved_env saved[] = {
      {"ANYGPU_CACHE", NULL}, {"ANYGPU_CACHE_DIR", NULL}, {"XDG_CACHE_HOME", NULL}, {"HOME", NULL}};
  for (int i = 0; i < 4; i++) {
    const char *v = getenv(saved[i].name);
    saved[i].value = v ? strdup(v) : NULL;
  }
  snprintf(test_root, sizeof test_root, "/tmp/anygpu-cache-test-XXXXXX");
  if (!mkdtemp(test_root)) {
    printf("mkdtemp failed: %s\n", strerror(errno));
    return 1;
  }

  RUN(sha256_matches_fips_180_4);
  RUN(sha256_hardware_matches_portable);
  RUN(sha256_hex_round_trips);
  RUN(key_changes_with_every_field);
  RUN(key_respects_field_boundaries);
  RUN(key_refuses_missing_fields);
  RUN(store_then_lookup_returns_the_same_bytes);
  RUN(directory_is_0700_and_entries_0600);
  RUN(corrupt_entries_miss_and_are_removed);
  RUN(planted_symlink_is_not_followed);
  RUN(unsafe_directories_are_refused);
  RUN(other_users_files_are_refused);
  RUN(anygpu_cache_0_turns_it_off);
  RUN(directory_comes_from_the_environment);
  RUN(threads_share_the_cache);
  RUN(processes_share_the_cache);
  RUN(lookup_of_100_kib_is_fast);

  nftw(test_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  for (int i = 0; i < 4; i++) {
    if (saved[i].value)
      setenv(saved[i].name, saved[i].value, 1);
    else
      unsetenv(saved[i].name);
    free(saved[i].value);
  }
  return agpu_test_finish();
}
