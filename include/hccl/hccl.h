/**
 * @file hccl.h
 * HCCL collective communication API (cannon implementation: ranks are processes or threads of
 * one Linux host, data moves through shared memory).
 *
 * Every collective is asynchronous: it checks its arguments, enqueues a task on @p stream (NULL:
 * the current context's default stream) and returns. The task runs in stream order; its failure
 * (timeout, dead peer, mismatched calls across ranks) is returned by the stream's next
 * synchronisation, and from then on every call on the communicator fails fast with the reason
 * (aclGetRecentErrMsg names it). Calls on one communicator must be issued in the same order on
 * every rank.
 *
 * Environment: HCCL_BUFFSIZE (MB per communication buffer, default 200), HCCL_CONNECT_TIMEOUT
 * (seconds, default 120), HCCL_EXEC_TIMEOUT (seconds a rank waits for its peers inside one
 * collective, default 1836, 0 = forever), HCCL_ALGO (e.g. "allreduce=level0:ring", or
 * "level0:mesh"; names: mesh, ring, hd, oneshot), HCCL_IF_IP, HCCL_IF_BASE_PORT.
 */
#ifndef HCCL_H_
#define HCCL_H_

#include <stdint.h>
#include "acl/acl.h"
#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef HCCL_API
#define HCCL_API __attribute__((visibility("default")))
#endif

/** Fill @p rootInfo with a rendezvous address (call on one process; HCCL_E_PTR, HCCL_E_SYSCALL). */
HCCL_API HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);

/** Join communicator of @p nRanks ranks as @p rank; blocks until all ranks joined or
 *  HCCL_CONNECT_TIMEOUT. HCCL_E_PTR, HCCL_E_PARA (rank ≥ nRanks, nRanks 0, corrupt root info,
 *  ranks disagree on nRanks or duplicate a rank), HCCL_E_TCP_CONNECT, HCCL_E_TIMEOUT. */
HCCL_API HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                         HcclComm *comm);

/** Join using a rank-table JSON file (version 1.0 or 1.2). HCCL_E_OPEN_FILE_FAILURE, HCCL_E_PARA. */
HCCL_API HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm);

/** Create @p ndev communicators, one per device, inside this process (comms[i] is rank i). */
HCCL_API HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms);

/** Release the communicator (queued tasks keep it alive until they finish). */
HCCL_API HcclResult HcclCommDestroy(HcclComm comm);

HCCL_API HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
HCCL_API HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);

/** Async error of the communicator (HCCL_SUCCESS while healthy). */
HCCL_API HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError);

/** Blocks the streams of all ranks until every rank reached it. */
HCCL_API HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);

/** Static English description of @p code (never NULL). */
HCCL_API const char *HcclGetErrorString(HcclResult code);

HCCL_API HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                  HcclReduceOp op, HcclComm comm, aclrtStream stream);
HCCL_API HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
                                  HcclComm comm, aclrtStream stream);
/** Rank i receives block i (recvCount elements) of the reduction of all ranks' sendBuf. */
HCCL_API HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                                      HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                      aclrtStream stream);
/** recvBuf holds sendCount × rankSize elements in rank order. */
HCCL_API HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
                                  HcclDataType dataType, HcclComm comm, aclrtStream stream);
/** Completes when the peer's matching HcclRecv has received the data. */
HCCL_API HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                             HcclComm comm, aclrtStream stream);
HCCL_API HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                             HcclComm comm, aclrtStream stream);
/** Counts and displacements are uint64_t arrays of rankSize entries, in elements. */
HCCL_API HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                  HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                  const void *rdispls, HcclDataType recvType, HcclComm comm,
                                  aclrtStream stream);
HCCL_API HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                                 const void *recvBuf, uint64_t recvCount, HcclDataType recvType,
                                 HcclComm comm, aclrtStream stream);
HCCL_API HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                               HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* HCCL_H_ */
