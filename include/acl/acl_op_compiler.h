/**
 * @file acl_op_compiler.h
 * CANN's operator-compiler options (libacl_op_compiler). cannon compiles no operators: its
 * kernels are built in. The options are kept so that frameworks which set and read them at start
 * (precision mode, JIT compile, deterministic, ...) work unchanged; the compile entry points
 * validate their arguments as CANN does and then return ACL_ERROR_API_NOT_SUPPORT (200001).
 * Link with -lacl_op_compiler. All functions are thread-safe.
 */
#ifndef CANNON_ACL_OP_COMPILER_H_
#define CANNON_ACL_OP_COMPILER_H_

#include "acl_base.h"
#include "acl_op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclCompileType {
    ACL_COMPILE_SYS,
    ACL_COMPILE_UNREGISTERED
} aclopCompileType;

typedef enum {
    ACL_PRECISION_MODE,
    ACL_AICORE_NUM,
    ACL_AUTO_TUNE_MODE,
    ACL_OP_SELECT_IMPL_MODE,
    ACL_OPTYPELIST_FOR_IMPLMODE,
    ACL_OP_DEBUG_LEVEL,
    ACL_DEBUG_DIR,
    ACL_OP_COMPILER_CACHE_MODE,
    ACL_OP_COMPILER_CACHE_DIR,
    ACL_OP_PERFORMANCE_MODE,
    ACL_OP_JIT_COMPILE,
    ACL_OP_DETERMINISTIC,
    ACL_CUSTOMIZE_DTYPES,
    ACL_OP_PRECISION_MODE,
    ACL_ALLOW_HF32,
    ACL_PRECISION_MODE_V2,
    ACL_OP_DEBUG_OPTION
} aclCompileOpt;

typedef enum aclCompileFlag {
    ACL_OP_COMPILE_DEFAULT,
    ACL_OP_COMPILE_FUZZ
} aclOpCompileFlag;

typedef struct aclGraphDumpOption aclGraphDumpOption;

/**
 * Compile an operator. Checks as CANN: negative counts, a NULL opType or array entry →
 * ACL_ERROR_INVALID_PARAM; a compile type other than ACL_COMPILE_SYS/UNREGISTERED →
 * ACL_ERROR_API_NOT_SUPPORT; ACL_COMPILE_UNREGISTERED without @p opPath → ACL_ERROR_INVALID_PARAM.
 * Then ACL_ERROR_API_NOT_SUPPORT: cannon has no operator compiler.
 */
ACL_FUNC_VISIBILITY aclError aclopCompile(const char *opType, int numInputs, const aclTensorDesc *const inputDesc[],
                                          int numOutputs, const aclTensorDesc *const outputDesc[],
                                          const aclopAttr *attr, aclopEngineType engineType,
                                          aclopCompileType compileFlag, const char *opPath);

/** Compile and run an operator: aclopCompile's checks (and NULL data buffers), then ACL_ERROR_API_NOT_SUPPORT. */
ACL_FUNC_VISIBILITY aclError aclopCompileAndExecute(const char *opType, int numInputs,
                                                    const aclTensorDesc *const inputDesc[],
                                                    const aclDataBuffer *const inputs[], int numOutputs,
                                                    const aclTensorDesc *const outputDesc[],
                                                    aclDataBuffer *const outputs[], const aclopAttr *attr,
                                                    aclopEngineType engineType, aclopCompileType compileFlag,
                                                    const char *opPath, aclrtStream stream);

/** As aclopCompileAndExecute (the variant that refreshes the output descriptions). */
ACL_FUNC_VISIBILITY aclError aclopCompileAndExecuteV2(const char *opType, int numInputs, aclTensorDesc *inputDesc[],
                                                      aclDataBuffer *inputs[], int numOutputs,
                                                      aclTensorDesc *outputDesc[], aclDataBuffer *outputs[],
                                                      aclopAttr *attr, aclopEngineType engineType,
                                                      aclopCompileType compileFlag, const char *opPath,
                                                      aclrtStream stream);

/**
 * Set a compile option for the process. NULL @p value → ACL_ERROR_INVALID_PARAM;
 * ACL_AUTO_TUNE_MODE (withdrawn by CANN) → ACL_ERROR_FEATURE_UNSUPPORTED (200006); a value outside
 * aclCompileOpt → ACL_ERROR_INTERNAL_ERROR (500000), as CANN.
 */
ACL_FUNC_VISIBILITY aclError aclSetCompileopt(aclCompileOpt opt, const char *value);

/**
 * Bytes needed to read option @p opt with aclGetCompileopt (terminating NUL included): 256 for
 * ACL_OP_JIT_COMPILE, the set value's length + 1 for others, 0 when unset or unknown.
 */
ACL_FUNC_VISIBILITY size_t aclGetCompileoptSize(aclCompileOpt opt);

/**
 * Read an option, as CANN: ACL_OP_JIT_COMPILE gives the SoC's default ("disable" on 910B-class
 * parts) and ACL_OP_DEBUG_OPTION the value set (unset: ACL_ERROR_API_NOT_SUPPORT); other options
 * cannot be read back (ACL_ERROR_API_NOT_SUPPORT). NULL @p value → ACL_ERROR_INVALID_PARAM;
 * @p length too small → ACL_ERROR_FAILURE (500001).
 */
ACL_FUNC_VISIBILITY aclError aclGetCompileopt(aclCompileOpt opt, char *value, size_t length);

/** Choose the compile mode (ACL_OP_COMPILE_DEFAULT or _FUZZ; else ACL_ERROR_INVALID_PARAM). */
ACL_FUNC_VISIBILITY aclError aclopSetCompileFlag(aclOpCompileFlag flag);

/**
 * Build an operator's graph and dump it: CANN's checks (@p graphDumpOpt must be NULL, opType and
 * graphDumpPath not NULL, counts not negative), then ACL_ERROR_API_NOT_SUPPORT.
 */
ACL_FUNC_VISIBILITY aclError aclGenGraphAndDumpForOp(const char *opType, int numInputs,
                                                     const aclTensorDesc *const inputDesc[],
                                                     const aclDataBuffer *const inputs[], int numOutputs,
                                                     const aclTensorDesc *const outputDesc[],
                                                     aclDataBuffer *const outputs[], const aclopAttr *attr,
                                                     aclopEngineType engineType, const char *graphDumpPath,
                                                     const aclGraphDumpOption *graphDumpOpt);

/** Create a graph dump option (NULL when out of memory). */
ACL_FUNC_VISIBILITY aclGraphDumpOption *aclCreateGraphDumpOpt(void);

/** Destroy a graph dump option. NULL → ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclDestroyGraphDumpOpt(const aclGraphDumpOption *graphDumpOpt);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_ACL_OP_COMPILER_H_ */
