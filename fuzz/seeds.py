#!/usr/bin/python3
"""Hand-written seeds for the libFuzzer targets: inputs that reach the interesting code at once.

Writes them into fuzz/work/<target>/corpus, the corpus a campaign grows and `fuzz/run.sh pack`
merges (minimised) into the committed fuzz/corpus/<target>.tar.xz:

    fuzz/seeds.py [TARGET...]                    # default: every target below
    fuzz/run.sh campaign 300 fuzz_config         # grow it
    fuzz/run.sh pack fuzz_config                 # commit fuzz/corpus/fuzz_config.tar.xz

  fuzz_config       every configuration of tests/data/config (valid and invalid, one per key rule)
  fuzz_ranktable    valid tables as cannonrun and the HCCL tests write them (versions 1.0 and 1.2,
                    one to four ranks, IPv4 and IPv6 device addresses), and near misses
  fuzz_launch_env   the environments of each launcher (cannonrun, torchrun, mpirun, PMI, srun)
                    and their classic mistakes, as NAME=VALUE lines
  fuzz_memory       short programs starting with each operation (the byte after the three first
                    blocks picks it)
"""
import glob
import hashlib
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def write(target, blobs):
    d = os.path.join(HERE, "work", target, "corpus")
    os.makedirs(d, exist_ok=True)
    for b in blobs:
        with open(os.path.join(d, hashlib.sha1(b).hexdigest()), "wb") as f:
            f.write(b)
    print(f"{target}: {len(blobs)} seeds in {os.path.relpath(d, REPO)}")


def config_seeds():
    out = []
    for p in sorted(glob.glob(os.path.join(REPO, "tests", "data", "config", "*.json"))):
        with open(p, "rb") as f:
            out.append(f.read())
    return out


def table(version, servers, server_count=True, status="completed", extra=None):
    t = {"version": version, "status": status, "server_list": servers}
    if server_count:
        t["server_count"] = str(len(servers))
    if extra:
        t.update(extra)
    return t


def device(rank, dev, ip="127.0.0.1", **kw):
    d = {"device_id": str(dev), "device_ip": ip, "rank_id": str(rank)}
    d.update({k: str(v) for k, v in kw.items()})
    return d


def ranktable_seeds():
    tables = [
        # cannonrun's table: one server, four ranks, device ports
        table("1.0", [{"server_id": "127.0.0.1", "host_ip": "127.0.0.1",
                       "device": [device(r, r, device_port=61000 + r) for r in range(4)]}]),
        # the HCCL tests' two-rank tables, both versions
        table("1.0", [{"server_id": "node_0", "host_ip": "127.0.0.1",
                       "device": [device(0, 0, host_port=50000), device(1, 1)]}]),
        table("1.2", [{"server_id": "node_0", "host_ip": "127.0.0.1",
                       "device": [device(0, 0, host_port=50000), device(1, 1)]}]),
        # one rank
        table("1.0", [{"server_id": "node_0", "host_ip": "127.0.0.1", "device": [device(0, 0)]}]),
        # two servers, IPv6 device addresses, super pods, backup ports (1.2)
        table("1.2", [{"server_id": "a", "host_ip": "10.0.0.1",
                       "device": [device(1, 0, "::1", backup_device_ip="fe80::1", backup_device_port=16667,
                                         super_device_id=0)]},
                      {"server_id": "b", "host_ip": "10.0.0.2", "device": [device(0, 7, host_port=65535)]}],
              server_count=False, extra={"super_pod_list": [{"super_pod_id": "0", "server_list": [
                  {"server_id": "a"}, {"server_id": "b"}]}]}),
        # near misses: wrong types, ranges, duplicates, missing fields
        table("1.0", [{"server_id": "node_0", "host_ip": "999.1.1.1", "device": [device(0, 0)]}]),
        table("1.0", [{"server_id": "node_0", "device": [device(0, 0), device(0, 1)]}]),
        table("1.0", [{"server_id": "node_0", "device": [device(0, 70000)]}]),
        table("1.0", [{"server_id": "node_0", "device": [{"device_id": 0, "rank_id": 1.7}]}]),
        table("1.1", [{"server_id": "node_0", "device": [device(0, 0)]}]),
        table("1.0", [{"server_id": "node_0", "device": [device(0, 0)]}], status="initializing"),
    ]
    out = [json.dumps(t, indent=2).encode() for t in tables]
    out.append(b'{"version": "1.0", "status": "completed", "server_count": "1", "server_list": [{"server_id": '
               b'"n", "device": [{"device_id": "0", "rank_id": "0\\u00001"}]}]}')
    return out


LAUNCH_ENVS = [
    "RANK_ID=2 RANK_SIZE=4 DEVICE_ID=6 ASCEND_DEVICE_ID=6 LOCAL_RANK=2 LOCAL_WORLD_SIZE=4 RANK=2 WORLD_SIZE=4 "
    "CANNONRUN_JOB_ID=j1 CANNON_HCCL_ROOT_INFO_FILE=/tmp/x RANK_TABLE_FILE=/tmp/rt.json",
    "RANK=3 WORLD_SIZE=8 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2",
    "OMPI_COMM_WORLD_RANK=5 OMPI_COMM_WORLD_SIZE=8 OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_LOCAL_SIZE=4 "
    "OMPI_MCA_ess_base_jobid=1234",
    "OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_LOCAL_SIZE=2 "
    "SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_LOCALID=0 LOCAL_RANK=0 LOCAL_WORLD_SIZE=2",
    "SLURM_PROCID=4 SLURM_NTASKS=5 SLURM_LOCALID=1 SLURM_NODEID=1 SLURM_STEP_TASKS_PER_NODE=3,2 "
    "SLURM_TASKS_PER_NODE=9 SLURM_JOB_ID=77 SLURM_STEP_ID=3",
    "SLURM_PROCID=5 SLURM_NTASKS=7 SLURM_LOCALID=1 SLURM_NODEID=2 SLURM_TASKS_PER_NODE=2(x3),1",
    "SLURM_PROCID=0 SLURM_NTASKS=8 SLURM_LOCALID=0 SLURM_NODEID=4 SLURM_TASKS_PER_NODE=2(x3),1",
    "PMI_RANK=1 PMI_SIZE=2 MPI_LOCALRANKID=1 MPI_LOCALNRANKS=2 ASCEND_DEVICE_ID=3 PMIX_NAMESPACE=ns/1",
    "RANK_SIZE=2 OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2",
    "RANK_ID=0",
    "RANK_ID=x1 RANK_SIZE=2",
    "RANK_ID=-1 RANK_SIZE=2",
    "RANK_ID=2 RANK_SIZE=2",
    "RANK_ID=0 RANK_SIZE=2 OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2",
    "RANK_ID=3 RANK_SIZE=4 SLURM_PROCID=0 SLURM_NTASKS=1",
    "RANK_ID=0 RANK_SIZE=2 DEVICE_ID=0 ASCEND_DEVICE_ID=1",
    "RANK_ID=0 RANK_SIZE=2 LOCAL_RANK=3 LOCAL_WORLD_SIZE=2",
    "SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_LOCALID=1",
]


def launch_env_seeds():
    out = [("\n".join(e.split()) + "\n").encode() for e in LAUNCH_ENVS]
    out.append(b"RANK_ID= 1\t\nRANK_SIZE=2\n")
    out.append(b"RANK_ID=2147483647\nRANK_SIZE=2147483648\n")
    return out


def memory_seeds():
    rng = random.Random(47)
    out = []
    for op in range(10):
        for _ in range(3):
            body = bytes([rng.randrange(256) for _ in range(40)])
            # the three first blocks (size high, size low, fill pattern each), then the operation
            out.append(bytes([0, 64, 7, 0, 64, 9, 0, 64, 11, op]) + body)
    return out


SEEDS = {"fuzz_config": config_seeds, "fuzz_ranktable": ranktable_seeds, "fuzz_launch_env": launch_env_seeds,
         "fuzz_memory": memory_seeds}


def main():
    for t in sys.argv[1:] or sorted(SEEDS):
        if t not in SEEDS:
            sys.exit(f"no hand-written seeds for {t} (known: {', '.join(sorted(SEEDS))})")
        write(t, SEEDS[t]())


if __name__ == "__main__":
    main()
