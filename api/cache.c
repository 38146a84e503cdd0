// SPDX-License-Identifier: Apache-2.0
/* The on-disk kernel cache: keys, the directory, and entries. See
 * docs/cache.md for the format and the rules. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strerror_r returning char *, syscall */
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agpu_cache.h"
#include "agpu_error.h"
#include "agpu_io.h"
#include "agpu_backend.h"
#include "agpu_parsed.h"

#define KEY_FORMAT_VERSION "1"

#define ENTRY_MAGIC "ANYGPUKC"
#define ENTRY_MAGIC_SIZE 8
#define ENTRY_FORMAT_VERSION 1u
/* magic, version (u32), key, payload size (u64), payload SHA-256; all
 * little-endian, no padding, so that every header byte is checked. */
#define ENTRY_HEADER_SIZE \
  (ENTRY_MAGIC_SIZE + 4 + AGPU_SHA256_DIGEST_SIZE + 8 + AGPU_SHA256_DIGEST_SIZE)
#define ENTRY_NAME_SIZE (AGPU_CACHE_KEY_HEX_SIZE + 4) /* "<hex>.bin" */

#define REASON_CAPACITY 1024

static _Thread_local char cache_reason[REASON_CAPACITY];

/* Process-wide, only ever changed atomically. */
static struct {
  _Atomic uint64_t hits, misses, rejected, stores, store_failures, directory_modes_fixed,
      entry_modes_fixed;
} counters;

AGPU_API void agpu_cache_get_stats(agpu_cache_stats *stats) {
  if (!stats) return;
  stats->hits = atomic_load(&counters.hits);
  stats->misses = atomic_load(&counters.misses);
  stats->rejected = atomic_load(&counters.rejected);
  stats->stores = atomic_load(&counters.stores);
  stats->store_failures = atomic_load(&counters.store_failures);
  stats->modes_fixed =
      atomic_load(&counters.directory_modes_fixed) + atomic_load(&counters.entry_modes_fixed);
}

static void set_reason(const char *format, ...) AGPU_PRINTF(1, 2);
static void set_reason(const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(cache_reason, sizeof cache_reason, format, args);
  va_end(args);
}

AGPU_API const char *agpu_cache_last_reason(void) {
  return cache_reason;
}

static const char *error_text(int error, char *buffer, size_t size) {
  return strerror_r(error, buffer, size);
}

static void put_le(uint8_t *p, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(value >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; i++) value |= (uint64_t)p[i] << (8 * i);
  return value;
}

/* ------------------------------------------------------------------- key */

static agpu_status key_fail(agpu_cache_key *key, const char *format, ...) AGPU_PRINTF(2, 3);
static agpu_status key_fail(agpu_cache_key *key, const char *format, ...) {
  char message[sizeof key->failure];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  if (!key->failed) memcpy(key->failure, message, sizeof message);
  key->failed = true;
  return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s", message);
}

static void hash_length(agpu_sha256_ctx *sha, uint64_t length) {
  uint8_t bytes[8];
  put_le(bytes, length, 8);
  agpu_sha256_update(sha, bytes, sizeof bytes);
}

AGPU_API void agpu_cache_key_init(agpu_cache_key *key) {
  if (!key) return;
  agpu_sha256_init(&key->sha);
  key->failed = false;
  key->failure[0] = '\0';
  agpu_cache_key_add_string(key, "anygpu-cache-key", KEY_FORMAT_VERSION);
}

AGPU_API agpu_status agpu_cache_key_add(agpu_cache_key *key, const char *field_name,
                                        const void *data, size_t size) {
  if (!key) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_cache_key_add: key is NULL");
  if (!field_name) return key_fail(key, "agpu_cache_key_add: field_name is NULL");
  if (!data && size > 0) {
    return key_fail(key, "agpu_cache_key_add: field \"%s\": data is NULL but size is %zu",
                    field_name, size);
  }
  size_t name_size = strlen(field_name);
  hash_length(&key->sha, name_size);
  agpu_sha256_update(&key->sha, field_name, name_size);
  hash_length(&key->sha, size);
  if (size > 0) agpu_sha256_update(&key->sha, data, size);
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_cache_key_add_string(agpu_cache_key *key, const char *field_name,
                                               const char *value) {
  if (key && !value) {
    return key_fail(key,
                    "agpu_cache_key_add_string: field \"%s\" is NULL (pass \"\" for an "
                    "empty value)",
                    field_name ? field_name : "(null)");
  }
  return agpu_cache_key_add(key, field_name, value, value ? strlen(value) : 0);
}

AGPU_API agpu_status agpu_cache_key_add_u64(agpu_cache_key *key, const char *field_name,
                                            uint64_t value) {
  uint8_t bytes[8];
  put_le(bytes, value, 8);
  return agpu_cache_key_add(key, field_name, bytes, sizeof bytes);
}

static agpu_status check_field(agpu_cache_key *key, const char *name, const char *value,
                               bool may_be_empty) {
  if (!value) {
    return key_fail(key,
                    "agpu_cache_key_begin: fields->%s is NULL (pass \"\" if it is really "
                    "empty or unknown)",
                    name);
  }
  if (!may_be_empty && !value[0])
    return key_fail(key, "agpu_cache_key_begin: fields->%s is \"\"", name);
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_cache_key_begin(agpu_cache_key *key,
                                          const agpu_cache_key_fields *fields) {
  if (!key) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_cache_key_begin: key is NULL");
  agpu_cache_key_init(key);
  if (!fields) return key_fail(key, "agpu_cache_key_begin: fields is NULL");
  if (!fields->source) return key_fail(key, "agpu_cache_key_begin: fields->source is NULL");
  agpu_status status = AGPU_SUCCESS;
  if (!status) status = check_field(key, "options", fields->options, true);
  if (!status) status = check_field(key, "translator_version", fields->translator_version, false);
  if (!status) status = check_field(key, "backend", fields->backend, false);
  if (!status) status = check_field(key, "target", fields->target, false);
  if (!status) status = check_field(key, "device_name", fields->device_name, true);
  if (!status) status = check_field(key, "driver_version", fields->driver_version, true);
  if (status) return status;
  size_t source_size = fields->source_size ? fields->source_size : strlen(fields->source);
  agpu_cache_key_add_string(key, "anygpu", AGPU_VERSION_STRING);
  agpu_cache_key_add(key, "source", fields->source, source_size);
  agpu_cache_key_add_string(key, "options", fields->options);
  agpu_cache_key_add_string(key, "translator_version", fields->translator_version);
  agpu_cache_key_add_string(key, "backend", fields->backend);
  agpu_cache_key_add_string(key, "target", fields->target);
  agpu_cache_key_add_string(key, "device_name", fields->device_name);
  return agpu_cache_key_add_string(key, "driver_version", fields->driver_version);
}

AGPU_API agpu_status agpu_cache_key_final(agpu_cache_key *key, char hex[AGPU_CACHE_KEY_HEX_SIZE]) {
  if (!key || !hex) {
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_cache_key_final: %s is NULL",
                          key ? "hex" : "key");
  }
  if (key->failed) {
    hex[0] = '\0';
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_cache_key_final: the key is incomplete: %s", key->failure);
  }
  uint8_t digest[AGPU_SHA256_DIGEST_SIZE];
  agpu_sha256_final(&key->sha, digest);
  agpu_sha256_hex(digest, hex);
  return AGPU_SUCCESS;
}

/* ------------------------------------------------------------- directory */

static agpu_status join_path(char *out, size_t out_size, const char *base, const char *tail) {
  int n = snprintf(out, out_size, "%s%s", base, tail);
  if (n < 0 || (size_t)n >= out_size) {
    if (out_size) out[0] = '\0';
    return agpu_error_set(AGPU_ERROR_OUT_OF_RANGE,
                          "cache: the directory path %s%s is too long (%d bytes, room for %zu)",
                          base, tail, n, out_size ? out_size - 1 : 0);
  }
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_cache_directory_path(char *path, size_t path_size) {
  if (!path || path_size == 0) {
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_cache_directory_path: no room for the path");
  }
  path[0] = '\0';
  const char *dir = getenv("ANYGPU_CACHE_DIR");
  if (dir && dir[0]) {
    if (dir[0] != '/') {
      return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                            "cache: ANYGPU_CACHE_DIR=\"%s\" is not an absolute path", dir);
    }
    return join_path(path, path_size, dir, "");
  }
  /* The XDG spec says a relative XDG_CACHE_HOME is invalid and is ignored. */
  const char *xdg = getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return join_path(path, path_size, xdg, "/anygpu");
  const char *home = getenv("HOME");
  if (home && home[0] == '/') return join_path(path, path_size, home, "/.cache/anygpu");
  struct passwd entry, *found = NULL;
  char buffer[16384];
  int error = getpwuid_r(geteuid(), &entry, buffer, sizeof buffer, &found);
  if (!error && found && found->pw_dir && found->pw_dir[0] == '/') {
    return join_path(path, path_size, found->pw_dir, "/.cache/anygpu");
  }
  return agpu_error_set(AGPU_ERROR_NOT_FOUND,
                        "cache: no cache directory: ANYGPU_CACHE_DIR, XDG_CACHE_HOME and HOME "
                        "are unset and user %u has no home directory in the password database",
                        (unsigned)geteuid());
}

/* Creates one directory with mode exactly 0700 (mkdir's mode passes through
 * the umask). The fchmod goes through an O_NOFOLLOW descriptor, so a link
 * swapped in after the mkdir is never chmod'ed. */
static int make_directory(const char *path) {
  if (mkdir(path, 0700) != 0) return errno == EEXIST ? 0 : -1;
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    fchmod(fd, 0700);
    close(fd);
  }
  return 0;
}

/* mkdir -p, each directory it creates 0700. */
static int make_directories(const char *path) {
  char copy[PATH_MAX];
  snprintf(copy, sizeof copy, "%s", path);
  for (char *p = copy + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    int made = make_directory(copy);
    int error = errno;
    *p = '/';
    if (made != 0) {
      errno = error;
      return -1;
    }
  }
  return make_directory(copy);
}

typedef struct cache_dir {
  int fd;
  char path[PATH_MAX];
} cache_dir;

static bool cache_turned_off(const char **value) {
  *value = getenv("ANYGPU_CACHE");
  const char *v = *value;
  return v && (!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") ||
               !strcasecmp(v, "false"));
}

/* A user's name for messages: "65534 (nobody)". */
static void user_text(uid_t uid, char *out, size_t out_size) {
  struct passwd entry, *found = NULL;
  char buffer[4096];
  if (getpwuid_r(uid, &entry, buffer, sizeof buffer, &found) == 0 && found && found->pw_name)
    snprintf(out, out_size, "%u (%s)", (unsigned)uid, found->pw_name);
  else
    snprintf(out, out_size, "%u", (unsigned)uid);
}

/* Opens the last component without following a link; a link there is
 * followed only when it belongs to this user or to root (a user may put the
 * cache on another disk), never one planted by someone else. */
static int open_directory(const char *path, char *why, size_t why_size) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0 || (errno != ELOOP && errno != ENOTDIR)) return fd;
  int error = errno;
  struct stat link_st;
  if (lstat(path, &link_st) != 0 || !S_ISLNK(link_st.st_mode)) {
    errno = error;
    return -1;
  }
  if (link_st.st_uid != geteuid() && link_st.st_uid != 0) {
    char owner[160];
    user_text(link_st.st_uid, owner, sizeof owner);
    snprintf(why, why_size,
             "cache: the cache directory %s is a symbolic link owned by user %s, not by this "
             "user (%u), so it is not followed: cache off (remove the link, or set "
             "ANYGPU_CACHE_DIR to a directory of your own)",
             path, owner, (unsigned)geteuid());
    errno = EPERM;
    return -1;
  }
  return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Whose a directory is. anygpu tags a directory it uses with a cache
 * directory tag (https://bford.info/cachedir/, so that backup tools skip it)
 * that says anygpu made it. A directory without the tag is anygpu's only
 * when everything in it is: entries, temporary files of a store, a tag
 * being written (an empty directory, one just created, and one an older
 * anygpu filled qualify, and get the tag). Anything else (ANYGPU_CACHE_DIR
 * pointed at $HOME, a project folder, /) is the user's: the cache refuses
 * it, leaving its mode and files alone. */

#define TAG_NAME "CACHEDIR.TAG"
#define TAG_SIGNATURE "Signature: 8a477f597d28d172789f06886806bc55"
#define TAG_TEXT                                                      \
  TAG_SIGNATURE                                                       \
  "\n# This file is a cache directory tag created by anygpu for its " \
  "kernel cache.\n# For information about cache directory tags, see " \
  "https://bford.info/cachedir/\n"

static bool has_our_tag(int dir_fd) {
  int fd = openat(dir_fd, TAG_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  char text[512];
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return false;
  text[n] = '\0';
  return strncmp(text, TAG_SIGNATURE, strlen(TAG_SIGNATURE)) == 0 &&
         strstr(text, "created by anygpu") != NULL;
}

static bool all_of(const char *s, size_t n, const char *set) {
  for (size_t i = 0; i < n; i++)
    if (!s[i] || !strchr(set, s[i])) return false;
  return true;
}

/* anygpu bench's sgemm tuning (tools/bench/bench_tuning.c) */
#define BENCH_NAME "bench-sgemm.txt"

/* A name anygpu writes: "<64 hex>.bin", a store's ".<16 hex>.<numbers>.tmp",
 * the tag, the bench's file, or their ".<name>.<numbers>.tmp". */
static bool is_our_name(const char *name) {
  size_t length = strlen(name);
  if (length == AGPU_SHA256_DIGEST_SIZE * 2 + 4 && !strcmp(name + length - 4, ".bin"))
    return all_of(name, length - 4, "0123456789abcdef");
  if (!strcmp(name, TAG_NAME) || !strcmp(name, BENCH_NAME)) return true;
  if (length < 6 || name[0] != '.' || strcmp(name + length - 4, ".tmp")) return false;
  const char *rest = name + 1;
  if (!strncmp(rest, TAG_NAME ".", strlen(TAG_NAME ".")))
    rest += strlen(TAG_NAME ".");
  else if (!strncmp(rest, BENCH_NAME ".", strlen(BENCH_NAME ".")))
    rest += strlen(BENCH_NAME ".");
  else if (length > 18 && all_of(rest, 16, "0123456789abcdef") && rest[16] == '.')
    rest += 17;
  else
    return false;
  return all_of(rest, (size_t)(name + length - 4 - rest), "0123456789.");
}

/* True when everything in the directory is the cache's; else false with the
 * first other name in `other` ("" when the directory cannot be read). */
static bool holds_only_ours(int dir_fd, char *other, size_t other_size) {
  other[0] = '\0';
  int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0) close(fd);
    return false;
  }
  bool ours = true;
  for (struct dirent *e; ours && (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (!is_our_name(e->d_name)) {
      snprintf(other, other_size, "%s", e->d_name);
      ours = false;
    }
  }
  closedir(d);
  return ours;
}

/* Best effort: a directory that cannot be written (a read-only cache) stays
 * untagged and is checked by its contents each time. */
static void write_tag(int dir_fd) {
  char temp[96];
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  snprintf(temp, sizeof temp, "." TAG_NAME ".%ld.%ld.%ld.tmp", (long)getpid(),
           (long)syscall(SYS_gettid), (long)now.tv_nsec);
  int fd = openat(dir_fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  bool written = fchmod(fd, 0600) == 0 && agpu_write_all(fd, TAG_TEXT, strlen(TAG_TEXT));
  if (close(fd) != 0) written = false;
  if (!written || renameat(dir_fd, temp, dir_fd, TAG_NAME) != 0) unlinkat(dir_fd, temp, 0);
}

/* Opens the directory once and checks that very inode; entries are then
 * reached through the descriptor, so the path cannot be swapped in between. */
static agpu_cache_state open_cache_dir(cache_dir *dir) {
  char text[256], why[REASON_CAPACITY];
  why[0] = '\0';
  dir->fd = -1;
  dir->path[0] = '\0';
  const char *setting = NULL;
  if (cache_turned_off(&setting)) {
    set_reason("cache: off (ANYGPU_CACHE=%s)", setting);
    return AGPU_CACHE_DISABLED;
  }
  if (agpu_cache_directory_path(dir->path, sizeof dir->path)) {
    set_reason("%s: cache off", agpu_last_error());
    return AGPU_CACHE_REFUSED;
  }
  int fd = open_directory(dir->path, why, sizeof why);
  if (fd < 0 && errno == ENOENT) {
    if (make_directories(dir->path) != 0) {
      set_reason("cache: cannot create the cache directory %s: %s: cache off", dir->path,
                 error_text(errno, text, sizeof text));
      return AGPU_CACHE_REFUSED;
    }
    fd = open_directory(dir->path, why, sizeof why);
  }
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    if (why[0])
      set_reason("%s", why);
    else
      set_reason("cache: cannot open the cache directory %s: %s: cache off", dir->path,
                 error_text(errno, text, sizeof text));
    if (fd >= 0) close(fd);
    return AGPU_CACHE_REFUSED;
  }
  char owner[160] = ""; /* only for a refusal: a password-database lookup can be slow */
  if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
    user_text(st.st_uid, owner, sizeof owner);
  if (st.st_uid != geteuid()) {
    set_reason(
        "cache: the cache directory %s belongs to user %s (mode %04o), not to this user (%u): "
        "cache off (set ANYGPU_CACHE_DIR to a directory of your own, or have %s removed)",
        dir->path, owner, (unsigned)(st.st_mode & 07777), (unsigned)geteuid(), dir->path);
    close(fd);
    return AGPU_CACHE_REFUSED;
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    set_reason(
        "cache: the cache directory %s (owner %s, mode %04o) is writable by group or others, "
        "so its entries may have been planted by someone else: cache off (remove it, rm -r %s, "
        "and anygpu makes a fresh 0700 one; or chmod 700 it if you trust what is in it)",
        dir->path, owner, (unsigned)(st.st_mode & 07777), dir->path);
    close(fd);
    return AGPU_CACHE_REFUSED;
  }
  if (!has_our_tag(fd)) {
    char other[256];
    if (!holds_only_ours(fd, other, sizeof other)) {
      if (other[0])
        set_reason(
            "cache: the cache directory %s holds files that are not anygpu's (\"%s\", for one): "
            "cache off, the directory's files and mode (%04o) left alone (set ANYGPU_CACHE_DIR "
            "to a directory for anygpu alone, such as %s/anygpu-cache, which anygpu creates)",
            dir->path, other, (unsigned)(st.st_mode & 07777),
            strcmp(dir->path, "/") ? dir->path : "");
      else
        set_reason("cache: cannot list the cache directory %s: %s: cache off", dir->path,
                   error_text(errno, text, sizeof text));
      close(fd);
      return AGPU_CACHE_REFUSED;
    }
    write_tag(fd);
  }
  if ((st.st_mode & 077) && fchmod(fd, 0700) == 0) /* readable by others: ours, so tightened */
    atomic_fetch_add(&counters.directory_modes_fixed, 1);
  dir->fd = fd;
  return AGPU_CACHE_ENABLED;
}

AGPU_API agpu_cache_state agpu_cache_check(char *path, size_t path_size) {
  cache_dir dir;
  agpu_cache_state state = open_cache_dir(&dir);
  if (dir.fd >= 0) close(dir.fd);
  if (state == AGPU_CACHE_ENABLED) cache_reason[0] = '\0';
  if (path && path_size) snprintf(path, path_size, "%s", dir.path);
  return state;
}

static bool parse_key(const char *key_hex, uint8_t key[AGPU_SHA256_DIGEST_SIZE],
                      const char *function) {
  if (agpu_sha256_parse_hex(key_hex, key)) return true;
  agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                 "%s: key \"%.80s\" is not 64 lowercase hex digits (from agpu_cache_key_final)",
                 function, key_hex ? key_hex : "(null)");
  set_reason("%s", agpu_last_error());
  return false;
}

AGPU_API agpu_status agpu_cache_entry_path(const char *key_hex, char *path, size_t path_size) {
  uint8_t key[AGPU_SHA256_DIGEST_SIZE];
  if (!parse_key(key_hex, key, "agpu_cache_entry_path")) return AGPU_ERROR_INVALID_ARGUMENT;
  char dir[PATH_MAX];
  agpu_status status = agpu_cache_directory_path(dir, sizeof dir);
  if (status) return status;
  if (!path || path_size == 0) {
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_cache_entry_path: no room for the path");
  }
  char tail[ENTRY_NAME_SIZE + 1];
  snprintf(tail, sizeof tail, "/%s.bin", key_hex);
  return join_path(path, path_size, dir, tail);
}

/* ---------------------------------------------------------------- lookup */

static bool read_full(int fd, void *buffer, size_t size) {
  uint8_t *p = buffer;
  while (size > 0) {
    ssize_t n = read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= (size_t)n;
  }
  return true;
}

static agpu_status miss(const char *format, ...) AGPU_PRINTF(1, 2);
static agpu_status miss(const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(cache_reason, sizeof cache_reason, format, args);
  va_end(args);
  return agpu_error_set(AGPU_ERROR_NOT_FOUND, "%s", cache_reason);
}

/* Removes a rejected entry, unless another process has meanwhile renamed a
 * fresh one into its place. */
static const char *remove_rejected(int dir_fd, const char *name, const struct stat *rejected) {
  struct stat now;
  if (fstatat(dir_fd, name, &now, AT_SYMLINK_NOFOLLOW) != 0) return "already gone";
  if (now.st_dev != rejected->st_dev || now.st_ino != rejected->st_ino) {
    return "left alone: another process replaced it meanwhile";
  }
  return unlinkat(dir_fd, name, 0) == 0 ? "removed, to be rebuilt" : "could not be removed";
}

typedef enum entry_verdict { ENTRY_VALID, ENTRY_REJECTED, ENTRY_NO_MEMORY } entry_verdict;

/* Reads and checks an open entry; on ENTRY_REJECTED `why` says what is wrong. */
static entry_verdict read_entry(int fd, const struct stat *st, const uint8_t key[32], void **data,
                                size_t *size, uint8_t recorded[32], char *why, size_t why_size) {
  if (!S_ISREG(st->st_mode)) {
    snprintf(why, why_size, "not a regular file");
    return ENTRY_REJECTED;
  }
  if (st->st_uid != geteuid()) {
    snprintf(why, why_size, "owned by user %u, not by this user (%u)", (unsigned)st->st_uid,
             (unsigned)geteuid());
    return ENTRY_REJECTED;
  }
  if (st->st_mode & (S_IWGRP | S_IWOTH)) {
    snprintf(why, why_size, "writable by group or others (mode %04o)",
             (unsigned)(st->st_mode & 07777));
    return ENTRY_REJECTED;
  }
  if ((st->st_mode & 077) && fchmod(fd, 0600) == 0) /* ours, readable by others */
    atomic_fetch_add(&counters.entry_modes_fixed, 1);
  uint8_t header[ENTRY_HEADER_SIZE];
  if (st->st_size < ENTRY_HEADER_SIZE || !read_full(fd, header, sizeof header)) {
    snprintf(why, why_size, "truncated: %lld bytes, shorter than the %d-byte header",
             (long long)st->st_size, ENTRY_HEADER_SIZE);
    return ENTRY_REJECTED;
  }
  const uint8_t *p = header;
  if (memcmp(p, ENTRY_MAGIC, ENTRY_MAGIC_SIZE) != 0) {
    snprintf(why, why_size, "not an anygpu cache entry (bad magic)");
    return ENTRY_REJECTED;
  }
  p += ENTRY_MAGIC_SIZE;
  uint32_t version = (uint32_t)get_le(p, 4);
  p += 4;
  if (version != ENTRY_FORMAT_VERSION) {
    snprintf(why, why_size, "format version %u, this build reads %u", version,
             ENTRY_FORMAT_VERSION);
    return ENTRY_REJECTED;
  }
  if (memcmp(p, key, AGPU_SHA256_DIGEST_SIZE) != 0) {
    snprintf(why, why_size, "the key in its header is not the key in its name");
    return ENTRY_REJECTED;
  }
  p += AGPU_SHA256_DIGEST_SIZE;
  uint64_t payload_size = get_le(p, 8);
  p += 8;
  uint64_t file_payload = (uint64_t)st->st_size - ENTRY_HEADER_SIZE;
  if (payload_size != file_payload || payload_size > SIZE_MAX) {
    snprintf(why, why_size, "the header says %llu payload bytes, the file holds %llu",
             (unsigned long long)payload_size, (unsigned long long)file_payload);
    return ENTRY_REJECTED;
  }
  uint8_t *payload = malloc(payload_size ? (size_t)payload_size : 1);
  if (!payload) return ENTRY_NO_MEMORY;
  if (!read_full(fd, payload, (size_t)payload_size)) {
    free(payload);
    snprintf(why, why_size, "truncated while being read");
    return ENTRY_REJECTED;
  }
  uint8_t digest[AGPU_SHA256_DIGEST_SIZE];
  agpu_sha256(payload, (size_t)payload_size, digest);
  if (memcmp(p, digest, AGPU_SHA256_DIGEST_SIZE) != 0) {
    free(payload);
    snprintf(why, why_size, "the payload's SHA-256 does not match its header");
    return ENTRY_REJECTED;
  }
  memcpy(recorded, p, AGPU_SHA256_DIGEST_SIZE);
  *data = payload;
  *size = (size_t)payload_size;
  return ENTRY_VALID;
}

static agpu_status lookup(const char *key_hex, void **data, size_t *size,
                          uint8_t recorded[AGPU_SHA256_DIGEST_SIZE]);

AGPU_API agpu_status agpu_cache_lookup(const char *key_hex, void **data, size_t *size) {
  uint8_t recorded[AGPU_SHA256_DIGEST_SIZE];
  return agpu_cache_lookup_digest(key_hex, data, size, recorded);
}

AGPU_API agpu_status agpu_cache_lookup_digest(const char *key_hex, void **data, size_t *size,
                                              uint8_t digest[AGPU_SHA256_DIGEST_SIZE]) {
  uint8_t recorded[AGPU_SHA256_DIGEST_SIZE] = {0};
  agpu_status status = lookup(key_hex, data, size, recorded);
  atomic_fetch_add(status == AGPU_SUCCESS ? &counters.hits : &counters.misses, 1);
  if (digest) memcpy(digest, recorded, sizeof recorded);
  return status;
}

static agpu_status lookup(const char *key_hex, void **data, size_t *size,
                          uint8_t recorded[AGPU_SHA256_DIGEST_SIZE]) {
  if (!data || !size) {
    set_reason("agpu_cache_lookup: data or size is NULL");
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s", cache_reason);
  }
  *data = NULL;
  *size = 0;
  uint8_t key[AGPU_SHA256_DIGEST_SIZE];
  if (!parse_key(key_hex, key, "agpu_cache_lookup")) return AGPU_ERROR_INVALID_ARGUMENT;
  cache_dir dir;
  if (open_cache_dir(&dir) != AGPU_CACHE_ENABLED) {
    return agpu_error_set(AGPU_ERROR_NOT_FOUND, "%s", cache_reason);
  }
  char name[ENTRY_NAME_SIZE], text[256];
  snprintf(name, sizeof name, "%s.bin", key_hex);
  int fd = openat(dir.fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  agpu_status status;
  if (fd < 0) {
    int error = errno;
    struct stat link_st;
    if (error == ENOENT) {
      status = miss("cache: no entry %s/%s", dir.path, name);
    } else if (error == ELOOP && fstatat(dir.fd, name, &link_st, AT_SYMLINK_NOFOLLOW) == 0 &&
               S_ISLNK(link_st.st_mode)) {
      atomic_fetch_add(&counters.rejected, 1);
      status = miss("cache: entry %s/%s rejected (a symbolic link, not followed): %s", dir.path,
                    name, remove_rejected(dir.fd, name, &link_st));
    } else {
      status = miss("cache: cannot open %s/%s: %s", dir.path, name,
                    error_text(error, text, sizeof text));
    }
    close(dir.fd);
    return status;
  }
  struct stat st;
  memset(&st, 0, sizeof st);
  char why[192];
  entry_verdict verdict = ENTRY_REJECTED;
  if (fstat(fd, &st) != 0) {
    snprintf(why, sizeof why, "fstat failed: %s", error_text(errno, text, sizeof text));
  } else {
    verdict = read_entry(fd, &st, key, data, size, recorded, why, sizeof why);
  }
  close(fd);
  if (verdict == ENTRY_VALID) {
    cache_reason[0] = '\0';
    status = AGPU_SUCCESS;
  } else if (verdict == ENTRY_NO_MEMORY) {
    set_reason("cache: out of host memory reading %s/%s (%lld bytes)", dir.path, name,
               (long long)st.st_size);
    status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "%s", cache_reason);
  } else {
    atomic_fetch_add(&counters.rejected, 1);
    const char *fate = st.st_ino ? remove_rejected(dir.fd, name, &st) : "left alone";
    status = miss("cache: entry %s/%s rejected (%s): %s", dir.path, name, why, fate);
  }
  close(dir.fd);
  return status;
}

/* ----------------------------------------------------------------- store */

/* Only ever incremented atomically; with the pid, thread id and clock it makes
 * each temporary name unique across threads, processes and hosts. */
static _Atomic unsigned long temp_counter;

static void temp_name(char *out, size_t out_size, const char *key_hex) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  snprintf(out, out_size, ".%.16s.%ld.%ld.%lu.%ld.tmp", key_hex, (long)getpid(),
           (long)syscall(SYS_gettid), atomic_fetch_add(&temp_counter, 1), (long)now.tv_nsec);
}

AGPU_API agpu_status agpu_cache_store(const char *key_hex, const void *data, size_t size) {
  uint8_t key[AGPU_SHA256_DIGEST_SIZE];
  if (!parse_key(key_hex, key, "agpu_cache_store")) return AGPU_ERROR_INVALID_ARGUMENT;
  if (!data && size > 0) {
    set_reason("agpu_cache_store: data is NULL but size is %zu", size);
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s", cache_reason);
  }
  cache_dir dir;
  if (open_cache_dir(&dir) != AGPU_CACHE_ENABLED) return AGPU_SUCCESS; /* uncached, not failed */

  uint8_t header[ENTRY_HEADER_SIZE], *p = header;
  memcpy(p, ENTRY_MAGIC, ENTRY_MAGIC_SIZE);
  p += ENTRY_MAGIC_SIZE;
  put_le(p, ENTRY_FORMAT_VERSION, 4);
  p += 4;
  memcpy(p, key, AGPU_SHA256_DIGEST_SIZE);
  p += AGPU_SHA256_DIGEST_SIZE;
  put_le(p, size, 8);
  p += 8;
  agpu_sha256(data ? data : "", size, p);

  char name[ENTRY_NAME_SIZE], temp[128], text[256];
  snprintf(name, sizeof name, "%s.bin", key_hex);
  int fd = -1;
  for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
    temp_name(temp, sizeof temp, key_hex);
    fd = openat(dir.fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  const char *step = "create";
  bool written = false;
  if (fd >= 0) {
    step = "write";
    /* exactly 0600, whatever the umask */
    written = fchmod(fd, 0600) == 0 && agpu_write_all(fd, header, sizeof header) &&
              agpu_write_all(fd, data, size);
    int error = errno;
    if (close(fd) != 0 && written) {
      written = false;
      error = errno;
    }
    if (written) {
      step = "rename";
      written = renameat(dir.fd, temp, dir.fd, name) == 0;
      error = errno;
    }
    if (!written) unlinkat(dir.fd, temp, 0);
    errno = error;
  }
  agpu_status status = AGPU_SUCCESS;
  if (written) {
    atomic_fetch_add(&counters.stores, 1);
    cache_reason[0] = '\0';
  } else {
    atomic_fetch_add(&counters.store_failures, 1);
    int error = errno;
    set_reason("cache: storing %s/%s failed: %s of %s: %s (errno %d)", dir.path, name, step, temp,
               error_text(error, text, sizeof text), error);
    status = agpu_error_set(AGPU_ERROR_BACKEND, "%s", cache_reason);
  }
  close(dir.fd);
  return status;
}

agpu_status agpu_cache_key_begin_device(agpu_cache_key *key, const agpu_device *device,
                                        const char *target, const char *source,
                                        const char *options) {
  agpu_cache_key_fields fields = {
      .source = source,
      .options = options,
      .translator_version = AGPU_TRANSLATOR_VERSION,
      .backend = device->backend->descriptor->name,
      .target = target,
      .device_name = device->info.name,
      .driver_version = device->info.driver_version,
  };
  return agpu_cache_key_begin(key, &fields);
}
