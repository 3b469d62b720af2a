/*
 * libascendalog: CANN's log library, which the kernel-launch samples link. They log through
 * their own macros (printf), so the library has no symbols of its own yet; cannon's runtime
 * reports through aclGetRecentErrMsg and its own log.
 */
typedef int cannon_ascendalog_placeholder_t;
