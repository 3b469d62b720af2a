/*
 * One tier's norm kernels. The including file includes its ../kernels/vec_<tier>.h, defines
 * NM_SUFFIX (scalar, avx2 or avx512) and includes this file, which instantiates the bodies in
 * norm_body.h for fp32, fp16 and bf16 data and defines the exported per-tier entries.
 */
#include <math.h>

#include "fp_convert.h"
#include "norm_kernels.h"
#include "norm_vec.h"

/* Rows ahead that the channels-last reduction prefetches (see red_rows). */
#define NB_PF_ROWS 4

#define NM_CAT2(a, b) a##_##b
#define NM_CAT(a, b) NM_CAT2(a, b)

/* Coefficients are fp32 arrays whatever the data dtype. */
VI vf co_load(const float *p, size_t n) { return n == VW ? vf_load_f32(p) : vf_loadn_f32(p, n, 0.0f); }

#define NT f32
#define NCT float
#include "norm_body.h"
#undef NT
#undef NCT

#define NT f16
#define NCT uint16_t
#include "norm_body.h"
#undef NT
#undef NCT

#define NT bf16
#define NCT uint16_t
#include "norm_body.h"
#undef NT
#undef NCT

#define NM_ENTRY(name) NM_CAT(NM_CAT(cannon_norm, name), NM_SUFFIX)

void NM_ENTRY(bn_reduce)(const nb_args *a, int64_t u0, int64_t u1)
{
    if (a->I > 1) {
        /* Units p*C + c: the block's units of each O-range p in plane order (see red_plane). */
        for (int64_t u = u0; u < u1;) {
            const int64_t p = u / a->C, c0 = u % a->C;
            const int64_t c1 = u1 - u < a->C - c0 ? c0 + (u1 - u) : a->C;
            switch (a->dtype) {
            case NM_F32:
                red_plane_f32(a, p, c0, c1);
                break;
            case NM_F16:
                red_plane_f16(a, p, c0, c1);
                break;
            default:
                red_plane_bf16(a, p, c0, c1);
                break;
            }
            u += c1 - c0;
        }
        return;
    }
    for (int64_t u = u0; u < u1; u++) {
        switch (a->dtype) {
        case NM_F32:
            red_rows_f32(a, u);
            break;
        case NM_F16:
            red_rows_f16(a, u);
            break;
        default:
            red_rows_bf16(a, u);
            break;
        }
    }
}

void NM_ENTRY(bn_apply)(const nb_args *a, int64_t u0, int64_t u1)
{
    for (int64_t u = u0; u < u1; u++) {
        switch (a->dtype) {
        case NM_F32:
            if (a->I > 1) app_runs_f32(a, u); else app_rows_f32(a, u);
            break;
        case NM_F16:
            if (a->I > 1) app_runs_f16(a, u); else app_rows_f16(a, u);
            break;
        default:
            if (a->I > 1) app_runs_bf16(a, u); else app_rows_bf16(a, u);
            break;
        }
    }
    if (a->nt)
        vf_sfence(); /* streaming stores are globally visible before the block reports done */
}

void NM_ENTRY(bn_red_chan)(const nb_args *a, int64_t c0, int64_t c1)
{
    const int64_t P = (a->O + a->span - 1) / a->span;
    for (int64_t c = c0; c < c1; c++) {
        for (int64_t p = 0; p < P; p++) {
            switch (a->dtype) {
            case NM_F32:
                red_runs_f32(a, p * a->C + c);
                break;
            case NM_F16:
                red_runs_f16(a, p * a->C + c);
                break;
            default:
                red_runs_bf16(a, p * a->C + c);
                break;
            }
        }
    }
}

void NM_ENTRY(bn_app_chan)(const nb_args *a, int64_t c0, int64_t c1)
{
    for (int64_t c = c0; c < c1; c++) {
        switch (a->dtype) {
        case NM_F32:
            app_chan_f32(a, c);
            break;
        case NM_F16:
            app_chan_f16(a, c);
            break;
        default:
            app_chan_bf16(a, c);
            break;
        }
    }
    if (a->nt)
        vf_sfence();
}

void NM_ENTRY(bn_pipe_grp)(const nb_args *r, const nb_args *a, int64_t g0, int64_t g1, int64_t p0, int64_t p1,
                           int64_t n0, int64_t n1, int64_t pf_rows)
{
    switch (r->dtype) {
    case NM_F32:
        pipe_grp_f32(r, a, g0, g1, p0, p1, n0, n1, pf_rows);
        break;
    case NM_F16:
        pipe_grp_f16(r, a, g0, g1, p0, p1, n0, n1, pf_rows);
        break;
    default:
        pipe_grp_bf16(r, a, g0, g1, p0, p1, n0, n1, pf_rows);
        break;
    }
    if (p0 >= 0)
        vf_sfence();
}

void NM_ENTRY(bn_pipe_chan)(const nb_args *r, const nb_args *a, int64_t cr, int64_t ca, int64_t nxt, int64_t pf_runs)
{
    switch (r->dtype) {
    case NM_F32:
        pipe_chan_f32(r, a, cr, ca, nxt, pf_runs);
        break;
    case NM_F16:
        pipe_chan_f16(r, a, cr, ca, nxt, pf_runs);
        break;
    default:
        pipe_chan_bf16(r, a, cr, ca, nxt, pf_runs);
        break;
    }
    if (ca >= 0 && a->nt)
        vf_sfence();
}

void NM_ENTRY(ln)(const nl_args *a, int64_t u0, int64_t u1)
{
    for (int64_t u = u0; u < u1; u++) {
        switch (a->dtype) {
        case NM_F32:
            ln_unit_f32(a, u);
            break;
        case NM_F16:
            ln_unit_f16(a, u);
            break;
        default:
            ln_unit_bf16(a, u);
            break;
        }
    }
}
