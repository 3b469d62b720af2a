/*
 * Short rows (R <= SM_GROUP_R_MAX), several at a time: included by softmax_body.h once per type,
 * with its FN/LD/ST macros and the row helpers above the include point.
 */
/* A group of g short rows (n <= SM_GROUP_R_MAX) at once, one phase after the other: the max
 * and min of every row, then every row's sum, then the scalars (1/s or log s) of all rows, then
 * the outputs. A short row's cost is dominated by its chain of dependent steps (horizontal
 * reductions, the exp pass, division or log, write); with the rows of a phase independent, one
 * row's latency hides behind the others' work, and the logs are computed as one vector. Each row
 * gets exactly FN(fwd_row)'s arithmetic, so grouping changes no bit of the result. */
static void FN(fwd_group)(const SM_CT *x, SM_CT *y, int64_t g, int64_t n, int lg, int nt, float *scratch)
{
    float m[SM_GROUP_ROWS], sc[SM_GROUP_ROWS + VW];
    double s[SM_GROUP_ROWS];
    int fast[SM_GROUP_ROWS];
    for (int64_t r = 0; r < g; r++)
        fast[r] = FN(fast_test)(x + r * n, n, &m[r]);
    /* Rows off the fast path (rare) are done first and alone: FN(fwd_row) uses the scratch. */
    for (int64_t r = 0; r < g; r++)
        if (!fast[r])
            FN(fwd_row)(x + r * n, y + r * n, n, lg, nt, scratch, NULL);
    for (int64_t r = 0; r < g; r++)
        s[r] = fast[r] ? FN(row_sumexp_fast)(x + r * n, n, m[r], lg ? NULL : scratch + r * n, NULL, !nt) : 2.0;
    if (lg) {
        for (int64_t r = 0; r < g; r++)
            if (s[r] < SM_FAST_LOG_RESUM)
                s[r] = FN(row_sumexp)(x + r * n, n, m[r], NULL);
        sm_log_sums(s, sc, g);
        for (int64_t r = 0; r < g; r++)
            if (fast[r])
                FN(write_log)(x + r * n, y + r * n, n, nt, m[r], sc[r]);
    } else {
        sm_inv_sums(s, sc, g);
        for (int64_t r = 0; r < g; r++)
            if (fast[r])
                FN(write_soft)(y + r * n, n, nt, scratch + r * n, sc[r], !nt);
    }
}
