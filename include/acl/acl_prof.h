/**
 * @file acl_prof.h
 * The aclprof* profiling API: a session (Init with a result directory, a config naming devices and
 * the data wanted, Start/Stop, Finalize writing the data), msproftx-style stamps, marks and ranges,
 * and step timestamps. cannon records every stream task of the configured devices (operators with
 * their shapes and dtypes, copies, host callbacks, collectives, event operations) with start and end
 * times; the files written and their format are described in docs/runtime.md ("Profiling") and
 * docs/tools.md (cannon-prof). The AI Core metrics and events of a config are accepted and have no
 * counterpart on cannon's devices.
 */
#ifndef CANNON_ACL_PROF_H_
#define CANNON_ACL_PROF_H_

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dataTypeConfig bits of aclprofCreateConfig */
#define ACL_PROF_ACL_API 0x0001ULL
#define ACL_PROF_TASK_TIME 0x0002ULL
#define ACL_PROF_AICORE_METRICS 0x0004ULL
#define ACL_PROF_AICPU 0x0008ULL
#define ACL_PROF_L2CACHE 0x0010ULL
#define ACL_PROF_HCCL_TRACE 0x0020ULL
#define ACL_PROF_TRAINING_TRACE 0x0040ULL
#define ACL_PROF_MSPROFTX 0x0080ULL
#define ACL_PROF_RUNTIME_API 0x0100ULL
#define ACL_PROF_GE_API_L0 0x0200ULL
#define ACL_PROF_TASK_TIME_L0 0x0800ULL
#define ACL_PROF_TASK_MEMORY 0x1000ULL
#define ACL_PROF_TASK_TIME_L2 0x2000ULL
#define ACL_PROF_OP_ATTR 0x4000ULL
#define ACL_PROF_TASK_TIME_L3 0x8000ULL
#define ACL_PROF_GE_API_L1 0x01000000ULL
#define ACL_PROF_API_STATS 0x400000000ULL
#define ACL_PROF_AICORE_SHAPE 0x800000000ULL

#define ACL_PROF_MAX_OP_NAME_LEN 257
#define ACL_PROF_MAX_OP_TYPE_LEN 65

typedef enum {
    ACL_AICORE_ARITHMETIC_UTILIZATION = 0,
    ACL_AICORE_PIPE_UTILIZATION = 1,
    ACL_AICORE_MEMORY_BANDWIDTH = 2,
    ACL_AICORE_L0B_AND_WIDTH = 3,
    ACL_AICORE_RESOURCE_CONFLICT_RATIO = 4,
    ACL_AICORE_MEMORY_UB = 5,
    ACL_AICORE_L2_CACHE = 6,
    ACL_AICORE_PIPE_EXECUTE_UTILIZATION = 7,
    ACL_AICORE_MEMORY_ACCESS = 8,
    ACL_AICORE_NONE = 0xFF
} aclprofAicoreMetrics;

typedef enum {
    ACL_STEP_START = 0,
    ACL_STEP_END = 1
} aclprofStepTag;

typedef enum {
    ACL_PROF_ARGS_MIN = 0,
    ACL_PROF_STORAGE_LIMIT = 1,
    ACL_PROF_SYS_HARDWARE_MEM_FREQ = 3,
    ACL_PROF_LLC_MODE = 4,
    ACL_PROF_SYS_IO_FREQ = 5,
    ACL_PROF_SYS_INTERCONNECTION_FREQ = 6,
    ACL_PROF_DVPP_FREQ = 7,
    ACL_PROF_HOST_SYS = 8,
    ACL_PROF_HOST_SYS_USAGE = 9,
    ACL_PROF_HOST_SYS_USAGE_FREQ = 10,
    ACL_PROF_LOW_POWER_FREQ = 11,
    ACL_PROF_SYS_MEM_SERVICEFLOW = 12,
    ACL_PROF_SYS_CPU_FREQ = 13,
    ACL_PROF_OPTYPE = 14,
    ACL_PROF_NTS_METRICS = 15,
    ACL_PROF_PATH = 16,
    ACL_PROF_ARGS_MAX = 17
} aclprofConfigType;

typedef struct aclprofConfig aclprofConfig;
typedef struct aclprofStepInfo aclprofStepInfo;
typedef struct aclprofAicoreEvents aclprofAicoreEvents;

/* Session */
ACL_FUNC_VISIBILITY aclError aclprofInit(const char *profilerResultPath, size_t length);
ACL_FUNC_VISIBILITY aclError aclprofFinalize(void);
ACL_FUNC_VISIBILITY aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
                                                       aclprofAicoreMetrics aicoreMetrics,
                                                       const aclprofAicoreEvents *aicoreEvents,
                                                       uint64_t dataTypeConfig);
ACL_FUNC_VISIBILITY aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig);
ACL_FUNC_VISIBILITY aclError aclprofStart(const aclprofConfig *profilerConfig);
ACL_FUNC_VISIBILITY aclError aclprofStop(const aclprofConfig *profilerConfig);
ACL_FUNC_VISIBILITY aclError aclprofSetConfig(aclprofConfigType configType, const char *config, size_t configLength);

/* Stamps, marks and ranges (msproftx) */
ACL_FUNC_VISIBILITY void *aclprofCreateStamp(void);
ACL_FUNC_VISIBILITY void aclprofDestroyStamp(void *stamp);
ACL_FUNC_VISIBILITY aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen);
ACL_FUNC_VISIBILITY aclError aclprofMark(void *stamp);
ACL_FUNC_VISIBILITY aclError aclprofMarkEx(const char *msg, size_t msgLen, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclprofPush(void *stamp);
ACL_FUNC_VISIBILITY aclError aclprofPop(void);
ACL_FUNC_VISIBILITY aclError aclprofRangeStart(void *stamp, uint32_t *rangeId);
ACL_FUNC_VISIBILITY aclError aclprofRangeStop(uint32_t rangeId);

/* Step timestamps */
ACL_FUNC_VISIBILITY aclprofStepInfo *aclprofCreateStepInfo(void);
ACL_FUNC_VISIBILITY void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo);
ACL_FUNC_VISIBILITY aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag,
                                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_ACL_PROF_H_ */
