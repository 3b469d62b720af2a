/* File-system helpers every layer may use (fs_util.c). */
#ifndef CANNON_COMMON_FS_UTIL_H_
#define CANNON_COMMON_FS_UTIL_H_

#include <stdbool.h>
#include <stddef.h>

/* Longest folder path cannon_dir_writable accepts, terminator included. */
#define CANNON_DIR_PATH_MAX 4096

/* Whether folder @p dir exists (it and its parents are created if not, mode 0755) and a file can
 * be created in it (tried with a temporary file, since access() answers for the real uid and
 * ignores read-only mounts). On false, @p why (of @p why_size bytes) says why. */
bool cannon_dir_writable(const char *dir, char *why, size_t why_size);

#endif /* CANNON_COMMON_FS_UTIL_H_ */
