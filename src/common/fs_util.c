/* File-system helpers (fs_util.h). */
#include "fs_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool cannon_dir_writable(const char *dir, char *why, size_t why_size)
{
    char buf[CANNON_DIR_PATH_MAX];
    const size_t n = dir ? strlen(dir) : 0;
    if (n == 0 || n >= sizeof buf) {
        snprintf(why, why_size, "the path is empty or longer than %d bytes", CANNON_DIR_PATH_MAX - 1);
        return false;
    }
    memcpy(buf, dir, n + 1);
    /* each prefix ending at a '/' (and the whole path) in turn */
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        const char keep = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            snprintf(why, why_size, "cannot create %s: %s", buf, strerror(errno));
            return false;
        }
        buf[i] = keep;
    }
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "it is not a directory");
        return false;
    }
    char probe[CANNON_DIR_PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/.cannon_probe_XXXXXX", buf);
    const int fd = mkstemp(probe);
    if (fd < 0) {
        snprintf(why, why_size, "cannot create a file in it: %s", strerror(errno));
        return false;
    }
    close(fd);
    unlink(probe);
    return true;
}
