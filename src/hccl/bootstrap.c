/*
 * Bootstrap: a TCP rendezvous whose address travels in the 4108-byte root info.
 *
 * HcclGetRootInfo opens a listening socket and starts a detached "root" thread that serves
 * exactly one communicator: every rank connects and says who it is (rank, rank count, pid, host
 * identity, and for rank 0 the memfd of the shared segment); when all ranks are in, the root
 * checks they agree, sends everyone the table, waits for every rank to report that it mapped the
 * segment, then says "go" and exits (closing its socket). The root can live in a process that is
 * not a rank (a launcher that forks the ranks after creating the root info).
 *
 * Failures are reported to every connected rank with a reason (ranks disagree on the rank count,
 * a rank number is used twice, some rank never came within HCCL_CONNECT_TIMEOUT), so no rank is
 * left waiting. A root info that was never produced by HcclGetRootInfo (bad magic or checksum) or
 * belongs to another rendezvous (nonce) is refused.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hccl_internal.h"

#define RI_MAGIC "CNHCCL01"
#define MSG_MAGIC 0x48434231u

typedef struct ri_wire {
    char magic[8];
    uint32_t version;
    uint32_t ip;   /* network order */
    uint16_t port; /* network order */
    uint16_t pad;
    int32_t pid;
    uint64_t nonce;
    int64_t timeout_ns;
    uint64_t check;
} ri_wire;

typedef struct hello_msg {
    uint32_t magic, nranks, rank;
    int32_t pid;
    uint64_t nonce, host;
    int32_t shm_fd, pad;
    uint64_t shm_total, slot_bytes;
} hello_msg;

typedef struct reply_msg {
    uint32_t magic;
    int32_t status;
    char msg[192];
    int32_t shm_fd, shm_pid;
    uint64_t shm_total, slot_bytes;
    /* followed by nranks × peer_info when status is 0 */
} reply_msg;

typedef struct peer_info {
    int32_t pid, pad;
    uint64_t host;
} peer_info;

typedef struct ack_msg {
    uint32_t magic;
    int32_t status;
} ack_msg;

static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

int64_t hc_env_int(const char *name, int64_t def, int64_t lo, int64_t hi)
{
    const char *v = cannon_env_get(name);
    if (v == NULL || *v == '\0')
        return def;
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end != '\0' || x < lo || x > hi)
        return def;
    return x;
}

uint64_t hc_host_id(void)
{
    char buf[256 + 64];
    size_t n = 0;
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t r = read(fd, buf, 64);
        if (r > 0)
            n = (size_t)r;
        close(fd);
    }
    if (gethostname(buf + n, 255) == 0)
        n += strnlen(buf + n, 255);
    return fnv1a(buf, n);
}

/* ---- socket helpers with a deadline ---- */

static int wait_fd(int fd, short ev, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - hc_now_ns();
        if (left <= 0)
            return HCCL_E_TIMEOUT;
        struct pollfd p = {.fd = fd, .events = ev};
        int ms = (int)(left / 1000000) + 1;
        int r = poll(&p, 1, ms);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return HCCL_E_SYSCALL;
    }
}

static int io_all(int fd, void *buf, size_t len, int writing, int64_t deadline)
{
    unsigned char *p = buf;
    while (len > 0) {
        int rc = wait_fd(fd, writing ? POLLOUT : POLLIN, deadline);
        if (rc)
            return rc;
        ssize_t n = writing ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            return HCCL_E_TCP_TRANSFER;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* ---- root ---- */

typedef struct root_state {
    int lfd;
    uint64_t nonce;
    int64_t deadline;
} root_state;

typedef struct conn {
    int fd;
    hello_msg h;
} conn;

static void reply_error(int fd, int status, const char *msg, int64_t deadline)
{
    reply_msg r;
    memset(&r, 0, sizeof r);
    r.magic = MSG_MAGIC;
    r.status = status;
    snprintf(r.msg, sizeof r.msg, "%s", msg);
    (void)io_all(fd, &r, sizeof r, 1, deadline);
}

static void *root_main(void *arg)
{
    root_state st = *(root_state *)arg;
    free(arg);
    conn *cs = NULL;
    size_t ncs = 0, cap = 0;
    uint32_t nranks = 0, have = 0;
    int status = 0;
    char msg[192] = "";
    unsigned char *seen = NULL;
    const int64_t io_deadline_pad = 2000000000; /* replies may go out a little after the deadline */

    while (status == 0 && (nranks == 0 || have < nranks)) {
        if (wait_fd(st.lfd, POLLIN, st.deadline) != 0) {
            status = HCCL_E_TIMEOUT;
            size_t len = (size_t)snprintf(msg, sizeof msg, "only %u of %u ranks joined within HCCL_CONNECT_TIMEOUT; missing:",
                                          have, nranks);
            for (uint32_t r = 0; r < nranks && len < sizeof msg - 12; r++)
                if (!seen[r])
                    len += (size_t)snprintf(msg + len, sizeof msg - len, " %u", r);
            break;
        }
        int fd = accept4(st.lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        hello_msg h;
        if (io_all(fd, &h, sizeof h, 0, st.deadline) != 0 || h.magic != MSG_MAGIC) {
            close(fd);
            continue;
        }
        if (h.nonce != st.nonce) {
            reply_error(fd, HCCL_E_PARA, "root info does not belong to this rendezvous", st.deadline);
            close(fd);
            continue;
        }
        if (ncs == cap) {
            cap = cap ? cap * 2 : 16;
            conn *n = realloc(cs, cap * sizeof *cs);
            if (n == NULL) {
                close(fd);
                status = HCCL_E_MEMORY;
                snprintf(msg, sizeof msg, "root out of memory");
                break;
            }
            cs = n;
        }
        cs[ncs].fd = fd;
        cs[ncs].h = h;
        ncs++;
        if (nranks == 0) {
            nranks = h.nranks;
            seen = calloc(nranks, 1);
            if (seen == NULL) {
                status = HCCL_E_MEMORY;
                snprintf(msg, sizeof msg, "root out of memory");
                break;
            }
        }
        if (h.nranks != nranks) {
            status = HCCL_E_PARA;
            snprintf(msg, sizeof msg, "ranks disagree on the rank count: rank %u says %u, rank %u says %u", cs[0].h.rank,
                     nranks, h.rank, h.nranks);
        } else if (h.rank >= nranks) {
            status = HCCL_E_PARA;
            snprintf(msg, sizeof msg, "rank %u is out of range for %u ranks", h.rank, nranks);
        } else if (seen[h.rank]) {
            status = HCCL_E_PARA;
            snprintf(msg, sizeof msg, "rank %u joined twice", h.rank);
        } else {
            seen[h.rank] = 1;
            have++;
        }
    }

    if (status == 0) {
        /* Everyone is here: send the table. */
        size_t len = sizeof(reply_msg) + (size_t)nranks * sizeof(peer_info);
        unsigned char *buf = calloc(1, len);
        if (buf == NULL) {
            status = HCCL_E_MEMORY;
            snprintf(msg, sizeof msg, "root out of memory");
        } else {
            reply_msg *r = (reply_msg *)buf;
            peer_info *pi = (peer_info *)(buf + sizeof *r);
            r->magic = MSG_MAGIC;
            for (size_t i = 0; i < ncs; i++) {
                pi[cs[i].h.rank].pid = cs[i].h.pid;
                pi[cs[i].h.rank].host = cs[i].h.host;
                if (cs[i].h.rank == 0) {
                    r->shm_fd = cs[i].h.shm_fd;
                    r->shm_pid = cs[i].h.pid;
                    r->shm_total = cs[i].h.shm_total;
                    r->slot_bytes = cs[i].h.slot_bytes;
                }
            }
            for (size_t i = 0; i < ncs; i++)
                (void)io_all(cs[i].fd, buf, len, 1, st.deadline + io_deadline_pad);
            free(buf);
            /* Collect the acks, then release everyone with the common verdict. */
            ack_msg go = {MSG_MAGIC, 0};
            for (size_t i = 0; i < ncs; i++) {
                ack_msg a;
                if (io_all(cs[i].fd, &a, sizeof a, 0, st.deadline + io_deadline_pad) != 0 || a.magic != MSG_MAGIC)
                    go.status = HCCL_E_TCP_TRANSFER;
                else if (a.status != 0 && go.status == 0)
                    go.status = a.status;
            }
            const int32_t self = (int32_t)getpid();
            for (int local = 0; local < 2; local++) /* local rank last: see the error path below */
                for (size_t i = 0; i < ncs; i++)
                    if ((cs[i].h.pid == self) == (local == 1))
                        (void)io_all(cs[i].fd, &go, sizeof go, 1, st.deadline + io_deadline_pad);
        }
    }
    if (status != 0) {
        /* The root thread lives in one of the ranks' processes: tell the other processes first,
         * since the local rank may exit as soon as it has its verdict and take this thread along. */
        const int32_t self = (int32_t)getpid();
        for (int local = 0; local < 2; local++)
            for (size_t i = 0; i < ncs; i++)
                if ((cs[i].h.pid == self) == (local == 1))
                    reply_error(cs[i].fd, status, msg, st.deadline + io_deadline_pad);
    }
    for (size_t i = 0; i < ncs; i++)
        close(cs[i].fd);
    free(cs);
    free(seen);
    close(st.lfd);
    return NULL;
}

static int64_t connect_timeout_ns(void)
{
    return hc_env_int("HCCL_CONNECT_TIMEOUT", 120, 1, 7200) * 1000000000ll;
}

int hc_root_info_create(HcclRootInfo *ri, const char *bind_ip, uint16_t port, uint64_t nonce, int listen_too)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    if (bind_ip == NULL || inet_pton(AF_INET, bind_ip, &a.sin_addr) != 1)
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (!listen_too) {
        a.sin_port = htons(port);
        goto fill;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return HCCL_E_SYSCALL;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int bound = 0;
    if (port != 0) {
        a.sin_port = htons(port);
        bound = bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
    } else {
        int64_t base = hc_env_int("HCCL_IF_BASE_PORT", 0, 1024, 65520);
        for (int i = 0; base != 0 && i < 32 && !bound; i++) {
            a.sin_port = htons((uint16_t)(base + i));
            bound = bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
        }
        if (!bound && base == 0) {
            a.sin_port = 0;
            bound = bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
        }
    }
    socklen_t al = sizeof a;
    if (!bound || listen(fd, 1024) != 0 || getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
        close(fd);
        return HCCL_E_UNAVAIL;
    }
    root_state *st = malloc(sizeof *st);
    if (st == NULL) {
        close(fd);
        return HCCL_E_MEMORY;
    }
    st->lfd = fd;
    st->nonce = nonce;
    st->deadline = hc_now_ns() + connect_timeout_ns();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    int rc = pthread_create(&th, &attr, root_main, st);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        free(st);
        close(fd);
        return HCCL_E_SYSCALL;
    }
fill:;
    ri_wire w;
    memset(&w, 0, sizeof w);
    memcpy(w.magic, RI_MAGIC, 8);
    w.version = 1;
    w.ip = a.sin_addr.s_addr;
    w.port = a.sin_port;
    w.pid = (int32_t)getpid();
    w.nonce = nonce;
    w.check = fnv1a(&w, offsetof(ri_wire, check));
    memset(ri, 0, sizeof *ri);
    memcpy(ri->internal, &w, sizeof w);
    return HCCL_SUCCESS;
}

/* ---- rank side ---- */

typedef struct boot_conn {
    int fd;
    int64_t deadline;
} boot_conn;

static int parse_ri(const HcclRootInfo *ri, ri_wire *w)
{
    memcpy(w, ri->internal, sizeof *w);
    if (memcmp(w->magic, RI_MAGIC, 8) != 0 || w->check != fnv1a(w, offsetof(ri_wire, check)))
        return HCCL_E_PARA;
    return 0;
}

int hc_rootinfo_valid(const HcclRootInfo *ri)
{
    ri_wire w;
    return parse_ri(ri, &w) == 0;
}

/* Join: returns the connection (kept open until hc_boot_finish) and fills @p out. */
int hc_boot_join(const HcclRootInfo *ri, uint32_t nranks, uint32_t rank, int shm_fd, size_t shm_total, size_t slot_bytes,
                 hc_boot_result *out, int *conn_fd, char *err, size_t errlen)
{
    ri_wire w;
    if (parse_ri(ri, &w) != 0) {
        snprintf(err, errlen, "rootInfo was not produced by HcclGetRootInfo (bad magic or checksum)");
        return HCCL_E_PARA;
    }
    const int64_t deadline = hc_now_ns() + connect_timeout_ns();
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = w.ip;
    a.sin_port = w.port;
    int fd = -1;
    for (;;) {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            snprintf(err, errlen, "socket() failed: %s", strerror(errno));
            return HCCL_E_SYSCALL;
        }
        int e = ECONNREFUSED;
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
            /* With no listener yet (rank-table init: rank 0 may start later), Linux can connect a
             * socket to itself when its ephemeral source port equals the target port. */
            struct sockaddr_in me;
            socklen_t ml = sizeof me;
            if (getsockname(fd, (struct sockaddr *)&me, &ml) != 0 || me.sin_port != a.sin_port ||
                me.sin_addr.s_addr != a.sin_addr.s_addr)
                break;
        } else {
            e = errno;
        }
        close(fd);
        fd = -1;
        if (hc_now_ns() >= deadline) {
            char ip[INET_ADDRSTRLEN] = "?";
            inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
            snprintf(err, errlen, "cannot reach the root at %s:%u within HCCL_CONNECT_TIMEOUT: %s", ip,
                     (unsigned)ntohs(a.sin_port), strerror(e));
            return HCCL_E_TCP_CONNECT;
        }
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    hello_msg h;
    memset(&h, 0, sizeof h);
    h.magic = MSG_MAGIC;
    h.nranks = nranks;
    h.rank = rank;
    h.pid = (int32_t)getpid();
    h.nonce = w.nonce;
    h.host = hc_host_id();
    h.shm_fd = shm_fd;
    h.shm_total = shm_total;
    h.slot_bytes = slot_bytes;
    reply_msg r;
    int rc = io_all(fd, &h, sizeof h, 1, deadline);
    if (rc == 0)
        rc = io_all(fd, &r, sizeof r, 0, deadline + 2000000000);
    if (rc != 0) {
        close(fd);
        snprintf(err, errlen, "%s while waiting for the other ranks at the root",
                 rc == HCCL_E_TIMEOUT ? "timed out (HCCL_CONNECT_TIMEOUT)" : "lost the connection");
        return rc == HCCL_E_TIMEOUT ? HCCL_E_TIMEOUT : HCCL_E_TCP_TRANSFER;
    }
    if (r.magic != MSG_MAGIC || r.status != 0) {
        close(fd);
        r.msg[sizeof r.msg - 1] = '\0';
        snprintf(err, errlen, "%s", r.magic == MSG_MAGIC ? r.msg : "bad reply from the root");
        return r.magic == MSG_MAGIC ? r.status : HCCL_E_TCP_TRANSFER;
    }
    peer_info *pi = calloc(nranks, sizeof *pi);
    out->pids = calloc(nranks, sizeof *out->pids);
    out->hosts = calloc(nranks, sizeof *out->hosts);
    if (pi == NULL || out->pids == NULL || out->hosts == NULL) {
        free(pi);
        close(fd);
        snprintf(err, errlen, "out of memory");
        return HCCL_E_MEMORY;
    }
    rc = io_all(fd, pi, nranks * sizeof *pi, 0, deadline + 2000000000);
    if (rc != 0) {
        free(pi);
        close(fd);
        snprintf(err, errlen, "lost the connection to the root");
        return HCCL_E_TCP_TRANSFER;
    }
    for (uint32_t i = 0; i < nranks; i++) {
        out->pids[i] = pi[i].pid;
        out->hosts[i] = pi[i].host;
    }
    free(pi);
    out->shm_fd = r.shm_fd;
    out->shm_pid = r.shm_pid;
    out->shm_total = r.shm_total;
    out->slot_bytes = r.slot_bytes;
    *conn_fd = fd;
    return 0;
}

/* Tell the root how mapping went and wait for everyone's verdict. */
int hc_boot_finish(int fd, int status)
{
    const int64_t deadline = hc_now_ns() + connect_timeout_ns();
    ack_msg a = {MSG_MAGIC, status}, go;
    int rc = io_all(fd, &a, sizeof a, 1, deadline);
    if (rc == 0)
        rc = io_all(fd, &go, sizeof go, 0, deadline);
    close(fd);
    if (rc != 0)
        return HCCL_E_TCP_TRANSFER;
    return go.magic == MSG_MAGIC ? go.status : HCCL_E_TCP_TRANSFER;
}
