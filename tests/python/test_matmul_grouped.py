"""Golden tests of aclnnGroupedMatmulV3 (the float paths) against a float64 numpy reference.

Reference: y_e = x_e @ w_e + bias_e in float64 from the very values uploaded (x, weight and bias as
stored in their dtypes). cannon multiplies in fp32 (the matmul family's sgemm, K in chunks whose
partial products are added in order), adds the bias in fp32 and rounds y once, so the assertion per
element is |y - ref| <= u |ref| + 2^-16 mag, mag = |x| @ |w| + |bias| (the fp32 accumulation bound
for the K used here), u = 2^-22 for FLOAT, 2^-10 for FLOAT16, 2^-7 for BFLOAT16 (about twice the
rounding of y). Rows of y that no group covers keep their previous contents.

Scenarios (CANN's page): groupType -1 with lists x/weight/y (splitItem 0 and 1, x of 2-D to 6-D,
transposed weights, bias); groupType 0 with a single x and a 3-D weight (SSS), a weight list (SMS)
and an x list (MMS, groupList absent or repeating the bounds); groupType 2 (K split, transposed x).
Tiles (64 x 64) and K chunks (256) are crossed; empty groups; every ISA tier; run-time groupList
errors (507015); argument errors (NULL -> 161001, the rest -> 161002).
"""
import numpy as np
import pytest

import golden

NULL, INVALID, RUNTIME = golden.PARAM_NULLPTR, golden.PARAM_INVALID, golden.ACL_AICORE_EXCEPTION
API = "aclnnGroupedMatmulV3"
U = {"float32": 2.0 ** -22, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
BIAS_DT = {"float32": "float32", "float16": "float16", "bfloat16": "float32"}
FILL = -7.0  # the previous contents of y's storage


def vals(rng, shape, dt):
    """Random values of @shape as stored in @dt: (storage for upload, float64 values)."""
    return golden.quantize(rng.uniform(-1, 1, size=shape), dt)


def up(rng, shape, dt, layout=None):
    """(DeviceArray, float64 values) of random values."""
    s, v = vals(rng, shape, dt)
    return golden.array(s, dt, layout=layout), v


def transposed_w(rng, shape, dt):
    """A weight (.., k, n) stored transposed ((.., n, k) row-major): CANN's transposed weight."""
    return up(rng, shape, dt, layout="transposed")


def check(y, ref, mag, dt):
    got = golden.read_float(y)
    err = np.abs(got - ref)
    tol = U[dt] * np.abs(ref) + 2.0 ** -16 * mag + 1e-30
    bad = err > tol
    assert not bad.any(), "%d bad, worst err %g at %s (ref %g)" % (
        bad.sum(), err.max(), np.unravel_index(np.argmax(err - tol), err.shape), ref.flat[np.argmax(err - tol)])


def runtime_error(*args):
    """The message of the run-time failure (507015) of a call with @args."""
    with pytest.raises(golden.AclError) as ei:
        golden.call(API, *args)
    assert ei.value.code == RUNTIME
    return ei.value.message


def gl_array(bounds):
    return golden.array(np.asarray(bounds, dtype=np.int64), "int64")


# ---- groupType -1: lists --------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("split_item", [0, 1])
@pytest.mark.parametrize("with_bias", [False, True])
def test_lists_group_type_none(dt, split_item, with_bias):
    rng = np.random.default_rng(1 + split_item)
    xshapes = [(5, 7), (2, 3, 4), (1, 6), (2, 1, 2, 1, 2, 3)]
    ns = [9, 70, 3, 5]
    xs, ws, bs, ys, refs, mags = [], [], [], [], [], []
    for i, (xsh, n) in enumerate(zip(xshapes, ns)):
        k = xsh[-1]
        x, xv = up(rng, xsh, dt, layout="strided" if i == 0 else None)
        w, wv = transposed_w(rng, (k, n), dt) if i % 2 else up(rng, (k, n), dt)
        ref, mag = xv @ wv, np.abs(xv) @ np.abs(wv)
        if with_bias:
            b, bv = up(rng, (n,), BIAS_DT[dt])
            ref, mag = ref + bv, mag + np.abs(bv)
            bs.append(b)
        xs.append(x)
        ws.append(w)
        ys.append(golden.empty(xsh[:-1] + (n,), dt, layout="padded" if i == 1 else None))
        refs.append(ref)
        mags.append(mag)
    golden.call(API, xs, ws, bs if with_bias else None, None, None, None, None, None, split_item, -1, ys)
    for y, ref, mag in zip(ys, refs, mags):
        check(y, ref, mag, dt)


# ---- groupType 0: M split -------------------------------------------------------------------------

def run_sss(dt, rng, M, K, N, bounds, with_bias, transpose_w=False, partial=False):
    E = len(bounds)
    x, xv = up(rng, (M, K), dt)
    w, wv = transposed_w(rng, (E, K, N), dt) if transpose_w else up(rng, (E, K, N), dt)
    b, bv = up(rng, (E, N), BIAS_DT[dt]) if with_bias else (None, None)
    y = golden.empty((M, N), dt, fill=FILL)
    golden.call(API, [x], [w], [b] if with_bias else None, None, None, None, None, gl_array(bounds), 3, 0, [y])
    ref = np.full((M, N), FILL)
    mag = np.zeros((M, N))
    lo = 0
    for e, hi in enumerate(bounds):
        ref[lo:hi] = xv[lo:hi] @ wv[e] + (bv[e] if with_bias else 0)
        mag[lo:hi] = np.abs(xv[lo:hi]) @ np.abs(wv[e]) + (np.abs(bv[e]) if with_bias else 0)
        lo = hi
    check(y, ref, mag, dt)


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_sss_tiles_and_chunks(dt):
    # 150 rows, 70 columns and K = 300 cross the 64 x 64 tiles and the 256-value K chunks; group
    # bounds fall inside tiles; an empty group
    run_sss(dt, np.random.default_rng(3), 150, 300, 70, [40, 40, 101, 150], with_bias=True)


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_sss_page_shape_transposed_weight(dt):
    # the page's calling example's shapes (groupList 256, 512), the weight stored transposed
    run_sss(dt, np.random.default_rng(4), 512, 256, 256, [256, 512], with_bias=True, transpose_w=True)


def test_sss_partial_group_list_leaves_rows():
    # the last bound below m: the rows after it keep their contents
    run_sss("float16", np.random.default_rng(5), 30, 8, 5, [4, 11, 20], with_bias=False)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("with_bias", [False, True])
def test_sms_weight_list(dt, with_bias):
    rng = np.random.default_rng(6)
    M, K, N, bounds = 70, 20, 66, [10, 10, 45, 70]
    x, xv = up(rng, (M, K), dt, layout="offset")
    ws, wvs, bs, bvs = [], [], [], []
    for e in range(len(bounds)):
        w, wv = transposed_w(rng, (K, N), dt) if e % 2 else up(rng, (K, N), dt)
        ws.append(w)
        wvs.append(wv)
        if with_bias:
            b, bv = up(rng, (N,), BIAS_DT[dt])
            bs.append(b)
            bvs.append(bv)
    y = golden.empty((M, N), dt, layout="strided", fill=FILL)
    golden.call(API, [x], ws, bs if with_bias else None, None, None, None, None, gl_array(bounds), 2, 0, [y])
    ref, mag, lo = np.zeros((M, N)), np.zeros((M, N)), 0
    for e, hi in enumerate(bounds):
        ref[lo:hi] = xv[lo:hi] @ wvs[e] + (bvs[e] if with_bias else 0)
        mag[lo:hi] = np.abs(xv[lo:hi]) @ np.abs(wvs[e]) + (np.abs(bvs[e]) if with_bias else 0)
        lo = hi
    check(y, ref, mag, dt)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("pass_gl", [False, True])
def test_mms_x_list(dt, pass_gl):
    rng = np.random.default_rng(7)
    K, N, ms = 12, 9, [3, 0, 70, 5]
    xs, xvs, ws, wvs = [], [], [], []
    for m in ms:
        x, xv = up(rng, (m, K), dt)
        w, wv = up(rng, (K, N), dt)
        xs.append(x)
        xvs.append(xv)
        ws.append(w)
        wvs.append(wv)
    y = golden.empty((sum(ms), N), dt)
    gl = gl_array(np.cumsum(ms)) if pass_gl else None
    golden.call(API, xs, ws, None, None, None, None, None, gl, 2, 0, [y])
    ref = np.concatenate([xv @ wv for xv, wv in zip(xvs, wvs)])
    mag = np.concatenate([np.abs(xv) @ np.abs(wv) for xv, wv in zip(xvs, wvs)])
    check(y, ref, mag, dt)


def test_mms_group_list_mismatch_is_a_runtime_error():
    rng = np.random.default_rng(8)
    xs = [up(rng, (m, 4), "float16")[0] for m in (2, 3)]
    ws = [up(rng, (4, 5), "float16")[0] for _ in range(2)]
    y = golden.empty((5, 5), "float16")
    msg = runtime_error(xs, ws, None, None, None, None, None, gl_array([3, 5]), 2, 0, [y])
    assert "groupListOptional[0] = 3" in msg


# ---- groupType 2: K split -------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_k_split(dt):
    rng = np.random.default_rng(9)
    M, K, N, bounds = 67, 300, 20, [0, 100, 290]  # an empty first group; K past the last bound unused
    x, xv = up(rng, (M, K), dt, layout="transposed")  # CANN's K split takes x transposed
    w, wv = up(rng, (K, N), dt)
    y = golden.empty((len(bounds), M, N), dt, fill=FILL)
    golden.call(API, [x], [w], None, None, None, None, None, gl_array(bounds), 2, 2, [y])
    ref, mag, lo = np.zeros((len(bounds), M, N)), np.zeros((len(bounds), M, N)), 0
    for e, hi in enumerate(bounds):
        ref[e] = xv[:, lo:hi] @ wv[lo:hi]
        mag[e] = np.abs(xv[:, lo:hi]) @ np.abs(wv[lo:hi])
        lo = hi
    check(y, ref, mag, dt)


# ---- every ISA tier, determinism ----------------------------------------------------------------

@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_every_isa_tier(isa, dt):
    run_sss(dt, np.random.default_rng(10), 80, 40, 70, [30, 80], with_bias=True, transpose_w=True)


def test_same_bits_for_any_thread_count():
    script = r"""
import numpy as np, golden
rng = np.random.default_rng(11)
x = golden.array(golden.quantize(rng.uniform(-1, 1, (200, 300)), "bfloat16")[0], "bfloat16")
w = golden.array(golden.quantize(rng.uniform(-1, 1, (3, 300, 130)), "bfloat16")[0], "bfloat16")
y = golden.empty((200, 130), "bfloat16")
gl = golden.array(np.array([50, 120, 200], dtype=np.int64), "int64")
golden.call("aclnnGroupedMatmulV3", [x], [w], None, None, None, None, None, gl, 3, 0, [y])
print(golden.read(y).tobytes().hex())
"""
    outs = golden.outputs_per_thread_count(script, [1, 3, 8], timeout=300)
    assert len(set(outs)) == 1


# ---- run-time groupList errors --------------------------------------------------------------------

@pytest.mark.parametrize("bounds", [[5, 3], [-1, 4], [4, 9]])
def test_bad_group_list_values(bounds):
    rng = np.random.default_rng(12)
    x = up(rng, (8, 4), "float16")[0]
    w = up(rng, (2, 4, 3), "float16")[0]
    y = golden.empty((8, 3), "float16")
    assert "groupListOptional" in runtime_error([x], [w], None, None, None, None, None, gl_array(bounds), 3, 0, [y])


# ---- argument errors ------------------------------------------------------------------------------

def sss_args(dt="float16", **over):
    rng = np.random.default_rng(13)
    a = dict(x=[up(rng, (8, 4), dt)[0]], weight=[up(rng, (2, 4, 3), dt)[0]], bias=None, scale=None, offset=None,
             aqs=None, aqo=None, gl=gl_array([3, 8]), split=3, gtype=0, y=[golden.empty((8, 3), dt)])
    a.update(over)
    return [a[k] for k in ("x", "weight", "bias", "scale", "offset", "aqs", "aqo", "gl", "split", "gtype", "y")]


def test_sss_args_are_sound():
    assert golden.status(API, *sss_args()) == 0


@pytest.mark.parametrize("field", ["x", "weight", "y"])
def test_null_lists(field):
    assert golden.phase1_status(API, *sss_args(**{field: None})) == NULL


def test_null_list_element():
    rng = np.random.default_rng(14)
    ws = [up(rng, (4, 3), "float16")[0], None]
    assert golden.phase1_status(API, *sss_args(weight=ws)) == NULL


def bad_cases():
    rng = np.random.default_rng(15)
    f16 = lambda shape: up(rng, shape, "float16")[0]  # noqa: E731
    i8 = golden.array(np.ones((2, 4, 3), np.int8), "int8")
    return {
        "x int32": dict(x=[golden.array(np.ones((8, 4), np.int32), "int32")]),
        "x int8 (quantised)": dict(x=[golden.array(np.ones((8, 4), np.int8), "int8")]),
        "weight int8 (antiquant)": dict(weight=[i8]),
        "weight dtype differs": dict(weight=[up(rng, (2, 4, 3), "bfloat16")[0]]),
        "y dtype differs": dict(y=[golden.empty((8, 3), "float32")]),
        "bias dtype": dict(bias=[up(rng, (2, 3), "float32")[0]]),
        "bias shape": dict(bias=[f16((3, 3))]),
        "scale given": dict(scale=[golden.array(np.ones(3, np.uint64), "uint64")]),
        "antiquantScale given": dict(aqs=[f16((2, 3))]),
        "groupType 1": dict(gtype=1),
        "groupType 5": dict(gtype=5),
        "splitItem 4": dict(split=4),
        "splitItem 0 with groupType 0": dict(split=0),
        "groupList missing": dict(gl=None),
        "groupList int32": dict(gl=golden.array(np.array([3, 8], np.int32), "int32")),
        "groupList 2-D": dict(gl=golden.array(np.array([[3, 8]], np.int64), "int64")),
        "groupList length": dict(gl=gl_array([3, 5, 8])),
        "x k differs": dict(x=[f16((8, 5))]),
        "y shape": dict(y=[golden.empty((8, 4), "float16")]),
        "y list of two": dict(y=[golden.empty((8, 3), "float16"), golden.empty((8, 3), "float16")]),
        "x 3-D": dict(x=[f16((2, 4, 4))]),
        "groupType -1 with splitItem 3": dict(gtype=-1),
        "groupType -1 with groupList": dict(gtype=-1, split=0, weight=[f16((4, 3))]),
        "float32 lists": dict(x=[up(rng, (3, 4), "float32")[0]] * 2, weight=[up(rng, (4, 3), "float32")[0]] * 2,
                              y=[golden.empty((3, 3), "float32")] * 2, gl=None, split=0, gtype=-1),
        "groupType 2 with bias": dict(gtype=2, split=2, x=[f16((8, 4))], weight=[f16((4, 3))],
                                      bias=[f16((2, 3))], y=[golden.empty((2, 8, 3), "float16")]),
        "groupType 2 y shape": dict(gtype=2, split=2, x=[f16((8, 4))], weight=[f16((4, 3))],
                                    y=[golden.empty((8, 3), "float16")]),
    }


@pytest.mark.parametrize("case", sorted(bad_cases()))
def test_invalid_arguments(case):
    args = sss_args(**bad_cases()[case])
    assert golden.phase1_status(API, *args) == INVALID, case
    assert API in golden.recent_error()
