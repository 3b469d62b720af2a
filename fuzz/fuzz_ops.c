/*
 * Fuzz target: tensor, scalar and array descriptors, then phase 1 of one operator of the manifest
 * (every operator, through callers generated from src/ops/ops.def), then, when every view lies
 * inside the device pool and the plan is small, phase 2 on that real memory.
 *
 * What must hold: descriptor creation and phase 1 return a code and never crash, read out of
 * bounds or overflow (ASan+UBSan); a phase 1 that fails leaves no executor; phase 2 writes nothing
 * outside its output views (the rest of the pool is compared with a copy) and changes no input
 * view that no output overlaps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/cannon_access.h"
#include "cannon/opdev.h"
#include "fuzz_common.h"
#include "nnopbase_internal.h"

#include "op_manifest.h"

#define POOL_BYTES (64 * 1024)
#define MAX_OBJS 64
/* Phase 2 only for plans this small: the elements of every view together, the workspace. */
#define P2_MAX_ELEMS ((int64_t)1 << 16)
#define P2_MAX_WS ((uint64_t)16 << 20)

typedef struct fz_ctx {
    fz in;
    aclTensor *tensors[MAX_OBJS];
    int nt;
    aclScalar *scalars[MAX_OBJS];
    int ns;
    void *others[MAX_OBJS]; /* arrays and lists, with their destroy function */
    aclnnStatus (*other_free[MAX_OBJS])(const void *);
    int no;
} fz_ctx;

typedef struct fz_op {
    const char *name;
    aclnnStatus (*call)(fz_ctx *c, uint64_t *ws, aclOpExecutor **e);
    aclnnStatus (*run)(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);
} fz_op;

static uint8_t *g_pool; /* device memory the views point into */
static aclrtStream g_stream;
static uint8_t g_before[POOL_BYTES];

static const aclDataType g_dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16,
                                       ACL_INT32, ACL_INT64, ACL_UINT8, ACL_BOOL, ACL_UINT16, ACL_UINT32,
                                       ACL_UINT64, ACL_COMPLEX64, ACL_COMPLEX128, ACL_INT4, ACL_STRING,
                                       ACL_FLOAT8_E4M3FN, ACL_DT_UNDEFINED, (aclDataType)99};

static aclDataType fz_dtype(fz_ctx *c)
{
    const uint8_t sel = fz_u8(&c->in);
    /* the floating types most of the time: most operators take them */
    return sel < 128 ? g_dtypes[sel % 4] : g_dtypes[sel % (sizeof g_dtypes / sizeof g_dtypes[0])];
}

static aclTensor *fz_tensor(fz_ctx *c)
{
    const uint8_t sel = fz_u8(&c->in);
    if (sel < 8)
        return NULL;
    if (sel < 40 && c->nt > 0) /* the same tensor again: in-place and aliasing */
        return c->tensors[fz_u8(&c->in) % c->nt];
    if (c->nt == MAX_OBJS)
        return NULL;
    const aclDataType dt = fz_dtype(c);
    const uint8_t rsel = fz_u8(&c->in);
    const uint64_t ndim = rsel < 240 ? rsel % 5 : rsel % 34;
    int64_t dims[40], strides[40];
    for (uint64_t i = 0; i < ndim; i++)
        dims[i] = fz_dim(&c->in);
    const uint8_t smode = fz_u8(&c->in);
    const int64_t *st = NULL;
    if (smode >= 128) {
        for (uint64_t i = 0; i < ndim; i++)
            strides[i] = smode < 160 ? 0 : smode < 200 ? fz_dim(&c->in) : fz_i64(&c->in);
        if (smode >= 224 && ndim >= 2) { /* a transpose of the contiguous strides */
            int64_t s = 1;
            for (uint64_t i = 0; i < ndim; i++) {
                strides[i] = s;
                if (dims[i] > 1 && dims[i] < 4096 && s < ((int64_t)1 << 40))
                    s *= dims[i];
            }
        }
        st = strides;
    }
    const uint8_t osel = fz_u8(&c->in);
    const int64_t offset = osel < 200 ? 0 : osel < 240 ? osel % 32 : fz_i64(&c->in);
    const uint8_t fsel = fz_u8(&c->in);
    const aclFormat fmt = fsel < 200 ? ACL_FORMAT_ND : fsel < 220 ? ACL_FORMAT_NCHW : fsel < 240 ? ACL_FORMAT_NHWC
                                                                                             : (aclFormat)(fsel % 40);
    const uint8_t psel = fz_u8(&c->in);
    void *data = psel < 16 ? NULL : g_pool + (size_t)(psel % 64) * (POOL_BYTES / 64);
    aclTensor *t = aclCreateTensor(dims, ndim, dt, st, offset, fmt, NULL, 0, data);
    if (t)
        c->tensors[c->nt++] = t;
    return t;
}

static aclScalar *fz_scalar(fz_ctx *c)
{
    const uint8_t sel = fz_u8(&c->in);
    if (sel < 8 || c->ns == MAX_OBJS)
        return NULL;
    uint8_t bytes[16];
    const uint8_t vsel = fz_u8(&c->in);
    const aclDataType dt = vsel < 64 ? ACL_DOUBLE : vsel < 128 ? ACL_INT64 : fz_dtype(c);
    if (dt == ACL_DOUBLE) {
        const double d = fz_f64(&c->in);
        memcpy(bytes, &d, sizeof d);
    } else if (dt == ACL_INT64) {
        const int64_t v = fz_i64(&c->in);
        memcpy(bytes, &v, sizeof v);
    } else {
        for (int i = 0; i < 16; i++)
            bytes[i] = fz_u8(&c->in);
    }
    aclScalar *s = aclCreateScalar(bytes, dt);
    if (s)
        c->scalars[c->ns++] = s;
    return s;
}

static void keep(fz_ctx *c, void *o, aclnnStatus (*destroy)(const void *))
{
    if (o) {
        c->others[c->no] = o;
        c->other_free[c->no++] = destroy;
    }
}

static aclnnStatus destroy_int_array(const void *p)
{
    return aclDestroyIntArray(p);
}
static aclnnStatus destroy_bool_array(const void *p)
{
    return aclDestroyBoolArray(p);
}
static aclnnStatus destroy_float_array(const void *p)
{
    return aclDestroyFloatArray(p);
}
static aclnnStatus destroy_tensor_list(const void *p)
{
    return aclDestroyTensorList(p);
}
static aclnnStatus destroy_scalar_list(const void *p)
{
    return aclDestroyScalarList(p);
}

static aclIntArray *fz_intarray(fz_ctx *c)
{
    const uint8_t sel = fz_u8(&c->in);
    if (sel < 8 || c->no == MAX_OBJS)
        return NULL;
    const uint64_t n = sel < 240 ? sel % 5 : sel % 12;
    int64_t v[12];
    for (uint64_t i = 0; i < n; i++)
        v[i] = fz_u8(&c->in) < 200 ? (int64_t)(fz_u8(&c->in) % 9) - 4 : fz_i64(&c->in);
    aclIntArray *a = aclCreateIntArray(v, n);
    keep(c, a, destroy_int_array);
    return a;
}

static aclBoolArray *fz_boolarray(fz_ctx *c)
{
    const uint8_t sel = fz_u8(&c->in);
    if (sel < 8 || c->no == MAX_OBJS)
        return NULL;
    const uint64_t n = sel % 5;
    bool v[4];
    for (uint64_t i = 0; i < n; i++)
        v[i] = fz_u8(&c->in) & 1;
    aclBoolArray *a = aclCreateBoolArray(v, n);
    keep(c, a, destroy_bool_array);
    return a;
}

__attribute__((unused)) static aclFloatArray *fz_floatarray(fz_ctx *c)
{
    const uint8_t sel = fz_u8(&c->in);
    if (sel < 8 || c->no == MAX_OBJS)
        return NULL;
    const uint64_t n = sel % 5;
    float v[4];
    for (uint64_t i = 0; i < n; i++)
        v[i] = (float)fz_f64(&c->in);
    aclFloatArray *a = aclCreateFloatArray(v, n);
    keep(c, a, destroy_float_array);
    return a;
}

/* Lists own their elements: they are built from fresh descriptors, not from c->tensors. */
__attribute__((unused)) static aclTensorList *fz_tensorlist(fz_ctx *c)
{
    const uint8_t sel = fz_u8(&c->in);
    if (sel < 8 || c->no == MAX_OBJS)
        return NULL;
    const uint64_t n = sel % 4;
    const aclTensor *v[3];
    for (uint64_t i = 0; i < n; i++) {
        const int64_t d[2] = {fz_dim(&c->in), fz_dim(&c->in)};
        v[i] = aclCreateTensor(d, 2, fz_dtype(c), NULL, 0, ACL_FORMAT_ND, NULL, 0, g_pool);
    }
    aclTensorList *l = aclCreateTensorList(v, n);
    keep(c, l, destroy_tensor_list);
    return l;
}

__attribute__((unused)) static aclScalarList *fz_scalarlist(fz_ctx *c)
{
    const uint8_t sel = fz_u8(&c->in);
    if (sel < 8 || c->no == MAX_OBJS)
        return NULL;
    const uint64_t n = sel % 4;
    const aclScalar *v[3];
    for (uint64_t i = 0; i < n; i++) {
        const double d = fz_f64(&c->in);
        v[i] = aclCreateScalar((void *)&d, ACL_DOUBLE);
    }
    aclScalarList *l = aclCreateScalarList(v, n);
    keep(c, l, destroy_scalar_list);
    return l;
}

#define FZ_ARG(name, expr) __typeof__(expr) name = (expr)
#include "fuzz_ops_calls.c"

/* The byte range [lo, hi) of the pool a view can reach; false when it reaches outside the pool,
 * has no storage size, or is empty (lo == hi). */
static bool view_range(const nn_slot *s, int64_t *lo, int64_t *hi, int64_t *numel)
{
    const int64_t es = (int64_t)cannonDtypeSize(s->dtype);
    int64_t n = 1, last = s->offset;
    for (int64_t i = 0; i < s->ndim; i++)
        n *= s->shape[i];
    *numel = n;
    if (n == 0) { /* an empty view's strides and dims are unrelated: its extent is nothing */
        *lo = *hi = 0;
        return true;
    }
    for (int64_t i = 0; i < s->ndim; i++)
        last += (s->shape[i] - 1) * s->strides[i]; /* within the size limit phase 1 checked */
    if (!s->addr || es == 0)
        return false;
    const int64_t base = (const uint8_t *)s->addr - g_pool;
    *lo = base + s->offset * es;
    *hi = base + (last + 1) * es;
    return *lo >= 0 && *hi <= POOL_BYTES;
}

/* Run @p e and check what it wrote; consumes the executor. */
static void phase2(const fz_op *op, aclOpExecutor *e, uint64_t ws)
{
    int64_t lo[64], hi[64], total = 0;
    bool out[64];
    const size_t ns = e->n_slots < 64 ? e->n_slots : 64;
    bool ok = ws <= P2_MAX_WS && e->n_slots <= 64;
    for (size_t i = 0; ok && i < ns; i++) {
        int64_t n = 0;
        out[i] = e->slots[i].is_output;
        ok = !e->slots[i].tensor || view_range(&e->slots[i], &lo[i], &hi[i], &n);
        if (!e->slots[i].tensor)
            lo[i] = hi[i] = 0;
        total += n;
        ok = ok && total <= P2_MAX_ELEMS;
    }
    if (!ok) {
        aclDestroyAclOpExecutor(e);
        return;
    }
    void *w = NULL;
    if (ws && aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        aclDestroyAclOpExecutor(e);
        return;
    }
    if (aclrtMemcpy(g_before, POOL_BYTES, g_pool, POOL_BYTES, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
        abort();
    const aclnnStatus rc = op->run(w, ws, e, g_stream);
    (void)rc; /* phase 2 may fail (and consume the executor): nothing must be written then either */
    (void)aclrtSynchronizeStream(g_stream);
    static uint8_t after[POOL_BYTES];
    if (aclrtMemcpy(after, POOL_BYTES, g_pool, POOL_BYTES, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
        abort();
    for (int64_t b = 0; b < POOL_BYTES; b++) {
        if (after[b] == g_before[b])
            continue;
        bool in_out = false;
        for (size_t i = 0; i < ns && !in_out; i++)
            in_out = out[i] && b >= lo[i] && b < hi[i];
        if (!in_out) {
            fprintf(stderr, "%s: phase 2 wrote pool byte %lld, outside every output view\n", op->name,
                    (long long)b);
            abort();
        }
    }
    if (w)
        aclrtFree(w);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("CANNON_CPU_THREADS", "2", 0);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&g_stream) != ACL_SUCCESS)
        abort();
    if (aclrtMalloc((void **)&g_pool, POOL_BYTES, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        abort();
    uint8_t fill[POOL_BYTES];
    for (size_t i = 0; i < sizeof fill; i++)
        fill[i] = (uint8_t)(i * 131u + 7u);
    aclrtMemcpy(g_pool, POOL_BYTES, fill, sizeof fill, ACL_MEMCPY_HOST_TO_DEVICE);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_ctx c;
    memset(&c, 0, sizeof c);
    c.in.p = data;
    c.in.n = size;
    const size_t nops = sizeof g_fz_ops / sizeof g_fz_ops[0];
    const fz_op *op = &g_fz_ops[(fz_u8(&c.in) | (size_t)fz_u8(&c.in) << 8) % nops];
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    const aclnnStatus rc = op->call(&c, &ws, &e);
    if (rc != ACLNN_SUCCESS) {
        if (e) {
            fprintf(stderr, "%s: phase 1 failed with %d but returned an executor\n", op->name, (int)rc);
            abort();
        }
    } else {
        if (!e) {
            fprintf(stderr, "%s: phase 1 succeeded without an executor\n", op->name);
            abort();
        }
        if (fz_u8(&c.in) & 1)
            phase2(op, e, ws);
        else
            aclDestroyAclOpExecutor(e);
    }
    for (int i = 0; i < c.nt; i++)
        aclDestroyTensor(c.tensors[i]);
    for (int i = 0; i < c.ns; i++)
        aclDestroyScalar(c.scalars[i]);
    for (int i = 0; i < c.no; i++)
        c.other_free[i](c.others[i]);
    return 0;
}
