/**
 * @file hccl_types.h
 * Types, result codes and constants of the HCCL C API (values as in CANN's hccl_types.h, 2025+
 * generation: the *_RESERVED sentinels are 255 / 1042).
 */
#ifndef HCCL_TYPES_H_
#define HCCL_TYPES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Result of every HCCL call. */
typedef enum {
    HCCL_SUCCESS = 0,              /**< success */
    HCCL_E_PARA = 1,               /**< parameter error */
    HCCL_E_PTR = 2,                /**< empty (NULL) pointer */
    HCCL_E_MEMORY = 3,             /**< memory error */
    HCCL_E_INTERNAL = 4,           /**< internal error */
    HCCL_E_NOT_SUPPORT = 5,        /**< not supported */
    HCCL_E_NOT_FOUND = 6,          /**< resource not found */
    HCCL_E_UNAVAIL = 7,            /**< resource unavailable */
    HCCL_E_SYSCALL = 8,            /**< a system call failed */
    HCCL_E_TIMEOUT = 9,            /**< timeout */
    HCCL_E_OPEN_FILE_FAILURE = 10, /**< cannot open a file */
    HCCL_E_TCP_CONNECT = 11,       /**< TCP connect failed */
    HCCL_E_ROCE_CONNECT = 12,      /**< RoCE connect failed */
    HCCL_E_TCP_TRANSFER = 13,      /**< TCP transfer failed */
    HCCL_E_ROCE_TRANSFER = 14,     /**< RoCE transfer failed */
    HCCL_E_RUNTIME = 15,           /**< a runtime call failed */
    HCCL_E_DRV = 16,               /**< a driver call failed */
    HCCL_E_PROFILING = 17,         /**< a profiling call failed */
    HCCL_E_CCE = 18,               /**< a CCE call failed */
    HCCL_E_NETWORK = 19,           /**< a network call failed */
    HCCL_E_AGAIN = 20,             /**< try again */
    HCCL_E_REMOTE = 21,            /**< error from a remote rank */
    HCCL_E_SUSPENDING = 22,        /**< communicator suspending */
    HCCL_E_OPRETRY_FAIL = 23,      /**< op retry failed */
    HCCL_E_OOM = 24,               /**< out of memory */
    HCCL_E_IN_STATUS = 1041,       /**< the error is in the status */
    HCCL_E_RESERVED = 1042         /**< reserved */
} HcclResult;

/** Opaque communicator handle. */
typedef void *HcclComm;

/** Reduction operations. */
typedef enum {
    HCCL_REDUCE_SUM = 0,
    HCCL_REDUCE_PROD = 1,
    HCCL_REDUCE_MAX = 2,
    HCCL_REDUCE_MIN = 3,
    HCCL_REDUCE_RESERVED = 255
} HcclReduceOp;

/** Element types. */
typedef enum {
    HCCL_DATA_TYPE_INT8 = 0,
    HCCL_DATA_TYPE_INT16 = 1,
    HCCL_DATA_TYPE_INT32 = 2,
    HCCL_DATA_TYPE_FP16 = 3,
    HCCL_DATA_TYPE_FP32 = 4,
    HCCL_DATA_TYPE_INT64 = 5,
    HCCL_DATA_TYPE_UINT64 = 6,
    HCCL_DATA_TYPE_UINT8 = 7,
    HCCL_DATA_TYPE_UINT16 = 8,
    HCCL_DATA_TYPE_UINT32 = 9,
    HCCL_DATA_TYPE_FP64 = 10,
    HCCL_DATA_TYPE_BFP16 = 11,
    HCCL_DATA_TYPE_INT128 = 12,
    HCCL_DATA_TYPE_HIF8 = 14,
    HCCL_DATA_TYPE_FP8E4M3 = 15,
    HCCL_DATA_TYPE_FP8E5M2 = 16,
    HCCL_DATA_TYPE_FP8E8M0 = 17,
    HCCL_DATA_TYPE_RESERVED = 255
} HcclDataType;

/** Size of the opaque root info that HcclGetRootInfo fills and every rank passes to init. */
#define HCCL_ROOT_INFO_BYTES 4108

/** Root info: opaque bytes; copy it to every rank out of band. */
typedef struct HcclRootInfoDef {
    char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;

/** Send or receive, for HcclSendRecvItem. */
typedef enum {
    HCCL_SEND = 0,
    HCCL_RECV = 1,
    HCCL_SEND_RECV_RESERVED
} HcclSendRecvType;

#ifdef __cplusplus
}
#endif

#endif /* HCCL_TYPES_H_ */
