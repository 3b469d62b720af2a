/* Unit tests of src/common: the environment table and its reader (env.c), and the CPU feature
 * detection shared by the CPU driver, the operators and libhccl (cpu_features.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cannon/cpu.h"
#include "cpu_features.h"
#include "env.h"

/* Every row is complete, names are unique environment-variable names, and no field holds a '|'
 * (each becomes a Markdown table cell in the README). */
static void test_table_rows(void **state)
{
    (void)state;
    size_t config = 0;
    assert_true(cannon_env_var_count >= 30);
    for (size_t i = 0; i < cannon_env_var_count; i++) {
        const cannon_env_var *v = &cannon_env_vars[i];
        assert_non_null(v->name);
        assert_true(v->kind == CANNON_ENV_CONFIG || v->kind == CANNON_ENV_LAUNCH);
        config += v->kind == CANNON_ENV_CONFIG;
        assert_true(isupper((unsigned char)v->name[0]));
        for (const char *c = v->name; *c; c++)
            assert_true(isalnum((unsigned char)*c) || *c == '_');
        const char *fields[] = {v->name, v->default_value, v->owner, v->meaning};
        for (size_t f = 0; f < 4; f++) {
            assert_non_null(fields[f]);
            assert_true(fields[f][0] != '\0');
            assert_null(strchr(fields[f], '|'));
        }
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(cannon_env_vars[j].name, v->name);
    }
    assert_true(config >= 25);
}

static void test_find(void **state)
{
    (void)state;
    const cannon_env_var *v = cannon_env_find(CANNON_CPU_ENV_THREADS);
    assert_non_null(v);
    assert_string_equal(v->name, "CANNON_CPU_THREADS");
    assert_int_equal(v->kind, CANNON_ENV_CONFIG);
    assert_non_null(cannon_env_find("HCCL_BUFFSIZE"));
    assert_non_null(cannon_env_find("SLURM_PROCID"));
    assert_int_equal(cannon_env_find("SLURM_PROCID")->kind, CANNON_ENV_LAUNCH);
    assert_null(cannon_env_find("CANNON_NO_SUCH_VARIABLE"));
    assert_null(cannon_env_find(""));
    assert_null(cannon_env_find(NULL));
    /* Every name the public cpu.h documents is in the table. */
    const char *cpu_h[] = {CANNON_CPU_ENV_DEVICES, CANNON_CPU_ENV_DEVICE_MEMORY, CANNON_CPU_ENV_THREADS,
                           CANNON_CPU_ENV_SPIN_US, CANNON_CPU_ENV_ISA};
    for (size_t i = 0; i < sizeof cpu_h / sizeof cpu_h[0]; i++)
        assert_non_null(cannon_env_find(cpu_h[i]));
}

static void test_get(void **state)
{
    (void)state;
    assert_int_equal(setenv("CANNON_SPIN_US", "42", 1), 0);
    assert_string_equal(cannon_env_get("CANNON_SPIN_US"), "42");
    assert_int_equal(unsetenv("CANNON_SPIN_US"), 0);
    assert_null(cannon_env_get("CANNON_SPIN_US"));
}

/* Detection is stable, reports only known bits, and the AVX-512 extensions come with AVX-512F. */
static void test_cpu_features(void **state)
{
    (void)state;
    const uint32_t f = cannon_cpu_features();
    assert_int_equal(cannon_cpu_features(), f);
    assert_int_equal(f & ~(uint32_t)CANNON_CPU_ISA_ALL, 0);
    if (f & (CANNON_CPU_ISA_AVX512BW | CANNON_CPU_ISA_AVX512VL | CANNON_CPU_ISA_AVX512BF16))
        assert_true(f & CANNON_CPU_ISA_AVX512F);
    /* The environment caps the libraries apply never change the detection itself. */
    assert_int_equal(setenv("CANNON_CPU_ISA", "0", 1), 0);
    assert_int_equal(cannon_cpu_features(), f);
    assert_int_equal(unsetenv("CANNON_CPU_ISA"), 0);
#if defined(__x86_64__) && defined(__GNUC__)
    /* The compiler's own detection (which also checks the OS's register state) agrees. */
    __builtin_cpu_init();
    assert_int_equal(!!(f & CANNON_CPU_ISA_AVX2), !!__builtin_cpu_supports("avx2"));
    assert_int_equal(!!(f & CANNON_CPU_ISA_FMA), !!__builtin_cpu_supports("fma"));
    assert_int_equal(!!(f & CANNON_CPU_ISA_AVX512F), !!__builtin_cpu_supports("avx512f"));
    assert_int_equal(!!(f & CANNON_CPU_ISA_AVX512BW), !!__builtin_cpu_supports("avx512bw"));
    assert_int_equal(!!(f & CANNON_CPU_ISA_AVX512VL), !!__builtin_cpu_supports("avx512vl"));
#endif
}

static void test_tier_cap(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        int cap;
    } cases[] = {
        {"scalar", CANNON_CPU_TIER_SCALAR}, {"avx2", CANNON_CPU_TIER_AVX2}, {"avx512", CANNON_CPU_TIER_AVX512},
        {"", CANNON_CPU_TIER_AVX512},       {"AVX2", CANNON_CPU_TIER_AVX512}, {"sse", CANNON_CPU_TIER_AVX512},
    };
    assert_int_equal(unsetenv("CANNON_ISA"), 0);
    assert_int_equal(cannon_cpu_tier_cap(), CANNON_CPU_TIER_AVX512);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(setenv("CANNON_ISA", cases[i].value, 1), 0);
        assert_int_equal(cannon_cpu_tier_cap(), cases[i].cap);
    }
    assert_int_equal(unsetenv("CANNON_ISA"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_rows), cmocka_unit_test(test_find),     cmocka_unit_test(test_get),
        cmocka_unit_test(test_cpu_features), cmocka_unit_test(test_tier_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
