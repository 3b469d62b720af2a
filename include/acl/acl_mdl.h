/**
 * @file acl_mdl.h
 * Graph capture (CANN's "ACL graph", aclmdlRI*): the tasks enqueued on a stream between
 * aclmdlRICaptureBegin and aclmdlRICaptureEnd are recorded into a model runtime instance instead
 * of running; aclmdlRIExecuteAsync replays them on a stream as often as wanted. CANN's offline
 * model API (aclmdlLoad*, aclmdlExecute, ...) is not part of cannon.
 *
 * What is recorded: kernel launches (with a copy of their argument blobs), asynchronous copies and
 * fills of device or aclrtMallocHost memory, host functions and callbacks, and event records,
 * waits and resets. The memory, events and host data a recorded task uses must stay valid until
 * the instance is destroyed; a replay reads them as they are then.
 *
 * While a stream captures: synchronizing, querying or destroying it →
 * ACL_ERROR_RT_STREAM_CAPTURED (107027), as is aclrtSynchronizeDevice on its device and
 * aclmdlRIExecuteAsync on it; synchronizing or querying an event recorded in the capture →
 * ACL_ERROR_RT_EVENT_CAPTURED (107028); an asynchronous copy from or to pageable host memory on
 * it → ACL_ERROR_RT_PARAM_INVALID. Synchronous copies and fills (aclrtMemcpy, aclrtMemset,
 * aclrtMemcpy2d, aclrtMallocCached) are refused with ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT
 * (107030) on every thread of the context in GLOBAL mode, on the capturing thread in THREAD_LOCAL
 * mode, and nowhere in RELAXED mode; aclmdlRICaptureThreadExchangeMode changes a thread's side of
 * that rule. Capture on the default stream is not supported (ACL_ERROR_RT_FEATURE_NOT_SUPPORT).
 */
#ifndef CANNON_ACL_MDL_H_
#define CANNON_ACL_MDL_H_

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A model runtime instance: a recorded sequence of stream tasks. */
typedef void *aclmdlRI;

typedef enum {
    ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,
    ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
    ACL_MODEL_RI_CAPTURE_MODE_RELAXED
} aclmdlRICaptureMode;

typedef enum {
    ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
    ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
    ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED
} aclmdlRICaptureStatus;

/**
 * Start recording the tasks enqueued on @p stream (a stream of the current context, not its
 * default stream). NULL stream → ACL_ERROR_INVALID_PARAM; bad mode → ACL_ERROR_RT_PARAM_INVALID;
 * already capturing → ACL_ERROR_RT_STREAM_CAPTURED; a stream of another context →
 * ACL_ERROR_RT_STREAM_CONTEXT (107003); the default stream → ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);

/**
 * The capture state of @p stream and the instance being recorded (either output may be NULL, not
 * both: ACL_ERROR_INVALID_PARAM).
 */
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status,
                                                    aclmdlRI *modelRI);

/**
 * Stop recording and return the instance in @p modelRI. Not capturing →
 * ACL_ERROR_RT_STREAM_NOT_CAPTURED (107029); NULL @p modelRI → ACL_ERROR_RT_PARAM_INVALID (the
 * capture goes on); called from another thread than the one that began a GLOBAL or THREAD_LOCAL
 * capture → ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD (107038); a capture that could not record a
 * task → ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED (507903). Those two end the capture with no
 * instance.
 */
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI);

/**
 * Swap the calling thread's capture mode with *@p mode (the thread's side of the rule on
 * synchronous calls, see the file comment; the default is GLOBAL). NULL or a bad mode →
 * ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode);

/**
 * Enqueue the recorded tasks on @p stream (NULL: the default stream), in order. The stream must
 * belong to the instance's device (else ACL_ERROR_RT_STREAM_CONTEXT) and not capture (else
 * ACL_ERROR_RT_STREAM_CAPTURED); an event the instance uses that was destroyed →
 * ACL_ERROR_INVALID_PARAM, and nothing is enqueued. The instance may be destroyed right after.
 */
ACL_FUNC_VISIBILITY aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream);

/**
 * Destroy an instance (work already enqueued by aclmdlRIExecuteAsync is not affected). NULL or
 * not a live instance → ACL_ERROR_INVALID_PARAM; an instance still being captured →
 * ACL_ERROR_RT_MODEL_CAPTURED (107026).
 */
ACL_FUNC_VISIBILITY aclError aclmdlRIDestroy(aclmdlRI modelRI);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_ACL_MDL_H_ */
