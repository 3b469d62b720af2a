/* The driver loader: the built-in CPU driver plus modules found with dlopen.
 *
 * Search order for modules: every entry of $CANNON_DRIVER_PATH (':'-separated; a directory is
 * scanned for libcannon-driver-*.so, a file is tried as is), then the private module directory
 * next to this library (<dir of libascendcl>/cannon/drivers, and <dir>/../lib/cannon/drivers for a
 * statically linked program in <prefix>/bin), then the install-time directory.
 * Each candidate must export cannon_driver_entry, accept our ABI version, report the same
 * abi_version and a struct_size at least ours, and score > 0 in probe(); otherwise it is
 * rejected with a logged reason (kept for cannon-info). The highest score wins; on a tie the
 * built-in driver wins unless $CANNON_DRIVER names a driver, in which case only drivers of that
 * name are eligible and a module wins the tie (this is how a test forces the module path).
 * A module found by a directory scan whose driver is also built in (libcannon-driver-cpu.so) is
 * only loaded when CANNON_DRIVER is set: otherwise it could not win and would only slow aclInit.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpu_driver.h"
#include "env.h"

#ifndef CANNON_DRIVER_DIR
#define CANNON_DRIVER_DIR "/usr/local/lib/cannon/drivers"
#endif

static void host_log(int level, const char *fmt, ...)
{
    if (!cn_log_enabled(level, "DRV"))
        return;
    va_list ap;
    va_start(ap, fmt);
    cn_log_vwrite(level, "DRV", "driver", 0, fmt, ap);
    va_end(ap);
}

static const cannon_host_api g_host_api = {
    .abi_version = CANNON_DRIVER_ABI_VERSION,
    .log = host_log,
};

static void reject(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reject(const char *path, const char *fmt, ...)
{
    char reason[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    CN_LOGW("driver loader: rejected %s: %s", path, reason);
    cn_rejected_driver *r = cn_realloc(g_rt.rejected, (g_rt.n_rejected + 1) * sizeof(*r));
    if (!r)
        return;
    g_rt.rejected = r;
    snprintf(r[g_rt.n_rejected].path, sizeof(r->path), "%s", path);
    snprintf(r[g_rt.n_rejected].reason, sizeof(r->reason), "%s", reason);
    g_rt.n_rejected++;
}

/* Returns false when the driver was not added; *oom tells an out-of-memory failure apart. */
static bool add_candidate(const cannon_driver_iface *iface, void *dl, const char *source, bool *oom)
{
    int score = iface->probe ? iface->probe() : 0;
    if (score <= 0) {
        reject(source, "probe() scored %d: the driver cannot run on this machine", score);
        return false;
    }
    cn_driver_entry *c = cn_realloc(g_rt.candidates, (g_rt.n_candidates + 1) * sizeof(*c));
    if (!c) {
        *oom = true;
        return false;
    }
    g_rt.candidates = c;
    c[g_rt.n_candidates].iface = iface;
    c[g_rt.n_candidates].dl = dl;
    c[g_rt.n_candidates].score = score;
    snprintf(c[g_rt.n_candidates].source, sizeof(c->source), "%s", source);
    g_rt.n_candidates++;
    CN_LOGI("driver loader: found driver \"%s\" (%s), score %d", iface->name, source, score);
    return true;
}

static bool already_tried(const char *path)
{
    for (size_t i = 0; i < g_rt.n_candidates; i++)
        if (strcmp(g_rt.candidates[i].source, path) == 0)
            return true;
    for (size_t i = 0; i < g_rt.n_rejected; i++)
        if (strcmp(g_rt.rejected[i].path, path) == 0)
            return true;
    return false;
}

static void try_module(const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        snprintf(real, sizeof(real), "%s", path);
    if (already_tried(real))
        return;
    void *dl = dlopen(real, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *e = dlerror();
        reject(real, "dlopen failed: %s", e ? e : "unknown error");
        return;
    }
    cannon_driver_entry_fn entry;
    *(void **)&entry = dlsym(dl, CANNON_DRIVER_ENTRY_SYMBOL);
    if (!entry) {
        reject(real, "no %s symbol: not a cannon driver", CANNON_DRIVER_ENTRY_SYMBOL);
        dlclose(dl);
        return;
    }
    const cannon_driver_iface *iface = entry(CANNON_DRIVER_ABI_VERSION);
    if (!iface) {
        reject(real, "the driver does not support driver ABI version %u", CANNON_DRIVER_ABI_VERSION);
        dlclose(dl);
        return;
    }
    if (iface->abi_version != CANNON_DRIVER_ABI_VERSION) {
        reject(real, "incompatible driver ABI version %u (runtime: %u)", iface->abi_version, CANNON_DRIVER_ABI_VERSION);
        dlclose(dl);
        return;
    }
    if (iface->struct_size < sizeof(cannon_driver_iface) || !iface->init || !iface->device_open ||
        !iface->device_close || !iface->device || !iface->memory || !iface->stream || !iface->name) {
        reject(real, "incomplete driver table (struct_size %u, runtime needs %zu)", iface->struct_size,
               sizeof(cannon_driver_iface));
        dlclose(dl);
        return;
    }
    bool oom = false;
    if (!add_candidate(iface, dl, real, &oom)) {
        if (oom)
            CN_LOGW("driver loader: out of memory recording %s", real);
        dlclose(dl);
    }
}

static void scan_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        size_t len = strlen(n);
        if (strncmp(n, "libcannon-driver-", 17) != 0 || len < 20 || strcmp(n + len - 3, ".so") != 0)
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", dir, n);
        /* A module of a driver that is also built in adds nothing unless CANNON_DRIVER asks for
         * it by name: skip it without dlopen, which is most of aclInit's cost. */
        const char *want = cannon_env_get("CANNON_DRIVER");
        if ((!want || !*want) && strncmp(n + 17, "cpu.so", 6) == 0 && len == 17 + 6) {
            CN_LOGD("driver loader: skipped %s: the same driver is built in (set CANNON_DRIVER=cpu to load it)", path);
            continue;
        }
        try_module(path);
    }
    closedir(d);
}

static void scan_path_entry(const char *p)
{
    struct stat st;
    if (stat(p, &st) != 0) {
        reject(p, "not found (named by CANNON_DRIVER_PATH)");
        return;
    }
    if (S_ISDIR(st.st_mode))
        scan_dir(p);
    else
        try_module(p);
}

/* The module directory next to the library that holds this code. A directory named twice (the
 * library in <prefix>/lib makes <dir>/../lib the same place, and an installed library's directory
 * is usually the install-time one) is scanned once: each scan is four system calls. */
static void scan_private_dir(void)
{
    Dl_info info;
    bool install_dir_done = false;
    if (dladdr((void *)&scan_private_dir, &info) && info.dli_fname) {
        char buf[PATH_MAX];
        snprintf(buf, sizeof(buf), "%s", info.dli_fname);
        char *slash = strrchr(buf, '/');
        if (slash) {
            *slash = '\0';
            char dir[PATH_MAX + 32];
            snprintf(dir, sizeof(dir), "%s/cannon/drivers", buf);
            scan_dir(dir);
            install_dir_done = strcmp(dir, CANNON_DRIVER_DIR) == 0;
            /* A statically linked program in <prefix>/bin finds <prefix>/lib's modules. */
            const char *base = strrchr(buf, '/');
            if (strcmp(base ? base + 1 : buf, "lib") != 0) {
                snprintf(dir, sizeof(dir), "%s/../lib/cannon/drivers", buf);
                scan_dir(dir);
            }
        }
    }
    if (!install_dir_done)
        scan_dir(CANNON_DRIVER_DIR);
}

aclError cn_loader_load(void)
{
    bool oom = false;
    add_candidate(cannon_cpu_driver_iface(), NULL, "built-in", &oom);
    const char *env = cannon_env_get("CANNON_DRIVER_PATH");
    char *copy = NULL;
    if (!oom && env && *env && !(copy = cn_strdup(env)))
        oom = true;
    if (oom) {
        cn_loader_unload();
        return cn_error(ACL_ERROR_BAD_ALLOC, "driver loader: out of memory");
    }
    if (copy) {
        char *save = NULL;
        for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
            scan_path_entry(tok);
        cn_free(copy);
    }
    scan_private_dir();

    const char *want = cannon_env_get("CANNON_DRIVER");
    if (want && !*want)
        want = NULL;
    cn_driver_entry *best = NULL;
    for (size_t i = 0; i < g_rt.n_candidates; i++) {
        cn_driver_entry *c = &g_rt.candidates[i];
        if (want && strcmp(c->iface->name, want) != 0)
            continue;
        if (!best || c->score > best->score || (want && c->score == best->score && c->dl && !best->dl))
            best = c;
    }
    if (!best) {
        cn_error(ACL_ERROR_RT_NO_DEVICE, "no usable device driver%s%s%s (see cannon-info for the drivers found)",
                 want ? " named \"" : "", want ? want : "", want ? "\"" : "");
        cn_loader_unload();
        return ACL_ERROR_RT_NO_DEVICE;
    }
    uint32_t count = 0;
    int rc = best->iface->init(&g_host_api, &count);
    if (rc != 0) {
        cn_error(ACL_ERROR_RT_DEV_SETUP_ERROR, "driver \"%s\" (%s) failed to initialize: error %d", best->iface->name,
                 best->source, rc);
        cn_loader_unload();
        return ACL_ERROR_RT_DEV_SETUP_ERROR;
    }
    if (count > CN_MAX_DEVICES)
        count = CN_MAX_DEVICES;
    g_rt.driver = *best;
    g_rt.device_count = count;
    CN_LOGI("driver loader: using \"%s\" from %s with %u device(s)", best->iface->name, best->source, count);
    return ACL_SUCCESS;
}

void cn_loader_unload(void)
{
    if (g_rt.driver.iface && g_rt.driver.iface->fini)
        g_rt.driver.iface->fini();
    memset(&g_rt.driver, 0, sizeof(g_rt.driver));
    /* Drivers join their threads in fini/device_close, so unloading the modules is safe now. */
    for (size_t i = 0; i < g_rt.n_candidates; i++)
        if (g_rt.candidates[i].dl)
            dlclose(g_rt.candidates[i].dl);
    cn_free(g_rt.candidates);
    g_rt.candidates = NULL;
    g_rt.n_candidates = 0;
    cn_free(g_rt.rejected);
    g_rt.rejected = NULL;
    g_rt.n_rejected = 0;
    g_rt.device_count = 0;
}
