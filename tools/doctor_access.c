// SPDX-License-Identifier: Apache-2.0
/* Device nodes (/dev/kfd, /dev/nvidia*, /dev/dri/renderD*): can this process
 * open them read-write, and is it in their group? */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor.h"

static void add_group_fix(doctor_context *context, doctor_finding *finding, unsigned gid,
                          const char *group) {
  if (doctor_user_listed_in_group(context, gid))
    doctor_fix(context, finding,
               "/etc/group already lists you in group %s, but this session started before that: "
               "log out and back in (or run newgrp %s).",
               group, group);
  else
    doctor_fix(context, finding,
               "Add the user to group %s: sudo usermod -aG %s $USER, then log out and back in.",
               group, group);
}

void doctor_check_device_node(doctor_context *context, const char *node, const char *check,
                              const char *purpose) {
  char path[DOCTOR_PATH_CAPACITY], text[128], group[64];
  doctor_path(context, node, path, sizeof path);
  struct stat status;
  if (stat(path, &status) != 0) {
    int error = errno;
    doctor_finding *finding =
        doctor_add(context, DOCTOR_ERROR, check, "%s is missing: %s", node, purpose);
    doctor_evidence(context, finding, "stat(%s): %s", path,
                    doctor_errno_text(error, text, sizeof text));
    doctor_fix(context, finding,
               "Load the kernel driver that creates it (see the other findings), and in a "
               "container pass the device in (docker run --device %s).",
               node);
    return;
  }
  unsigned gid = (unsigned)status.st_gid;
  unsigned mode = (unsigned)status.st_mode & 07777;
  doctor_group_name(context, gid, group, sizeof group);
  int fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  int open_error = fd < 0 ? errno : 0;
  if (fd >= 0) close(fd);
  bool in_group = doctor_process_in_group(gid);
  bool others_may = (mode & 006) == 006;
  bool group_may = (mode & 060) == 060;
  if (open_error == EACCES || open_error == EPERM) {
    doctor_finding *finding =
        doctor_add(context, DOCTOR_ERROR, check,
                   "%s cannot be opened: permission denied; it is owned by group %s (mode %04o)%s",
                   node, group, mode, in_group ? "" : " and this process is not in that group");
    doctor_evidence(context, finding, "open(%s, O_RDWR): %s", path,
                    doctor_errno_text(open_error, text, sizeof text));
    doctor_evidence(context, finding, "stat: uid %u gid %u (%s) mode %04o; process uid %u",
                    (unsigned)status.st_uid, gid, group, mode, (unsigned)geteuid());
    if (!in_group && group_may)
      add_group_fix(context, finding, gid, group);
    else
      doctor_fix(context, finding,
                 "Give the group read-write access (a udev rule setting MODE=\"0660\" and "
                 "GROUP), or ask the administrator.");
    return;
  }
  if (open_error) {
    doctor_finding *finding = doctor_add(context, DOCTOR_ERROR, check,
                                         "%s exists but cannot be opened: %s", node, purpose);
    doctor_evidence(context, finding, "open(%s, O_RDWR): %s", path,
                    doctor_errno_text(open_error, text, sizeof text));
    doctor_fix(context, finding,
               "The node has no driver behind it: load the kernel driver (see dmesg).");
    return;
  }
  if (!in_group && !others_may) {
    doctor_finding *finding = doctor_add(
        context, DOCTOR_WARNING, check,
        "%s opens only because this process is privileged (uid %u): it is owned by group %s "
        "(mode %04o) and this user is not in that group, so the same program run by another user "
        "will not see the device",
        node, (unsigned)geteuid(), group, mode);
    doctor_evidence(context, finding, "open(%s, O_RDWR): ok", path);
    doctor_evidence(context, finding, "stat: uid %u gid %u (%s) mode %04o; process uid %u",
                    (unsigned)status.st_uid, gid, group, mode, (unsigned)geteuid());
    add_group_fix(context, finding, gid, group);
    return;
  }
  doctor_finding *finding =
      doctor_add(context, DOCTOR_OK, check, "%s opens read-write (group %s)", node, group);
  doctor_evidence(context, finding, "open(%s, O_RDWR): ok", path);
}
