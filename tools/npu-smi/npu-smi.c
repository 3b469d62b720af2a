/* npu-smi: the device overview of CANN's npu-smi, for cannon's devices.
 *
 *   npu-smi info                       the device table (NPU, Name, Health, Power, Temp, Hugepages,
 *                                      Chip, Bus-Id, AICore, Memory, HBM) and the process table
 *   npu-smi info -l                    the device list
 *   npu-smi info -m                    the chip list (NPU ID, Chip ID, Chip Logic ID, Chip Name)
 *   npu-smi info -t board -i N [-c C]  board (or, with -c, chip) information of device N
 *   npu-smi info -t memory -i N [-c C] memory of device N
 *
 * The layout is CANN's (910B-class: a 98-column box table whose seventh line carries the first
 * chip's name in its third field), so build scripts that read the SoC from npu-smi work. The chip
 * name is aclrtGetSocName() without its "Ascend" prefix. cannon's devices belong to the process
 * that opens them: the memory figures are those of a device opened by npu-smi itself (none of it
 * used), and no process is listed. Power, temperature and bus are not measured: "NA", as CANN
 * prints for fields a part does not report. Exit status 0, or 1 with a message on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

#ifndef CANNON_VERSION_STRING
#define CANNON_VERSION_STRING "0"
#endif

#define MIB (1024.0 * 1024.0)

typedef struct dev_info {
    size_t free, total;
    int ok;
} dev_info;

static const char *chip_name(void)
{
    const char *soc = aclrtGetSocName();
    if (!soc)
        return "NA";
    return strncmp(soc, "Ascend", 6) == 0 ? soc + 6 : soc;
}

static dev_info query(int32_t id)
{
    dev_info d = {0, 0, 0};
    if (aclrtSetDevice(id) != ACL_SUCCESS)
        return d;
    d.ok = aclrtGetMemInfo(ACL_HBM_MEM, &d.free, &d.total) == ACL_SUCCESS;
    (void)aclrtResetDevice(id);
    return d;
}

/* s padded with spaces (or cut) to exactly w columns. */
static void pad(char *out, size_t cap, const char *s, int w)
{
    snprintf(out, cap, "%-*.*s", w, w, s);
}

static void rule(char c)
{
    char a[28], b[16], d[53];
    memset(a, c, 27);
    memset(b, c, 15);
    memset(d, c, 52);
    a[27] = b[15] = d[52] = '\0';
    printf("+%s+%s+%s+\n", a, b, d);
}

/* One row: column 1 (27), 2 (15) and the three fields of column 3 (11, 17, 21). */
static void row(const char *c1a, int c1a_w, const char *c1b, const char *c2, const char *f1, const char *f2,
                const char *f3)
{
    char a[64], b[64], x[64], y[64], z[64], c[64];
    pad(a, sizeof a, c1a, c1a_w);
    pad(b, sizeof b, c1b, 25 - c1a_w);
    pad(c, sizeof c, c2, 14);
    pad(x, sizeof x, f1, 11);
    pad(y, sizeof y, f2, 17);
    pad(z, sizeof z, f3, 21);
    printf("| %s %s| %s| %s %s %s|\n", a, b, c, x, y, z);
}

static void full_line(const char *text)
{
    char t[128];
    pad(t, sizeof t, text, 96);
    printf("|%s|\n", t);
}

static void usage_pair(char *out, size_t cap, double used, double total)
{
    char u[32];
    snprintf(u, sizeof u, "%.0f", used);
    snprintf(out, cap, "%-4s / %.0f", u, total);
}

static int cmd_info(uint32_t n)
{
    char head[128];
    snprintf(head, sizeof head, " npu-smi %-24sVersion: %s", CANNON_VERSION_STRING, CANNON_VERSION_STRING);
    printf("+------------------------------------------------------------------------------------------------+\n");
    full_line(head);
    rule('-');
    row("NPU", 5, "Name", "Health", "Power(W)", "Temp(C)", "Hugepages-Usage(page)");
    row("Chip", 5, "", "Bus-Id", "AICore(%)", "Memory-Usage(MB)", "HBM-Usage(MB)");
    rule('=');
    const char *name = chip_name();
    for (uint32_t i = 0; i < n; i++) {
        dev_info d = query((int32_t)i);
        char id[16], hbm[48], huge[48], mem[48];
        snprintf(id, sizeof id, "%u", i);
        usage_pair(huge, sizeof huge, 0, 0);
        usage_pair(mem, sizeof mem, 0, 0);
        usage_pair(hbm, sizeof hbm, d.ok ? (double)(d.total - d.free) / MIB : 0, d.ok ? (double)d.total / MIB : 0);
        row(id, 5, name, d.ok ? "OK" : "Alarm", "NA", "NA", huge);
        row("0", 5, "", "NA", "0", mem, hbm);
        rule('=');
    }
    rule('-');
    char a[64], b[64], c[64], e[64];
    pad(a, sizeof a, "NPU", 7);
    pad(b, sizeof b, "Chip", 18);
    pad(c, sizeof c, "Process id", 14);
    pad(e, sizeof e, "Process name", 25);
    printf("| %s %s| %s| %s| %-24s|\n", a, b, c, e, "Process memory(MB)");
    rule('=');
    for (uint32_t i = 0; i < n; i++) {
        char t[96];
        snprintf(t, sizeof t, " No running processes found in NPU %u", i);
        full_line(t);
        rule('=');
    }
    return 0;
}

static void field(const char *k, const char *v) { printf("        %-31s: %s\n", k, v); }

static int cmd_list(uint32_t n)
{
    char v[32];
    snprintf(v, sizeof v, "%u", n);
    field("Total Count", v);
    for (uint32_t i = 0; i < n; i++) {
        printf("\n");
        snprintf(v, sizeof v, "%u", i);
        field("NPU ID", v);
        field("Product Name", "cannon CPU device");
        field("Serial Number", "NA");
        field("Chip Count", "1");
    }
    return 0;
}

static int cmd_chips(uint32_t n)
{
    printf("        %-31s%-31s%-31s%s\n", "NPU ID", "Chip ID", "Chip Logic ID", "Chip Name");
    char name[64];
    snprintf(name, sizeof name, "Ascend %s", chip_name());
    for (uint32_t i = 0; i < n; i++) {
        char id[16];
        snprintf(id, sizeof id, "%u", i);
        printf("        %-31s%-31s%-31s%s\n", id, "0", id, name);
    }
    return 0;
}

static int cmd_board(int32_t id, int chip)
{
    char v[64];
    snprintf(v, sizeof v, "%d", id);
    field("NPU ID", v);
    if (chip >= 0) {
        snprintf(v, sizeof v, "%d", chip);
        field("Chip ID", v);
        field("Chip Type", "Ascend");
        field("Chip Name", chip_name());
        return 0;
    }
    field("Product Name", "cannon CPU device");
    field("Model", "NA");
    field("Manufacturer", "cannon");
    field("Serial Number", "NA");
    field("Software Version", CANNON_VERSION_STRING);
    field("Firmware Version", "NA");
    field("Compatibility", "OK");
    field("Board ID", "NA");
    field("PCIe Bus Info", "NA");
    field("Chip Count", "1");
    return 0;
}

static int cmd_memory(int32_t id)
{
    dev_info d = query(id);
    if (!d.ok) {
        fprintf(stderr, "Error: cannot query the memory of device %d\n", id);
        return 1;
    }
    char v[64];
    snprintf(v, sizeof v, "%.0f", (double)d.total / MIB);
    field("HBM Capacity(MB)", v);
    snprintf(v, sizeof v, "%.0f", (double)(d.total - d.free) * 100.0 / (double)(d.total ? d.total : 1));
    field("HBM Usage Rate(%)", v);
    return 0;
}

static int usage(FILE *f)
{
    fprintf(f, "Usage: npu-smi info [-l | -m | -t board -i <id> [-c <chip>] | -t memory -i <id> [-c <chip>]]\n"
               "  info                  the device and process tables\n"
               "  info -l               the device list\n"
               "  info -m               the chip list\n"
               "  info -t board -i ID   board information of device ID (-c 0: chip information)\n"
               "  info -t memory -i ID  memory of device ID\n");
    return f == stdout ? 0 : 1;
}

static int parse_int(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 0 || v > 1000000)
        return -1;
    *out = (int)v;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
        return usage(stdout);
    if (argc < 2 || strcmp(argv[1], "info") != 0)
        return usage(stderr);
    const char *type = NULL;
    int id = -1, chip = -1, list = 0, chips = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-l")) {
            list = 1;
        } else if (!strcmp(a, "-m")) {
            chips = 1;
        } else if ((!strcmp(a, "-t") || !strcmp(a, "-i") || !strcmp(a, "-c")) && i + 1 < argc) {
            const char *v = argv[++i];
            if (a[1] == 't') {
                type = v;
            } else if (parse_int(v, a[1] == 'i' ? &id : &chip) != 0) {
                fprintf(stderr, "Error: invalid value \"%s\" for %s\n", v, a);
                return 1;
            }
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            return usage(stdout);
        } else {
            fprintf(stderr, "Error: unknown or incomplete option \"%s\"\n", a);
            return usage(stderr);
        }
    }
    aclError rc = aclInit(NULL);
    if (rc != ACL_SUCCESS && rc != ACL_ERROR_REPEAT_INITIALIZE) {
        const char *m = aclGetRecentErrMsg();
        fprintf(stderr, "Error: the runtime did not start (%d): %s\n", rc, m ? m : "");
        return 1;
    }
    uint32_t n = 0;
    if (aclrtGetDeviceCount(&n) != ACL_SUCCESS) {
        fprintf(stderr, "Error: cannot count the devices\n");
        (void)aclFinalize();
        return 1;
    }
    int status;
    if (type) {
        if (id < 0 || (uint32_t)id >= n || chip > 0) {
            fprintf(stderr, "Error: %s is invalid (devices 0..%u, chip 0)\n", id < 0 || (uint32_t)id >= n ?
                    "the device id (-i)" : "the chip id (-c)", n ? n - 1 : 0);
            status = 1;
        } else if (!strcmp(type, "board")) {
            status = cmd_board(id, chip);
        } else if (!strcmp(type, "memory")) {
            status = cmd_memory(id);
        } else {
            fprintf(stderr, "Error: unknown type \"%s\" (board, memory)\n", type);
            status = 1;
        }
    } else if (list) {
        status = cmd_list(n);
    } else if (chips) {
        status = cmd_chips(n);
    } else {
        status = cmd_info(n);
    }
    (void)aclFinalize();
    return status;
}
