/*
 * libc_sec: the secure C functions of securec.h. The rules each function follows, in order:
 *   1. the destination size is 0 or above the maximum: ERANGE, nothing written;
 *   2. a NULL destination or source: EINVAL (NULL destination) or the destination cleared and
 *      EINVAL_AND_RESET;
 *   3. the result does not fit (a count above the destination size; a string, with its
 *      terminator, longer than the room left): the destination cleared and ERANGE_AND_RESET;
 *   4. source and destination overlap (except the same pointer, which is a no-op): the
 *      destination cleared and EOVERLAP_AND_RESET;
 *   5. otherwise the copy and EOK.
 * "Cleared" is the whole buffer (destMax bytes) for memcpy_s/memmove_s and the first character
 * for the string functions; memset_s fills the whole buffer with its value when the count does
 * not fit. The formatting functions return -1 with an empty destination when the output does
 * not fit, except snprintf_s with a count below the destination size, which truncates to count
 * characters and returns -1.
 */
#include "securec.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The length of s, reading at most max characters (max when no terminator was found). */
static size_t bounded_len(const char *s, size_t max)
{
    const char *end = memchr(s, '\0', max);
    return end != NULL ? (size_t)(end - s) : max;
}

static int overlaps(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return pa < pb + nb && pb < pa + na;
}

static int bad_size(size_t destMax, size_t max) { return destMax == 0 || destMax > max; }

errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count)
{
    if (bad_size(destMax, SECUREC_MEM_MAX_LEN))
        return ERANGE;
    if (dest == NULL || src == NULL) {
        if (dest == NULL)
            return EINVAL;
        memset(dest, 0, destMax);
        return EINVAL_AND_RESET;
    }
    if (count > destMax) {
        memset(dest, 0, destMax);
        return ERANGE_AND_RESET;
    }
    if (count == 0 || dest == src)
        return EOK;
    if (overlaps(dest, count, src, count)) {
        memset(dest, 0, destMax);
        return EOVERLAP_AND_RESET;
    }
    memcpy(dest, src, count);
    return EOK;
}

errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count)
{
    if (bad_size(destMax, SECUREC_MEM_MAX_LEN))
        return ERANGE;
    if (dest == NULL || src == NULL) {
        if (dest == NULL)
            return EINVAL;
        memset(dest, 0, destMax);
        return EINVAL_AND_RESET;
    }
    if (count > destMax) {
        memset(dest, 0, destMax);
        return ERANGE_AND_RESET;
    }
    if (count != 0 && dest != src)
        memmove(dest, src, count);
    return EOK;
}

errno_t memset_s(void *dest, size_t destMax, int c, size_t count)
{
    if (bad_size(destMax, SECUREC_MEM_MAX_LEN))
        return ERANGE;
    if (dest == NULL)
        return EINVAL;
    if (count > destMax) {
        memset(dest, c, destMax);
        return ERANGE_AND_RESET;
    }
    memset(dest, c, count);
    return EOK;
}

/* Rules 1 and 2 of the string functions; returns -1 when the arguments are usable. */
static errno_t str_args(char *strDest, size_t destMax, const char *strSrc)
{
    if (bad_size(destMax, SECUREC_STRING_MAX_LEN))
        return ERANGE;
    if (strDest == NULL || strSrc == NULL) {
        if (strDest == NULL)
            return EINVAL;
        strDest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    return -1;
}

/* Appends n characters of src (and a terminator) at dest + at, whose buffer holds destMax. */
static errno_t str_put(char *strDest, size_t at, const char *strSrc, size_t n)
{
    if (strDest + at == strSrc)
        return EOK;
    if (overlaps(strDest, at + n + 1, strSrc, n + 1)) {
        strDest[0] = '\0';
        return EOVERLAP_AND_RESET;
    }
    memcpy(strDest + at, strSrc, n);
    strDest[at + n] = '\0';
    return EOK;
}

errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc)
{
    errno_t rc = str_args(strDest, destMax, strSrc);
    if (rc != -1)
        return rc;
    size_t n = bounded_len(strSrc, destMax);
    if (n == destMax) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    return str_put(strDest, 0, strSrc, n);
}

errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count)
{
    errno_t rc = str_args(strDest, destMax, strSrc);
    if (rc != -1)
        return rc;
    if (count > SECUREC_STRING_MAX_LEN) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    size_t limit = count < destMax ? count : destMax;
    size_t n = bounded_len(strSrc, limit);
    if (n == destMax) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    return str_put(strDest, 0, strSrc, n);
}

static errno_t str_cat(char *strDest, size_t destMax, const char *strSrc, size_t count)
{
    errno_t rc = str_args(strDest, destMax, strSrc);
    if (rc != -1)
        return rc;
    if (count > SECUREC_STRING_MAX_LEN) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    size_t at = bounded_len(strDest, destMax);
    if (at == destMax) { /* the destination is not a string */
        strDest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    size_t room = destMax - at; /* characters that fit, terminator included */
    size_t limit = count < room ? count : room;
    size_t n = bounded_len(strSrc, limit);
    if (n == room) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    return str_put(strDest, at, strSrc, n);
}

errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc)
{
    return str_cat(strDest, destMax, strSrc, SECUREC_STRING_MAX_LEN);
}

errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count)
{
    return str_cat(strDest, destMax, strSrc, count);
}

int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format, va_list argList)
{
    if (strDest == NULL || bad_size(destMax, SECUREC_STRING_MAX_LEN))
        return -1;
    if (format == NULL || count > SECUREC_STRING_MAX_LEN) {
        strDest[0] = '\0';
        return -1;
    }
    if (count < destMax) { /* truncation to count characters is allowed */
        int r = vsnprintf(strDest, count + 1, format, argList);
        if (r < 0) {
            strDest[0] = '\0';
            return -1;
        }
        return (size_t)r > count ? -1 : r;
    }
    int r = vsnprintf(strDest, destMax, format, argList);
    if (r < 0 || (size_t)r >= destMax) {
        strDest[0] = '\0';
        return -1;
    }
    return r;
}

int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList)
{
    return vsnprintf_s(strDest, destMax, SECUREC_STRING_MAX_LEN, format, argList);
}

int sprintf_s(char *strDest, size_t destMax, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int r = vsprintf_s(strDest, destMax, format, ap);
    va_end(ap);
    return r;
}

int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int r = vsnprintf_s(strDest, destMax, count, format, ap);
    va_end(ap);
    return r;
}
