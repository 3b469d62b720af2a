/*
 * HcclCommInitClusterInfo: communicators from a rank-table JSON file (versions 1.0 and 1.2).
 *
 * The table says which ranks exist and where rank 0 lives; the rendezvous is the same TCP root as
 * for root infos, served by rank 0 at its server's host_ip (127.0.0.1 when absent) and port (the
 * device's host_port when given, else HCCL_IF_BASE_PORT + device_id; base 60000). The rendezvous
 * nonce is a hash of the file, so processes reading different tables never join each other.
 *
 * The file is hostile input: only a regular file is read (opening never blocks, so a FIFO cannot
 * hang the caller), at most MAX_TABLE_BYTES of it, and every field is checked against the
 * documented format before anything is used — integers integral and in range, addresses with
 * inet_pton, ports in 1..65535, required fields present, no NUL byte in the file and no escaped
 * NUL in a string — with HCCL_E_PARA and a message naming the field. hc_ranktable_parse does the
 * validation alone (no file, no socket), so it can be tested and fuzzed on its own.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "hccl_internal.h"

#define MAX_TABLE_BYTES (4u << 20)
#define MAX_SERVER_ID 64
#define MAX_DEVICE_ID 2147483647L

static uint64_t fnv(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Read the table into a NUL-terminated malloc'd buffer; an HCCL code (message reported) on failure. */
static int read_table(const char *api, const char *path, char **text, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return hc_arg_error(HCCL_E_OPEN_FILE_FAILURE, "%s: cannot open %s: %s", api, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return hc_arg_error(HCCL_E_OPEN_FILE_FAILURE, "%s: cannot stat %s: %s", api, path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return hc_arg_error(HCCL_E_PARA, "%s: %s is %s, not a regular file", api, path,
                            S_ISDIR(st.st_mode) ? "a directory" : "a FIFO, device or socket");
    }
    if ((uint64_t)st.st_size > MAX_TABLE_BYTES) {
        close(fd);
        return hc_arg_error(HCCL_E_PARA, "%s: %s is larger than %u bytes", api, path, MAX_TABLE_BYTES);
    }
    char *buf = malloc(MAX_TABLE_BYTES + 2);
    if (buf == NULL) {
        close(fd);
        return hc_arg_error(HCCL_E_MEMORY, "%s: out of memory", api);
    }
    size_t n = 0;
    while (n <= MAX_TABLE_BYTES) { /* one byte past the limit tells a file that grew meanwhile */
        ssize_t r = read(fd, buf + n, MAX_TABLE_BYTES + 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            free(buf);
            return hc_arg_error(HCCL_E_PARA, "%s: cannot read %s: %s", api, path, strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (n > MAX_TABLE_BYTES) {
        free(buf);
        return hc_arg_error(HCCL_E_PARA, "%s: %s is larger than %u bytes", api, path, MAX_TABLE_BYTES);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return HCCL_SUCCESS;
}

/*
 * cJSON decodes \u0000 into a NUL byte and keeps no length, so "0\u00001" would read as "0": find
 * a string holding one in the (parsed, so well-formed) text, and name the key it belongs to.
 */
static int find_nul(const char *s, size_t n, char *key, size_t key_size)
{
    const char *last_key = NULL;
    size_t last_len = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '"')
            continue;
        size_t start = i + 1, j = start;
        int nul = 0;
        while (j < n && s[j] != '"') {
            if (s[j] == '\\') {
                if (j + 5 < n && s[j + 1] == 'u' && memcmp(s + j + 2, "0000", 4) == 0)
                    nul = 1;
                j += 2;
            } else {
                j++;
            }
        }
        if (j > n)
            j = n;
        size_t k = j + 1;
        while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r'))
            k++;
        if (k < n && s[k] == ':') {
            last_key = s + start;
            last_len = j - start;
        }
        i = j;
        if (nul) {
            snprintf(key, key_size, "%.*s", last_key ? (int)last_len : 10, last_key ? last_key : "(no key)");
            return 1;
        }
    }
    return 0;
}

/* A field check failed: the message, naming the field and where it is, goes to why. */
__attribute__((format(printf, 3, 4))) static int bad(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

/*
 * An integer field: a JSON string of decimal digits (the documented form) or an integral JSON
 * number, in [lo, hi]. 1: *out set; 0: absent; -1: invalid (why says so, naming the field).
 */
static int get_int(const cJSON *o, const char *key, long lo, long hi, const char *where, long *out, char *why,
                   size_t wn)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (v == NULL)
        return 0;
    if (cJSON_IsString(v)) {
        const char *p = v->valuestring;
        long long x = 0; /* stays <= hi <= MAX_DEVICE_ID, so x * 10 + 9 cannot overflow */
        if (*p == '\0')
            return bad(why, wn, "%s%s is empty; an integer in [%ld, %ld] is expected", where, key, lo, hi);
        for (; *p; p++) {
            if (*p < '0' || *p > '9')
                return bad(why, wn, "%s%s \"%.40s\" is not a decimal integer", where, key, v->valuestring);
            x = x * 10 + (*p - '0');
            if (x > hi)
                return bad(why, wn, "%s%s \"%.40s\" is out of range [%ld, %ld]", where, key, v->valuestring, lo, hi);
        }
        if (x < lo)
            return bad(why, wn, "%s%s %lld is out of range [%ld, %ld]", where, key, x, lo, hi);
        *out = (long)x;
        return 1;
    }
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        /* Compare as doubles first: converting an out-of-range double is undefined. */
        if (!(d >= (double)lo && d <= (double)hi))
            return bad(why, wn, "%s%s %g is out of range [%ld, %ld]", where, key, d, lo, hi);
        long x = (long)d;
        if ((double)x != d)
            return bad(why, wn, "%s%s %g is not an integer", where, key, d);
        *out = x;
        return 1;
    }
    return bad(why, wn, "%s%s must be a string of decimal digits", where, key);
}

/* An IP address field (IPv4, or IPv6 too when v6_ok). 1: set; 0: absent; -1: invalid. */
static int get_ip(const cJSON *o, const char *key, int v6_ok, const char *where, const char **out, char *why,
                  size_t wn)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (v == NULL)
        return 0;
    if (!cJSON_IsString(v))
        return bad(why, wn, "%s%s must be a string holding an IP address", where, key);
    unsigned char addr[16];
    if (inet_pton(AF_INET, v->valuestring, addr) != 1 && !(v6_ok && inet_pton(AF_INET6, v->valuestring, addr) == 1))
        return bad(why, wn, "%s%s \"%.60s\" is not an %s address", where, key, v->valuestring,
                   v6_ok ? "IPv4 or IPv6" : "IPv4");
    *out = v->valuestring;
    return 1;
}

/* Check one device entry; fills the rank, device id and (when given) host port. */
static int check_device(const cJSON *dev, long nranks, const char *where, long *rid, long *did, long *hport, char *why,
                        size_t wn)
{
    if (!cJSON_IsObject(dev))
        return bad(why, wn, "%sdevice entries must be objects", where);
    long v;
    const char *ip;
    int r = get_int(dev, "rank_id", 0, nranks - 1, where, rid, why, wn);
    if (r == 0)
        return bad(why, wn, "%srank_id is missing", where);
    if (r < 0)
        return -1;
    r = get_int(dev, "device_id", 0, MAX_DEVICE_ID, where, did, why, wn);
    if (r == 0)
        return bad(why, wn, "%sdevice_id is missing", where);
    if (r < 0)
        return -1;
    *hport = -1;
    if (get_int(dev, "host_port", 1, 65535, where, hport, why, wn) < 0 ||
        get_int(dev, "device_port", 1, 65535, where, &v, why, wn) < 0 ||
        get_int(dev, "backup_device_port", 1, 65535, where, &v, why, wn) < 0 ||
        get_int(dev, "super_device_id", 0, MAX_DEVICE_ID, where, &v, why, wn) < 0 ||
        get_ip(dev, "device_ip", 1, where, &ip, why, wn) < 0 || get_ip(dev, "backup_device_ip", 1, where, &ip, why, wn) < 0)
        return -1;
    return 0;
}

int hc_ranktable_parse(const char *text, size_t n, uint32_t rank, hc_ranktable *out, char *why, size_t wn)
{
    /* cJSON reads up to the first NUL byte: whatever follows one would be ignored unseen. */
    const char *nul = memchr(text, '\0', n);
    if (nul != NULL) {
        snprintf(why, wn, "the file holds a NUL byte at offset %zu", (size_t)(nul - text));
        return HCCL_E_PARA;
    }
    cJSON *root = cJSON_ParseWithOpts(text, NULL, 1); /* nothing but whitespace after the value */
    if (root == NULL) {
        snprintf(why, wn, "not valid JSON");
        return HCCL_E_PARA;
    }
    char nul_key[80];
    int rc = HCCL_E_PARA;
    long nranks = 0, nservers = 0, r0_dev = -1, r0_port = -1, count;
    const char *r0_ip = NULL;
    int found = 0;
    unsigned char *seen = NULL;
    if (find_nul(text, n, nul_key, sizeof nul_key)) {
        snprintf(why, wn, "%s: a string holds an escaped NUL (\\u0000), which would cut it short", nul_key);
        goto out;
    }
    if (!cJSON_IsObject(root)) {
        snprintf(why, wn, "the top level must be a JSON object");
        goto out;
    }
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(root, "status");
    const cJSON *servers = cJSON_GetObjectItemCaseSensitive(root, "server_list");
    if (!cJSON_IsString(ver) || (strcmp(ver->valuestring, "1.0") != 0 && strcmp(ver->valuestring, "1.2") != 0)) {
        snprintf(why, wn, "version must be the string \"1.0\" or \"1.2\"");
        goto out;
    }
    if (status == NULL) {
        snprintf(why, wn, "status is missing (\"completed\" is expected)");
        goto out;
    }
    if (!cJSON_IsString(status)) {
        snprintf(why, wn, "status must be the string \"completed\"");
        goto out;
    }
    if (strcmp(status->valuestring, "completed") != 0) {
        snprintf(why, wn, "status is \"%.40s\", not \"completed\"", status->valuestring);
        goto out;
    }
    if (!cJSON_IsArray(servers) || cJSON_GetArraySize(servers) == 0) {
        snprintf(why, wn, "server_list is missing, empty or not an array");
        goto out;
    }
    const cJSON *pods = cJSON_GetObjectItemCaseSensitive(root, "super_pod_list");
    if (pods != NULL && !cJSON_IsArray(pods)) {
        snprintf(why, wn, "super_pod_list must be an array");
        goto out;
    }
    const cJSON *srv;
    cJSON_ArrayForEach(srv, servers)
    {
        const cJSON *devs = cJSON_IsObject(srv) ? cJSON_GetObjectItemCaseSensitive(srv, "device") : NULL;
        if (!cJSON_IsObject(srv)) {
            snprintf(why, wn, "server_list entry %ld is not an object", nservers);
            goto out;
        }
        if (!cJSON_IsArray(devs)) {
            snprintf(why, wn, "server_list[%ld].device is missing or not an array", nservers);
            goto out;
        }
        nranks += cJSON_GetArraySize(devs);
        nservers++;
    }
    int r = get_int(root, "server_count", 1, HC_MAX_RANKS, "", &count, why, wn);
    if (r < 0)
        goto out;
    if (r == 0 && strcmp(ver->valuestring, "1.0") == 0) {
        snprintf(why, wn, "server_count is missing (required by version 1.0)");
        goto out;
    }
    if (r > 0 && count != nservers) {
        snprintf(why, wn, "server_count %ld does not match the %ld server(s) listed", count, nservers);
        goto out;
    }
    if (nranks <= 0 || nranks > HC_MAX_RANKS) {
        snprintf(why, wn, "%ld ranks is out of range [1, %d]", nranks, HC_MAX_RANKS);
        goto out;
    }
    seen = calloc((size_t)nranks, 1);
    if (seen == NULL) {
        rc = HCCL_E_MEMORY;
        snprintf(why, wn, "out of memory");
        goto out;
    }
    long si = 0;
    cJSON_ArrayForEach(srv, servers)
    {
        char where[48];
        snprintf(where, sizeof where, "server_list[%ld].", si);
        const cJSON *sid = cJSON_GetObjectItemCaseSensitive(srv, "server_id");
        if (!cJSON_IsString(sid) || sid->valuestring[0] == '\0' || strlen(sid->valuestring) > MAX_SERVER_ID) {
            snprintf(why, wn, "%sserver_id %s", where,
                     sid == NULL ? "is missing" : "must be a non-empty string of at most 64 characters");
            goto out;
        }
        const char *hip = NULL;
        if (get_ip(srv, "host_ip", 0, where, &hip, why, wn) < 0)
            goto out;
        const cJSON *dev;
        long di = 0;
        cJSON_ArrayForEach(dev, cJSON_GetObjectItemCaseSensitive(srv, "device"))
        {
            char dwhere[80];
            snprintf(dwhere, sizeof dwhere, "%sdevice[%ld].", where, di++);
            long rid, did, hport;
            if (check_device(dev, nranks, dwhere, &rid, &did, &hport, why, wn) != 0)
                goto out;
            if (seen[rid]) {
                snprintf(why, wn, "%srank_id %ld is listed twice", dwhere, rid);
                goto out;
            }
            seen[rid] = 1;
            if ((uint32_t)rid == rank)
                found = 1;
            if (rid == 0) {
                r0_dev = did;
                r0_ip = hip;
                r0_port = hport;
            }
        }
        si++;
    }
    if (!found) {
        snprintf(why, wn, "rank %u is not in the table (%ld ranks)", rank, nranks);
        goto out;
    }
    if (r0_port < 0) {
        long base = (long)hc_env_int("HCCL_IF_BASE_PORT", 60000, 1024, 65520);
        if (r0_dev > 65535 - base) {
            snprintf(why, wn, "no usable port for rank 0: HCCL_IF_BASE_PORT %ld + device_id %ld exceeds 65535 "
                     "(give rank 0 a host_port)", base, r0_dev);
            goto out;
        }
        r0_port = base + r0_dev;
    }
    out->nranks = (uint32_t)nranks;
    snprintf(out->r0_ip, sizeof out->r0_ip, "%s", r0_ip ? r0_ip : "127.0.0.1");
    out->r0_port = (uint16_t)r0_port;
    out->nonce = fnv(text, n);
    rc = HCCL_SUCCESS;
out:
    cJSON_Delete(root);
    free(seen);
    return rc;
}

HCCL_API HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm)
{
    const char *api = "HcclCommInitClusterInfo";
    if (clusterInfo == NULL || comm == NULL)
        return (HcclResult)hc_arg_error(HCCL_E_PTR, "%s: %s is NULL", api, clusterInfo ? "comm" : "clusterInfo");
    if (strlen(clusterInfo) >= 4096)
        return (HcclResult)hc_arg_error(HCCL_E_PARA, "%s: the path is longer than 4095 bytes", api);
    char *text = NULL;
    size_t n = 0;
    int rc = read_table(api, clusterInfo, &text, &n);
    if (rc != HCCL_SUCCESS)
        return (HcclResult)rc;
    hc_ranktable rt;
    char why[320] = "";
    rc = hc_ranktable_parse(text, n, rank, &rt, why, sizeof why);
    free(text);
    if (rc != HCCL_SUCCESS)
        return (HcclResult)hc_arg_error(rc, "%s: %s: %s", api, clusterInfo, why);
    /* Rank 0 serves the rendezvous; the others describe the same address without listening. */
    HcclRootInfo ri;
    rc = hc_root_info_create(&ri, rt.r0_ip, rt.r0_port, rt.nonce, rank == 0);
    if (rc != 0)
        return (HcclResult)hc_arg_error(rc, "%s: cannot listen on %s:%u for the rendezvous", api, rt.r0_ip,
                                        (unsigned)rt.r0_port);
    hc_comm *c = NULL;
    rc = hc_comm_create(rt.nranks, rank, &ri, &c);
    if (rc != 0)
        return (HcclResult)rc;
    *comm = c;
    return HCCL_SUCCESS;
}
