/*
 * Custom operator packages (CANN's OPP vendors): where libopapi looks for operators it does not
 * have. The search order is CANN's: the entries of ASCEND_CUSTOM_OPP_PATH (colon-separated vendor
 * folders, first wins), then the vendors that <ASCEND_OPP_PATH>/vendors/config.ini lists in
 * load_priority (comma-separated). A vendor folder holds op_api/lib/libcust_opapi.so.
 * The environment is read at each call, never cached, so a package installed or an environment
 * set after the process started is found. Nothing happens until a function here is called.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "acl/acl_base.h"
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"
#include "cannon/kernel.h"
#include "env.h"

ACL_FUNC_VISIBILITY aclnnStatus cannonCustomOppVendors(char *buf, size_t cap);
ACL_FUNC_VISIBILITY aclnnStatus cannonCustomOpFind(const char *symbol, char *path, size_t cap);

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Append folder @p dir (len bytes) to @p buf as a colon-separated entry unless present. */
static int append(char *buf, size_t cap, size_t *used, const char *dir, size_t len)
{
    if (len == 0)
        return 0;
    /* already listed? */
    const char *s = buf;
    while (*used && s < buf + *used) {
        const char *e = strchr(s, ':');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (l == len && strncmp(s, dir, len) == 0)
            return 0;
        s += l + 1;
    }
    if (*used + len + 2 > cap)
        return -1;
    if (*used)
        buf[(*used)++] = ':';
    memcpy(buf + *used, dir, len);
    *used += len;
    buf[*used] = '\0';
    return 0;
}

aclnnStatus cannonCustomOppVendors(char *buf, size_t cap)
{
    if (buf == NULL || cap == 0)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "cannonCustomOppVendors: NULL buffer");
    size_t used = 0;
    buf[0] = '\0';
    const char *env = cannon_env_get("ASCEND_CUSTOM_OPP_PATH");
    for (const char *s = env; s && *s;) {
        const char *e = strchr(s, ':');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (append(buf, cap, &used, s, l) != 0)
            return cannonReportError(ACLNN_ERR_PARAM_INVALID, "cannonCustomOppVendors: buffer of %zu bytes too small",
                                     cap);
        s += l + (e ? 1 : 0);
    }
    const char *opp = cannon_env_get("ASCEND_OPP_PATH");
    if (opp && *opp) {
        char ini[4096];
        snprintf(ini, sizeof ini, "%s/vendors/config.ini", opp);
        FILE *f = fopen(ini, "r");
        if (f) {
            char line[4096];
            while (fgets(line, sizeof line, f)) {
                const char *k = "load_priority=";
                char *p = line;
                while (*p == ' ' || *p == '\t')
                    p++;
                if (strncmp(p, k, strlen(k)) != 0)
                    continue;
                p += strlen(k);
                p[strcspn(p, "\r\n")] = '\0';
                char *save = NULL;
                for (char *v = strtok_r(p, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
                    while (*v == ' ')
                        v++;
                    size_t vl = strcspn(v, " ");
                    char dir[4096];
                    int n = snprintf(dir, sizeof dir, "%s/vendors/%.*s", opp, (int)vl, v);
                    if (vl == 0 || n <= 0 || (size_t)n >= sizeof dir || !is_dir(dir))
                        continue;
                    if (append(buf, cap, &used, dir, (size_t)n) != 0) {
                        fclose(f);
                        return cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                                 "cannonCustomOppVendors: buffer of %zu bytes too small", cap);
                    }
                }
            }
            fclose(f);
        }
    }
    return ACLNN_SUCCESS;
}

aclnnStatus cannonCustomOpFind(const char *symbol, char *path, size_t cap)
{
    if (symbol == NULL || path == NULL || cap == 0)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "cannonCustomOpFind: NULL argument");
    char *vendors = malloc(65536);
    if (vendors == NULL)
        return cannonReportError(ACLNN_ERR_INNER, "cannonCustomOpFind: out of memory");
    aclnnStatus rc = cannonCustomOppVendors(vendors, 65536);
    if (rc != ACLNN_SUCCESS) {
        free(vendors);
        return rc;
    }
    for (char *v = vendors; *v;) {
        char *e = strchr(v, ':');
        if (e)
            *e = '\0';
        char lib[4096];
        int n = snprintf(lib, sizeof lib, "%s/op_api/lib/libcust_opapi.so", v);
        if (n > 0 && (size_t)n < sizeof lib) {
            struct stat st;
            if (stat(lib, &st) == 0) {
                /* kept loaded: its operator definitions register with libcannon_opdef */
                void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
                if (h && dlsym(h, symbol)) {
                    if ((size_t)n >= cap) {
                        free(vendors);
                        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "cannonCustomOpFind: path buffer too small");
                    }
                    memcpy(path, lib, (size_t)n + 1);
                    free(vendors);
                    return ACLNN_SUCCESS;
                }
            }
        }
        if (!e)
            break;
        v = e + 1;
    }
    free(vendors);
    return cannonReportError(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
                             "%s: no custom operator package provides it (searched ASCEND_CUSTOM_OPP_PATH=%s and the "
                             "load_priority vendors of ASCEND_OPP_PATH=%s)", symbol,
                             cannon_env_get("ASCEND_CUSTOM_OPP_PATH") ? cannon_env_get("ASCEND_CUSTOM_OPP_PATH") : "(unset)",
                             cannon_env_get("ASCEND_OPP_PATH") ? cannon_env_get("ASCEND_OPP_PATH") : "(unset)");
}
