/* A minimal test harness for the Ascend C tests (plain C++ programs run by CTest). */
#ifndef CANNON_TESTS_ASCENDC_TEST_H_
#define CANNON_TESTS_ASCENDC_TEST_H_

#include <cstdio>
#include <cstdlib>

static int g_failures = 0;

#define EXPECT(cond)                                                                                                 \
    do {                                                                                                             \
        if (!(cond)) {                                                                                               \
            std::fprintf(stderr, "%s:%d: EXPECT failed: %s\n", __FILE__, __LINE__, #cond);                           \
            g_failures++;                                                                                            \
        }                                                                                                            \
    } while (0)

#define EXPECT_MSG(cond, ...)                                                                                        \
    do {                                                                                                             \
        if (!(cond)) {                                                                                               \
            std::fprintf(stderr, "%s:%d: EXPECT failed: %s: ", __FILE__, __LINE__, #cond);                           \
            std::fprintf(stderr, __VA_ARGS__);                                                                       \
            std::fprintf(stderr, "\n");                                                                              \
            g_failures++;                                                                                            \
        }                                                                                                            \
    } while (0)

#define ACL_OK(call)                                                                                                 \
    do {                                                                                                             \
        aclError e_ = (call);                                                                                        \
        if (e_ != ACL_SUCCESS) {                                                                                     \
            std::fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__, #call, (int)e_,                  \
                         aclGetRecentErrMsg());                                                                      \
            std::exit(1);                                                                                            \
        }                                                                                                            \
    } while (0)

static inline int TestResult(const char *name)
{
    if (g_failures) {
        std::fprintf(stderr, "%s: %d failure(s)\n", name, g_failures);
        return 1;
    }
    std::printf("%s: ok\n", name);
    return 0;
}

#endif
