/* libacl_op_compiler: CANN's operator-compiler entry points (acl/acl_op_compiler.h).
 *
 * cannon builds its kernels in and compiles nothing at run time. What frameworks do with this
 * library at start-up still works: setting options (kept per process, in a table under one
 * mutex), reading back the two options CANN lets a program read (the SoC's JIT default and the
 * debug option), choosing a compile flag (accepted, and without effect). The compile and dump entry points check their arguments
 * in CANN's order and with its codes, then answer ACL_ERROR_API_NOT_SUPPORT with a message, the
 * code CANN itself gives for what a part cannot do. Messages go through cannonReportError, so
 * aclGetRecentErrMsg reads them as the runtime's own.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_op_compiler.h"
#include "cannon/kernel.h"

#define NOPTS ((int)ACL_OP_DEBUG_OPTION + 1)
/* What aclGetCompileoptSize reports for ACL_OP_JIT_COMPILE, as CANN. */
#define JIT_OPT_SIZE 256u
/* ACL_OP_JIT_COMPILE's default on 910B-class parts, the SoC cannon reports. */
#define JIT_DEFAULT "disable"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static char *g_opts[NOPTS];

struct aclGraphDumpOption {
    struct aclGraphDumpOption *next; /* the live options, so a foreign or freed one is refused */
};
static struct aclGraphDumpOption *g_dump_opts;

ACL_FUNC_VISIBILITY aclError aclSetCompileopt(aclCompileOpt opt, const char *value)
{
    if (!value)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "aclSetCompileopt: value is NULL");
    if (opt == ACL_AUTO_TUNE_MODE)
        return cannonReportError(ACL_ERROR_FEATURE_UNSUPPORTED, "aclSetCompileopt: ACL_AUTO_TUNE_MODE has been "
                                 "withdrawn (tune with the AOE tool)");
    if ((int)opt < 0 || (int)opt >= NOPTS)
        return cannonReportError(ACL_ERROR_INTERNAL_ERROR, "aclSetCompileopt: option %d is not an aclCompileOpt",
                                 (int)opt);
    char *copy = strdup(value);
    if (!copy)
        return cannonReportError(ACL_ERROR_BAD_ALLOC, "aclSetCompileopt: out of memory");
    pthread_mutex_lock(&g_lock);
    free(g_opts[opt]);
    g_opts[opt] = copy;
    pthread_mutex_unlock(&g_lock);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY size_t aclGetCompileoptSize(aclCompileOpt opt)
{
    if (opt == ACL_OP_JIT_COMPILE)
        return JIT_OPT_SIZE;
    if ((int)opt < 0 || (int)opt >= NOPTS || opt == ACL_AUTO_TUNE_MODE)
        return 0;
    pthread_mutex_lock(&g_lock);
    size_t n = g_opts[opt] && *g_opts[opt] ? strlen(g_opts[opt]) + 1 : 0;
    pthread_mutex_unlock(&g_lock);
    return n;
}

static aclError copy_value(char *value, size_t length, const char *s)
{
    size_t n = strlen(s);
    if (length < n + 1)
        return cannonReportError(ACL_ERROR_FAILURE, "aclGetCompileopt: length %zu is too small for the value "
                                 "(%zu bytes with its terminator; see aclGetCompileoptSize)", length, n + 1);
    memcpy(value, s, n + 1);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclGetCompileopt(aclCompileOpt opt, char *value, size_t length)
{
    if (!value)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "aclGetCompileopt: value is NULL");
    if (opt == ACL_OP_JIT_COMPILE)
        return copy_value(value, length, JIT_DEFAULT);
    if (opt == ACL_OP_DEBUG_OPTION) {
        aclError rc;
        pthread_mutex_lock(&g_lock);
        if (g_opts[opt])
            rc = copy_value(value, length, g_opts[opt]);
        else
            rc = cannonReportError(ACL_ERROR_API_NOT_SUPPORT, "aclGetCompileopt: ACL_OP_DEBUG_OPTION is not set");
        pthread_mutex_unlock(&g_lock);
        return rc;
    }
    return cannonReportError(ACL_ERROR_API_NOT_SUPPORT, "aclGetCompileopt: option %d cannot be read back (only "
                             "ACL_OP_JIT_COMPILE and ACL_OP_DEBUG_OPTION can)", (int)opt);
}

ACL_FUNC_VISIBILITY aclError aclopSetCompileFlag(aclOpCompileFlag flag)
{
    if (flag != ACL_OP_COMPILE_DEFAULT && flag != ACL_OP_COMPILE_FUZZ)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "aclopSetCompileFlag: flag %d is not ACL_OP_COMPILE_DEFAULT "
                                 "or ACL_OP_COMPILE_FUZZ", (int)flag);
    return ACL_SUCCESS; /* no compiler: the mode changes nothing */
}

/* ---- compile entry points: CANN's argument checks, then "not supported" ---- */

static aclError check_array(const char *api, const char *what, int n, const void *const *arr)
{
    if (n > 0 && !arr)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL with %d entries", api, what, n);
    for (int i = 0; i < n; i++)
        if (!arr[i])
            return cannonReportError(ACL_ERROR_INVALID_PARAM, "%s: %s[%d] is NULL", api, what, i);
    return ACL_SUCCESS;
}

static aclError check_counts(const char *api, int numInputs, int numOutputs)
{
    if (numInputs < 0 || numOutputs < 0)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "%s: %s %d is negative", api,
                                 numInputs < 0 ? "numInputs" : "numOutputs", numInputs < 0 ? numInputs : numOutputs);
    return ACL_SUCCESS;
}

static aclError check_compile_type(const char *api, aclopCompileType compileFlag)
{
    if (compileFlag != ACL_COMPILE_SYS && compileFlag != ACL_COMPILE_UNREGISTERED)
        return cannonReportError(ACL_ERROR_API_NOT_SUPPORT, "%s: compile type %d is not supported (ACL_COMPILE_SYS "
                                 "or ACL_COMPILE_UNREGISTERED)", api, (int)compileFlag);
    return ACL_SUCCESS;
}

static aclError not_supported(const char *api, const char *opType)
{
    return cannonReportError(ACL_ERROR_API_NOT_SUPPORT, "%s: cannon compiles no operators (op type \"%s\"); its "
                             "operators are the built-in aclnn ones (aclnnop/)", api, opType);
}

#define REQUIRE_OK(expr)                                                                               \
    do {                                                                                               \
        aclError rc_ = (expr);                                                                         \
        if (rc_ != ACL_SUCCESS)                                                                        \
            return rc_;                                                                                \
    } while (0)

ACL_FUNC_VISIBILITY aclError aclopCompile(const char *opType, int numInputs, const aclTensorDesc *const inputDesc[],
                                          int numOutputs, const aclTensorDesc *const outputDesc[],
                                          const aclopAttr *attr, aclopEngineType engineType,
                                          aclopCompileType compileFlag, const char *opPath)
{
    const char *api = "aclopCompile";
    (void)attr;
    (void)engineType;
    REQUIRE_OK(check_counts(api, numInputs, numOutputs));
    REQUIRE_OK(check_compile_type(api, compileFlag));
    if (!opType)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "%s: opType is NULL", api);
    REQUIRE_OK(check_array(api, "inputDesc", numInputs, (const void *const *)inputDesc));
    REQUIRE_OK(check_array(api, "outputDesc", numOutputs, (const void *const *)outputDesc));
    if (compileFlag == ACL_COMPILE_UNREGISTERED && !opPath)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "%s: opPath is NULL while compileFlag is "
                                 "ACL_COMPILE_UNREGISTERED", api);
    return not_supported(api, opType);
}

static aclError compile_and_execute(const char *api, const char *opType, int numInputs,
                                    const aclTensorDesc *const inputDesc[], const aclDataBuffer *const inputs[],
                                    int numOutputs, const aclTensorDesc *const outputDesc[],
                                    const aclDataBuffer *const outputs[], aclopCompileType compileFlag,
                                    const char *opPath)
{
    REQUIRE_OK(check_counts(api, numInputs, numOutputs));
    REQUIRE_OK(check_compile_type(api, compileFlag));
    if (!opType)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "%s: opType is NULL", api);
    REQUIRE_OK(check_array(api, "inputDesc", numInputs, (const void *const *)inputDesc));
    REQUIRE_OK(check_array(api, "outputDesc", numOutputs, (const void *const *)outputDesc));
    REQUIRE_OK(check_array(api, "inputs", numInputs, (const void *const *)inputs));
    REQUIRE_OK(check_array(api, "outputs", numOutputs, (const void *const *)outputs));
    if (compileFlag == ACL_COMPILE_UNREGISTERED && !opPath)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "%s: opPath is NULL while compileFlag is "
                                 "ACL_COMPILE_UNREGISTERED", api);
    return not_supported(api, opType);
}

ACL_FUNC_VISIBILITY aclError aclopCompileAndExecute(const char *opType, int numInputs,
                                                    const aclTensorDesc *const inputDesc[],
                                                    const aclDataBuffer *const inputs[], int numOutputs,
                                                    const aclTensorDesc *const outputDesc[],
                                                    aclDataBuffer *const outputs[], const aclopAttr *attr,
                                                    aclopEngineType engineType, aclopCompileType compileFlag,
                                                    const char *opPath, aclrtStream stream)
{
    (void)attr;
    (void)engineType;
    (void)stream;
    return compile_and_execute("aclopCompileAndExecute", opType, numInputs, inputDesc, inputs, numOutputs,
                               outputDesc, (const aclDataBuffer *const *)outputs, compileFlag, opPath);
}

ACL_FUNC_VISIBILITY aclError aclopCompileAndExecuteV2(const char *opType, int numInputs, aclTensorDesc *inputDesc[],
                                                      aclDataBuffer *inputs[], int numOutputs,
                                                      aclTensorDesc *outputDesc[], aclDataBuffer *outputs[],
                                                      aclopAttr *attr, aclopEngineType engineType,
                                                      aclopCompileType compileFlag, const char *opPath,
                                                      aclrtStream stream)
{
    (void)attr;
    (void)engineType;
    (void)stream;
    return compile_and_execute("aclopCompileAndExecuteV2", opType, numInputs, (const aclTensorDesc *const *)inputDesc,
                               (const aclDataBuffer *const *)inputs, numOutputs,
                               (const aclTensorDesc *const *)outputDesc, (const aclDataBuffer *const *)outputs,
                               compileFlag, opPath);
}

ACL_FUNC_VISIBILITY aclError aclGenGraphAndDumpForOp(const char *opType, int numInputs,
                                                     const aclTensorDesc *const inputDesc[],
                                                     const aclDataBuffer *const inputs[], int numOutputs,
                                                     const aclTensorDesc *const outputDesc[],
                                                     aclDataBuffer *const outputs[], const aclopAttr *attr,
                                                     aclopEngineType engineType, const char *graphDumpPath,
                                                     const aclGraphDumpOption *graphDumpOpt)
{
    const char *api = "aclGenGraphAndDumpForOp";
    (void)attr;
    (void)engineType;
    if (graphDumpOpt)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "%s: graphDumpOpt must be NULL", api);
    REQUIRE_OK(check_counts(api, numInputs, numOutputs));
    if (!opType || !graphDumpPath)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, !opType ? "opType" : "graphDumpPath");
    REQUIRE_OK(check_array(api, "inputDesc", numInputs, (const void *const *)inputDesc));
    REQUIRE_OK(check_array(api, "outputDesc", numOutputs, (const void *const *)outputDesc));
    REQUIRE_OK(check_array(api, "inputs", numInputs, (const void *const *)inputs));
    REQUIRE_OK(check_array(api, "outputs", numOutputs, (const void *const *)outputs));
    return not_supported(api, opType);
}

ACL_FUNC_VISIBILITY aclGraphDumpOption *aclCreateGraphDumpOpt(void)
{
    struct aclGraphDumpOption *o = calloc(1, sizeof(*o));
    if (!o)
        return NULL;
    pthread_mutex_lock(&g_lock);
    o->next = g_dump_opts;
    g_dump_opts = o;
    pthread_mutex_unlock(&g_lock);
    return o;
}

ACL_FUNC_VISIBILITY aclError aclDestroyGraphDumpOpt(const aclGraphDumpOption *graphDumpOpt)
{
    if (!graphDumpOpt)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "aclDestroyGraphDumpOpt: graphDumpOpt is NULL");
    pthread_mutex_lock(&g_lock);
    struct aclGraphDumpOption **pp = &g_dump_opts;
    while (*pp && *pp != graphDumpOpt)
        pp = &(*pp)->next;
    struct aclGraphDumpOption *o = *pp;
    if (o)
        *pp = o->next;
    pthread_mutex_unlock(&g_lock);
    if (!o)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "aclDestroyGraphDumpOpt: %p is not a live option of "
                                 "aclCreateGraphDumpOpt", (const void *)graphDumpOpt);
    free(o);
    return ACL_SUCCESS;
}
