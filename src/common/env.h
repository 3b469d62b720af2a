/*
 * The environment, read in one place. Every variable cannon reads is a row of env_table.h (name,
 * kind, default, owner, meaning); code reads it with cannon_env_get(), which in debug builds
 * asserts that the name is in the table, so that a new knob cannot be added without a row (and
 * with it a line in `cannon-info` and in the README).
 *
 * Compiled into every library and tool that reads the environment (src/common/CMakeLists.txt);
 * depends on the C library only.
 */
#ifndef CANNON_COMMON_ENV_H_
#define CANNON_COMMON_ENV_H_

#include <stddef.h>

typedef enum cannon_env_kind {
    CANNON_ENV_CONFIG = 0, /* a setting a user chooses */
    CANNON_ENV_LAUNCH = 1  /* set per process by a launcher: rank, size, device, job id */
} cannon_env_kind;

typedef struct cannon_env_var {
    const char *name;
    cannon_env_kind kind;
    const char *default_value; /* what applies when unset, in words */
    const char *owner;         /* the module(s) that read it */
    const char *meaning;
} cannon_env_var;

/** The table, in env_table.h's order, and its length. */
extern const cannon_env_var cannon_env_vars[];
extern const size_t cannon_env_var_count;

/** The row of @p name, or NULL when the table has none. */
const cannon_env_var *cannon_env_find(const char *name);

/** getenv(@p name); @p name must be in the table (asserted in debug builds). */
const char *cannon_env_get(const char *name);

#endif /* CANNON_COMMON_ENV_H_ */
