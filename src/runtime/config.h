/* The aclInit JSON configuration (internal). Parsed with cJSON. */
#ifndef CANNON_RT_CONFIG_H_
#define CANNON_RT_CONFIG_H_

#include "common.h"

typedef struct cn_config {
    int err_msg_mode;          /* 0 per thread (default), 1 per process */
    int default_device;        /* -1 when not configured */
    unsigned long max_opqueue_num; /* default 20000 */
    /* dump and profiler sections: validated, then kept as JSON text for later features */
    bool dump_enabled;         /* a dump section with something switched on */
    char *dump_json;           /* NULL when absent */
    char *dump_path;           /* NULL when absent */
    bool profiler_enabled;     /* "switch": "on" */
    char *profiler_json;       /* NULL when absent */
    char *profiler_output;     /* NULL when absent */
    uint64_t content_hash;     /* hash of the file's bytes (0 for no file / empty) */
} cn_config;

/*
 * Load `path` (NULL or "" → defaults) into *out. Returns ACL_SUCCESS or, after cn_error() with a
 * message naming the file and the problem:
 *   ACL_ERROR_INVALID_FILE     missing or unreadable file, or not a regular file (a directory, a
 *                              FIFO, a device: only regular files are read, and opening never blocks)
 *   ACL_ERROR_INVALID_FILE_SIZE file too large (> 1 MiB)
 *   ACL_ERROR_PARSE_FILE       malformed JSON, top level not an object, nesting of '{' or '['
 *                              deeper than 10 (counted outside strings)
 *   ACL_ERROR_INVALID_PARAM    err_msg_mode not the string "0" or "1"; StackSize/acl_graph wrong types
 *   ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG  max_opqueue_num not a string of digits
 *   ACL_ERROR_BAD_ALLOC        out of memory
 *   ACL_ERROR_FAILURE          defaultDevice.default_device not a string matching 0|[1-9][0-9]*
 *   ACL_ERROR_INVALID_DUMP_CONFIG / ACL_ERROR_INVALID_PROFILING_CONFIG  bad dump / profiler section
 * A string (key or value) holding an escaped NUL (\u0000) fails with the code of the top-level
 * member it is in (ACL_ERROR_PARSE_FILE for an unknown member, or a key itself). Every message
 * names the member ("dump.dump_path").
 * An empty file (or only whitespace) and {} mean defaults. Unknown keys are ignored with an INFO
 * log line. On failure *out is left in the default state (nothing to free).
 */
aclError cn_config_load(const char *path, cn_config *out);
void cn_config_defaults(cn_config *cfg);
void cn_config_free(cn_config *cfg);

#endif /* CANNON_RT_CONFIG_H_ */
