// SPDX-License-Identifier: Apache-2.0
/* The native baselines: programs in the raw APIs (bench/native/), run for
 * the same device, size and iterations right after anygpu's figure.
 * Protocol: native_<backend> --device INDEX --size N --iterations K
 * --bench NAME prints one JSON object per line, {"benchmark", "value",
 * "unit"}, and exits 77 with a reason on stderr when its API or device is
 * not available. They are looked for in $ANYGPU_NATIVE_DIR, then
 * <anygpu's directory>/../bench/native (the build tree), then
 * <anygpu's directory>/../libexec/anygpu (an installed prefix). */
#define _GNU_SOURCE /* pipe2, readlink */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define NATIVE_TIMEOUT_S 120
#define NATIVE_OUTPUT_MAX 65536

static int native_directory_list(char dirs[3][4096]) {
  int count = 0;
  const char *env = getenv("ANYGPU_NATIVE_DIR");
  if (env && env[0]) snprintf(dirs[count++], 4096, "%s", env);
  char exe[4096];
  ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (length > 0) {
    exe[length] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      static const char *const relative[] = {"/../bench/native", "/../libexec/anygpu"};
      for (int r = 0; r < 2; r++) {
        char joined[4200], resolved[PATH_MAX];
        snprintf(joined, sizeof joined, "%.4000s%s", exe, relative[r]);
        /* Shown in messages: the resolved path where it exists. */
        snprintf(dirs[count++], 4096, "%.4000s", realpath(joined, resolved) ? resolved : joined);
      }
    }
  }
  return count;
}

void bench_native_directories(char *out, size_t capacity) {
  char dirs[3][4096];
  int count = native_directory_list(dirs);
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < count && used < capacity; i++) {
    int written = snprintf(out + used, capacity - used, "%s%s", i ? ", " : "", dirs[i]);
    if (written < 0) break;
    used += (size_t)written;
  }
}

static bool native_find(const char *program, char *path, size_t capacity) {
  char dirs[3][4096];
  int count = native_directory_list(dirs);
  for (int i = 0; i < count; i++) {
    snprintf(path, capacity, "%.4000s/%s", dirs[i], program);
    struct stat info;
    if (stat(path, &info) == 0 && S_ISREG(info.st_mode) && access(path, X_OK) == 0) return true;
  }
  return false;
}

/* Reads everything from fd until EOF or the deadline; false on timeout. */
static bool native_drain(int fd, char *buffer, size_t capacity, size_t *used, double deadline) {
  while (true) {
    double left = deadline - bench_seconds();
    if (left <= 0) return false;
    struct pollfd watch = {.fd = fd, .events = POLLIN};
    int ready = poll(&watch, 1, (int)(left * 1000) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return ready == 0 ? false : true;
    char chunk[4096];
    ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return true;
    size_t take = (size_t)got;
    if (*used + take >= capacity) take = capacity - 1 - *used;
    memcpy(buffer + *used, chunk, take);
    *used += take;
    buffer[*used] = '\0';
  }
}

/* Runs argv with stdout and stderr captured (stderr to a temporary file).
 * The exit status, or -1 with `why` set. */
static int native_spawn(char *const argv[], char *out, size_t out_size, char *err, size_t err_size,
                        char *why, size_t why_size) {
  int pipe_fds[2];
  out[0] = err[0] = '\0';
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    snprintf(why, why_size, "pipe: %s", strerror(errno));
    return -1;
  }
  char err_path[] = "/tmp/anygpu-native-XXXXXX";
  int err_fd = mkstemp(err_path);
  if (err_fd >= 0) unlink(err_path);
  fflush(NULL);
  pid_t child = fork();
  if (child < 0) {
    snprintf(why, why_size, "fork: %s", strerror(errno));
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    if (err_fd >= 0) close(err_fd);
    return -1;
  }
  if (child == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    if (err_fd >= 0) dup2(err_fd, STDERR_FILENO);
    execv(argv[0], argv);
    _exit(127);
  }
  close(pipe_fds[1]);
  size_t used = 0;
  bool finished =
      native_drain(pipe_fds[0], out, out_size, &used, bench_seconds() + NATIVE_TIMEOUT_S);
  close(pipe_fds[0]);
  if (!finished) kill(child, SIGKILL);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (err_fd >= 0) {
    ssize_t got = pread(err_fd, err, err_size - 1, 0);
    err[got > 0 ? got : 0] = '\0';
    close(err_fd);
  }
  if (!finished) {
    snprintf(why, why_size, "timed out after %d s", NATIVE_TIMEOUT_S);
    return -1;
  }
  if (WIFSIGNALED(status)) {
    snprintf(why, why_size, "killed by signal %d", WTERMSIG(status));
    return -1;
  }
  return WEXITSTATUS(status);
}

/* The string value of "key" in a one-line JSON object. */
static bool json_line_string(const char *line, const char *key, char *out, size_t capacity) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\"", key);
  const char *at = strstr(line, pattern);
  if (!at) return false;
  at += strlen(pattern);
  while (*at == ' ' || *at == ':') at++;
  if (*at != '"') return false;
  at++;
  size_t length = strcspn(at, "\"");
  if (length >= capacity) length = capacity - 1;
  memcpy(out, at, length);
  out[length] = '\0';
  return true;
}

static bool json_line_number(const char *line, const char *key, double *value) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\"", key);
  const char *at = strstr(line, pattern);
  if (!at) return false;
  at += strlen(pattern);
  while (*at == ' ' || *at == ':') at++;
  char *end = NULL;
  *value = strtod(at, &end);
  return end != at;
}

static void native_trim(char *text) {
  text[strcspn(text, "\n")] = '\0';
}

/* Runs one program; true when it gave the figure. */
static bool native_try(const bench_device *device, bench_result *result, const char *program,
                       const char *benchmark, const char *wanted, uint64_t size,
                       uint32_t iterations, char *note, size_t note_size) {
  char path[4200];
  if (!native_find(program, path, sizeof path)) {
    char dirs[8192];
    bench_native_directories(dirs, sizeof dirs);
    snprintf(note, note_size, "no %s in %.400s", program, dirs);
    return false;
  }
  char index[16], size_text[32], iterations_text[16];
  snprintf(index, sizeof index, "%u", device->info.index);
  snprintf(size_text, sizeof size_text, "%llu", (unsigned long long)size);
  snprintf(iterations_text, sizeof iterations_text, "%u", iterations);
  char *argv[] = {path,           "--device",      index,     "--size",          size_text,
                  "--iterations", iterations_text, "--bench", (char *)benchmark, NULL};
  char *out = malloc(NATIVE_OUTPUT_MAX), err[2048], why[256] = "";
  if (!out) {
    snprintf(note, note_size, "out of host memory");
    return false;
  }
  int status = native_spawn(argv, out, NATIVE_OUTPUT_MAX, err, sizeof err, why, sizeof why);
  native_trim(err);
  bool found = false;
  if (status == 77) {
    snprintf(note, note_size, "%s: not available: %s", program, err[0] ? err : "(no reason given)");
  } else if (status != 0) {
    if (why[0])
      snprintf(note, note_size, "%s failed: %s: %s", program, why, err[0] ? err : "no message");
    else
      snprintf(note, note_size, "%s failed with exit status %d: %s", program, status,
               err[0] ? err : "no message");
  } else {
    for (char *save = NULL, *line = strtok_r(out, "\n", &save); line && !found;
         line = strtok_r(NULL, "\n", &save)) {
      char name[64], unit[32];
      double value;
      if (!json_line_string(line, "benchmark", name, sizeof name) || strcmp(name, wanted) != 0)
        continue;
      if (!json_line_number(line, "value", &value) ||
          !json_line_string(line, "unit", unit, sizeof unit)) {
        snprintf(note, note_size, "%s printed a %s line without value or unit", program, wanted);
        break;
      }
      if (strcmp(unit, result->unit) != 0) {
        snprintf(note, note_size, "%s gave %s in %s, not %s", program, wanted, unit, result->unit);
        break;
      }
      if (!(value > 0) || !isfinite(value)) {
        snprintf(note, note_size, "%s gave %s = %g", program, wanted, value);
        break;
      }
      result->native = value;
      snprintf(result->native_program, sizeof result->native_program, "%s", program);
      snprintf(note, note_size, "%s --device %s --size %s --iterations %s --bench %s", program,
               index, size_text, iterations_text, benchmark);
      found = true;
    }
    if (!found && !note[0]) snprintf(note, note_size, "%s printed no %s figure", program, wanted);
  }
  free(out);
  return found;
}

void bench_native(const bench_device *device, bench_result *result, const char *benchmark,
                  uint64_t size, uint32_t iterations) {
  const char *wanted = strcmp(benchmark, "roundtrip") == 0 ? "launch_roundtrip" : benchmark;
  const char *programs[4];
  int count = 0;
  char own[48];
  snprintf(own, sizeof own, "native_%s", device->info.backend_name);
  if (strcmp(benchmark, "sgemm") == 0) { /* the vendor's BLAS through the same API first */
    if (device->info.backend == AGPU_BACKEND_OPENCL) programs[count++] = "native_clblast";
    if (device->info.backend == AGPU_BACKEND_CUDA) programs[count++] = "native_cublas";
    if (device->info.type == AGPU_DEVICE_TYPE_CPU) programs[count++] = "native_openblas";
  }
  programs[count++] = own;
  char notes[4][512];
  for (int i = 0; i < count; i++) {
    notes[i][0] = '\0';
    if (native_try(device, result, programs[i], benchmark, wanted, size, iterations, notes[i],
                   sizeof notes[i])) {
      snprintf(result->native_note, sizeof result->native_note, "%.500s", notes[i]);
      return;
    }
  }
  snprintf(result->native_note, sizeof result->native_note, "%.500s", notes[0]);
}
