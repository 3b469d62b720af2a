/*
 * fp64 softmax-family kernels, plain C with libm for every tier: double data are rare in this
 * family and are computed in double with the same algorithm (max, then sum of exp, then output),
 * one column at a time (a row when inner == 1).
 */
#include <math.h>

#include "softmax_kernels.h"

static void column(const sm_args *a, const double *x, const double *g, double *o)
{
    const int64_t R = a->R, ld = a->inner;
    switch (a->op) {
    case SM_SOFTMAX:
    case SM_LOG_SOFTMAX: {
        double m = -INFINITY;
        int nan = 0;
        for (int64_t r = 0; r < R; r++) {
            double v = x[r * ld];
            nan |= v != v;
            m = v > m ? v : m;
        }
        if (nan)
            m = NAN;
        /* Beside the sum s, the terms of x == m (each 1) are counted apart, c of them, and the
         * rest t summed alone: log-softmax takes a log s below log 2 as log1p((c - 1) + t), which
         * keeps t's precision (outputs near 0), where log of a rounded s would not. */
        double s = 0.0, t = 0.0, c = 0.0;
        for (int64_t r = 0; r < R; r++) {
            const double v = x[r * ld], e = exp(v - m);
            s += e;
            if (v == m)
                c += 1.0;
            else
                t += e;
        }
        if (a->op == SM_SOFTMAX) {
            double inv = 1.0 / s;
            for (int64_t r = 0; r < R; r++)
                o[r * ld] = exp(x[r * ld] - m) * inv;
        } else {
            const double ls = isfinite(m) && s < 2.0 ? log1p((c - 1.0) + t) : log(s);
            for (int64_t r = 0; r < R; r++)
                o[r * ld] = (x[r * ld] - m) - ls;
        }
        break;
    }
    case SM_SOFTMAX_BWD: {
        double s = 0.0;
        for (int64_t r = 0; r < R; r++)
            s += g[r * ld] * x[r * ld];
        for (int64_t r = 0; r < R; r++)
            o[r * ld] = x[r * ld] * (g[r * ld] - s);
        break;
    }
    default: {
        double s = 0.0;
        for (int64_t r = 0; r < R; r++)
            s += g[r * ld];
        for (int64_t r = 0; r < R; r++)
            o[r * ld] = g[r * ld] - exp(x[r * ld]) * s;
        break;
    }
    }
}

void cannon_softmax_units_f64(const sm_args *a, int64_t u0, int64_t u1)
{
    const double *x = (const double *)a->x, *g = (const double *)a->g;
    double *o = (double *)a->out;
    const int64_t R = a->R;
    if (a->inner == 1) {
        for (int64_t u = u0; u < u1; u++)
            column(a, x + u * R, g ? g + u * R : NULL, o + u * R);
        return;
    }
    const int64_t tiles = (a->inner + SM_TILE_COLS - 1) / SM_TILE_COLS;
    for (int64_t u = u0; u < u1; u++) {
        const int64_t ob = u / tiles, c0 = (u % tiles) * SM_TILE_COLS;
        const int64_t nc = a->inner - c0 < SM_TILE_COLS ? a->inner - c0 : SM_TILE_COLS;
        for (int64_t c = c0; c < c0 + nc; c++) {
            const int64_t off = ob * R * a->inner + c;
            column(a, x + off, g ? g + off : NULL, o + off);
        }
    }
}
