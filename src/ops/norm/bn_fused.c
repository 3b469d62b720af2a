/*
 * Batch norm's fused per-channel kernel (see bn_plan.h) and when a plan takes it.
 */
#include <string.h>

#include "../kernels/isa.h"
#include "bn_plan.h"

/* Training BatchNorm and BatchNormBackward on channel-first data whose channel slice (N*H*W
 * elements of x, and of dy in the backward) fits in L2: each block takes a few consecutive
 * channels and computes each channel's partial sums, its per-channel arithmetic and its
 * elementwise pass, so the second read of the slice hits the cache instead of memory. The
 * forward then moves x once and y once, the backward x and dy once and dx once. The blocks
 * pipeline their channels (fz_pipe_block: the sums of channel c in the same loop as channel
 * c - 1's output) or, for one case, go channel by channel (fz_serial_block; see bn_add_fused). The
 * partials are the same O-ranges summed in the same order as the three-kernel path's, so every
 * path gives the same bits. */
#define FZ_SLICE_MAX ((int64_t)2 << 20)
#define FZ_PF_BUDGET ((int64_t)768 << 10) /* of a 1 MiB L2: what a slice and the prefetched runs may take */
#define FZ_PF_AHEAD ((int64_t)4 << 10)    /* bytes of each input the pipelined sums read ahead */
#define FZ_BLOCKS 16                     /* pipelined blocks of consecutive channels (fewer: see bn_add_fused) */

typedef struct fz_args {
    nb_args red, app;
    ch_args ch;
    int64_t units, upb;
    int32_t pre_op, fin_op; /* pre_op < 0: none */
    int32_t use_app;
    int32_t pipe; /* 1: the pipelined loop (fz_pipe_block), 0: channel by channel (fz_serial_block) */
    int64_t grp;  /* > 0: groups of grp channels (fz_grp_block) */
} fz_args;

/* The tier's pipeline step (see cannon_norm_bn_pipe_chan_*). */
static void fz_pipe(const nb_args *r, const nb_args *a, int64_t cr, int64_t ca, int64_t nxt, int64_t pf_runs)
{
    switch (r->isa) {
#if defined(CANNON_OPS_HAVE_AVX512)
    case CANNON_ISA_AVX512:
        cannon_norm_bn_pipe_chan_avx512(r, a, cr, ca, nxt, pf_runs);
        break;
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
    case CANNON_ISA_AVX2:
        cannon_norm_bn_pipe_chan_avx2(r, a, cr, ca, nxt, pf_runs);
        break;
#endif
    default:
        cannon_norm_bn_pipe_chan_scalar(r, a, cr, ca, nxt, pf_runs);
        break;
    }
}

/* Channels [c0, c1) one after the other: the sums from L2, then the elementwise pass, each
 * prefetching the channel this worker most likely does next: the block's next channel, else
 * the first of the block W blocks on, as the W workers claim blocks in turn (a wrong guess costs
 * bandwidth, never a result). */
static void fz_serial_block(const fz_args *f, int64_t c0, int64_t c1, int64_t W)
{
    nb_args red = f->red, app = f->app;
    for (int64_t c = c0; c < c1; c++) {
        const int64_t nxt = c + 1 < c1 ? c + 1 : c1 + (W - 1) * f->upb;
        red.pf_step = app.pf_step = nxt < f->units ? (int32_t)(nxt - c) : 0;
        if (f->pre_op >= 0)
            bn_ch_one(&f->ch, f->pre_op, c);
        nm_bn_red_chan(&red, c, c + 1);
        bn_ch_one(&f->ch, f->fin_op, c);
        if (f->use_app)
            nm_bn_app_chan(&app, c, c + 1);
    }
}

/* Channels [c0, c1) as a software pipeline: step c sums channel c while it writes channel
 * c - 1's output, whose slice the previous step left in the cache; the per-channel arithmetic
 * of c runs between the steps. */
static void fz_pipe_block(const fz_args *f, int64_t c0, int64_t c1)
{
    const nb_args *r = &f->red, *a = &f->app;
    /* Runs of the channel being summed that its software prefetches run ahead: about
     * FZ_PF_AHEAD bytes of each input. */
    const int64_t run_bytes = r->I * (int64_t)nm_esize(r->dtype);
    const int64_t pf_runs = (FZ_PF_AHEAD + run_bytes - 1) / run_bytes;
    for (int64_t c = c0; c <= c1; c++) {
        const int64_t cr = c < c1 ? c : -1, ca = f->use_app && c > c0 ? c - 1 : -1;
        if (cr >= 0 && f->pre_op >= 0)
            bn_ch_one(&f->ch, f->pre_op, cr);
        if (cr >= 0 || ca >= 0)
            fz_pipe(r, a, cr, ca, c + 1 < c1 ? c + 1 : -1, pf_runs);
        if (cr >= 0)
            bn_ch_one(&f->ch, f->fin_op, cr);
    }
}

/* Channels [c0, c1) in groups of f->grp channels, as a software pipeline like fz_pipe_block's
 * with a group in place of a channel: step s sums group s while it writes group s - 1's output
 * row by row, each row of a group one segment of whole cache lines, streamed. The sums read about
 * FZ_PF_AHEAD bytes ahead, past the last row into the next group's first rows: the block's next
 * group, else the first of the block W blocks on, as the W workers claim blocks in turn (a wrong
 * guess costs bandwidth, never a result). */
static void fz_grp_block(const fz_args *f, int64_t c0, int64_t c1, int64_t W)
{
    const int64_t K = f->grp;
    const int64_t ng = (c1 - c0 + K - 1) / K;
    const int64_t row_bytes = K * f->red.I * (int64_t)nm_esize(f->red.dtype);
    const int64_t pf_rows = (FZ_PF_AHEAD + row_bytes - 1) / row_bytes;
    for (int64_t s = 0; s <= ng; s++) {
        const int64_t g0 = s < ng ? c0 + s * K : -1, g1 = g0 < 0 ? -1 : (c1 - g0 < K ? c1 : g0 + K);
        const int64_t p0 = s > 0 && f->use_app ? c0 + (s - 1) * K : -1;
        const int64_t p1 = p0 < 0 ? -1 : (c1 - p0 < K ? c1 : p0 + K);
        int64_t n0 = -1, n1 = -1;
        if (g0 >= 0) {
            n0 = g1 < c1 ? g1 : c1 + (W - 1) * f->upb;
            if (n0 >= f->units)
                n0 = -1;
            else
                n1 = g1 < c1 ? (c1 - g1 < K ? c1 : g1 + K) : (f->units - n0 < K ? f->units : n0 + K);
        }
        if (g0 >= 0 && f->pre_op >= 0)
            for (int64_t c = g0; c < g1; c++)
                bn_ch_one(&f->ch, f->pre_op, c);
        nm_bn_pipe_grp(&f->red, &f->app, g0, g1, p0, p1, n0, n1, pf_rows);
        if (g0 >= 0)
            for (int64_t c = g0; c < g1; c++)
                bn_ch_one(&f->ch, f->fin_op, c);
    }
}

static int fz_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const fz_args *f = (const fz_args *)args;
    const int64_t c0 = (int64_t)ctx->block_idx * f->upb;
    if (c0 >= f->units)
        return 0;
    const int64_t c1 = f->units - c0 < f->upb ? f->units : c0 + f->upb;
    if (f->grp > 0)
        fz_grp_block(f, c0, c1, ctx->num_workers > 0 ? (int64_t)ctx->num_workers : 1);
    else if (f->pipe)
        fz_pipe_block(f, c0, c1);
    else
        fz_serial_block(f, c0, c1, ctx->num_workers > 0 ? (int64_t)ctx->num_workers : 1);
    return 0;
}

/* Whether the fused kernel applies: channel-first data whose slice fits the budget, and enough
 * channels to share among workers (or so little data that it does not matter). */
int bn_fused_ok(const bn_plan *pl, int with_g)
{
    const int64_t es = pl->es;
    const int64_t slice = pl->N * es * (with_g ? 2 : 1);
    return pl->I > 1 && slice <= FZ_SLICE_MAX && (pl->C >= 8 || pl->N * pl->C * es <= ((int64_t)1 << 20));
}

/* Whether the kernels run at AVX-512 width. The choices below that depend on it (fused_nt,
 * add_fused's f.pipe, bn_bwd_split, bn_fwd_split) differ by tier: at AVX2 width, for runs that do not
 * fill whole cache lines (bwd_serial's shapes, runs of BN_SPLIT_SHORT_RUN or more), the fused
 * kernel's pipelined loop with streaming stores is the fastest at 1 and 2 threads, forward and
 * backward. Every path gives the same bits. */
static int isa_wide(void)
{
    return cannon_isa_select() == CANNON_ISA_AVX512;
}

/* Whether the fused kernel writes its output with streaming stores: outputs of NM_NT_BYTES or
 * more, except on one worker where the runs do not fill whole cache lines ((I * es) % 64 != 0,
 * e.g. the 784-byte runs of [64,256,14,14] fp32). There each run's first and last lines are
 * shared with its neighbours and written by plain stores, the rest streamed; plain stores
 * throughout (and with them the pipelined backward, see bwd_serial) are never slower there, and
 * faster when memory is slow. Where runs are whole lines plain stores are slower, so those keep
 * streaming. On two or more workers such shapes go through the three kernels (bn_bwd_split,
 * bn_fwd_split), by worker share. */
static int fused_nt(const bn_plan *pl)
{
    const int64_t es = pl->es;
    if (pl->N * pl->C * es < NM_NT_BYTES)
        return 0;
    return (pl->I * es) % 64 == 0 || cannonGetWorkerCount() >= 2 || !isa_wide();
}

/* Whether the fused kernel's backward would go channel by channel (fz_serial_block) rather
 * than pipelined: runs that start and end inside cache lines, with the output streamed. There
 * the pipelined loop is slower than channel by channel (the cause is not established), where
 * elsewhere it is faster. */
static int bwd_serial(const bn_plan *pl, int use_x, int use_g)
{
    const int64_t es = pl->es;
    return use_g && use_x && pl->N * pl->C * es >= NM_NT_BYTES && (pl->I * es) % 64 != 0;
}

/* Whether a training-shaped backward that the fused kernel could take goes through the three
 * kernels instead (the same bits either way): when a channel's slice of x and dy is larger than
 * the pipeline's L2 budget, so that the two slices it holds spill out of L2, its runs are short,
 * so that reading a channel run by run keeps restarting the hardware prefetchers, and x and dy
 * together exceed what L3 could keep. Then reading x and dy twice in address order (red_plane,
 * then the elementwise pass) is faster than once channel by channel (e.g. [32,64,56,56] fp32).
 * Smaller slices and long runs stay fused, where the fused kernel is faster.
 * Also taken where the fused kernel would go channel by channel (bwd_serial) and there are
 * several workers at AVX-512 width, or the runs are shorter than BN_SPLIT_SHORT_RUN: since the
 * three-kernel path's passes go by worker share (whole O-ranges, at least BN_MIN_RANGES of them),
 * each core re-reads the x and dy it summed from its own last-level cache, while the
 * channel-by-channel loop reads many short runs a channel apart. On one worker with runs of
 * BN_SPLIT_SHORT_RUN or more the fused kernel stays faster.
 * The worker count is the current device's at phase 1; a function of the shape and the device. */
#define BN_SPLIT_RUN_MAX ((int64_t)32 << 10)
#define BN_SPLIT_DATA_MIN ((int64_t)16 << 20)
#define BN_SPLIT_SHORT_RUN ((int64_t)512)
int bn_bwd_split(const bn_plan *pl, int training)
{
    const int64_t es = pl->es;
    if (pl->N * es * 2 > FZ_PF_BUDGET && pl->I * es < BN_SPLIT_RUN_MAX && pl->N * pl->C * es * 2 > BN_SPLIT_DATA_MIN)
        return 1;
    return bwd_serial(pl, training, 1) &&
           (pl->I * es < BN_SPLIT_SHORT_RUN || (cannonGetWorkerCount() >= 2 && isa_wide()));
}

/* Whether a training forward that the fused kernel could take goes through the three kernels
 * instead: on 2 or more workers, where the backward of the same shape does (bn_bwd_split). Its
 * passes then go by worker share like the backward's, so each core finds the x it will sum in
 * the backward in its own cache rather than the other core's (the fused kernel hands out
 * channel blocks first come, first served). On one worker the fused forward stays faster. The
 * same bits either way. */
int bn_fwd_split(const bn_plan *pl)
{
    return cannonGetWorkerCount() >= 2 && bn_bwd_split(pl, 1);
}

/* Channels per group of the fused kernel's grouped pipeline (fz_grp_block), 0: not taken. Taken
 * for the fp32 training forward and the training backward (dx wanted) at AVX-512 width (a vector
 * is a whole cache line) where a run of I elements does not fill whole lines but 2 or 4 runs
 * do, the output is streamed (NM_NT_BYTES or more) and two groups' slices (of x, and of dy in
 * the backward) fit the L2 budget: then every row of a group is one segment of whole lines, so
 * the whole output streams, where the channel-by-channel loops write each run's first and last
 * lines through the cache (on one worker, every line: fused_nt). Where two groups of the
 * backward exceed the budget, group sizes whose rows end inside lines, runs of 7x7 fp32, the
 * AVX2 tier and 16-bit data (whose vectors are half a line) gain nothing or lose, so those keep
 * the channel loop. At 2 or more workers these shapes go through the three kernels (fwd_split,
 * bwd_split). The same bits on every path. */
static int64_t fused_groups(const bn_plan *pl, int fin_op, int use_x, int use_g)
{
    const int64_t es = pl->es, run = pl->I * es;
    const int fwd = fin_op == CH_BN_FIN && use_x && !use_g, bwd = fin_op == CH_BWD_FIN && use_x && use_g;
    if (!(fwd || bwd) || es != 4 || !isa_wide() || pl->N * pl->C * es < NM_NT_BYTES || run < 128 ||
        run % 64 == 0)
        return 0;
    const int64_t k = run % 32 == 0 ? 2 : run % 16 == 0 ? 4 : 0;
    return k > 0 && 2 * k * pl->N * es * (bwd ? 2 : 1) <= FZ_PF_BUDGET ? k : 0;
}

void bn_add_fused(bn_plan *pl, ch_args *ca, const chan_set *cs, int mode, int pre_op, int fin_op, int use_app,
                  int use_x, int use_g)
{
    fz_args f;
    memset(&f, 0, sizeof f);
    const int64_t es = pl->es;
    nb_args *r = &f.red, *a = &f.app;
    r->O = a->O = pl->O;
    r->C = a->C = pl->C;
    r->I = a->I = pl->I;
    r->dtype = a->dtype = pl->dtype;
    r->isa = a->isa = (int32_t)cannon_isa_select();
    r->mode = mode;
    r->span = pl->red_span;
    a->use_x = use_x;
    a->use_g = use_g;
    a->nt = fused_nt(pl);
    /* The pipelined loop, except where bwd_serial says channel by channel (with this kernel's
     * own choice of streaming stores). */
    f.pipe = !(bwd_serial(pl, use_x, use_g) && a->nt && isa_wide());
    if (!f.pipe) {
        /* The reduction prefetches the first runs of the next channel while L2 has room for them
         * next to this channel's slice (at most half of them: the rest stream in during the
         * elementwise pass, which leaves no room until it has consumed part of the slice). */
        const int64_t slice = pl->N * es * (use_g ? 2 : 1);
        int64_t pct = slice < FZ_PF_BUDGET ? (FZ_PF_BUDGET - slice) * 100 / slice : 0;
        if (pct > 50)
            pct = 50;
        r->pf_split = a->pf_split = pl->O * pct / 100;
    }
    f.grp = fused_groups(pl, fin_op, use_app && use_x, use_g);
    if (f.grp > 0)
        f.pipe = 0;
    f.ch = *ca;
    f.pre_op = pre_op;
    f.fin_op = fin_op;
    f.use_app = use_app;
    f.units = pl->C;
    /* A pipelined block takes several channels: FZ_BLOCKS blocks still share out evenly among a
     * few workers, and the steps that cannot overlap (the first channel's sums, the last one's
     * output) are a small part of each. Channel by channel: one block per channel. */
    uint32_t bd;
    if (f.grp > 0) {
        /* Blocks of whole groups, so every group's segments start and end on line boundaries. */
        f.upb = (pl->C + FZ_BLOCKS - 1) / FZ_BLOCKS;
        f.upb = (f.upb + f.grp - 1) / f.grp * f.grp;
        bd = (uint32_t)((pl->C + f.upb - 1) / f.upb);
    } else if (f.pipe) {
        /* At least 2 channels a block, else nothing would overlap. */
        f.upb = (pl->C + FZ_BLOCKS - 1) / FZ_BLOCKS;
        if (f.upb < 2)
            f.upb = 2;
        bd = (uint32_t)((pl->C + f.upb - 1) / f.upb);
    } else {
        nm_blocks(pl->C, pl->N * es * (use_g ? 2 : 1), &f.upb, &bd);
    }
    cannon_arg_ref refs[NV + 16];
    size_t n = bn_chan_fill(pl, &f.ch, cs, fin_op == CH_BN_FIN, 1, refs, offsetof(fz_args, ch));
    refs[n++] = bn_at(pl->rx, offsetof(fz_args, red) + offsetof(nb_args, x));
    if (mode == NB_RED_GRAD) {
        refs[n++] = bn_at(pl->rg, offsetof(fz_args, red) + offsetof(nb_args, g));
        refs[n++] = nm_ws_ref(pl->ws_center, offsetof(fz_args, red) + offsetof(nb_args, center));
    }
    refs[n++] = nm_ws_ref(pl->ws_part, offsetof(fz_args, red) + offsetof(nb_args, part));
    if (use_app) {
        if (use_x)
            refs[n++] = bn_at(pl->rx, offsetof(fz_args, app) + offsetof(nb_args, x));
        if (use_g)
            refs[n++] = bn_at(pl->rg, offsetof(fz_args, app) + offsetof(nb_args, g));
        refs[n++] = bn_at(pl->ro, offsetof(fz_args, app) + offsetof(nb_args, out));
        refs[n++] = nm_ws_ref(pl->ws_co, offsetof(fz_args, app) + offsetof(nb_args, co));
    }
    /* A strided output is scattered after the kernel (cannonOpFinish). */
    cannonOpKernel(pl->op, pl->op->api, fz_kernel, bd, &f, sizeof f, refs, n);
}
