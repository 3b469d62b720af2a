/* The environment table (env_table.h) and the one place that calls getenv. */
#include "env.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

const cannon_env_var cannon_env_vars[] = {
#define CANNON_ENV(name, kind, dflt, owner, meaning) {name, kind, dflt, owner, meaning},
#include "env_table.h"
#undef CANNON_ENV
};

const size_t cannon_env_var_count = sizeof cannon_env_vars / sizeof cannon_env_vars[0];

const cannon_env_var *cannon_env_find(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < cannon_env_var_count; i++)
        if (strcmp(cannon_env_vars[i].name, name) == 0)
            return &cannon_env_vars[i];
    return NULL;
}

const char *cannon_env_get(const char *name)
{
    /* A variable missing from env_table.h is a programming error: add its row. */
    assert(cannon_env_find(name) != NULL && "the variable needs a row in src/common/env_table.h");
    return getenv(name);
}
