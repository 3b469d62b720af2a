/**
 * @file securec.h
 * The secure C functions CANN's host programs call (memcpy_s, strcpy_s, sprintf_s, ...), as
 * declared by CANN's securec.h and implemented by cannon's libc_sec. Each function checks its
 * destination size before writing. The memory and string functions return EOK (0) or an error
 * code; on an error that leaves the destination unusable they clear it first (the whole buffer
 * for the memory functions, its first character for the string functions) and return the code
 * with the reset bit (EINVAL_AND_RESET, ERANGE_AND_RESET, EOVERLAP_AND_RESET). The formatting
 * functions return the number of characters written or -1.
 */
#ifndef CANNON_SECUREC_H_
#define CANNON_SECUREC_H_

#include <stdarg.h>
#include <stddef.h>

#ifndef EOK
#define EOK 0
#endif
typedef int errno_t;
#ifndef EINVAL
#define EINVAL 22
#endif
#ifndef ERANGE
#define ERANGE 34
#endif
#ifndef EOVERLAP_AND_RESET
#define EOVERLAP_AND_RESET (54 | 128)
#endif
#ifndef EINVAL_AND_RESET
#define EINVAL_AND_RESET (22 | 128)
#endif
#ifndef ERANGE_AND_RESET
#define ERANGE_AND_RESET (34 | 128)
#endif

/** The largest destination size the functions accept (larger sizes are taken for a bug). */
#define SECUREC_MEM_MAX_LEN 0x7fffffffUL
#define SECUREC_STRING_MAX_LEN 0x7fffffffUL

#if defined(__GNUC__)
#define SECUREC_API __attribute__((visibility("default")))
#else
#define SECUREC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

SECUREC_API errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count);
SECUREC_API errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count);
SECUREC_API errno_t memset_s(void *dest, size_t destMax, int c, size_t count);
SECUREC_API errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc);
SECUREC_API errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
SECUREC_API errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc);
SECUREC_API errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
SECUREC_API int sprintf_s(char *strDest, size_t destMax, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
SECUREC_API int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 0)))
#endif
    ;
SECUREC_API int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
SECUREC_API int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format, va_list argList)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 0)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* CANNON_SECUREC_H_ */
