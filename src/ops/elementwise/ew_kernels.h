/*
 * Elementwise kernels shared by the arithmetic operators (Add, Sub, Mul, Div and their scalar and
 * in-place forms), aclnnCast and the activations (Relu, Gelu, Silu and their backward forms).
 *
 * Every operator is planned as one kernel over up to three operands (the output and one or two
 * inputs) whose shapes have already been broadcast: a broadcast input simply has stride 0 along
 * the broadcast dims. Phase 1 (ew_plan.c) coalesces the dims into as few as possible (ew_layout);
 * the kernel walks the output in row-major order, a fixed chunk of elements per block, and hands
 * each contiguous run of the innermost dim to one of:
 *   - the vector loop of its tier (ew_impl.h), when the output and the first input share one of
 *     fp32 / fp16 / bf16, the output run is contiguous and every input run is contiguous or a
 *     single repeated value (stride 0): this covers same-dtype arithmetic with any broadcast;
 *   - the generic path otherwise: the run is converted, a few hundred elements at a time, to the
 *     compute type (fp32, fp64, int64 or bool) in stack buffers, computed, and converted to the
 *     output dtype, so any dtype combination and any stride works.
 * Every element's value depends only on its inputs and the operator, never on the block split or
 * the worker count.
 */
#ifndef CANNON_OPS_ELEMENTWISE_EW_KERNELS_H_
#define CANNON_OPS_ELEMENTWISE_EW_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

#include "aclnn/aclnn_base.h"
#include "cannon/opdev.h"

/* Operators. a = first input, b = second input (or the scalar operand). */
enum ew_op {
    EW_COPY = 0,      /* out = a (Cast) */
    EW_ADD,           /* out = a + alpha * b (Sub passes -alpha) */
    EW_MUL,           /* out = a * b */
    EW_DIV,           /* out = a / b */
    EW_RELU,          /* out = max(a, 0), NaN kept */
    EW_THRESH_BWD,    /* out = b <= thr ? 0 : a  (a = gradOutput, b = self) */
    EW_GELU_TANH,     /* out = 0.5 a (1 + tanh(sqrt(2/pi) (a + 0.044715 a^3))) */
    EW_GELU_ERF,      /* out = a * Phi(a) */
    EW_GELU_BWD,      /* out = a * d/dx gelu_tanh(b) */
    EW_SILU,          /* out = a * sigmoid(a) */
    EW_SILU_BWD,      /* out = a * d/dx silu(b) */
    EW_NEG,           /* out = -a (the sign bit flipped) */
    EW_ABS,           /* out = |a| (the sign bit cleared; integers wrap: |INT_MIN| = INT_MIN) */
    EW_SIGN,          /* out = (a > 0) - (a < 0): 0 for +-0 and NaN */
    EW_EXP,           /* out = exp(a) */
    EW_LOG,           /* out = log(a) */
    EW_SQRT,          /* out = sqrt(a) */
    EW_SIN,           /* out = sin(a) */
    EW_COS,           /* out = cos(a) */
    EW_TANH,          /* out = tanh(a) */
    EW_SIGMOID,       /* out = 1 / (1 + exp(-a)) */
    EW_SOFTPLUS,      /* out = beta a > thr ? a : log(1 + exp(beta a)) / beta  (f[0] beta, f[1] thr) */
    EW_ELU,           /* out = a > 0 ? scale a : alpha scale expm1(inputScale a)
                         (f[0] alpha scale, f[1] scale, f[2] inputScale) */
    EW_LEAKY_RELU,    /* out = a > 0 ? a : slope a  (f[0] slope) */
    EW_HARDSIGMOID,   /* out = min(max(a + 3, 0), 6) / 6; integers: a >= 3 */
    EW_HARDSWISH,     /* out = a >= 3 ? a : a min(max(a + 3, 0), 6) / 6 */
    EW_GT,            /* out = a > b (1 or 0) */
    EW_EQ,            /* out = a == b (1 or 0) */
    EW_CLAMP,         /* out = min(max(a, lo), hi)  (f[0]/d[0]/i[0] lo, f[1]/d[1]/i[1] hi; NaN a stays NaN) */
    EW_THRESHOLD,     /* out = a <= thr ? value : a  (f[0] thr, f[1] value; NaN a stays NaN) */
    EW_FILL,          /* out = the value in f[0] / d[0] / i[0] (a is not read) */
    EW_POW,           /* out = a ** b */
    EW_RPOW,          /* out = b ** a (PowScalarTensor: b the scalar base) */
    EW_OP_COUNT
};

/* How the computation is carried out (the promoted type's family). EW_MODE_RAW moves bytes:
 * EW_COPY between views of one dtype (any dtype with a byte size) and EW_FILL with the value's
 * bytes in sval. */
enum ew_mode { EW_MODE_F32 = 0, EW_MODE_F64 = 1, EW_MODE_I64 = 2, EW_MODE_BOOL = 3, EW_MODE_RAW = 4 };

/* Storage type of the vector loops: the output's and the inputs' (fp32 / fp16 / bf16), or for the
 * comparisons EW_GT and EW_EQ an fp32 / fp16 / bf16 input with a BOOL output (EW_V*_U8). */
enum ew_vdt { EW_VF32 = 0, EW_VF16 = 1, EW_VBF16 = 2, EW_VF32_U8 = 3, EW_VF16_U8 = 4, EW_VBF16_U8 = 5 };

#define EW_MAX_DIMS 8

/* Operator parameters in the compute type. */
typedef struct ew_params {
    float alpha, thr;   /* EW_MODE_F32 */
    double alpha_d, thr_d;
    int64_t alpha_i, thr_i;
    float f[3];         /* the operators' further parameters (see enum ew_op), in each mode's type */
    double d[3];
    int64_t i[3];
} ew_params;

typedef struct ew_args {
    void *p[3];                    /* out, in0, in1 (bound at phase 2; in1 NULL: see sval) */
    int64_t nd;                    /* coalesced rank (>= 1) */
    int64_t shape[EW_MAX_DIMS];
    int64_t stride[3][EW_MAX_DIMS]; /* bytes; 0 along broadcast dims */
    int64_t numel, chunk;          /* elements, elements per block */
    int32_t op, mode, nin;
    int32_t dt[3];                 /* aclDataType of out, in0, in1 */
    int32_t isa, nt;
    int32_t scalar_b;              /* in1 is the value in sval (dtype dt[2]) */
    int32_t ct;                    /* the promoted (compute) dtype: results are rounded to it */
    int32_t bcast_out;             /* plan only: the inputs broadcast to out's shape (InplaceCopy) */
    ew_params prm;
    unsigned char sval[16];
} ew_args;

/*
 * A vector loop over n elements: o[i] = op(a[i], b[i]). amode/bmode: 1 = contiguous array of the
 * storage type, 0 = the value as/bs repeated. nt: write o with non-temporal stores (o must be
 * element-aligned; the loop aligns itself). Unary ops ignore b.
 */
typedef void (*ew_vec_fn)(int op, int vdt, void *o, const void *a, int amode, float as, const void *b,
                          int bmode, float bs, int64_t n, const ew_params *prm, int nt);
void cannon_ew_vec_scalar(int op, int vdt, void *o, const void *a, int amode, float as, const void *b,
                          int bmode, float bs, int64_t n, const ew_params *prm, int nt);
void cannon_ew_vec_avx2(int op, int vdt, void *o, const void *a, int amode, float as, const void *b,
                        int bmode, float bs, int64_t n, const ew_params *prm, int nt);
void cannon_ew_vec_avx512(int op, int vdt, void *o, const void *a, int amode, float as, const void *b,
                          int bmode, float bs, int64_t n, const ew_params *prm, int nt);
/* The vector loop of an ISA tier (CANNON_ISA_*) this build has; the scalar one otherwise. */
ew_vec_fn cannon_ew_vec_for(int isa);

/* fp64 reference math (the EW_MODE_F64 path and the tests' notion of the exact function). */
double cannon_ew_apply_f64(int op, double a, double b, const ew_params *prm);

/* The mode computing in type t (the families of enum ew_mode). */
int cannon_ew_mode_of(aclDataType t);
/* The storage type of a mode's values (a scalar operand in the compute family): FLOAT, DOUBLE,
 * INT64 or BOOL. */
aclDataType cannon_ew_mode_dtype(int mode);
/* The mode of a conversion from @p from to @p to (Cast, InplaceCopy): the narrowest family that
 * converts exactly: fp32 between the 16/32-bit floats, int64 among integers and bools, fp64 for
 * everything else (rounding to 16-bit floats from fp64 goes through round-to-odd, so it is still
 * one correct rounding). */
int cannon_ew_convert_mode(aclDataType from, aclDataType to);

/* ---- planning (ew_plan.c) ---- */
/*
 * Shared phase 1 tail: @p tmpl has op, mode, ct, prm, scalar_b/sval/dt[2] set, and the caller
 * checked every tensor (cannonOpTensor). Checks that in0 and in1 (NULL for unary or scalar ops)
 * broadcast to out's shape, builds the layout, registers the slots (inputs in0, in1; output out)
 * and records the kernel. @p out_name / @p in_names name the arguments in messages. Returns
 * whether @p op is still sound; the caller ends with cannonOpFinish.
 */
bool cannon_ew_plan(cannon_op *op, ew_args *tmpl, const aclTensor *out, const aclTensor *in0, const aclTensor *in1,
                    const char *out_name, const char *in0_name, const char *in1_name);

/*
 * Phase 1 of the manifest's generic elementwise kinds (ew_generic.c generates the entry points):
 *   EW_UNARY(code, in, out)         out = f(in): in of the operator's dtypes, computed in its own
 *                                   floating type (FLOAT for an integral one), out one of the
 *                                   operator's floating dtypes that result casts to;
 *   EW_UNARY_SAME(code, in, out)    the same computed in in's own dtype, out of in's dtype (out may
 *                                   be in: the in-place forms);
 *   EW_BINARY_BWD(code, grad, x, out) out = grad * f'(x): floating grad and x broadcast, computed
 *                                   in their promoted type, out any dtype that casts from it
 *                                   (EW_GELU_BWD: grad and x of any real dtype whose promoted
 *                                   type is one of the operator's, as CANN checks GeluBackward).
 */
aclnnStatus cannon_ew_unary(const char *api, int code, int same, cannon_dtype_set dtypes, const aclTensor *in,
                            const char *in_name, const aclTensor *out, const char *out_name, uint64_t *workspaceSize,
                            aclOpExecutor **executor);
/*
 *   EW_UNARY_PARAM(code, in, out, s...) out = f(in; s...): a floating function with aclScalar
 *                                   parameters (1 to EW_PARAM_MAX, each of a real dtype, never
 *                                   NULL), passed in prm.f / prm.d in their order; in of the
 *                                   operator's dtypes, computed in its floating type, out one of
 *                                   the operator's floating dtypes that result casts to.
 */
#define EW_PARAM_MAX 3
aclnnStatus cannon_ew_unary_param(const char *api, int code, cannon_dtype_set dtypes, const aclTensor *in,
                                  const char *in_name, const aclTensor *out, const char *out_name,
                                  const aclScalar *const *scalars, size_t nscalars, const char *scalar_names,
                                  uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus cannon_ew_binary_bwd(const char *api, int code, cannon_dtype_set dtypes, const aclTensor *grad,
                                 const char *grad_name, const aclTensor *x, const char *x_name, const aclTensor *out,
                                 const char *out_name, uint64_t *workspaceSize, aclOpExecutor **executor);

/*
 * The value of scalar @p s converted to dtype @p t as a cast would: rounded to a floating t,
 * truncated and wrapped to an integral t, 0 or 1 for BOOL; as double (@p d) and int64 (@p i).
 * With @p check_range, false when an integral t cannot hold the value (the operators that
 * compare against or clamp to it reject that).
 */
bool cannon_ew_scalar_to(aclDataType t, const aclScalar *s, bool check_range, double *d, int64_t *i);

/* Store @p v converted to dtype @p t into @p dst (for scalar operands). */
void cannon_ew_store_scalar(aclDataType t, int mode, double vd, int64_t vi, unsigned char *dst);

#endif /* CANNON_OPS_ELEMENTWISE_EW_KERNELS_H_ */
