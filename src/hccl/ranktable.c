/*
 * HcclCommInitClusterInfo: communicators from a rank-table JSON file (versions 1.0 and 1.2).
 *
 * The table says which ranks exist and where rank 0 lives; the rendezvous is the same TCP root as
 * for root infos, served by rank 0 at its server's host_ip (127.0.0.1 when absent) and port (the
 * device's host_port when given, else HCCL_IF_BASE_PORT + device_id; base 60000). The rendezvous
 * nonce is a hash of the file, so processes reading different tables never join each other.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hccl_internal.h"

#define MAX_TABLE_BYTES (4u << 20)

static uint64_t fnv(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Numbers in rank tables are JSON strings; accept plain numbers too. */
static int json_uint(const cJSON *o, const char *key, long *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsNumber(v)) {
        *out = (long)v->valuedouble;
        return *out >= 0;
    }
    if (cJSON_IsString(v) && v->valuestring[0]) {
        char *end;
        *out = strtol(v->valuestring, &end, 10);
        return *end == '\0' && *out >= 0;
    }
    return 0;
}

HCCL_API HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm)
{
    const char *api = "HcclCommInitClusterInfo";
    if (clusterInfo == NULL || comm == NULL)
        return (HcclResult)hc_arg_error(HCCL_E_PTR, "%s: %s is NULL", api, clusterInfo ? "comm" : "clusterInfo");
    if (strlen(clusterInfo) >= 4096)
        return (HcclResult)hc_arg_error(HCCL_E_PARA, "%s: the path is longer than 4095 bytes", api);
    FILE *f = fopen(clusterInfo, "rb");
    if (f == NULL)
        return (HcclResult)hc_arg_error(HCCL_E_OPEN_FILE_FAILURE, "%s: cannot open %s", api, clusterInfo);
    char *text = malloc(MAX_TABLE_BYTES + 1);
    size_t n = text ? fread(text, 1, MAX_TABLE_BYTES + 1, f) : 0;
    fclose(f);
    if (text == NULL)
        return (HcclResult)hc_arg_error(HCCL_E_MEMORY, "%s: out of memory", api);
    if (n > MAX_TABLE_BYTES) {
        free(text);
        return (HcclResult)hc_arg_error(HCCL_E_PARA, "%s: %s is larger than 4 MiB", api, clusterInfo);
    }
    text[n] = '\0';
    uint64_t nonce = fnv(text, n);
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (root == NULL)
        return (HcclResult)hc_arg_error(HCCL_E_PARA, "%s: %s is not valid JSON", api, clusterInfo);

    int rc = HCCL_E_PARA;
    char why[256] = "";
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(root, "status");
    const cJSON *servers = cJSON_GetObjectItemCaseSensitive(root, "server_list");
    long nranks = 0, r0_dev = -1, r0_port = -1;
    const char *r0_ip = NULL;
    int found = 0;
    unsigned char *seen = NULL;
    if (!cJSON_IsString(ver) || (strcmp(ver->valuestring, "1.0") != 0 && strcmp(ver->valuestring, "1.2") != 0)) {
        snprintf(why, sizeof why, "version must be \"1.0\" or \"1.2\"");
        goto out;
    }
    if (cJSON_IsString(status) && strcmp(status->valuestring, "completed") != 0) {
        snprintf(why, sizeof why, "status is \"%s\", not \"completed\"", status->valuestring);
        goto out;
    }
    if (!cJSON_IsArray(servers) || cJSON_GetArraySize(servers) == 0) {
        snprintf(why, sizeof why, "server_list is missing or empty");
        goto out;
    }
    const cJSON *srv;
    cJSON_ArrayForEach(srv, servers)
    {
        const cJSON *devs = cJSON_GetObjectItemCaseSensitive(srv, "device");
        if (!cJSON_IsArray(devs)) {
            snprintf(why, sizeof why, "a server has no device list");
            goto out;
        }
        nranks += cJSON_GetArraySize(devs);
    }
    if (nranks <= 0 || nranks > HC_MAX_RANKS) {
        snprintf(why, sizeof why, "%ld ranks is out of range", nranks);
        goto out;
    }
    seen = calloc((size_t)nranks, 1);
    if (seen == NULL) {
        rc = HCCL_E_MEMORY;
        snprintf(why, sizeof why, "out of memory");
        goto out;
    }
    cJSON_ArrayForEach(srv, servers)
    {
        const cJSON *hip = cJSON_GetObjectItemCaseSensitive(srv, "host_ip");
        const cJSON *dev;
        cJSON_ArrayForEach(dev, cJSON_GetObjectItemCaseSensitive(srv, "device"))
        {
            long rid, did;
            if (!json_uint(dev, "rank_id", &rid) || !json_uint(dev, "device_id", &did)) {
                snprintf(why, sizeof why, "a device lacks a valid rank_id or device_id");
                goto out;
            }
            if (rid >= nranks || seen[rid]) {
                snprintf(why, sizeof why, "rank_id %ld is out of range or listed twice", rid);
                goto out;
            }
            seen[rid] = 1;
            if ((uint32_t)rid == rank)
                found = 1;
            if (rid == 0) {
                r0_dev = did;
                r0_ip = cJSON_IsString(hip) ? hip->valuestring : NULL;
                long hp;
                if (json_uint(dev, "host_port", &hp) && hp > 0 && hp < 65536)
                    r0_port = hp;
            }
        }
    }
    if (!found) {
        snprintf(why, sizeof why, "rank %u is not in the table (%ld ranks)", rank, nranks);
        goto out;
    }
    if (r0_port < 0)
        r0_port = hc_env_int("HCCL_IF_BASE_PORT", 60000, 1024, 65520) + r0_dev;
    if (r0_port <= 0 || r0_port > 65535) {
        snprintf(why, sizeof why, "no usable port for rank 0");
        goto out;
    }
    HcclRootInfo ri;
    char ip[64];
    snprintf(ip, sizeof ip, "%s", r0_ip ? r0_ip : "127.0.0.1");
    cJSON_Delete(root);
    root = NULL;
    free(seen);
    seen = NULL;
    /* Rank 0 serves the rendezvous; the others describe the same address without listening. */
    rc = hc_root_info_create(&ri, ip, (uint16_t)r0_port, nonce, rank == 0);
    if (rc != 0)
        return (HcclResult)hc_arg_error(rc, "%s: cannot listen on %s:%ld for the rendezvous", api, ip, r0_port);
    hc_comm *c = NULL;
    rc = hc_comm_create((uint32_t)nranks, rank, &ri, &c);
    if (rc != 0)
        return (HcclResult)rc;
    *comm = c;
    return HCCL_SUCCESS;
out:
    cJSON_Delete(root);
    free(seen);
    return (HcclResult)hc_arg_error(rc, "%s: %s: %s", api, clusterInfo, why);
}
