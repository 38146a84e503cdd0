// SPDX-License-Identifier: Apache-2.0
/* hiprtc, run in a child process.
 *
 * hiprtc can take the caller down with it: ROCm 5.2's crashes the process
 * (SIGSEGV, not an error code) on targets it does not know, such as gfx940,
 * gfx942 and gfx1100, and a compiler can hang. So every compile runs in a
 * forked child, which sends the code object and the log back through a pipe;
 * the parent waits with a deadline, kills the child when it passes, and turns
 * a child killed by a signal into a message naming the signal and target.
 *
 * Why fork rather than spawning a helper program: the library then needs no
 * executable installed beside it (and found at run time), and the child
 * starts with hiprtc already loaded. The price is fork's rule for
 * multithreaded processes: only the calling thread exists in the child, and
 * a lock another thread held at the fork stays held there. The child calls
 * only hiprtc and write(): the parent never compiles (so no other thread holds
 * hiprtc's or LLVM's locks), glibc's fork leaves malloc usable in the child,
 * and if some other lock is held after all, the child hangs and the deadline
 * ends it: a clean error, never a hang of the caller. The child leaves with
 * _exit, running no atexit handlers or LeakSanitizer of the parent's. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hip_internal.h"

#define AGPU_HIP_RESULT_MAGIC 0x61677068u /* "hpga" */
#define AGPU_HIP_OUTPUT_KEEP 8192         /* bytes of the child's stderr kept */

/* What the child writes first; the log and the code follow. */
typedef struct agpu_hip_child_result {
  uint32_t magic;
  int32_t create_result;
  int32_t compile_result;
  int32_t code_result;
  uint64_t log_size;
  uint64_t code_size;
} agpu_hip_child_result;

bool agpu_hip_is_code_object(const void *data, size_t size) {
  static const char bundle[] = "__CLANG_OFFLOAD_BUNDLE__";
  if (size >= 4 && memcmp(data,
                          "\x7f"
                          "ELF",
                          4) == 0)
    return true;
  return size >= sizeof bundle - 1 && memcmp(data, bundle, sizeof bundle - 1) == 0;
}

void agpu_hip_code_free(agpu_hip_code *code) {
  free(code->code);
  free(code->log);
  memset(code, 0, sizeof *code);
}

/* ----------------------------------------------------------------- child */

static _Noreturn void agpu_hip_child(const agpu_hiprtc_api *rtc, const char *source,
                                     const char *name, const char *const options[],
                                     int option_count, int result_fd, int output_fd) {
  /* A crash must end the child by its signal, also where the parent (or a
   * sanitizer) installed handlers for it. */
  static const int deadly[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
  sigset_t unblock;
  sigemptyset(&unblock);
  for (size_t i = 0; i < sizeof deadly / sizeof deadly[0]; i++) {
    signal(deadly[i], SIG_DFL);
    sigaddset(&unblock, deadly[i]);
  }
  sigprocmask(SIG_UNBLOCK, &unblock, NULL);
  /* hiprtc and comgr may print; that goes to the parent, not the terminal. */
  dup2(output_fd, STDOUT_FILENO);
  dup2(output_fd, STDERR_FILENO);

  agpu_hip_child_result result = {.magic = AGPU_HIP_RESULT_MAGIC};
  agpu_hiprtcProgram program = NULL;
  char *log = NULL, *code = NULL;
  result.create_result = rtc->hiprtcCreateProgram(&program, source, name, 0, NULL, NULL);
  if (result.create_result == AGPU_HIPRTC_SUCCESS) {
    result.compile_result = rtc->hiprtcCompileProgram(program, option_count, options);
    size_t size = 0;
    if (rtc->hiprtcGetProgramLogSize(program, &size) == AGPU_HIPRTC_SUCCESS && size > 0 &&
        (log = malloc(size)) && rtc->hiprtcGetProgramLog(program, log) == AGPU_HIPRTC_SUCCESS)
      result.log_size = strnlen(log, size);
    if (result.compile_result == AGPU_HIPRTC_SUCCESS) {
      size = 0;
      result.code_result = rtc->hiprtcGetCodeSize(program, &size);
      if (result.code_result == AGPU_HIPRTC_SUCCESS && size > 0 && (code = malloc(size))) {
        result.code_result = rtc->hiprtcGetCode(program, code);
        if (result.code_result == AGPU_HIPRTC_SUCCESS) result.code_size = size;
      }
    }
  }
  bool sent = agpu_write_all(result_fd, &result, sizeof result) &&
              agpu_write_all(result_fd, log, result.log_size) &&
              agpu_write_all(result_fd, code, result.code_size);
  _exit(sent ? 0 : 3);
}

/* ---------------------------------------------------------------- parent */

typedef struct agpu_hip_bytes {
  char *data;
  size_t size, capacity;
  size_t limit; /* 0: keep everything; else keep the last `limit` bytes */
} agpu_hip_bytes;

static bool agpu_hip_append(agpu_hip_bytes *bytes, const char *data, size_t size) {
  if (bytes->limit && size > bytes->limit) {
    data += size - bytes->limit;
    size = bytes->limit;
  }
  if (bytes->limit && bytes->size + size > bytes->limit) {
    size_t drop = bytes->size + size - bytes->limit;
    memmove(bytes->data, bytes->data + drop, bytes->size - drop);
    bytes->size -= drop;
  }
  if (bytes->size + size + 1 > bytes->capacity) {
    size_t capacity = bytes->capacity ? bytes->capacity : 65536;
    while (capacity < bytes->size + size + 1) capacity *= 2;
    char *grown = realloc(bytes->data, capacity);
    if (!grown) return false;
    bytes->data = grown;
    bytes->capacity = capacity;
  }
  memcpy(bytes->data + bytes->size, data, size);
  bytes->size += size;
  bytes->data[bytes->size] = '\0';
  return true;
}

static int64_t agpu_hip_now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* The child, once it has ended: whether it was reaped (false while it runs,
 * and when SIGCHLD is ignored so that it reaped itself) and how it ended. */
typedef struct agpu_hip_child_end {
  bool reaped;
  int wait_status;
} agpu_hip_child_end;

static void agpu_hip_try_reap(pid_t child, bool block, agpu_hip_child_end *end) {
  if (end->reaped) return;
  pid_t waited;
  while ((waited = waitpid(child, &end->wait_status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
  }
  end->reaped = waited == child;
}

/* Reads what is in the pipe now, without waiting. false when out of memory. */
static bool agpu_hip_drain(int fd, agpu_hip_bytes *sink, char *chunk, size_t chunk_size) {
  for (;;) {
    ssize_t n = read(fd, chunk, chunk_size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true; /* EOF, or EAGAIN: nothing more */
    if (!agpu_hip_append(sink, chunk, (size_t)n)) return false;
  }
}

/* Reads both pipes until both close, or the child has ended and what it
 * wrote is read, or the deadline passes; false on a timeout (or out of
 * memory, with *oom set). Why not wait for the pipes to close alone: a child
 * that another thread of the caller's forks meanwhile (system(), a second
 * compile) inherits their write ends and keeps them open for as long as it
 * lives, so the end of our child is what decides. */
static bool agpu_hip_collect(pid_t child, int result_fd, int output_fd, unsigned timeout_ms,
                             agpu_hip_bytes *result, agpu_hip_bytes *output, bool *oom,
                             agpu_hip_child_end *end) {
  int64_t deadline = agpu_hip_now_ms() + timeout_ms;
  struct pollfd fds[2] = {{.fd = result_fd, .events = POLLIN}, {.fd = output_fd, .events = POLLIN}};
  agpu_hip_bytes *sinks[2] = {result, output};
  int open_count = 2;
  char chunk[65536];
  fcntl(result_fd, F_SETFL, fcntl(result_fd, F_GETFL) | O_NONBLOCK);
  fcntl(output_fd, F_SETFL, fcntl(output_fd, F_GETFL) | O_NONBLOCK);
  while (open_count > 0) {
    int64_t left = deadline - agpu_hip_now_ms();
    if (left <= 0) return false;
    int ready = poll(fds, 2, left > 100 ? 100 : (int)left);
    if (ready < 0 && errno != EINTR) return false;
    for (int i = 0; ready > 0 && i < 2; i++) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, chunk, sizeof chunk);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        fds[i].fd = -1;
        open_count--;
      } else if (!agpu_hip_append(sinks[i], chunk, (size_t)n)) {
        *oom = true;
        return false;
      }
    }
    if (open_count == 0) break;
    agpu_hip_try_reap(child, false, end);
    if (end->reaped) { /* all it wrote is in the pipes: it could not end while blocked */
      for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0 && !agpu_hip_drain(fds[i].fd, sinks[i], chunk, sizeof chunk)) {
          *oom = true;
          return false;
        }
      return true;
    }
  }
  return true;
}

static const char *agpu_hip_signal_name(int signal_number, char *buffer, size_t size) {
  static const struct {
    int number;
    const char *name;
  } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},
               {SIGILL, "SIGILL"},   {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"},
               {SIGTERM, "SIGTERM"}, {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"},
               {SIGPIPE, "SIGPIPE"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].number == signal_number) return names[i].name;
  snprintf(buffer, size, "signal %d", signal_number);
  return buffer;
}

static const char *agpu_hip_rtc_error(const agpu_hiprtc_api *rtc, int result) {
  const char *text = rtc->hiprtcGetErrorString ? rtc->hiprtcGetErrorString(result) : NULL;
  return text ? text : "hiprtc error";
}

static void agpu_hip_append_output(const agpu_hip_bytes *output) {
  size_t size = output->size;
  while (size > 0 && (output->data[size - 1] == '\n' || output->data[size - 1] == ' ')) size--;
  if (size) agpu_error_append("\nhiprtc's output:\n%.*s", (int)size, output->data);
}

static char *agpu_hip_copy(const char *data, size_t size) {
  char *copy = malloc(size + 1);
  if (copy) {
    memcpy(copy, data, size);
    copy[size] = '\0';
  }
  return copy;
}

/* Turns what the child sent into `out` and a status. */
static agpu_status agpu_hip_decode(const agpu_hiprtc_api *rtc, const char *name, const char *arch,
                                   const agpu_hip_bytes *result, const agpu_hip_bytes *output,
                                   agpu_hip_code *out) {
  agpu_hip_child_result header;
  if (result->size < sizeof header)
    return agpu_error_set(AGPU_ERROR_INTERNAL,
                          "hip: hiprtc's compile process for %s sent %zu bytes, not a result", arch,
                          result->size);
  memcpy(&header, result->data, sizeof header);
  if (header.magic != AGPU_HIP_RESULT_MAGIC ||
      result->size != sizeof header + header.log_size + header.code_size)
    return agpu_error_set(AGPU_ERROR_INTERNAL,
                          "hip: hiprtc's compile process for %s sent a malformed result", arch);
  const char *log = result->data + sizeof header;
  if (header.log_size) out->log = agpu_hip_copy(log, header.log_size);
  if (header.create_result != AGPU_HIPRTC_SUCCESS)
    return agpu_error_set(AGPU_ERROR_BUILD_FAILED,
                          "hip: hiprtcCreateProgram for %s failed: %s (%d)", name,
                          agpu_hip_rtc_error(rtc, header.create_result), (int)header.create_result);
  if (header.compile_result != AGPU_HIPRTC_SUCCESS) {
    agpu_error_set(AGPU_ERROR_BUILD_FAILED, "hip: hiprtc could not compile %s for %s: %s (%d)%s",
                   name, arch, agpu_hip_rtc_error(rtc, header.compile_result),
                   (int)header.compile_result, out->log ? ":\n" : " (hiprtc wrote no log)");
    if (out->log) agpu_error_append("%s", out->log);
    return AGPU_ERROR_BUILD_FAILED;
  }
  if (header.code_result != AGPU_HIPRTC_SUCCESS || header.code_size == 0) {
    agpu_error_set(AGPU_ERROR_BUILD_FAILED,
                   "hip: hiprtc compiled %s for %s but gave no code object: %s (%d)", name, arch,
                   agpu_hip_rtc_error(rtc, header.code_result), (int)header.code_result);
    agpu_hip_append_output(output);
    return AGPU_ERROR_BUILD_FAILED;
  }
  out->code = malloc(header.code_size);
  if (!out->code) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "hip: out of host memory");
  memcpy(out->code, log + header.log_size, header.code_size);
  out->code_size = header.code_size;
  return AGPU_SUCCESS;
}

static unsigned agpu_hip_timeout_ms(unsigned requested) {
  if (requested) return requested;
  const char *text = getenv("ANYGPU_HIPRTC_TIMEOUT_S");
  char *end = NULL;
  double seconds = text && *text ? strtod(text, &end) : 0.0;
  if (end && *end == '\0' && seconds > 0.0 && seconds < 86400.0)
    return (unsigned)(seconds * 1000.0);
  return AGPU_HIP_COMPILE_TIMEOUT_MS_DEFAULT;
}

agpu_status agpu_hip_compile(const agpu_hiprtc_api *rtc, const char *source, const char *name,
                             const char *arch, unsigned timeout_ms, agpu_hip_code *out) {
  memset(out, 0, sizeof *out);
  if (!name) name = "<source>";
  timeout_ms = agpu_hip_timeout_ms(timeout_ms);
  char arch_option[128];
  snprintf(arch_option, sizeof arch_option, "--offload-arch=%s", arch);
  const char *const options[] = {arch_option, "-std=c++17"};

  /* The pipes are made and the write ends closed under one lock, so that a
   * second compile's child, forked from another thread, never inherits
   * this one's write ends (agpu_hip_collect copes with other forks). */
  static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&fork_lock);
  int result_pipe[2], output_pipe[2];
  if (pipe2(result_pipe, O_CLOEXEC) != 0) {
    int error = errno;
    pthread_mutex_unlock(&fork_lock);
    return agpu_error_set(AGPU_ERROR_BACKEND, "hip: pipe for hiprtc failed: %s", strerror(error));
  }
  if (pipe2(output_pipe, O_CLOEXEC) != 0) {
    int error = errno;
    pthread_mutex_unlock(&fork_lock);
    close(result_pipe[0]);
    close(result_pipe[1]);
    return agpu_error_set(AGPU_ERROR_BACKEND, "hip: pipe for hiprtc failed: %s", strerror(error));
  }
  pid_t child = fork();
  if (child == 0) agpu_hip_child(rtc, source, name, options, 2, result_pipe[1], output_pipe[1]);
  int fork_error = errno;
  close(result_pipe[1]);
  close(output_pipe[1]);
  pthread_mutex_unlock(&fork_lock);
  if (child < 0) {
    close(result_pipe[0]);
    close(output_pipe[0]);
    return agpu_error_set(AGPU_ERROR_BACKEND, "hip: fork for hiprtc failed: %s",
                          strerror(fork_error));
  }

  agpu_hip_bytes result = {0}, output = {.limit = AGPU_HIP_OUTPUT_KEEP};
  bool oom = false;
  agpu_hip_child_end end = {0};
  bool finished = agpu_hip_collect(child, result_pipe[0], output_pipe[0], timeout_ms, &result,
                                   &output, &oom, &end);
  close(result_pipe[0]);
  close(output_pipe[0]);
  if (!finished && !end.reaped) kill(child, SIGKILL);
  agpu_hip_try_reap(child, true, &end);
  bool reaped = end.reaped; /* false when SIGCHLD is ignored: the child reaped itself */
  int wait_status = end.wait_status;

  agpu_status status;
  char signal_text[32];
  if (oom) {
    status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY,
                            "hip: out of host memory reading hiprtc's result");
  } else if (!finished) {
    status = agpu_error_set(AGPU_ERROR_BUILD_FAILED,
                            "hip: hiprtc did not finish compiling %s for %s within %.1f s and was "
                            "killed (ANYGPU_HIPRTC_TIMEOUT_S sets the limit)",
                            name, arch, timeout_ms / 1000.0);
    agpu_hip_append_output(&output);
  } else if (reaped && WIFSIGNALED(wait_status)) {
    status = agpu_error_set(
        AGPU_ERROR_BUILD_FAILED,
        "hip: hiprtc crashed (%s) compiling %s for %s: this ROCm's hiprtc (%s%s%s) does not "
        "support that target",
        agpu_hip_signal_name(WTERMSIG(wait_status), signal_text, sizeof signal_text), name, arch,
        rtc->library_name, rtc->version[0] ? ", hiprtcVersion " : "", rtc->version);
    agpu_hip_append_output(&output);
  } else if (reaped && WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0 &&
             result.size < sizeof(agpu_hip_child_result)) {
    status = agpu_error_set(AGPU_ERROR_BUILD_FAILED,
                            "hip: hiprtc's compile process for %s exited with status %d", arch,
                            WEXITSTATUS(wait_status));
    agpu_hip_append_output(&output);
  } else {
    status = agpu_hip_decode(rtc, name, arch, &result, &output, out);
  }
  free(result.data);
  free(output.data);
  if (status != AGPU_SUCCESS) {
    free(out->code);
    out->code = NULL;
    out->code_size = 0;
  }
  return status;
}
