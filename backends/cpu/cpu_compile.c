// SPDX-License-Identifier: Apache-2.0
/* The CPU backend's compiler driver: finds the system C compiler at run time
 * ($CC, then cc, gcc, clang on PATH), compiles the host-C translation of a
 * program into a shared object in a private temporary directory (mkdtemp,
 * 0700), and loads shared objects (compiled or from the cache) only through
 * an anonymous file whose SHA-256 is checked against the one recorded when
 * the bytes were written (agpu_cpu_load). No shell is involved: the compiler
 * runs through posix_spawn with an argument vector, its output captured
 * through a pipe for the build log. */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agpu_sha256.h"
#include "cpu_internal.h"

extern char **environ;

#define AGPU_CPU_MAX_CC_ARGS 16
#define AGPU_CPU_LOG_LIMIT (256u << 10)

/* The flags every translation is compiled with, after -march (the host's
 * CPU, or $ANYGPU_CPU_MARCH: x86-64-v2 and x86-64-v3 let a test run the
 * code an older host would get). -ffp-contract=off keeps
 * a*b+c two roundings (as the scalar references and PoCL's results within
 * tolerance); -fwrapv gives signed overflow the wraparound that OpenCL
 * devices show; -fno-math-errno and -fno-trapping-math change no result. */
static const char *const agpu_cpu_cflags[] = {"-O3",
                                              "-fPIC",
                                              "-shared",
                                              "-std=c11",
                                              "-ffp-contract=off",
                                              "-fwrapv",
                                              "-fno-math-errno",
                                              "-fno-trapping-math",
                                              "-fvisibility=hidden",
                                              "-w",
                                              NULL};

typedef struct agpu_cpu_compiler {
  bool found;
  char path[PATH_MAX];                     /* the program run */
  char *argv_prefix[AGPU_CPU_MAX_CC_ARGS]; /* path and any arguments given in $CC */
  int prefix_count;
  char storage[1024]; /* $CC's words */
  char march[80];     /* -march=native or -march=$ANYGPU_CPU_MARCH */
  char identity[PATH_MAX * 2 + 1024];
  char reason[512];
} agpu_cpu_compiler;

static agpu_cpu_compiler agpu_cpu_cc;
static pthread_once_t agpu_cpu_cc_once = PTHREAD_ONCE_INIT;

/* Copies a string, cut to fit. */
static void agpu_cpu_copy(char *out, size_t cap, const char *text) {
  size_t length = strlen(text);
  if (length >= cap) length = cap - 1;
  memcpy(out, text, length);
  out[length] = '\0';
}

/* An executable named `name`: a path as is, else searched on PATH. */
static bool agpu_cpu_find_program(const char *name, char *out, size_t cap) {
  if (strchr(name, '/')) {
    if (access(name, X_OK) != 0) return false;
    agpu_cpu_copy(out, cap, name);
    return true;
  }
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    size_t length = strcspn(path, ":");
    if (length > 0 && length + strlen(name) + 2 < cap) {
      memcpy(out, path, length);
      out[length] = '/';
      agpu_cpu_copy(out + length + 1, cap - length - 1, name);
      struct stat st;
      if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0) return true;
    }
    path += length;
    if (*path == ':') path++;
  }
  return false;
}

/* -march=native, or the CPU that $ANYGPU_CPU_MARCH names (letters, digits,
 * '-', '_' and '.' only: it becomes a compiler argument). */
static bool agpu_cpu_choose_march(agpu_cpu_compiler *cc) {
  const char *name = getenv("ANYGPU_CPU_MARCH");
  if (!name || !*name) name = "native";
  bool valid = strlen(name) < sizeof cc->march - 8;
  for (const char *c = name; *c && valid; c++)
    valid = isalnum((unsigned char)*c) || *c == '-' || *c == '_' || *c == '.';
  if (!valid) {
    cc->found = false;
    snprintf(cc->reason, sizeof cc->reason,
             "ANYGPU_CPU_MARCH is '%.100s', which is not a CPU name for -march "
             "(x86-64-v2, x86-64-v3, native ...)",
             name);
    return false;
  }
  snprintf(cc->march, sizeof cc->march, "-march=%s", name);
  return true;
}

/* The SHA-256 of this CPU's model name and feature flags (/proc/cpuinfo's
 * first processor), or of "unknown" where that cannot be read. */
static void agpu_cpu_host_signature(char hex[AGPU_SHA256_HEX_SIZE]) {
  agpu_sha256_ctx sha;
  agpu_sha256_init(&sha);
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[8192];
  int seen = 0;
  while (f && seen < 2 && fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0 || strncmp(line, "flags", 5) == 0) {
      agpu_sha256_update(&sha, line, strlen(line));
      seen++;
    }
  }
  if (f) fclose(f);
  if (!seen) agpu_sha256_update(&sha, "unknown", 7);
  uint8_t digest[AGPU_SHA256_DIGEST_SIZE];
  agpu_sha256_final(&sha, digest);
  agpu_sha256_hex(digest, hex);
}

static void agpu_cpu_find_compiler(void) {
  agpu_cpu_compiler *cc = &agpu_cpu_cc;
  const char *env = getenv("CC");
  if (env && *env) {
    /* $CC may carry arguments ("gcc -m64"): split on blanks, no shell. */
    agpu_cpu_copy(cc->storage, sizeof cc->storage, env);
    char *save = NULL;
    for (char *word = strtok_r(cc->storage, " \t", &save);
         word && cc->prefix_count < AGPU_CPU_MAX_CC_ARGS - 1; word = strtok_r(NULL, " \t", &save))
      cc->argv_prefix[cc->prefix_count++] = word;
    if (cc->prefix_count > 0 &&
        agpu_cpu_find_program(cc->argv_prefix[0], cc->path, sizeof cc->path))
      cc->found = true;
    else
      snprintf(cc->reason, sizeof cc->reason, "$CC is '%s', which is not an executable program",
               env);
  } else {
    static const char *const names[] = {"cc", "gcc", "clang"};
    for (int i = 0; i < 3 && !cc->found; i++)
      if (agpu_cpu_find_program(names[i], cc->path, sizeof cc->path)) cc->found = true;
    if (!cc->found)
      snprintf(cc->reason, sizeof cc->reason,
               "no C compiler found: set CC or install one of cc, gcc, clang on PATH");
    cc->prefix_count = 0;
  }
  if (!cc->found) return;
  if (!agpu_cpu_choose_march(cc)) return;
  cc->argv_prefix[0] = cc->path;
  if (cc->prefix_count == 0) cc->prefix_count = 1;
  /* The compiler's identity without running it (a build that hits the cache
   * must stay well under a millisecond): the resolved program and its file's
   * size, inode and modification time, which change when it is upgraded. */
  char real[PATH_MAX];
  if (!realpath(cc->path, real)) agpu_cpu_copy(real, sizeof real, cc->path);
  struct stat st;
  memset(&st, 0, sizeof st);
  stat(real, &st);
  int used = snprintf(cc->identity, sizeof cc->identity, "%s|%s|%lld|%llu|%lld.%09ld|", cc->path,
                      real, (long long)st.st_size, (unsigned long long)st.st_ino,
                      (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
  for (int i = 1; i < cc->prefix_count && used > 0 && (size_t)used < sizeof cc->identity; i++)
    used += snprintf(cc->identity + used, sizeof cc->identity - (size_t)used, "%s ",
                     cc->argv_prefix[i]);
  for (int i = 0; agpu_cpu_cflags[i] && used > 0 && (size_t)used < sizeof cc->identity; i++)
    used += snprintf(cc->identity + used, sizeof cc->identity - (size_t)used, "%s ",
                     agpu_cpu_cflags[i]);
  /* -march=native means this CPU: a cache shared with another host (a
   * network home) must not hand it code for instructions it lacks */
  char cpu[AGPU_SHA256_HEX_SIZE];
  agpu_cpu_host_signature(cpu);
  if (used > 0 && (size_t)used < sizeof cc->identity)
    snprintf(cc->identity + used, sizeof cc->identity - (size_t)used, "%.79s cpu=%.64s", cc->march,
             cpu);
}

const char *agpu_cpu_compiler_identity(void) {
  pthread_once(&agpu_cpu_cc_once, agpu_cpu_find_compiler);
  if (!agpu_cpu_cc.found) {
    agpu_error_set(AGPU_ERROR_UNSUPPORTED, "cpu: %s", agpu_cpu_cc.reason);
    return NULL;
  }
  return agpu_cpu_cc.identity;
}

/* A fresh private directory for one build. */
static agpu_status agpu_cpu_make_dir(char *dir, size_t cap) {
  const char *base = getenv("TMPDIR");
  if (!base || !*base) base = "/tmp";
  snprintf(dir, cap, "%s/anygpu-cpu-XXXXXX", base);
  if (!mkdtemp(dir))
    return agpu_error_set(AGPU_ERROR_BACKEND, "cpu: mkdtemp(%s) failed: %s", dir, strerror(errno));
  return AGPU_SUCCESS;
}

static agpu_status agpu_cpu_write_file(const char *path, const void *data, size_t size) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return agpu_error_set(AGPU_ERROR_BACKEND, "cpu: cannot create %s: %s", path, strerror(errno));
  const char *p = data;
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int saved = errno;
      close(fd);
      return agpu_error_set(AGPU_ERROR_BACKEND, "cpu: writing %s failed: %s", path,
                            strerror(saved));
    }
    p += n;
    size -= (size_t)n;
  }
  if (close(fd) != 0)
    return agpu_error_set(AGPU_ERROR_BACKEND, "cpu: writing %s failed: %s", path, strerror(errno));
  return AGPU_SUCCESS;
}

/* Reads a whole regular file through a descriptor opened without following
 * a link. */
static bool agpu_cpu_read_file(int dir_fd, const char *name, void **data, size_t *size) {
  int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    close(fd);
    return false;
  }
  size_t want = (size_t)st.st_size, got = 0;
  char *buffer = malloc(want);
  while (buffer && got < want) {
    ssize_t n = read(fd, buffer + got, want - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd);
  if (!buffer || got != want) {
    free(buffer);
    return false;
  }
  *data = buffer;
  *size = want;
  return true;
}

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* Linux 6.3: ask for an executable memfd where the policy allows it */
#endif

/* An anonymous file holding `bytes`, reachable by no path: a memfd sealed
 * against any further change, or where memfd is refused (an old kernel, or
 * vm.memfd_noexec=2) a temporary file unlinked as soon as it is created. */
static int agpu_cpu_anonymous_file(const void *bytes, size_t size) {
  int fd = memfd_create("anygpu-cpu-kernels", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  if (fd < 0 && errno == EINVAL)
    fd = memfd_create("anygpu-cpu-kernels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd >= 0) {
    if (agpu_write_all(fd, bytes, size) &&
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0)
      return fd;
    close(fd);
  }
  char dir[PATH_MAX - 32];
  if (agpu_cpu_make_dir(dir, sizeof dir) != AGPU_SUCCESS) return -1;
  int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  fd = dir_fd < 0
           ? -1
           : openat(dir_fd, "kernels.so", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) unlinkat(dir_fd, "kernels.so", 0);
  if (dir_fd >= 0) close(dir_fd);
  rmdir(dir);
  if (fd >= 0 && !agpu_write_all(fd, bytes, size)) {
    close(fd);
    fd = -1;
  }
  return fd;
}

/* The SHA-256 of what the descriptor holds now, read through it. */
static bool agpu_cpu_hash_fd(int fd, size_t size, uint8_t digest[AGPU_SHA256_DIGEST_SIZE]) {
  agpu_sha256_ctx sha;
  agpu_sha256_init(&sha);
  uint8_t chunk[65536];
  off_t offset = 0;
  for (;;) {
    ssize_t n = pread(fd, chunk, sizeof chunk, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    agpu_sha256_update(&sha, chunk, (size_t)n);
    offset += n;
  }
  agpu_sha256_final(&sha, digest);
  return (size_t)offset == size;
}

/* dlopen of exactly the bytes whose SHA-256 is `recorded` (see docs/cache.md,
 * "The CPU backend's shared objects"): the bytes go into an anonymous file,
 * sealed where the kernel allows; the file is hashed through its descriptor;
 * and the loader opens that same file through /proc/self/fd/N, a link to the
 * open file itself, not to a path anyone could swap. The descriptor stays
 * open while the object is loaded: glibc recognises an already loaded object
 * by the name it was opened by, so no two loaded objects may share one
 * /proc/self/fd/N name. */
agpu_status agpu_cpu_load(const void *bytes, size_t size,
                          const uint8_t recorded[AGPU_SHA256_DIGEST_SIZE],
                          agpu_cpu_object *object) {
  memset(object, 0, sizeof *object);
  int fd = agpu_cpu_anonymous_file(bytes, size);
  if (fd < 0)
    return agpu_error_set(AGPU_ERROR_BACKEND,
                          "cpu: cannot make a private file for the compiled kernels: %s",
                          strerror(errno));
  uint8_t digest[AGPU_SHA256_DIGEST_SIZE];
  if (!agpu_cpu_hash_fd(fd, size, digest) || memcmp(digest, recorded, sizeof digest) != 0) {
    close(fd);
    return agpu_error_set(AGPU_ERROR_INTERNAL,
                          "cpu: the compiled kernels' SHA-256 is not the one recorded when they "
                          "were written: not loaded");
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  object->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!object->handle) {
    const char *why = dlerror();
    close(fd);
    return agpu_error_set(
        AGPU_ERROR_INTERNAL, "cpu: dlopen of the compiled kernels (%s) failed: %s%s", path,
        why ? why : "unknown error",
        access("/proc/self/fd", X_OK) != 0 ? " (the CPU backend needs /proc)" : "");
  }
  agpu_cpu_stream_setup(object->handle); /* before any of its kernels runs */
  object->has_fd = true;
  object->fd = fd;
  memcpy(object->digest, digest, sizeof digest);
  return AGPU_SUCCESS;
}

void agpu_cpu_unload(agpu_cpu_object *object) {
  if (object->handle) dlclose(object->handle);
  if (object->has_fd) close(object->fd); /* after dlclose: see agpu_cpu_load */
  free(object->bytes);
  memset(object, 0, sizeof *object);
}

/* Runs argv with stdout and stderr into *log; the exit status in *code. */
static agpu_status agpu_cpu_spawn(char *const argv[], const char *dir, char **log, int *code) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return agpu_error_set(AGPU_ERROR_BACKEND, "cpu: pipe failed: %s", strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  /* in the build's directory, with relative names: the object then holds no
   * temporary path, and one source always gives the same bytes */
  posix_spawn_file_actions_addchdir_np(&actions, dir);
  pid_t pid;
  int failed = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (failed) {
    close(fds[0]);
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED, "cpu: cannot run the C compiler %s: %s", argv[0],
                          strerror(failed));
  }
  size_t used = 0, cap = 4096;
  char *text = malloc(cap);
  char chunk[4096];
  for (;;) {
    ssize_t n = read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (!text || used + (size_t)n + 1 > AGPU_CPU_LOG_LIMIT) continue; /* drain, keep the start */
    if (used + (size_t)n + 1 > cap) {
      while (used + (size_t)n + 1 > cap) cap *= 2;
      char *grown = realloc(text, cap);
      if (!grown) continue;
      text = grown;
    }
    memcpy(text + used, chunk, (size_t)n);
    used += (size_t)n;
  }
  close(fds[0]);
  if (text) text[used] = '\0';
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      status = -1;
      break;
    }
  }
  *code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  if (text && used == 0) {
    free(text);
    text = NULL;
  }
  *log = text;
  return AGPU_SUCCESS;
}

agpu_status agpu_cpu_compile(const char *source, size_t length, bool keep_bytes,
                             agpu_cpu_object *object, char **log) {
  memset(object, 0, sizeof *object);
  *log = NULL;
  if (!agpu_cpu_compiler_identity()) return AGPU_ERROR_UNSUPPORTED;
  const agpu_cpu_compiler *cc = &agpu_cpu_cc;
  char dir[PATH_MAX - 32], c_path[PATH_MAX];
  agpu_status status = agpu_cpu_make_dir(dir, sizeof dir);
  if (status != AGPU_SUCCESS) return status;
  snprintf(c_path, sizeof c_path, "%s/kernels.c", dir);
  status = agpu_cpu_write_file(c_path, source, length);
  if (status == AGPU_SUCCESS) {
    char *argv[AGPU_CPU_MAX_CC_ARGS + 32];
    int argc = 0;
    for (int i = 0; i < cc->prefix_count; i++) argv[argc++] = cc->argv_prefix[i];
    argv[argc++] = (char *)cc->march;
    for (int i = 0; agpu_cpu_cflags[i]; i++) argv[argc++] = (char *)agpu_cpu_cflags[i];
    argv[argc++] = "-o";
    argv[argc++] = "kernels.so";
    argv[argc++] = "kernels.c";
    argv[argc++] = "-lm";
    argv[argc] = NULL;
    int code = 0;
    status = agpu_cpu_spawn(argv, dir, log, &code);
    const char *trouble = status == AGPU_SUCCESS && code != 0 && *log ? *log : "";
    if (status == AGPU_SUCCESS && code != 0 &&
        (strstr(trouble, strerror(EMFILE)) || strstr(trouble, strerror(ENFILE)))) {
      /* the compiler, not the code: it inherits this process's limit */
      struct rlimit limit;
      char limit_text[64] = "unknown";
      if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        snprintf(limit_text, sizeof limit_text, "%llu", (unsigned long long)limit.rlim_cur);
      status = agpu_error_set(AGPU_ERROR_BACKEND,
                              "cpu: the C compiler (%s) ran out of file descriptors (\"%s\"; "
                              "this process's limit, which it inherits, is %s: raise it, ulimit "
                              "-n, or close files):\n%s",
                              cc->path, strerror(EMFILE), limit_text, *log);
    } else if (status == AGPU_SUCCESS && code != 0 &&
               (strstr(trouble, strerror(ENOSPC)) || strstr(trouble, strerror(EDQUOT)))) {
      status = agpu_error_set(AGPU_ERROR_BACKEND,
                              "cpu: the C compiler (%s) ran out of disk space in %s:\n%s", cc->path,
                              dir, *log);
    } else if (status == AGPU_SUCCESS && code != 0 &&
               (strstr(trouble, strerror(ENOMEM)) || strstr(trouble, "out of memory") ||
                strstr(trouble, "virtual memory exhausted"))) {
      status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY,
                              "cpu: the C compiler (%s) ran out of memory:\n%s", cc->path, *log);
    } else if (status == AGPU_SUCCESS && code != 0)
      status = agpu_error_set(AGPU_ERROR_INTERNAL,
                              "cpu: the C compiler (%s) rejected the generated code (exit %d); "
                              "this is a bug in the C translation:\n%s",
                              cc->path, code, *log ? *log : "(no output)");
  }
  /* The object is read once, through a descriptor, and what was read is what
   * is hashed, loaded and cached. */
  void *bytes = NULL;
  size_t size = 0;
  int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (status == AGPU_SUCCESS &&
      (dir_fd < 0 || !agpu_cpu_read_file(dir_fd, "kernels.so", &bytes, &size)))
    status = agpu_error_set(AGPU_ERROR_BACKEND, "cpu: cannot read the compiled %s/kernels.so", dir);
  if (dir_fd >= 0) {
    unlinkat(dir_fd, "kernels.c", 0);
    unlinkat(dir_fd, "kernels.so", 0);
    close(dir_fd);
  }
  rmdir(dir);
  if (status == AGPU_SUCCESS) {
    uint8_t digest[AGPU_SHA256_DIGEST_SIZE];
    agpu_sha256(bytes, size, digest);
    status = agpu_cpu_load(bytes, size, digest, object);
  }
  if (status == AGPU_SUCCESS && keep_bytes) {
    object->bytes = bytes;
    object->size = size;
  } else {
    free(bytes);
  }
  return status;
}
