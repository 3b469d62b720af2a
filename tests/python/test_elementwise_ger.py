"""Golden tests of aclnnGer (out[i][j] = self[i] * vec2[j]) against a float64 outer product of the
stored values (numpy), on every instruction-set tier, every real dtype of CANN's page, mixed
dtypes (torch's promotion: the product computed in the promoted type, then cast to out), strided
and offset vectors, strided / transposed outputs, empty vectors and the argument errors.

Bounds: the 16-bit types and fp32 compute one fp32 product rounded once, so the result is the
correctly rounded product of the stored values (exact equality with the float64 product rounded
to the type; fp32 within half an ulp of it); DOUBLE within 2^-53 relative; integers wrap at the
promoted width; BOOL is logical and.
"""
import numpy as np
import pytest
import torch

import golden
import ew_helpers as H

INVALID, NULLPTR = golden.PARAM_INVALID, golden.PARAM_NULLPTR


def ref_of(sv, vv, ct, out_dt):
    if ct == "bool":
        r = np.outer(sv != 0, vv != 0).astype(np.float64)
    elif H.is_float(ct):
        r = np.outer(sv, vv)
        if ct in ("float16", "bfloat16"):
            r = golden.rounded(r, ct)
    else:
        r = (torch.outer(torch.tensor(sv.astype(np.int64)), torch.tensor(vv.astype(np.int64)))
             .to(golden.torch_dtype(ct)).numpy().astype(np.float64))
    return golden.rounded(r, out_dt) if out_dt not in ("float64", ct) and H.is_float(out_dt) else r


@pytest.mark.parametrize("dt", H.DTYPE_ALL)
def test_ger(isa, dt):
    s, sv = H.sample(dt, (37,), 1, specials=False)
    v, vv = H.sample(dt, (45,), 2, specials=False)
    ref = ref_of(sv, vv, dt, dt)
    if not H.is_float(dt):  # exact integers: from the storage values
        ref = torch.outer(torch.from_numpy(s.astype(np.int64)), torch.from_numpy(v.astype(np.int64)))
        ref = ref.to(golden.torch_dtype(dt)).numpy()
    for lay, vlay in (("contig", "contig"), ("strided", "offset"), ("transposed", "strided"), ("padded", "contig")):
        out = H.out_like((37, 45), dt, lay)
        golden.call("aclnnGer", golden.array(s, dt, layout=vlay), golden.array(v, dt, layout=vlay), out)
        got = H.read(out) if H.is_float(dt) else golden.read(out)
        if dt == "float32":
            assert (np.abs(got - ref) <= 2.0 ** -24 * np.abs(ref)).all(), lay
        elif dt == "float64":
            assert (np.abs(got - ref) <= 2.0 ** -53 * np.abs(ref)).all(), lay
        else:
            assert np.array_equal(got, ref), (dt, lay)


def small(dt):
    """Integers in [-100, 100]: exact in FLOAT16 and in the int16 products."""
    return {} if H.is_float(dt) or dt == "bool" else {"lo": -100, "hi": 100}


@pytest.mark.parametrize("dts", [("float16", "float32", "float32"), ("bfloat16", "float16", "float32"),
                                 ("int8", "uint8", "int16"), ("int32", "float16", "float16"),
                                 ("bool", "int8", "int64"), ("int64", "int64", "float64"),
                                 ("float16", "float16", "float32"), ("int8", "int8", "int8")])
def test_ger_promotion(isa, dts):
    ds, dv, do = dts
    ct = str(torch.promote_types(golden.torch_dtype(ds), golden.torch_dtype(dv))).replace("torch.", "")
    s, sv = H.sample(ds, (9,), 3, specials=False, **small(ds))
    v, vv = H.sample(dv, (11,), 4, specials=False, **small(dv))
    ref = ref_of(golden.rounded(sv, ct) if H.is_float(ct) else sv, golden.rounded(vv, ct) if H.is_float(ct) else vv,
                 ct, do)
    out = golden.empty((9, 11), do)
    golden.call("aclnnGer", golden.array(s, ds), golden.array(v, dv), out)
    got = H.read(out)
    if do == "float32" and ct == "float32":
        assert (np.abs(got - ref) <= 2.0 ** -24 * np.abs(ref)).all()
    else:
        assert np.array_equal(got, ref), dts


def test_ger_specials():
    s = np.array([0.0, -0.0, np.inf, np.nan, 2.0], np.float32)
    v = np.array([np.inf, -1.0, 0.0], np.float32)
    out = golden.empty((5, 3), "float32")
    golden.call("aclnnGer", golden.array(s), golden.array(v), out)
    ref = torch.outer(torch.from_numpy(s), torch.from_numpy(v)).numpy()
    got = golden.read(out)
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    m = ~np.isnan(ref)
    assert np.array_equal(got[m], ref[m]) and np.array_equal(np.signbit(got[m]), np.signbit(ref[m]))


def test_ger_empty():
    for m, n in ((0, 5), (4, 0), (0, 0)):
        out = golden.empty((m, n), "float32")
        golden.call("aclnnGer", golden.array(np.ones(m, np.float32)), golden.array(np.ones(n, np.float32)), out)


def test_ger_errors():
    a = golden.array(np.ones(3, np.float32))
    b = golden.array(np.ones(4, np.float32))
    out = golden.empty((3, 4), "float32")
    for k in range(3):
        args = [a, b, out]
        args[k] = None
        assert golden.phase1_status("aclnnGer", *args) == NULLPTR
    H.raises(INVALID, "1-D", "aclnnGer", golden.array(np.ones((3, 1), np.float32)), b, out)
    H.raises(INVALID, "2-D", "aclnnGer", a, b, golden.empty((12,), "float32"))
    H.raises(INVALID, "differs", "aclnnGer", a, b, golden.empty((4, 3), "float32"))
    H.raises(INVALID, "cannot be cast", "aclnnGer", a, b, golden.empty((3, 4), "int32"))
    H.raises(INVALID, "UINT16", "aclnnGer", golden.array(np.ones(3, np.uint16)), b, out)
