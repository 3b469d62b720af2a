/*
 * launch_env.h - where am I in a multi-process job?
 *
 * A rank of a collective job needs its rank, the job size and the device to bind. Every
 * launcher spells these differently, so a program links the small static library
 * `cannon_launch_env` and calls cannon_launch_env_read() instead of parsing variables itself.
 *
 * Sources, in the order they are tried (the first one that names both a rank and a size wins):
 *   1. CANN style      RANK_ID, RANK_SIZE          (cannonrun, hccl_test scripts, MindSpore)
 *   2. torch style     RANK, WORLD_SIZE            (torchrun, cannonrun)
 *   3. Open MPI        OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE
 *   4. PMI / PMIx      PMI_RANK, PMI_SIZE          (MPICH hydra, Intel MPI)
 *   5. Slurm           SLURM_PROCID, SLURM_NTASKS  (srun)
 * No source at all means a single-process run: rank 0 of 1, source CANNON_LAUNCH_SOURCE_NONE.
 *
 * Consistency: CANN and torch variables are often exported by hand, so when one of them is
 * present next to the chosen source its values must agree (a `mpirun -x RANK_ID=0` that gives
 * every rank RANK_ID=0 is caught here, not as a hang inside the first collective). Open MPI and
 * Slurm are not compared with each other: under `mpirun` inside an allocation, SLURM_PROCID
 * describes the daemon, not the rank.
 *
 * Local rank / size: LOCAL_RANK + LOCAL_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK/_LOCAL_SIZE,
 * MPI_LOCALRANKID/MPI_LOCALNRANKS, SLURM_LOCALID + SLURM_STEP_TASKS_PER_NODE (or
 * SLURM_TASKS_PER_NODE) indexed by SLURM_NODEID. Unknown local values are -1.
 * Device: DEVICE_ID, else ASCEND_DEVICE_ID (both set must agree), else the local rank, else
 * the rank.
 *
 * Strings (job id, file paths) are copied whole: a value longer than its field is an error,
 * never cut short.
 *
 * All functions report failure by return code and an error text; none of them exits.
 */
#ifndef CANNON_LAUNCH_ENV_H
#define CANNON_LAUNCH_ENV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Name of the variable through which a launcher hands out the HCCL root-info file.
 * Contract (see tools/cannonrun/README.md): if the file exists when a rank starts, every rank
 * reads its HCCL_ROOT_INFO_BYTES bytes; otherwise rank 0 calls HcclGetRootInfo() and publishes
 * the bytes there with cannon_launch_publish_file(), and the other ranks wait for it with
 * cannon_launch_wait_file(). */
#define CANNON_HCCL_ROOT_INFO_FILE_ENV "CANNON_HCCL_ROOT_INFO_FILE"

typedef enum cannon_launch_source {
    CANNON_LAUNCH_SOURCE_NONE = 0,
    CANNON_LAUNCH_SOURCE_CANN,   /* RANK_ID / RANK_SIZE */
    CANNON_LAUNCH_SOURCE_TORCH,  /* RANK / WORLD_SIZE */
    CANNON_LAUNCH_SOURCE_OMPI,   /* OMPI_COMM_WORLD_* */
    CANNON_LAUNCH_SOURCE_PMI,    /* PMI_RANK / PMI_SIZE */
    CANNON_LAUNCH_SOURCE_SLURM   /* SLURM_PROCID / SLURM_NTASKS */
} cannon_launch_source;

enum {
    CANNON_LAUNCH_OK = 0,
    CANNON_LAUNCH_E_MISSING = 1,      /* a variable the others imply is not set */
    CANNON_LAUNCH_E_INVALID = 2,      /* a variable is not a number in range, or too long */
    CANNON_LAUNCH_E_INCONSISTENT = 3, /* two variables disagree (or rank >= size) */
    CANNON_LAUNCH_E_IO = 4,           /* file publish / wait failed */
    CANNON_LAUNCH_E_TIMEOUT = 5       /* waited too long for a file */
};

typedef struct cannon_launch_env {
    cannon_launch_source source;
    int rank;
    int size;
    int local_rank; /* -1 when unknown */
    int local_size; /* -1 when unknown */
    int device_id;
    int launched_by_cannonrun;  /* CANNONRUN_JOB_ID was set */
    char job_id[128];           /* "" when the launcher gives none */
    char root_info_file[4096];  /* value of CANNON_HCCL_ROOT_INFO_FILE, "" when unset */
    char rank_table_file[4096]; /* value of RANK_TABLE_FILE, "" when unset */
} cannon_launch_env;

/* Looks a variable up; returns NULL when unset. Lets tests feed a fake environment. */
typedef const char *(*cannon_launch_getenv_fn)(const char *name, void *ctx);

/* Fills @p env from the process environment. On failure returns a CANNON_LAUNCH_E_* code and
 * writes a message naming the offending variable(s) into @p err (if non-NULL). */
int cannon_launch_env_read(cannon_launch_env *env, char *err, size_t errlen);

/* Same, with variables looked up through @p get. */
int cannon_launch_env_read_with(cannon_launch_env *env, cannon_launch_getenv_fn get, void *ctx,
                                char *err, size_t errlen);

/* "none", "cann", "torch", "ompi", "pmi", "slurm". */
const char *cannon_launch_source_name(cannon_launch_source source);

/* Writes @p size bytes to @p path atomically (temporary file in the same directory, fsync,
 * rename), so a reader polling for @p path never sees a partial file. */
int cannon_launch_publish_file(const char *path, const void *data, size_t size, char *err,
                               size_t errlen);

/* Waits until @p path exists with exactly @p size bytes and reads them into @p data.
 * @p timeout_s <= 0 waits forever. */
int cannon_launch_wait_file(const char *path, void *data, size_t size, double timeout_s,
                            char *err, size_t errlen);

/* Produces the blob on rank 0 (e.g. wraps HcclGetRootInfo); returns 0 on success. */
typedef int (*cannon_launch_produce_fn)(void *buf, size_t size, void *ctx, char *err,
                                        size_t errlen);

/*
 * Gives every rank the same @p size-byte blob (the HCCL root info) following the
 * CANNON_HCCL_ROOT_INFO_FILE contract:
 *   - size 1: @p produce is called, no file is involved;
 *   - the file is CANNON_HCCL_ROOT_INFO_FILE, or when unset $TMPDIR (else /tmp)
 *     /cannon_hccl_root_info.<job id>; no job id and no variable is CANNON_LAUNCH_E_MISSING;
 *   - if the file already exists (the launcher created it) every rank reads it;
 *   - otherwise rank 0 calls @p produce and publishes the file, and the other ranks wait up to
 *     @p timeout_s for it.
 * When rank 0 published under a derived name it returns that path in @p created (else "") so
 * it can remove it once every rank has joined (a later job must never read a stale file).
 */
int cannon_launch_share_root_info(const cannon_launch_env *env, cannon_launch_produce_fn produce,
                                  void *ctx, void *buf, size_t size, double timeout_s,
                                  char *created, size_t created_cap, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_LAUNCH_ENV_H */
