// SPDX-License-Identifier: Apache-2.0
/* #include "file": finding, reading and tokenizing the file a directive
 * names (the preprocessor splices the tokens in), #pragma once, and the
 * limits. A quoted name is looked for next to the including file, then in
 * the include directories in order (kl_translate_options.include_dirs, then
 * the -I build options); an absolute name only as written. <name> names only
 * OpenCL's built-in headers, which the translator has built in. Only regular
 * files are read (never a FIFO or a device), at most KL_MAX_INCLUDE_BYTES in
 * all. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kl_front.h"

struct kl_included {
  dev_t device;
  ino_t inode;
  const kl_source *source; /* the first time it was read */
  bool once;               /* it said #pragma once */
  kl_included *next;
};

/* The headers of OpenCL C that every kernel has without including them. */
static const char *const built_in_headers[] = {"opencl-c.h", "opencl-c-base.h", "opencl_c.h", NULL};

/* strerror, thread-safe (GNU strerror_r: the library builds with _GNU_SOURCE). */
static const char *error_text(kl_context *ctx, int error) {
  char buffer[128];
  return kl_format(ctx, "%s", strerror_r(error, buffer, sizeof buffer));
}

void kl_include_add_dir(kl_context *ctx, const char *dir, size_t length) {
  if (ctx->include_dir_count == ctx->include_dir_capacity) {
    int capacity = ctx->include_dir_capacity ? ctx->include_dir_capacity * 2 : 8;
    const char **dirs = kl_alloc(ctx, sizeof *dirs * (size_t)capacity);
    if (ctx->include_dir_count)
      memcpy(dirs, ctx->include_dirs, sizeof *dirs * (size_t)ctx->include_dir_count);
    ctx->include_dirs = dirs;
    ctx->include_dir_capacity = capacity;
  }
  ctx->include_dirs[ctx->include_dir_count++] = kl_strndup(ctx, dir, length);
}

void kl_include_once(kl_context *ctx, const kl_source *source) {
  for (kl_included *f = ctx->included; f; f = f->next)
    if (f->source == source) f->once = true;
}

/* "dir/name", or name alone for the directory "" (the current one). */
static char *join(kl_context *ctx, const char *dir, size_t dir_length, const char *name) {
  if (dir_length == 0) return kl_strndup(ctx, name, strlen(name));
  bool slash = dir[dir_length - 1] == '/';
  return kl_format(ctx, "%.*s%s%s", (int)dir_length, dir, slash ? "" : "/", name);
}

/* try_open's *error for something that is not a regular file (errno values
 * are positive). */
enum {
  NOT_REGULAR_DIRECTORY = -1,
  NOT_REGULAR_FIFO = -2,
  NOT_REGULAR_CHARACTER_DEVICE = -3,
  NOT_REGULAR_BLOCK_DEVICE = -4,
  NOT_REGULAR_OTHER = -5,
};

static const char *not_regular(int error) {
  static const char *const what[] = {
      [-NOT_REGULAR_DIRECTORY] = "it is a directory",
      [-NOT_REGULAR_FIFO] = "it is a FIFO (named pipe), not a regular file",
      [-NOT_REGULAR_CHARACTER_DEVICE] = "it is a character device, not a regular file",
      [-NOT_REGULAR_BLOCK_DEVICE] = "it is a block device, not a regular file"};
  const char *result =
      error < 0 && -error < (int)(sizeof what / sizeof *what) ? what[-error] : NULL;
  return result ? result : "it is not a regular file";
}

typedef struct opened {
  int fd;
  struct stat st;
  char *path;
} opened;

/* Opens `path` if it is a regular file; false when there is none (or it is
 * something else: a directory, a FIFO, a device). */
static bool try_open(const char *path, opened *out, int *error) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT && errno != ENOTDIR) *error = errno;
    return false;
  }
  if (fstat(fd, &out->st) != 0 || !S_ISREG(out->st.st_mode)) {
    /* what it is, for the message (not_regular) */
    mode_t type = out->st.st_mode & S_IFMT;
    *error = type == S_IFDIR   ? NOT_REGULAR_DIRECTORY
             : type == S_IFIFO ? NOT_REGULAR_FIFO
             : type == S_IFCHR ? NOT_REGULAR_CHARACTER_DEVICE
             : type == S_IFBLK ? NOT_REGULAR_BLOCK_DEVICE
                               : NOT_REGULAR_OTHER;
    close(fd);
    return false;
  }
  out->fd = fd;
  return true;
}

static bool find_file(kl_context *ctx, const kl_source *includer, const char *name, opened *out,
                      int *error) {
  if (name[0] == '/') {
    out->path = kl_strndup(ctx, name, strlen(name));
    return try_open(out->path, out, error);
  }
  if (includer && includer->is_file) {
    const char *slash = strrchr(includer->name, '/');
    size_t dir_length = slash ? (size_t)(slash - includer->name) + 1 : 0;
    out->path = join(ctx, includer->name, dir_length, name);
    if (try_open(out->path, out, error)) return true;
  }
  for (int i = 0; i < ctx->include_dir_count; i++) {
    const char *dir = ctx->include_dirs[i];
    out->path = join(ctx, dir, strlen(dir), name);
    if (try_open(out->path, out, error)) return true;
  }
  return false;
}

/* The directories searched, for the "not found" message. */
static const char *searched(kl_context *ctx, const kl_source *includer) {
  const char *text = "";
  if (includer && includer->is_file) {
    const char *slash = strrchr(includer->name, '/');
    text = slash ? kl_format(ctx, "'%.*s'", (int)(slash - includer->name + 1), includer->name)
                 : "'.' (the including file's directory)";
  }
  for (int i = 0; i < ctx->include_dir_count; i++)
    text = kl_format(ctx, "%s%s'%s'", text, text[0] ? ", " : "", ctx->include_dirs[i]);
  return text[0] ? text
                 : "no directories (a source without a file name has only the include "
                   "directories: -I)";
}

static char *read_all(kl_context *ctx, const kl_token *hash, opened *file, size_t *length) {
  kl_location at = kl_token_where(hash);
  off_t size = file->st.st_size;
  if (size < 0 || (uint64_t)size > KL_MAX_INCLUDE_BYTES - ctx->included_bytes) {
    kl_error(ctx, at, "#include \"%s\": the included files exceed %u MiB", file->path,
             KL_MAX_INCLUDE_BYTES >> 20);
    return NULL;
  }
  char *text = kl_alloc(ctx, (size_t)size + 1);
  size_t done = 0;
  while (done < (size_t)size) {
    ssize_t n = read(file->fd, text + done, (size_t)size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      kl_error(ctx, at, "#include \"%s\": cannot read it: %s", file->path, error_text(ctx, errno));
      return NULL;
    }
    if (n == 0) break; /* it shrank while we read: take what there is */
    done += (size_t)n;
  }
  text[done] = 0;
  ctx->included_bytes += done;
  *length = done;
  return text;
}

kl_token *kl_include(kl_context *ctx, const kl_token *hash, const char *name, bool angled,
                     kl_token *rest) {
  kl_location at = kl_token_where(hash);
  const kl_source *includer = hash->location.source;
  if (angled) {
    for (int i = 0; built_in_headers[i]; i++)
      if (strcmp(name, built_in_headers[i]) == 0) return rest; /* built in already */
    kl_error(ctx, at,
             "#include <%s>: only OpenCL's built-in headers (<opencl-c.h>) may be included with "
             "<...>; a kernel has no system headers (write #include \"%s\" for a header of "
             "your own)",
             name, name);
    return rest;
  }
  if (!name[0]) {
    kl_error(ctx, at, "#include \"\": empty file name");
    return rest;
  }
  int depth = includer ? includer->include_depth + 1 : 1;
  if (depth > KL_MAX_INCLUDE_DEPTH) {
    kl_limit_error(ctx, at,
                   "#include \"%s\" nested too deeply (more than %d levels): does a header include "
                   "itself without an include guard or #pragma once?",
                   name, KL_MAX_INCLUDE_DEPTH);
    return rest;
  }
  opened file = {.fd = -1};
  int error = 0;
  if (!find_file(ctx, includer, name, &file, &error)) {
    if (error)
      kl_error(ctx, at, "#include \"%s\": cannot open it: %s", name,
               error < 0 ? not_regular(error) : error_text(ctx, error));
    else
      kl_error(ctx, at, "#include \"%s\": file not found (searched %s)", name,
               searched(ctx, includer));
    return rest;
  }
  for (kl_included *f = ctx->included; f; f = f->next)
    if (f->device == file.st.st_dev && f->inode == file.st.st_ino && f->once) {
      close(file.fd);
      return rest;
    }
  size_t length = 0;
  char *text = read_all(ctx, hash, &file, &length);
  close(file.fd);
  if (!text) return rest;

  kl_source *source = kl_new_source(ctx, file.path, text, length);
  source->is_file = true;
  source->include_depth = depth;
  source->included_from = includer;
  source->included_at_line = at.line;
  kl_included *record = kl_alloc(ctx, sizeof *record);
  record->device = file.st.st_dev;
  record->inode = file.st.st_ino;
  record->source = source;
  record->next = ctx->included;
  ctx->included = record;

  kl_token *tokens = kl_tokenize(ctx, source);
  if (tokens->kind == KL_TOKEN_END) return rest;
  kl_token *last = tokens;
  while (last->next && last->next->kind != KL_TOKEN_END) last = last->next;
  last->next = rest;
  return tokens;
}
