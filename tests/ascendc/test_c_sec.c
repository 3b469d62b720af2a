/* libc_sec (securec.h): every function's return codes, what it leaves in the destination on
 * each error (cleared, reset to an empty string, or untouched), truncation and overlap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "securec.h"

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

static void test_codes(void **state)
{
    (void)state;
    assert_int_equal(EOK, 0);
    assert_int_equal(EINVAL, 22);
    assert_int_equal(ERANGE, 34);
    assert_int_equal(EINVAL_AND_RESET, 150);
    assert_int_equal(ERANGE_AND_RESET, 162);
    assert_int_equal(EOVERLAP_AND_RESET, 182);
}

static void test_memcpy_s(void **state)
{
    (void)state;
    unsigned char d[16], s[16];
    for (int i = 0; i < 16; i++)
        s[i] = (unsigned char)(i + 1);

    memset(d, 0xAA, sizeof d);
    assert_int_equal(memcpy_s(d, sizeof d, s, 10), EOK);
    assert_memory_equal(d, s, 10);
    assert_true(all_bytes(d + 10, 6, 0xAA));
    assert_int_equal(memcpy_s(d, sizeof d, s, 0), EOK);
    assert_int_equal(memcpy_s(d, sizeof d, d, 16), EOK); /* the same buffer: nothing to do */

    memset(d, 0xAA, sizeof d);
    assert_int_equal(memcpy_s(d, 0, s, 1), ERANGE);
    assert_int_equal(memcpy_s(d, SECUREC_MEM_MAX_LEN + 1, s, 1), ERANGE);
    assert_true(all_bytes(d, 16, 0xAA)); /* untouched */
    assert_int_equal(memcpy_s(NULL, sizeof d, s, 1), EINVAL);
    assert_int_equal(memcpy_s(d, sizeof d, NULL, 1), EINVAL_AND_RESET);
    assert_true(all_bytes(d, 16, 0)); /* cleared */

    memset(d, 0xAA, sizeof d);
    assert_int_equal(memcpy_s(d, 8, s, 9), ERANGE_AND_RESET);
    assert_true(all_bytes(d, 8, 0));
    assert_true(all_bytes(d + 8, 8, 0xAA)); /* only destMax bytes are cleared */

    unsigned char b[16];
    memcpy(b, s, sizeof b);
    assert_int_equal(memcpy_s(b + 2, 14, b, 8), EOVERLAP_AND_RESET);
    assert_true(all_bytes(b + 2, 14, 0));
    assert_int_equal(b[0], 1);
}

static void test_memmove_s(void **state)
{
    (void)state;
    unsigned char b[16];
    for (int i = 0; i < 16; i++)
        b[i] = (unsigned char)(i + 1);
    assert_int_equal(memmove_s(b + 2, 14, b, 8), EOK); /* overlap is what memmove_s is for */
    for (int i = 0; i < 8; i++)
        assert_int_equal(b[2 + i], i + 1);
    assert_int_equal(memmove_s(b, 0, b + 1, 1), ERANGE);
    assert_int_equal(memmove_s(NULL, 4, b, 1), EINVAL);
    assert_int_equal(memmove_s(b, 4, NULL, 1), EINVAL_AND_RESET);
    assert_true(all_bytes(b, 4, 0));
    b[0] = 9;
    assert_int_equal(memmove_s(b, 4, b + 4, 5), ERANGE_AND_RESET);
    assert_true(all_bytes(b, 4, 0));
}

static void test_memset_s(void **state)
{
    (void)state;
    unsigned char d[8];
    memset(d, 0, sizeof d);
    assert_int_equal(memset_s(d, sizeof d, 0x5A, 5), EOK);
    assert_true(all_bytes(d, 5, 0x5A));
    assert_true(all_bytes(d + 5, 3, 0));
    assert_int_equal(memset_s(d, 4, 0x11, 6), ERANGE_AND_RESET); /* fills destMax bytes */
    assert_true(all_bytes(d, 4, 0x11));
    assert_int_equal(d[4], 0x5A);
    assert_int_equal(memset_s(NULL, 4, 0, 1), EINVAL);
    assert_int_equal(memset_s(d, 0, 0, 0), ERANGE);
}

static void test_strcpy_s(void **state)
{
    (void)state;
    char d[8];
    assert_int_equal(strcpy_s(d, sizeof d, "abcdefg"), EOK); /* 7 characters and the terminator */
    assert_string_equal(d, "abcdefg");
    assert_int_equal(strcpy_s(d, sizeof d, ""), EOK);
    assert_string_equal(d, "");
    strcpy(d, "xyz");
    assert_int_equal(strcpy_s(d, sizeof d, "abcdefgh"), ERANGE_AND_RESET);
    assert_string_equal(d, "");
    strcpy(d, "xyz");
    assert_int_equal(strcpy_s(d, 0, "a"), ERANGE);
    assert_string_equal(d, "xyz");
    assert_int_equal(strcpy_s(NULL, 8, "a"), EINVAL);
    assert_int_equal(strcpy_s(d, sizeof d, NULL), EINVAL_AND_RESET);
    assert_string_equal(d, "");

    char b[16] = "hello";
    assert_int_equal(strcpy_s(b + 2, 14, b), EOVERLAP_AND_RESET);
    assert_int_equal(b[2], '\0');
    strcpy(b, "same");
    assert_int_equal(strcpy_s(b, sizeof b, b), EOK);
    assert_string_equal(b, "same");
}

static void test_strncpy_s(void **state)
{
    (void)state;
    char d[8];
    assert_int_equal(strncpy_s(d, sizeof d, "abcdefghij", 3), EOK);
    assert_string_equal(d, "abc");
    assert_int_equal(strncpy_s(d, sizeof d, "ab", 5), EOK); /* the source is shorter than count */
    assert_string_equal(d, "ab");
    assert_int_equal(strncpy_s(d, sizeof d, "abcdefghij", 7), EOK);
    assert_string_equal(d, "abcdefg");
    assert_int_equal(strncpy_s(d, sizeof d, "abcdefghij", 8), ERANGE_AND_RESET);
    assert_string_equal(d, "");
    strcpy(d, "xy");
    assert_int_equal(strncpy_s(d, sizeof d, "abc", 0), EOK);
    assert_string_equal(d, "");
    assert_int_equal(strncpy_s(d, sizeof d, "abc", SECUREC_STRING_MAX_LEN + 1), ERANGE_AND_RESET);
    assert_int_equal(strncpy_s(d, 0, "abc", 1), ERANGE);
    assert_int_equal(strncpy_s(NULL, 8, "abc", 1), EINVAL);
    strcpy(d, "xy");
    assert_int_equal(strncpy_s(d, sizeof d, NULL, 1), EINVAL_AND_RESET);
    assert_string_equal(d, "");
}

static void test_strcat_s(void **state)
{
    (void)state;
    char d[8] = "abc";
    assert_int_equal(strcat_s(d, sizeof d, "defg"), EOK);
    assert_string_equal(d, "abcdefg");
    strcpy(d, "abc");
    assert_int_equal(strcat_s(d, sizeof d, "defgh"), ERANGE_AND_RESET);
    assert_string_equal(d, "");
    memset(d, 'x', sizeof d); /* no terminator within destMax */
    assert_int_equal(strcat_s(d, sizeof d, "a"), EINVAL_AND_RESET);
    assert_int_equal(d[0], '\0');
    assert_int_equal(strcat_s(NULL, 8, "a"), EINVAL);
    strcpy(d, "ab");
    assert_int_equal(strcat_s(d, sizeof d, NULL), EINVAL_AND_RESET);
    assert_string_equal(d, "");
    assert_int_equal(strcat_s(d, 0, "a"), ERANGE);

    char b[16] = "abc";
    assert_int_equal(strcat_s(b, sizeof b, b + 1), EOVERLAP_AND_RESET);
    assert_string_equal(b, "");

    strcpy(d, "ab");
    assert_int_equal(strncat_s(d, sizeof d, "cdefghij", 3), EOK);
    assert_string_equal(d, "abcde");
    assert_int_equal(strncat_s(d, sizeof d, "fg", 9), EOK);
    assert_string_equal(d, "abcdefg");
    strcpy(d, "abcde");
    assert_int_equal(strncat_s(d, sizeof d, "fghij", 3), ERANGE_AND_RESET);
    assert_string_equal(d, "");
    strcpy(d, "ab");
    assert_int_equal(strncat_s(d, sizeof d, "cd", 0), EOK);
    assert_string_equal(d, "ab");
}

static int call_vsnprintf_s(char *d, size_t destMax, size_t count, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf_s(d, destMax, count, fmt, ap);
    va_end(ap);
    return r;
}

static void test_sprintf_s(void **state)
{
    (void)state;
    char d[8];
    assert_int_equal(sprintf_s(d, sizeof d, "%d-%s", 42, "ab"), 5);
    assert_string_equal(d, "42-ab");
    assert_int_equal(sprintf_s(d, sizeof d, "%s", "1234567"), 7);
    assert_string_equal(d, "1234567");
    assert_int_equal(sprintf_s(d, sizeof d, "%s", "12345678"), -1); /* no room for the terminator */
    assert_string_equal(d, "");
    strcpy(d, "xy");
    assert_int_equal(sprintf_s(d, 0, "%d", 1), -1);
    assert_string_equal(d, "xy");
    assert_int_equal(sprintf_s(NULL, 8, "%d", 1), -1);

    /* snprintf_s: a count below destMax truncates to count characters and returns -1. */
    assert_int_equal(snprintf_s(d, sizeof d, 3, "%s", "abcdef"), -1);
    assert_string_equal(d, "abc");
    assert_int_equal(snprintf_s(d, sizeof d, 3, "%s", "ab"), 2);
    assert_string_equal(d, "ab");
    assert_int_equal(snprintf_s(d, sizeof d, 8, "%s", "abcdefgh"), -1); /* count >= destMax: no room */
    assert_string_equal(d, "");
    assert_int_equal(snprintf_s(d, sizeof d, 7, "%u", 1234567u), 7);
    assert_string_equal(d, "1234567");
    assert_int_equal(call_vsnprintf_s(d, sizeof d, 2, "%c%c%c", 'x', 'y', 'z'), -1);
    assert_string_equal(d, "xy");
    assert_int_equal(call_vsnprintf_s(d, sizeof d, SECUREC_STRING_MAX_LEN + 1, "%d", 1), -1);
    assert_string_equal(d, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codes),    cmocka_unit_test(test_memcpy_s),  cmocka_unit_test(test_memmove_s),
        cmocka_unit_test(test_memset_s), cmocka_unit_test(test_strcpy_s),  cmocka_unit_test(test_strncpy_s),
        cmocka_unit_test(test_strcat_s), cmocka_unit_test(test_sprintf_s),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
