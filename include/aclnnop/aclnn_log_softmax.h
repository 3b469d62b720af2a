/**
 * @file aclnn_log_softmax.h
 * aclnnLogSoftmax under the header name of ops-nn's sources; CANN's toolkit ships
 * aclnnop/aclnn_logsoftmax.h, which this includes.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_LOG_SOFTMAX_H_
#define OP_API_INC_LOG_SOFTMAX_H_

#include "aclnnop/aclnn_logsoftmax.h"

#endif /* OP_API_INC_LOG_SOFTMAX_H_ */
