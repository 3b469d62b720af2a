/*
 * Every environment variable cannon reads, in one table: the C libraries and tools read them
 * through cannon_env_get() (env.h), which checks in debug builds that the name is listed here;
 * the Python package (python/cannon) reads its own, and a test checks they are listed too.
 * `cannon-info` prints the table with the current values, and the README's tables are generated
 * from it (`cannon-info --env-markdown`; a test compares them).
 *
 * CANNON_ENV(name, kind, default, owner, meaning)
 *   kind     CANNON_ENV_CONFIG: a setting a user chooses;
 *            CANNON_ENV_LAUNCH: set per process by a launcher (cannonrun, torchrun, mpirun, srun),
 *            read to find the rank, the job size, the device and the job id
 *   default  what applies when the variable is unset, in words
 *   owner    the module that reads it (the first one defines its meaning)
 *   meaning  one line; no '|' (it becomes a Markdown table cell)
 *
 * No include guard: include it with CANNON_ENV defined to expand the rows.
 */

/* ---- runtime (libascendcl) --------------------------------------------------------------- */
CANNON_ENV("ASCEND_GLOBAL_LOG_LEVEL", CANNON_ENV_CONFIG, "silent", "runtime",
           "log level: 0 debug, 1 info, 2 warning, 3 error, 4 off")
CANNON_ENV("ASCEND_MODULE_LOG_LEVEL", CANNON_ENV_CONFIG, "none", "runtime",
           "per-module levels over the global one, e.g. ASCENDCL=0:DRV=1")
CANNON_ENV("ASCEND_LOG_PRINT_TO_STDOUT", CANNON_ENV_CONFIG, "0", "runtime",
           "1: log lines go to stdout instead of stderr or the log file")
CANNON_ENV("ASCEND_SLOG_PRINT_TO_STDOUT", CANNON_ENV_CONFIG, "0", "runtime",
           "older spelling of ASCEND_LOG_PRINT_TO_STDOUT, used when that one is unset")
CANNON_ENV("ASCEND_PROCESS_LOG_PATH", CANNON_ENV_CONFIG, "none (stderr)", "runtime",
           "folder for the log file plog-<pid>_<time>.log (created when logging is on)")
CANNON_ENV("CANNON_DRIVER", CANNON_ENV_CONFIG, "the best-scoring driver", "runtime",
           "only drivers of this name are eligible (e.g. cpu)")
CANNON_ENV("CANNON_DRIVER_PATH", CANNON_ENV_CONFIG, "none", "runtime",
           "':'-separated driver modules or folders searched before the built-in places")
CANNON_ENV("CANNON_PROFILE", CANNON_ENV_CONFIG, "none", "runtime",
           "folder for a profile of the whole run (created; aclInit fails when unwritable): cannon-prof sets it")
CANNON_ENV("CANNON_DUMP", CANNON_ENV_CONFIG, "none (the config's dump section)", "runtime",
           "folder for an operator dump of the whole run (created; aclInit fails when unwritable); overrides the config")
CANNON_ENV("CANNON_DUMP_OPS", CANNON_ENV_CONFIG, "every operator", "runtime",
           "with CANNON_DUMP: comma list of op types to dump (Add or aclnnAdd)")
CANNON_ENV("CANNON_DUMP_MODE", CANNON_ENV_CONFIG, "all", "runtime", "with CANNON_DUMP: input, output or all")
CANNON_ENV("CANNON_DUMP_DATA", CANNON_ENV_CONFIG, "tensor", "runtime",
           "with CANNON_DUMP: tensor (.npy files) or stats (per-tensor statistics in the manifest only)")

/* ---- CPU driver ----------------------------------------------------------------------------- */
CANNON_ENV("CANNON_CPU_DEVICES", CANNON_ENV_CONFIG, "8", "cpu driver", "number of virtual CPU devices, 1..64")
CANNON_ENV("CANNON_CPU_DEVICE_MEMORY", CANNON_ENV_CONFIG, "8G", "cpu driver",
           "memory capacity of each device in bytes, K/M/G/T suffixes (powers of 1024)")
CANNON_ENV("CANNON_CPU_THREADS", CANNON_ENV_CONFIG, "the CPUs this process may use", "cpu driver, cannonrun",
           "worker threads shared by all devices (cannonrun splits the CPUs between ranks when unset)")
CANNON_ENV("CANNON_SPIN_US", CANNON_ENV_CONFIG, "30", "cpu driver",
           "microseconds an idle worker or stream thread spins before it sleeps (0: sleep at once)")
CANNON_ENV("CANNON_CPU_ISA", CANNON_ENV_CONFIG, "no restriction", "cpu driver, ops",
           "mask of CANNON_CPU_ISA_* bits (cannon/cpu.h) ANDed with the CPU's; 0 makes kernels scalar")

/* ---- operators (libopapi) ------------------------------------------------------------------- */
CANNON_ENV("CANNON_ISA", CANNON_ENV_CONFIG, "the best tier the CPU has", "ops, hccl",
           "highest kernel tier to use: scalar, avx2 or avx512 (the operators read it at each plan)")
CANNON_ENV("CANNON_SOFTMAX_NT", CANNON_ENV_CONFIG, "by size", "ops",
           "softmax family: 1 forces streaming (non-temporal) stores of the result, 0 forbids them")
CANNON_ENV("CANNON_EW_NT", CANNON_ENV_CONFIG, "by size", "ops",
           "elementwise operators: 1 forces streaming stores of the result, 0 forbids them")

/* ---- collectives (libhccl) ------------------------------------------------------------------ */
CANNON_ENV("HCCL_CONNECT_TIMEOUT", CANNON_ENV_CONFIG, "120", "hccl, python",
           "seconds a rank waits for its peers while a communicator is created, 1..7200")
CANNON_ENV("HCCL_EXEC_TIMEOUT", CANNON_ENV_CONFIG, "1836", "hccl, python",
           "seconds a collective waits for its peers before it fails (0: no limit)")
CANNON_ENV("HCCL_BUFFSIZE", CANNON_ENV_CONFIG, "200", "hccl",
           "MiB of shared staging buffer per rank, 1..65536")
CANNON_ENV("HCCL_ALGO", CANNON_ENV_CONFIG, "by size", "hccl",
           "force an algorithm: level0:ring, mesh, H-D_R or oneshot; per operation as op=level0:X/op2=...")
CANNON_ENV("HCCL_IF_IP", CANNON_ENV_CONFIG, "127.0.0.1", "hccl",
           "IPv4 address the root-info rendezvous socket listens on")
CANNON_ENV("HCCL_IF_BASE_PORT", CANNON_ENV_CONFIG, "any free port (rank table: 60000)", "hccl",
           "first of 32 ports tried for the rendezvous socket; rank table without ports: rank 0's is this + its device")
CANNON_ENV("CANNON_HCCL_SPIN_US", CANNON_ENV_CONFIG, "50 (2 with more ranks than CPUs)", "hccl",
           "microseconds a waiting rank spins before it yields")
CANNON_ENV("CANNON_HCCL_YIELD_US", CANNON_ENV_CONFIG, "1000 (10 with more ranks than CPUs)", "hccl",
           "microseconds a waiting rank yields its CPU before it sleeps")
CANNON_ENV("CANNON_HCCL_SYNC_RUNS", CANNON_ENV_CONFIG, "1", "hccl",
           "1: a thread synchronizing the stream runs a queued collective itself; 0: the stream thread does")
CANNON_ENV("CANNON_HCCL_CHUNK_KB", CANNON_ENV_CONFIG, "1024", "hccl",
           "KiB moved per step of the staged algorithms (at most the staging slot), 4..4194304")
CANNON_ENV("CANNON_HCCL_ZCOPY_MIN_KB", CANNON_ENV_CONFIG, "64", "hccl",
           "smallest device buffer in KiB that takes the zero-copy path (0: never)")
CANNON_ENV("CANNON_HCCL_NT_MIN_KB", CANNON_ENV_CONFIG, "4096", "hccl",
           "smallest zero-copy result in KiB written with streaming stores")
CANNON_ENV("CANNON_HCCL_ROOT_INFO_FILE", CANNON_ENV_CONFIG, "TMPDIR/cannon_hccl_root_info.<job id>", "launch_env, python",
           "file through which rank 0 hands the HCCL root info to the other ranks (cannonrun sets it)")

/* ---- tools and the Python package ----------------------------------------------------------- */
CANNON_ENV("TMPDIR", CANNON_ENV_CONFIG, "/tmp", "cannonrun, launch_env, python",
           "folder for cannonrun's job files and the default root-info file")
CANNON_ENV("ASCEND_CUSTOM_OPP_PATH", CANNON_ENV_CONFIG, "unset", "opapi",
           "colon-separated vendor folders of custom operator packages, searched first (read at each lookup)")
CANNON_ENV("ASCEND_OPP_PATH", CANNON_ENV_CONFIG, "unset", "opapi, cannon-opc",
           "folder whose vendors/config.ini load_priority lists more operator packages; cannon-opc install's default")
CANNON_ENV("CANNON_LIB_DIR", CANNON_ENV_CONFIG, "<repo>/build/lib, else the loader's path", "python",
           "folder the Python package loads libascendcl, libopapi and libhccl from")
CANNON_ENV("CANNON_PY_ZERO_COPY", CANNON_ENV_CONFIG, "1 on the CPU driver", "python",
           "1: DeviceArray.numpy() returns views of device memory without copies; 0: copies")
CANNON_ENV("CANNON_TORCH_ALLOC", CANNON_ENV_CONFIG, "device", "python",
           "torch: cannon.torch allocates operator outputs with torch instead of aclrtMalloc")
CANNON_ENV("TRITON_INTERPRET", CANNON_ENV_CONFIG, "0", "python",
           "cannon.triton: 1 runs kernels in the interpreter (read at each launch)")
CANNON_ENV("TRITON_PRINT_AUTOTUNING", CANNON_ENV_CONFIG, "0", "python",
           "cannon.triton: 1 prints each autotuned kernel's chosen config and tuning time")
CANNON_ENV("CANNON_TRITON_BOUNDS", CANNON_ENV_CONFIG, "0", "python",
           "cannon.triton: 1 reports an unmasked load or store outside every tensor passed to the kernel")
CANNON_ENV("CANNON_TRITON_DEBUG", CANNON_ENV_CONFIG, "0", "python",
           "cannon.triton: 1 prints why a launch runs in the interpreter instead of compiled code")
CANNON_ENV("CANNON_TRITON_DUMP", CANNON_ENV_CONFIG, "0", "python",
           "cannon.triton: 1 prints the generated C of each kernel specialization as it is built")
CANNON_ENV("CANNON_TRITON_CHECK", CANNON_ENV_CONFIG, "0", "python",
           "cannon.triton: 1 runs each compiled launch interpreted too and reports the first differing element")
CANNON_ENV("CANNON_TRITON_VECREPORT", CANNON_ENV_CONFIG, "0", "python",
           "cannon.triton: 1 saves and prints the C compiler's report of the loops it did not vectorize")
CANNON_ENV("CANNON_TRITON_DIRECT", CANNON_ENV_CONFIG, "0", "python",
           "cannon.triton: 1 launches compiled kernels on a local thread pool, not on a cannon stream")
CANNON_ENV("CANNON_TRITON_AUTOTUNE_CACHE", CANNON_ENV_CONFIG, "1", "python",
           "cannon.triton: 0 turns off the autotuner's disk cache of chosen configs (under TRITON_CACHE_DIR/autotune)")
CANNON_ENV("TRITON_CACHE_DIR", CANNON_ENV_CONFIG, "$XDG_CACHE_HOME/cannon/triton", "python",
           "cannon.triton: folder of the compiled kernels (one shared object per specialization)")
CANNON_ENV("XDG_CACHE_HOME", CANNON_ENV_CONFIG, "~/.cache", "python",
           "cannon.triton: the user's cache folder, holding cannon/triton when TRITON_CACHE_DIR is unset")
CANNON_ENV("CC", CANNON_ENV_CONFIG, "the first of cc, gcc, clang on PATH", "python",
           "cannon.triton: the C compiler that builds kernels")
CANNON_ENV("LD_PRELOAD", CANNON_ENV_CONFIG, "none", "python",
           "cannon.triton: left out of the C compiler's environment (a sanitizer runtime preloaded into Python)")

/* ---- set by launchers ------------------------------------------------------------------------ */
CANNON_ENV("RANK_ID", CANNON_ENV_LAUNCH, "0", "launch_env, python", "rank (CANN style; cannonrun sets it)")
CANNON_ENV("RANK_SIZE", CANNON_ENV_LAUNCH, "1", "launch_env, python", "job size (CANN style; cannonrun sets it)")
CANNON_ENV("RANK", CANNON_ENV_LAUNCH, "0", "launch_env, python", "rank (torchrun style; cannonrun sets it)")
CANNON_ENV("WORLD_SIZE", CANNON_ENV_LAUNCH, "1", "launch_env, python",
           "job size (torchrun style; cannonrun sets it)")
CANNON_ENV("LOCAL_RANK", CANNON_ENV_LAUNCH, "unknown", "launch_env, python", "rank within this host")
CANNON_ENV("LOCAL_WORLD_SIZE", CANNON_ENV_LAUNCH, "unknown", "launch_env", "ranks on this host")
CANNON_ENV("DEVICE_ID", CANNON_ENV_LAUNCH, "the local rank, else the rank", "launch_env, python",
           "device this rank uses (python: the device set on first use, default 0)")
CANNON_ENV("ASCEND_DEVICE_ID", CANNON_ENV_LAUNCH, "DEVICE_ID", "launch_env, python",
           "device this rank uses when DEVICE_ID is unset (both set must agree)")
CANNON_ENV("RANK_TABLE_FILE", CANNON_ENV_LAUNCH, "none", "launch_env", "HCCL rank table (JSON) of the job")
CANNON_ENV("CANNONRUN_JOB_ID", CANNON_ENV_LAUNCH, "none", "launch_env", "job id, set by cannonrun")
CANNON_ENV("OMPI_COMM_WORLD_RANK", CANNON_ENV_LAUNCH, "none", "launch_env", "rank under Open MPI's mpirun")
CANNON_ENV("OMPI_COMM_WORLD_SIZE", CANNON_ENV_LAUNCH, "none", "launch_env", "job size under Open MPI's mpirun")
CANNON_ENV("OMPI_COMM_WORLD_LOCAL_RANK", CANNON_ENV_LAUNCH, "none", "launch_env", "rank within this host (Open MPI)")
CANNON_ENV("OMPI_COMM_WORLD_LOCAL_SIZE", CANNON_ENV_LAUNCH, "none", "launch_env", "ranks on this host (Open MPI)")
CANNON_ENV("OMPI_MCA_ess_base_jobid", CANNON_ENV_LAUNCH, "none", "launch_env, python", "job id (Open MPI)")
CANNON_ENV("PMI_RANK", CANNON_ENV_LAUNCH, "none", "launch_env", "rank under a PMI launcher (MPICH hydra, Intel MPI)")
CANNON_ENV("PMI_SIZE", CANNON_ENV_LAUNCH, "none", "launch_env", "job size under a PMI launcher")
CANNON_ENV("MPI_LOCALRANKID", CANNON_ENV_LAUNCH, "none", "launch_env", "rank within this host (PMI launchers)")
CANNON_ENV("MPI_LOCALNRANKS", CANNON_ENV_LAUNCH, "none", "launch_env", "ranks on this host (PMI launchers)")
CANNON_ENV("PMIX_NAMESPACE", CANNON_ENV_LAUNCH, "none", "launch_env, python", "job id (PMIx)")
CANNON_ENV("SLURM_PROCID", CANNON_ENV_LAUNCH, "none", "launch_env", "rank under srun")
CANNON_ENV("SLURM_NTASKS", CANNON_ENV_LAUNCH, "none", "launch_env", "job size under srun")
CANNON_ENV("SLURM_LOCALID", CANNON_ENV_LAUNCH, "none", "launch_env", "rank within this host (Slurm)")
CANNON_ENV("SLURM_NODEID", CANNON_ENV_LAUNCH, "0", "launch_env", "index of this host in the job (Slurm)")
CANNON_ENV("SLURM_STEP_TASKS_PER_NODE", CANNON_ENV_LAUNCH, "SLURM_TASKS_PER_NODE", "launch_env",
           "tasks per host of the job step, e.g. 2(x3),1 (Slurm)")
CANNON_ENV("SLURM_TASKS_PER_NODE", CANNON_ENV_LAUNCH, "none", "launch_env", "tasks per host of the job (Slurm)")
CANNON_ENV("SLURM_JOB_ID", CANNON_ENV_LAUNCH, "none", "launch_env, python", "job id (Slurm)")
CANNON_ENV("SLURM_STEP_ID", CANNON_ENV_LAUNCH, "0", "launch_env, python", "job step id (Slurm)")
