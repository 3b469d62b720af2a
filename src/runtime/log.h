/* Leveled logging and error reporting of libascendcl (internal).
 *
 * Logging is silent by default. ASCEND_GLOBAL_LOG_LEVEL (0 debug, 1 info, 2 warning, 3 error,
 * 4 off) turns it on; ASCEND_MODULE_LOG_LEVEL ("MOD=lvl:MOD=lvl") overrides per module;
 * lines go to stderr, or to stdout when ASCEND_LOG_PRINT_TO_STDOUT=1 (ASCEND_SLOG_PRINT_TO_STDOUT
 * is the deprecated spelling, the new one wins), or to a file under ASCEND_PROCESS_LOG_PATH when
 * that is set. Line format: [LEVEL] MODULE(PID,PNAME):YYYY-MM-DD-hh:mm:ss.mmm.uuu [file:line]msg
 */
#ifndef CANNON_RT_LOG_H_
#define CANNON_RT_LOG_H_

#include <stdarg.h>
#include "common.h"

enum { CN_LOG_DEBUG = 0, CN_LOG_INFO = 1, CN_LOG_WARNING = 2, CN_LOG_ERROR = 3, CN_LOG_NULL = 4 };

/* (Re-)read the logging environment variables. Called by aclInit; cheap and thread-safe. */
void cn_log_configure(void);
/* Whether a line of `level` from `module` would be written. */
bool cn_log_enabled(int level, const char *module);
void cn_log_write(int level, const char *module, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void cn_log_vwrite(int level, const char *module, const char *file, int line, const char *fmt, va_list ap);

#define CN_LOG(level, ...)                                                      \
    do {                                                                         \
        if (cn_log_enabled((level), "ASCENDCL"))                                 \
            cn_log_write((level), "ASCENDCL", __FILE__, __LINE__, __VA_ARGS__);  \
    } while (0)
#define CN_LOGD(...) CN_LOG(CN_LOG_DEBUG, __VA_ARGS__)
#define CN_LOGI(...) CN_LOG(CN_LOG_INFO, __VA_ARGS__)
#define CN_LOGW(...) CN_LOG(CN_LOG_WARNING, __VA_ARGS__)
#define CN_LOGE(...) CN_LOG(CN_LOG_ERROR, __VA_ARGS__)

/*
 * Error reporting. cn_error() records `code` as the calling thread's last error
 * (aclrtPeekAtLastError), appends the formatted message to the recent-error text read by
 * aclGetRecentErrMsg (per thread, or per process in mode 1; newest first; bounded in size so it
 * cannot grow without limit), logs it at ERROR level, and returns `code`:
 *     return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: devPtr is NULL");
 */
aclError cn_error(aclError code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
aclError cn_verror(aclError code, const char *fmt, va_list ap);
/* Set the scope of recent-error text: 0 per thread (default), 1 per process. */
void cn_error_set_mode(int process_wide);
/* Take (return and clear) the recent-error text; NULL when empty. Valid until the next call on
 * the same thread. */
const char *cn_error_take_recent(void);
/* The thread's last error code; clear → reset it to ACL_SUCCESS. */
aclError cn_error_last(bool clear);
/* Free the process-wide buffers (at finalize) and the calling thread's. */
void cn_error_reset_all(void);

#endif /* CANNON_RT_LOG_H_ */
