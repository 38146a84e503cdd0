// SPDX-License-Identifier: Apache-2.0
/* The kernel cache against a hostile or careless file system: loose modes
 * (ours are tightened, others' refused), directories owned by someone else,
 * planted symbolic links (as an entry, as the cache directory itself), and
 * the CPU backend's shared objects, which the cache turns into code run in
 * this process: a tampered .so entry must never be loaded, the build must
 * still succeed (recompiled), and concurrent builds of one source from
 * threads and from processes must all succeed with identical binaries.
 *
 * The program links the library's objects, to call the CPU backend's loader
 * (agpu_cpu_load) directly. The process cases run this program again (/proc/self/exe --child ...),
 * so that no child is forked from a process with the CPU backend's threads. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dlfcn.h>

#include "agpu_cache.h"
#include "agpu_test.h"
#include "cpu_internal.h"

extern char **environ;

/* cpu_program.c, exported for the tests: the SHA-256 of the shared object a
 * CPU program runs and whether it came from the cache. */
AGPU_API agpu_status agpu_cpu_program_digest(const agpu_program *program,
                                             char hex[AGPU_SHA256_HEX_SIZE], bool *from_cache);

enum { NOBODY = 65534, HEADER_SIZE = 84, THREADS = 8, PROCESSES = 4, ELEMENTS = 1000 };

static char test_root[64];

static void use_cache_dir(const char *name, char *path, size_t path_size) {
  snprintf(path, path_size, "%s/%s", test_root, name);
  setenv("ANYGPU_CACHE_DIR", path, 1);
  unsetenv("ANYGPU_CACHE");
}

static mode_t mode_of(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static bool exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

static void key_of(const char *text, char hex[AGPU_CACHE_KEY_HEX_SIZE]) {
  agpu_cache_key key;
  agpu_cache_key_init(&key);
  agpu_cache_key_add_string(&key, "security-test", text);
  agpu_cache_key_final(&key, hex);
}

static bool hits(const char *hex, const char *expected) {
  void *data = NULL;
  size_t size = 0;
  bool hit = agpu_cache_lookup(hex, &data, &size) == AGPU_SUCCESS;
  bool same = hit && size == strlen(expected) && memcmp(data, expected, size) == 0;
  free(data);
  return same;
}

/* ------------------------------------------------------------ the directory */

static void our_loose_modes_are_tightened(void) {
  char dir[256], entry[512], hex[AGPU_CACHE_KEY_HEX_SIZE];
  use_cache_dir("loose", dir, sizeof dir);
  CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 0755) == 0);
  agpu_cache_stats before, after;
  agpu_cache_get_stats(&before);
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_ENABLED);
  CHECK(mode_of(dir) == 0700);
  key_of("loose", hex);
  CHECK_OK(agpu_cache_store(hex, "abc", 3));
  CHECK_OK(agpu_cache_entry_path(hex, entry, sizeof entry));
  CHECK(mode_of(entry) == 0600);
  CHECK(chmod(entry, 0644) == 0);
  CHECK(hits(hex, "abc")); /* readable by others: ours and intact, so kept and tightened */
  CHECK(mode_of(entry) == 0600);
  agpu_cache_get_stats(&after);
  CHECK(after.modes_fixed == before.modes_fixed + 2);
}

static void refusals_name_the_directory_its_owner_and_mode(void) {
  char dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE];
  key_of("refused", hex);
  use_cache_dir("world-writable", dir, sizeof dir);
  CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 0777) == 0);
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_REFUSED);
  const char *why = agpu_cache_last_reason();
  CHECK(strstr(why, dir) && strstr(why, "mode 0777") && strstr(why, "owner ") &&
        strstr(why, "rm -r") && strstr(why, "chmod 700"));
  CHECK(mode_of(dir) == 0777); /* writable by others: not silently "fixed" */
  CHECK_OK(agpu_cache_store(hex, "x", 1));
  CHECK(!hits(hex, "x"));
}

static void a_directory_of_another_user_is_refused(void) {
  if (geteuid() != 0)
    SKIP(
        "making a directory owned by another user needs root (chown); the world-writable "
        "case above runs");
  char dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE];
  key_of("refused", hex);
  use_cache_dir("foreign", dir, sizeof dir);
  CHECK(mkdir(dir, 0700) == 0 && chown(dir, NOBODY, NOBODY) == 0);
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_REFUSED);
  const char *why = agpu_cache_last_reason();
  CHECK(strstr(why, dir) && strstr(why, "belongs to user 65534") && strstr(why, "mode 0700") &&
        strstr(why, "ANYGPU_CACHE_DIR"));
  CHECK_OK(agpu_cache_store(hex, "x", 1));
  CHECK(!hits(hex, "x"));
}

static void symlinked_directories(void) {
  char real[256], link_path[256], open_dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE];
  key_of("linked", hex);
  snprintf(real, sizeof real, "%s/real-cache", test_root);
  CHECK(mkdir(real, 0700) == 0);
  /* our own link to our own directory (the cache on another disk): followed */
  use_cache_dir("our-link", link_path, sizeof link_path);
  CHECK(symlink(real, link_path) == 0);
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_ENABLED);
  CHECK_OK(agpu_cache_store(hex, "via-link", 8));
  CHECK(hits(hex, "via-link"));
  /* our link to a directory others may write: the target's mode is checked */
  snprintf(open_dir, sizeof open_dir, "%s/open-target", test_root);
  CHECK(mkdir(open_dir, 0700) == 0 && chmod(open_dir, 0777) == 0);
  use_cache_dir("link-to-open", link_path, sizeof link_path);
  CHECK(symlink(open_dir, link_path) == 0);
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_REFUSED);
  CHECK(strstr(agpu_cache_last_reason(), "writable by group or others") != NULL);
}

static void a_directory_link_of_another_user_is_not_followed(void) {
  if (geteuid() != 0) SKIP("making a link owned by another user needs root (lchown)");
  char real[256], link_path[256], hex[AGPU_CACHE_KEY_HEX_SIZE];
  key_of("linked", hex);
  snprintf(real, sizeof real, "%s/real-cache", test_root);
  /* a link planted by someone else, even to our own good directory */
  use_cache_dir("planted-link", link_path, sizeof link_path);
  CHECK(symlink(real, link_path) == 0 && lchown(link_path, NOBODY, NOBODY) == 0);
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_REFUSED);
  CHECK(strstr(agpu_cache_last_reason(), "symbolic link owned by user 65534") != NULL);
  CHECK(!hits(hex, "via-link"));
}

static void planted_directory_link_as_an_entry(void) {
  char dir[256], entry[512], target[256], hex[AGPU_CACHE_KEY_HEX_SIZE];
  use_cache_dir("entry-dir-link", dir, sizeof dir);
  key_of("entry-dir-link", hex);
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_ENABLED);
  snprintf(target, sizeof target, "%s/victim-dir", test_root);
  CHECK(mkdir(target, 0700) == 0);
  CHECK_OK(agpu_cache_entry_path(hex, entry, sizeof entry));
  CHECK(symlink(target, entry) == 0);
  agpu_cache_stats before, after;
  agpu_cache_get_stats(&before);
  CHECK(!hits(hex, ""));
  CHECK_MESSAGE("symbolic link");
  agpu_cache_get_stats(&after);
  CHECK(after.rejected == before.rejected + 1);
  CHECK(!exists(entry) && exists(target)); /* the link went, its target stayed */
  CHECK_OK(agpu_cache_store(hex, "fresh", 5));
  CHECK(hits(hex, "fresh"));
  DIR *victim = opendir(target);
  int files = 0;
  for (struct dirent *e; victim && (e = readdir(victim));) files += e->d_name[0] != '.';
  if (victim) closedir(victim);
  CHECK(files == 0);
}

/* ------------------------------------------------------- the CPU backend */

static const char *const source =
    "__kernel void affine(__global uint *out, uint n) {\n"
    "  uint i = (uint)get_global_id(0);\n"
    "  if (i < n) out[i] = i * FACTOR + 7u;\n"
    "}\n";

typedef struct build_result {
  bool ok, from_cache, correct;
  char digest[AGPU_SHA256_HEX_SIZE];
} build_result;

/* Builds the kernel on the CPU backend, runs it and checks every element. */
static build_result build_and_run(const char *options) {
  build_result r = {0};
  agpu_device *device = NULL;
  agpu_program *program = NULL;
  agpu_kernel *kernel = NULL;
  agpu_buffer *buffer = NULL;
  agpu_program_desc desc = {.source = source, .source_name = "affine.cl", .options = options};
  if (agpu_device_select("cpu:0", &device) || agpu_program_build(device, &desc, &program)) {
    printf("  build failed: %s\n", agpu_last_error());
    return r;
  }
  r.ok = agpu_cpu_program_digest(program, r.digest, &r.from_cache) == AGPU_SUCCESS;
  uint32_t factor = (uint32_t)strtoul(strchr(options, '=') + 1, NULL, 10);
  uint32_t *out = calloc(ELEMENTS, 4);
  size_t global = ELEMENTS;
  if (out && agpu_kernel_create(program, "affine", &kernel) == AGPU_SUCCESS &&
      agpu_buffer_create(device, ELEMENTS * 4, 0, &buffer) == AGPU_SUCCESS) {
    agpu_arg args[] = {agpu_arg_buffer(buffer), agpu_arg_u32(ELEMENTS)};
    r.correct = agpu_launch(NULL, kernel, 1, &global, NULL, 2, args) == AGPU_SUCCESS &&
                agpu_buffer_read(NULL, buffer, 0, ELEMENTS * 4, out) == AGPU_SUCCESS;
    for (uint32_t i = 0; r.correct && i < ELEMENTS; i++) r.correct = out[i] == i * factor + 7u;
  }
  free(out);
  if (buffer) agpu_buffer_release(buffer);
  if (kernel) agpu_kernel_release(kernel);
  agpu_program_release(program);
  return r;
}

/* This program again, as "--child OPTIONS": one build in a fresh process,
 * its result on stdout as "ok from_cache correct digest rejected". */
static int child_main(const char *options) {
  build_result r = build_and_run(options);
  agpu_cache_stats stats;
  agpu_cache_get_stats(&stats);
  printf("%d %d %d %s %llu\n", r.ok, r.from_cache, r.correct, r.ok ? r.digest : "-",
         (unsigned long long)stats.rejected);
  return r.ok && r.correct ? 0 : 1;
}

typedef struct child {
  pid_t pid;
  int out;
} child;

static child spawn_child(const char *options) {
  child c = {-1, -1};
  int fds[2];
  if (pipe(fds) != 0) return c;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  char *argv[] = {"test_cache_security", "--child", (char *)options, NULL};
  if (posix_spawn(&c.pid, "/proc/self/exe", &actions, NULL, argv, environ) != 0) c.pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  c.out = fds[0];
  return c;
}

typedef struct child_result {
  bool ok, from_cache, correct;
  char digest[AGPU_SHA256_HEX_SIZE];
  unsigned long long rejected;
} child_result;

static child_result wait_child(child c) {
  child_result r = {0};
  char text[512] = "";
  size_t used = 0;
  ssize_t n;
  while (c.out >= 0 && used + 1 < sizeof text &&
         (n = read(c.out, text + used, sizeof text - 1 - used)) > 0)
    used += (size_t)n;
  text[used] = '\0';
  if (c.out >= 0) close(c.out);
  int status = 0, ok = 0, cached = 0, correct = 0;
  if (c.pid > 0) waitpid(c.pid, &status, 0);
  char digest[AGPU_SHA256_HEX_SIZE] = "";
  if (sscanf(text, "%d %d %d %64s %llu", &ok, &cached, &correct, digest, &r.rejected) == 5 &&
      WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    r.ok = ok;
    r.from_cache = cached;
    r.correct = correct;
    memcpy(r.digest, digest, sizeof digest);
  } else {
    printf("  child failed (status %d): %s\n", status, text);
  }
  return r;
}

static child_result run_child(const char *options) {
  fflush(stdout);
  return wait_child(spawn_child(options));
}

static bool cpu_backend_here(void) {
  agpu_device *device = NULL;
  return agpu_device_select("cpu:0", &device) == AGPU_SUCCESS;
}

/* The one entry in a cache directory. */
static bool only_entry(const char *dir, char *path, size_t path_size) {
  DIR *d = opendir(dir);
  int found = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strlen(e->d_name) == 68 && !strcmp(e->d_name + 64, ".bin")) {
      snprintf(path, path_size, "%s/%s", dir, e->d_name);
      found++;
    }
  }
  if (d) closedir(d);
  return found == 1;
}

static void tampered_shared_object_is_not_loaded(void) {
  if (!cpu_backend_here()) SKIP("no CPU backend: %s", agpu_last_error());
  char dir[256], entry[512];
  use_cache_dir("so-tamper", dir, sizeof dir);
  child_result first = run_child("-DFACTOR=3");
  CHECK(first.ok && first.correct && !first.from_cache);
  CHECK(only_entry(dir, entry, sizeof entry));
  child_result second = run_child("-DFACTOR=3");
  CHECK(second.ok && second.correct && second.from_cache);
  CHECK(strcmp(first.digest, second.digest) == 0);

  /* flip a byte of the .so in the entry (its ELF header: what a tamperer
   * would change first), and then cut the entry short */
  const off_t offsets[] = {HEADER_SIZE + 5, -1};
  for (int i = 0; i < 2; i++) {
    struct stat st;
    CHECK(stat(entry, &st) == 0);
    if (offsets[i] >= 0) {
      int fd = open(entry, O_RDWR);
      uint8_t byte = 0;
      CHECK(fd >= 0 && pread(fd, &byte, 1, offsets[i]) == 1);
      byte ^= 0x01;
      CHECK(fd >= 0 && pwrite(fd, &byte, 1, offsets[i]) == 1);
      if (fd >= 0) close(fd);
    } else {
      CHECK(truncate(entry, st.st_size / 2) == 0);
    }
    child_result after = run_child("-DFACTOR=3");
    CHECK(after.ok && after.correct);
    CHECK(!after.from_cache);                       /* rebuilt, */
    CHECK(after.rejected == 1);                     /* because the entry was rejected, */
    CHECK(strcmp(after.digest, first.digest) == 0); /* into the same binary */
    child_result again = run_child("-DFACTOR=3");
    CHECK(again.ok && again.correct && again.from_cache && again.rejected == 0);
  }
}

/* The loader itself: only bytes whose SHA-256 is the recorded one load. */
static void loader_checks_the_recorded_digest(void) {
  if (!cpu_backend_here()) SKIP("no CPU backend: %s", agpu_last_error());
  const char *c = "__attribute__((visibility(\"default\"))) int anygpu_probe = 42;\n";
  agpu_cpu_object compiled;
  char *log = NULL;
  CHECK_OK(agpu_cpu_compile(c, strlen(c), true, &compiled, &log));
  free(log);
  if (!compiled.bytes) return;
  size_t size = compiled.size;
  uint8_t *bytes = malloc(size), recorded[32];
  memcpy(bytes, compiled.bytes, size);
  agpu_sha256(bytes, size, recorded);
  CHECK(memcmp(recorded, compiled.digest, 32) == 0); /* what was loaded is what is stored */
  agpu_cpu_unload(&compiled);

  agpu_cpu_object object;
  CHECK_OK(agpu_cpu_load(bytes, size, recorded, &object));
  int *probe = object.handle ? dlsym(object.handle, "anygpu_probe") : NULL;
  CHECK(probe && *probe == 42);
  agpu_cpu_unload(&object);

  uint8_t wrong[32];
  memcpy(wrong, recorded, 32);
  wrong[31] ^= 1;
  CHECK_STATUS(agpu_cpu_load(bytes, size, wrong, &object), AGPU_ERROR_INTERNAL);
  CHECK_MESSAGE("not loaded");
  CHECK(object.handle == NULL && !object.has_fd);
  bytes[size / 2] ^= 0x40; /* the bytes changed after the digest was recorded */
  CHECK_STATUS(agpu_cpu_load(bytes, size, recorded, &object), AGPU_ERROR_INTERNAL);
  CHECK(object.handle == NULL);
  free(bytes);
}

static void builds_work_uncached_when_the_directory_is_refused(void) {
  if (!cpu_backend_here()) SKIP("no CPU backend: %s", agpu_last_error());
  char dir[256];
  use_cache_dir("refused-build", dir, sizeof dir);
  CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 0777) == 0);
  build_result r = build_and_run("-DFACTOR=5");
  CHECK(r.ok && r.correct && !r.from_cache);
  build_result again = build_and_run("-DFACTOR=5");
  CHECK(again.ok && again.correct && !again.from_cache);
  CHECK(strcmp(r.digest, again.digest) == 0);
}

/* The names in a directory, sorted and joined by spaces. */
static void names_in(const char *dir_path, char *out, size_t out_size) {
  char *names[64];
  int count = 0;
  DIR *dir = opendir(dir_path);
  for (struct dirent *e; dir && (e = readdir(dir)) && count < 64;)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) names[count++] = strdup(e->d_name);
  if (dir) closedir(dir);
  for (int i = 0; i < count; i++)
    for (int j = i + 1; j < count; j++)
      if (strcmp(names[j], names[i]) < 0) {
        char *t = names[i];
        names[i] = names[j];
        names[j] = t;
      }
  out[0] = '\0';
  size_t length = 0;
  for (int i = 0; i < count; i++) {
    length += (size_t)snprintf(out + length, out_size - length, "%s%s", i ? " " : "", names[i]);
    if (length >= out_size) length = out_size - 1;
    free(names[i]);
  }
}

static void write_file(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

/* ANYGPU_CACHE_DIR pointed at a directory of the user's ($HOME, a project
 * folder): refused, its mode (0755) unchanged, nothing written in it, and
 * builds still work, uncached (issue 33, item 7). */
static void a_directory_with_the_users_files_is_left_alone(void) {
  char dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE], names[1024];
  key_of("users-files", hex);
  use_cache_dir("users-files", dir, sizeof dir);
  CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 0755) == 0);
  write_file(dir, "notes.txt", "the user's\n");
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_REFUSED);
  const char *why = agpu_cache_last_reason();
  CHECK(strstr(why, dir) && strstr(why, "not anygpu's") && strstr(why, "notes.txt") &&
        strstr(why, "0755") && strstr(why, "ANYGPU_CACHE_DIR"));
  CHECK(mode_of(dir) == 0755);
  CHECK_OK(agpu_cache_store(hex, "x", 1)); /* uncached, not failed */
  CHECK(!hits(hex, "x"));
  if (cpu_backend_here()) {
    build_result r = build_and_run("-DFACTOR=7");
    CHECK(r.ok && r.correct && !r.from_cache);
  }
  names_in(dir, names, sizeof names);
  CHECK(strcmp(names, "notes.txt") == 0);
  CHECK(mode_of(dir) == 0755);

  /* another program's cache directory tag is not anygpu's */
  use_cache_dir("other-tag", dir, sizeof dir);
  CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 0750) == 0);
  write_file(dir, "CACHEDIR.TAG",
             "Signature: 8a477f597d28d172789f06886806bc55\n# created by another tool\n");
  write_file(dir, "data", "x");
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_REFUSED);
  CHECK(mode_of(dir) == 0750);
  CHECK_OK(agpu_cache_store(hex, "x", 1));
  names_in(dir, names, sizeof names);
  CHECK(strcmp(names, "CACHEDIR.TAG data") == 0);
}

/* A directory holding only anygpu's files (an older anygpu's, untagged) is
 * anygpu's: tightened, tagged and used; so is an empty one. */
static void a_directory_of_only_entries_is_adopted(void) {
  char dir[256], hex[AGPU_CACHE_KEY_HEX_SIZE], names[1024], tag[512];
  key_of("adopted", hex);
  use_cache_dir("adopted", dir, sizeof dir);
  CHECK(mkdir(dir, 0700) == 0);
  CHECK_OK(agpu_cache_store(hex, "abc", 3));
  snprintf(tag, sizeof tag, "%s/CACHEDIR.TAG", dir);
  CHECK(exists(tag));
  CHECK(unlink(tag) == 0 && chmod(dir, 0755) == 0);
  write_file(dir, ".0123456789abcdef.12.34.5.678.tmp", ""); /* a store's, interrupted */
  write_file(dir, "bench-sgemm.txt", "key\tvariant\n");     /* anygpu bench's tuning */
  CHECK(agpu_cache_check(NULL, 0) == AGPU_CACHE_ENABLED);
  CHECK(mode_of(dir) == 0700);
  CHECK(exists(tag) && mode_of(tag) == 0600);
  CHECK(hits(hex, "abc"));
  names_in(dir, names, sizeof names);
  CHECK(strstr(names, "CACHEDIR.TAG") != NULL);
}

static build_result thread_results[THREADS];

static void *build_thread(void *arg) {
  thread_results[(intptr_t)arg] = build_and_run("-DFACTOR=11");
  return NULL;
}

static int stray_files(const char *dir_path) {
  DIR *dir = opendir(dir_path);
  int strays = 0;
  for (struct dirent *e; dir && (e = readdir(dir));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (!strcmp(e->d_name, "CACHEDIR.TAG")) continue; /* the cache's own tag */
    if (strlen(e->d_name) != 68 || strcmp(e->d_name + 64, ".bin") != 0) strays++;
  }
  if (dir) closedir(dir);
  return strays;
}

static void concurrent_builds_give_one_binary(void) {
  if (!cpu_backend_here()) SKIP("no CPU backend: %s", agpu_last_error());
  char dir[256], entry[512];
  use_cache_dir("concurrent", dir, sizeof dir);
  pthread_t threads[THREADS];
  for (intptr_t i = 0; i < THREADS; i++)
    CHECK(pthread_create(&threads[i], NULL, build_thread, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  for (int i = 0; i < THREADS; i++) {
    CHECK(thread_results[i].ok && thread_results[i].correct);
    CHECK(strcmp(thread_results[i].digest, thread_results[0].digest) == 0);
  }
  CHECK(only_entry(dir, entry, sizeof entry));
  CHECK(stray_files(dir) == 0);

  /* four processes at once, on a fresh directory: all miss, compile, store */
  use_cache_dir("concurrent-processes", dir, sizeof dir);
  fflush(stdout);
  child children[PROCESSES];
  for (int i = 0; i < PROCESSES; i++) children[i] = spawn_child("-DFACTOR=11");
  int from_cache = 0;
  for (int i = 0; i < PROCESSES; i++) {
    child_result r = wait_child(children[i]);
    CHECK(r.ok && r.correct);
    CHECK(strcmp(r.digest, thread_results[0].digest) == 0);
    from_cache += r.from_cache;
  }
  printf("  4 processes: %d loaded the entry another had stored, %d compiled\n", from_cache,
         PROCESSES - from_cache);
  CHECK(only_entry(dir, entry, sizeof entry));
  CHECK(stray_files(dir) == 0);
  child_result later = run_child("-DFACTOR=11");
  CHECK(later.ok && later.correct && later.from_cache &&
        strcmp(later.digest, thread_results[0].digest) == 0);
}

/* -------------------------------------------------------------------- main */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  return remove(path);
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--child")) return child_main(argv[2]);
  char *saved_dir = getenv("ANYGPU_CACHE_DIR") ? strdup(getenv("ANYGPU_CACHE_DIR")) : NULL;
  snprintf(test_root, sizeof test_root, "/tmp/anygpu-cache-security-XXXXXX");
  if (!mkdtemp(test_root)) {
    printf("mkdtemp failed: %s\n", strerror(errno));
    return 1;
  }
  RUN(our_loose_modes_are_tightened);
  RUN(refusals_name_the_directory_its_owner_and_mode);
  RUN(a_directory_of_another_user_is_refused);
  RUN(symlinked_directories);
  RUN(a_directory_link_of_another_user_is_not_followed);
  RUN(planted_directory_link_as_an_entry);
  RUN(loader_checks_the_recorded_digest);
  RUN(tampered_shared_object_is_not_loaded);
  RUN(builds_work_uncached_when_the_directory_is_refused);
  RUN(a_directory_with_the_users_files_is_left_alone);
  RUN(a_directory_of_only_entries_is_adopted);
  RUN(concurrent_builds_give_one_binary);
  nftw(test_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (saved_dir) setenv("ANYGPU_CACHE_DIR", saved_dir, 1);
  free(saved_dir);
  return agpu_test_finish();
}
