/**
 * @file kernel_operator.h
 * Ascend C's kernel programming model on cannon (namespace AscendC), for a host C++17 compiler:
 * `half`/`bfloat16_t`, the kernel qualifiers, GetBlockIdx/GetBlockNum, TPipe/TQue/TBuf,
 * GlobalTensor/LocalTensor, DataCopy/DataCopyPad, the vector instructions and the tiling macros.
 * Include it with `-I<prefix>/include/ascendc` as CANN's samples do (`#include "kernel_operator.h"`).
 * docs/ascendc.md describes the model, the checker and what is implemented.
 */
#ifndef CANNON_ASCENDC_KERNEL_OPERATOR_H_
#define CANNON_ASCENDC_KERNEL_OPERATOR_H_

#if __cplusplus < 201703L
#error "kernel_operator.h needs C++17"
#endif

#include "cannon_ascendc/types.h"
#include "cannon_ascendc/core.h"
#include "cannon_ascendc/data_copy.h"
#include "cannon_ascendc/vec.h"
#include "cannon_ascendc/sort.h"
#include "cannon_ascendc/tiling.h"
#include "cannon_ascendc/kernel_debug.h"

#endif /* CANNON_ASCENDC_KERNEL_OPERATOR_H_ */
