/* File-system helpers of the C tests that write output folders (the profiler's and the dump's
 * tests): a fresh temporary folder and its removal. Header-only; kept apart from cannon_testutil.h
 * because it needs POSIX directory functions that the benchmarks do not. */
#ifndef CANNON_TESTUTIL_FS_H_
#define CANNON_TESTUTIL_FS_H_

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/** A new empty folder /tmp/<prefix>_XXXXXX written into @p buf; 0 on success. */
static inline int cn_tu_make_tmpdir(char *buf, size_t size, const char *prefix)
{
    snprintf(buf, size, "/tmp/%s_XXXXXX", prefix);
    return mkdtemp(buf) ? 0 : -1;
}

/** Remove @p dir and everything below it (symbolic links are removed, not followed). */
static inline void cn_tu_remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        const int w = snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (w < 0 || (size_t)w >= sizeof p)
            continue; /* too deep for the buffer: left in place */
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            cn_tu_remove_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

#endif /* CANNON_TESTUTIL_FS_H_ */
