/* cannon-info: what the cannon runtime sees on this machine.
 *
 * Prints the runtime version, the device driver the loader picked (and every other driver it
 * found or rejected, with the reason), each device's properties, and every environment variable
 * cannon reads (src/common/env_table.h) with its current value. It is the first thing to run when
 * "no device" or a slow device needs explaining. --env-markdown prints the README's tables of
 * those variables instead; --ops lists the aclnn operators of libopapi's manifest.
 *
 * It links the static libascendcl on purpose: the loader's bookkeeping (candidates, rejected
 * modules, device properties) lives in the internal g_rt object, which the public API does not
 * expose and the shared library does not export.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl.h"
#include "env.h"
#include "internal.h"

#include "cannon/cpu.h"
#include "cannon/op_manifest.h"

#ifndef CANNON_VERSION_STRING
#define CANNON_VERSION_STRING "unknown"
#endif

/* ---- output helpers ------------------------------------------------------------------------ */

/* A JSON string literal (quotes included). Paths and reasons can hold anything. */
static void json_str(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

/* ISA flags as a space-separated list of names ("-" when none). */
static void isa_names(uint32_t flags, char *buf, size_t n)
{
    buf[0] = '\0';
    static const struct {
        uint32_t bit;
        const char *name;
    } k_isa[] = {
        {CANNON_CPU_ISA_AVX2, "avx2"},         {CANNON_CPU_ISA_FMA, "fma"},
        {CANNON_CPU_ISA_F16C, "f16c"},         {CANNON_CPU_ISA_AVX512F, "avx512f"},
        {CANNON_CPU_ISA_AVX512BW, "avx512bw"}, {CANNON_CPU_ISA_AVX512VL, "avx512vl"},
        {CANNON_CPU_ISA_AVX512BF16, "avx512bf16"},
    };
    for (size_t i = 0; i < sizeof k_isa / sizeof k_isa[0]; i++) {
        if (flags & k_isa[i].bit) {
            size_t len = strlen(buf);
            snprintf(buf + len, n - len, "%s%s", len ? " " : "", k_isa[i].name);
        }
    }
    if (!buf[0])
        snprintf(buf, n, "-");
}

/* ---- the environment table ----------------------------------------------------------------- */

static const char *const k_kind_title[] = {
    [CANNON_ENV_CONFIG] = "Configuration",
    [CANNON_ENV_LAUNCH] = "Set by launchers (rank, job size, device, job id)",
};

/* The README's tables: one per kind, generated here so that they cannot drift from the table. */
static void env_markdown(void)
{
    for (int kind = CANNON_ENV_CONFIG; kind <= CANNON_ENV_LAUNCH; kind++) {
        if (kind != CANNON_ENV_CONFIG)
            printf("\n%s:\n\n", k_kind_title[kind]);
        printf("| variable | default | meaning | read by |\n|---|---|---|---|\n");
        for (size_t i = 0; i < cannon_env_var_count; i++) {
            const cannon_env_var *v = &cannon_env_vars[i];
            if ((int)v->kind == kind)
                printf("| `%s` | %s | %s | %s |\n", v->name, v->default_value, v->meaning, v->owner);
        }
    }
}

/* ---- the operators -------------------------------------------------------------------------- */

/* libopapi, loaded only to read its manifest: from $CANNON_LIB_DIR, then next to this program
 * (../lib and ../lib64, as installed or in a build tree), then the loader's search path. The
 * manifest is static data; no runtime function of the loaded libraries is called. */
static void *open_opapi(char *where, size_t n)
{
    char cand[4][PATH_MAX + 32];
    int nc = 0;
    const char *env = cannon_env_get("CANNON_LIB_DIR");
    if (env && *env)
        snprintf(cand[nc++], sizeof cand[0], "%s/libopapi.so.0", env);
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(cand[nc++], sizeof cand[0], "%s/../lib/libopapi.so.0", exe);
            snprintf(cand[nc++], sizeof cand[0], "%s/../lib64/libopapi.so.0", exe);
        }
    }
    snprintf(cand[nc++], sizeof cand[0], "libopapi.so.0");
    for (int i = 0; i < nc; i++) {
        void *h = dlopen(cand[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            size_t l = strlen(cand[i]);
            l = l < n ? l : n - 1;
            memcpy(where, cand[i], l);
            where[l] = '\0';
            return h;
        }
    }
    snprintf(where, n, "%s", dlerror());
    return NULL;
}

static int list_ops(bool json)
{
    char where[PATH_MAX + 64];
    void *h = open_opapi(where, sizeof where);
    if (!h) {
        fprintf(stderr, "cannon-info: libopapi not found (%s); set CANNON_LIB_DIR\n", where);
        return 1;
    }
    const cannon_op_info *(*manifest)(size_t *) = (const cannon_op_info *(*)(size_t *))dlsym(h, "cannonOpManifest");
    void (*dtfmt)(uint64_t, char *, size_t) = (void (*)(uint64_t, char *, size_t))dlsym(h, "cannonDtypeSetFormat");
    if (!manifest || !dtfmt) {
        fprintf(stderr, "cannon-info: %s has no operator manifest\n", where);
        return 1;
    }
    size_t n = 0;
    const cannon_op_info *ops = manifest(&n);
    if (json) {
        printf("{\"library\":");
        json_str(where);
        printf(",\"operators\":[");
    } else {
        printf("%zu aclnn operators in %s\n", n, where);
    }
    for (size_t i = 0; i < n; i++) {
        char dts[256];
        if (ops[i].dtypes)
            dtfmt(ops[i].dtypes, dts, sizeof dts);
        else
            snprintf(dts, sizeof dts, "any");
        if (json) {
            printf("%s{\"name\":", i ? "," : "");
            json_str(ops[i].name);
            printf(",\"family\":");
            json_str(ops[i].family);
            printf(",\"header\":");
            json_str(ops[i].header);
            printf(",\"dtypes\":");
            json_str(dts);
            printf(",\"params\":");
            json_str(ops[i].params);
            putchar('}');
        } else {
            printf("  %-38s %-12s %-46s %s\n", ops[i].name, ops[i].family, ops[i].header, dts);
        }
    }
    if (json)
        printf("]}\n");
    return 0;
}

/* ---- the report ---------------------------------------------------------------------------- */

typedef struct dev_info {
    bool ok;
    aclError rc;
    cannon_device_props props;
} dev_info;

static void usage(FILE *f)
{
    fprintf(f, "usage: cannon-info [--json] [--ops] | --env-markdown | --help\n"
               "Show the cannon runtime's version, device drivers (chosen, found, rejected),\n"
               "devices and every environment variable cannon reads, with its value.\n"
               "  --json           one JSON object on stdout instead of text\n"
               "  --ops            the aclnn operators libopapi implements (name, family, header, dtypes)\n"
               "  --env-markdown   only the environment variables, as the README's Markdown tables\n"
               "  --help           this text\n");
}

int main(int argc, char **argv)
{
    bool json = false, ops = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--ops") == 0) {
            ops = true;
        } else if (strcmp(argv[i], "--env-markdown") == 0) {
            env_markdown();
            return 0;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "cannon-info: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }

    if (ops)
        return list_ops(json);

    int32_t major = 0, minor = 0, patch = 0;
    (void)aclrtGetVersion(&major, &minor, &patch);

    /* aclInit loads the drivers. A failure (e.g. no usable driver) is exactly what this tool
     * must explain, so keep going and show the loader's findings anyway. */
    aclError init_rc = aclInit(NULL);
    const char *init_msg = init_rc != ACL_SUCCESS ? aclGetRecentErrMsg() : NULL;
    char init_err[1024] = "";
    if (init_msg)
        snprintf(init_err, sizeof init_err, "%s", init_msg);
    uint32_t ndev = 0;
    if (init_rc == ACL_SUCCESS && aclrtGetDeviceCount(&ndev) != ACL_SUCCESS)
        ndev = 0;

    /* Open each device just long enough for the runtime to read its properties. */
    dev_info *devs = calloc(ndev ? ndev : 1, sizeof *devs);
    if (!devs) {
        fprintf(stderr, "cannon-info: out of memory\n");
        return 1;
    }
    for (uint32_t i = 0; i < ndev; i++) {
        devs[i].rc = aclrtSetDevice((int32_t)i);
        if (devs[i].rc == ACL_SUCCESS) {
            devs[i].ok = true;
            devs[i].props = g_rt.devices[i].props;
            (void)aclrtResetDevice((int32_t)i);
        }
    }

    const cn_driver_entry *act = &g_rt.driver;
    const char *act_name = act->iface ? act->iface->name : NULL;
    const char *act_desc = act->iface ? act->iface->description : NULL;
    char isa[160];

    if (json) {
        printf("{\"cannon_version\":");
        json_str(CANNON_VERSION_STRING);
        printf(",\"acl_version\":\"%d.%d.%d\",\"init_status\":%d", major, minor, patch, init_rc);
        if (init_msg) {
            printf(",\"init_error\":");
            json_str(init_err);
        }
        printf(",\"driver\":");
        if (act_name) {
            printf("{\"name\":");
            json_str(act_name);
            printf(",\"description\":");
            json_str(act_desc);
            printf(",\"source\":");
            json_str(act->source);
            printf(",\"score\":%d}", act->score);
        } else {
            printf("null");
        }
        printf(",\"candidates\":[");
        for (size_t i = 0; i < g_rt.n_candidates; i++) {
            const cn_driver_entry *c = &g_rt.candidates[i];
            printf("%s{\"name\":", i ? "," : "");
            json_str(c->iface ? c->iface->name : "?");
            printf(",\"source\":");
            json_str(c->source);
            printf(",\"score\":%d}", c->score);
        }
        printf("],\"rejected\":[");
        for (size_t i = 0; i < g_rt.n_rejected; i++) {
            printf("%s{\"path\":", i ? "," : "");
            json_str(g_rt.rejected[i].path);
            printf(",\"reason\":");
            json_str(g_rt.rejected[i].reason);
            putchar('}');
        }
        printf("],\"device_count\":%u,\"devices\":[", ndev);
        for (uint32_t i = 0; i < ndev; i++) {
            const cannon_device_props *p = &devs[i].props;
            printf("%s{\"id\":%u,\"status\":%d", i ? "," : "", i, devs[i].rc);
            if (devs[i].ok) {
                isa_names(p->isa_flags, isa, sizeof isa);
                printf(",\"name\":");
                json_str(p->name);
                printf(",\"soc\":");
                json_str(p->soc_name);
                printf(",\"mem_capacity\":%zu,\"workers\":%u,\"isa_flags\":%u,\"isa\":", p->mem_capacity,
                       p->num_workers, p->isa_flags);
                json_str(isa);
            }
            putchar('}');
        }
        printf("],\"environment\":[");
        for (size_t i = 0; i < cannon_env_var_count; i++) {
            const cannon_env_var *e = &cannon_env_vars[i];
            const char *v = cannon_env_get(e->name);
            printf("%s{\"name\":", i ? "," : "");
            json_str(e->name);
            printf(",\"value\":");
            if (v)
                json_str(v);
            else
                printf("null");
            printf(",\"kind\":");
            json_str(e->kind == CANNON_ENV_LAUNCH ? "launch" : "config");
            printf(",\"default\":");
            json_str(e->default_value);
            printf(",\"owner\":");
            json_str(e->owner);
            printf(",\"meaning\":");
            json_str(e->meaning);
            putchar('}');
        }
        printf("]}\n");
    } else {
        printf("cannon %s (ACL runtime API %d.%d.%d)\n", CANNON_VERSION_STRING, major, minor, patch);
        if (init_rc != ACL_SUCCESS)
            printf("aclInit failed: %d\n  %s\n", init_rc, init_msg ? init_err : "(no message)");
        printf("\nActive driver: ");
        if (act_name)
            printf("%s - %s\n  source: %s, score %d\n", act_name, act_desc ? act_desc : "", act->source,
                   act->score);
        else
            printf("none\n");
        printf("\nDriver candidates (%zu):\n", g_rt.n_candidates);
        for (size_t i = 0; i < g_rt.n_candidates; i++) {
            const cn_driver_entry *c = &g_rt.candidates[i];
            printf("  %-8s score %-4d %s\n", c->iface ? c->iface->name : "?", c->score, c->source);
        }
        printf("Rejected driver modules (%zu):\n", g_rt.n_rejected);
        for (size_t i = 0; i < g_rt.n_rejected; i++)
            printf("  %s\n    %s\n", g_rt.rejected[i].path, g_rt.rejected[i].reason);

        printf("\nDevices: %u\n", ndev);
        for (uint32_t i = 0; i < ndev; i++) {
            const cannon_device_props *p = &devs[i].props;
            if (!devs[i].ok) {
                printf("  [%u] cannot be opened: error %d\n", i, devs[i].rc);
                continue;
            }
            isa_names(p->isa_flags, isa, sizeof isa);
            printf("  [%u] %-8s soc %s, memory %.2f GiB, %u workers, isa 0x%x (%s)\n", i, p->name,
                   p->soc_name, (double)p->mem_capacity / (1u << 30), p->num_workers, p->isa_flags, isa);
        }

        for (int kind = CANNON_ENV_CONFIG; kind <= CANNON_ENV_LAUNCH; kind++) {
            printf("\nEnvironment: %s\n", k_kind_title[kind]);
            for (size_t i = 0; i < cannon_env_var_count; i++) {
                const cannon_env_var *e = &cannon_env_vars[i];
                if ((int)e->kind != kind)
                    continue;
                const char *v = cannon_env_get(e->name);
                printf("  %-27s %-14s %s (default: %s)\n", e->name, v ? v : "(unset)", e->meaning,
                       e->default_value);
            }
        }
    }

    free(devs);
    if (init_rc == ACL_SUCCESS)
        (void)aclFinalize();
    return init_rc == ACL_SUCCESS ? 0 : 1;
}
