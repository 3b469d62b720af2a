/**
 * @file op_errno.h
 * aclnnStatus codes of the aclnn operator API, with CANN's names and values.
 *
 * Ranges: 16xxxx = the caller passed something wrong, 36xxxx = a runtime call failed inside the
 * API, 56xxxx = a library bug or a packaging problem. Plain macros (as in CANN), so they can be
 * used in `#if` and `switch` in C and C++ alike; the text of the last failure is available from
 * aclGetRecentErrMsg().
 */
#ifndef CANNON_ACLNN_OP_ERRNO_H_
#define CANNON_ACLNN_OP_ERRNO_H_

#define ACLNN_SUCCESS 0
#define ACLNN_ERR_PARAM_NULLPTR 161001 /**< a required pointer argument is NULL */
#define ACLNN_ERR_PARAM_INVALID 161002 /**< bad dtype, shape, format, attribute or handle */
#define ACLNN_ERR_RUNTIME_ERROR 361001 /**< a runtime call (launch, copy) failed inside the API */
#define ACLNN_ERR_INNER 561000         /**< generic internal error (also: not an executor) */
#define ACLNN_ERR_INNER_INFERSHAPE_ERROR 561001
#define ACLNN_ERR_INNER_TILING_ERROR 561002
#define ACLNN_ERR_INNER_FIND_KERNEL_ERROR 561003
#define ACLNN_ERR_INNER_CREATE_EXECUTOR 561101 /**< executor creation failed (out of memory) */
#define ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR 561102
#define ACLNN_ERR_INNER_NULLPTR 561103 /**< internal NULL; also a NULL executor to aclSetAclOpExecutorRepeatable */
#define ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE 561104
/* CANN keeps the misspelt name for compatibility; prefer ACLNN_ERR_INNER_KEY_CONFLICT. */
#define ACLNN_ERR_INNER_KEY_CONFILICT 561105
#define ACLNN_ERR_INNER_KEY_CONFLICT 561105
#define ACLNN_ERR_INNER_INVALID_IMPL_MODE 561106
#define ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND 561107
#define ACLNN_ERR_INNER_LOAD_JSON_FAILED 561108
#define ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND 561109
#define ACLNN_ERR_INNER_JSON_FORMAT_INVALID 561110
#define ACLNN_ERR_INNER_JSON_DTYPE_INVALID 561111
#define ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND 561112
#define ACLNN_ERR_INNER_OP_FILE_INVALID 561113
#define ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND 561114
#define ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH 561115
#define ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE 561116
#define ACLNN_ERR_INNER_INPUT_JSON_IS_NULL 561117
#define ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID 561118
#define ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID 561119

#endif /* CANNON_ACLNN_OP_ERRNO_H_ */
