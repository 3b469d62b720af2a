#!/usr/bin/python3
"""Self-test of the CANN example harness's parsing and value checks (references.py,
run_examples.helper_ops) on small programs written here in the style of CANN's calling examples:
literal and filled host vectors, element assignments, computed scalars and shapes, FLOAT16 bit
patterns in uint16_t, and the three print layouts. Needs numpy; no cannon build, no CANN checkout."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import references as R  # noqa: E402
import run_examples as X  # noqa: E402

PROGRAM_ADD = """
int main() {
  std::vector<int64_t> shape = {2, 2};
  std::vector<float> selfHostData = {1, 2.5f, -3, 4};
  std::vector<float> otherHostData = {1, 1, 1, 1};
  float alphaValue = 2.0f;
  ret = CreateAclTensor(selfHostData, shape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
  ret = CreateAclTensor(otherHostData, shape, &otherDeviceAddr, aclDataType::ACL_FLOAT, &other);
  ret = CreateAclTensor(outHostData, shape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
  ret = aclnnAddGetWorkspaceSize(self, other, alpha, out, &workspaceSize, &executor);
}
"""

PROGRAM_WQBMM = """
int Test() {
  int64_t m = 8;
  int64_t k = 64;
  int64_t n = 7;
  int64_t groupSize = 32;
  std::vector<int64_t> xShape = {m, k};
  std::vector<int64_t> weightShape = {k, n};
  std::vector<int64_t> antiquantScaleShape = {k / groupSize, n};
  std::vector<int64_t> yShape = {m, n};
  std::vector<uint16_t> xHostData(GetShapeSize(xShape), 0b0011110000000000);
  xHostData[0] = 0;
  std::vector<int8_t> weightHostData(GetShapeSize(weightShape), 2);
  std::vector<uint16_t> antiquantScaleHostData(GetShapeSize(antiquantScaleShape), 0x3800);
  ret = CreateAclTensor(xHostData, xShape, &xDeviceAddr, aclDataType::ACL_FLOAT16, &x);
  ret = CreateAclTensor(weightHostData, weightShape, &weightDeviceAddr, aclDataType::ACL_INT8, &weight);
  ret = CreateAclTensor(yHostData, yShape, &yDeviceAddr, aclDataType::ACL_FLOAT, &y);
  ret = CreateAclTensor(antiquantScaleHostData, antiquantScaleShape, &sAddr, aclDataType::ACL_FLOAT16, &antiquantScale);
  ret = aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x, weight, antiquantScale, nullptr, nullptr, nullptr,
      nullptr, groupSize, yFp16, &workspaceSize, &executor);
}
int main() { return Test(); }
"""

PROGRAM_FIA = """
int main() {
  int32_t batchSize = 1;
  int32_t numHeads = 2;
  int32_t numKeyValueHeads = 1;
  int32_t sequenceLengthQ = 1;
  int32_t sequenceLengthKV = 4;
  int32_t headDims = 16;
  std::vector<int64_t> queryShape = {batchSize, numHeads, sequenceLengthQ, headDims};
  std::vector<int64_t> keyShape = {batchSize, numKeyValueHeads, sequenceLengthKV, headDims};
  std::vector<op::fp16_t> queryHostData(batchSize * numHeads * sequenceLengthQ * headDims, 1.0);
  std::vector<op::fp16_t> keyHostData(batchSize * numKeyValueHeads * sequenceLengthKV * headDims, 1.0);
  std::vector<op::fp16_t> valueHostData(batchSize * numKeyValueHeads * sequenceLengthKV * headDims, 0.5);
  ret = CreateAclTensor(queryHostData, queryShape, &q, aclDataType::ACL_FLOAT16, &queryTensor);
  ret = CreateAclTensor(keyHostData, keyShape, &k, aclDataType::ACL_FLOAT16, &keyTensor);
  ret = CreateAclTensor(valueHostData, keyShape, &v, aclDataType::ACL_FLOAT16, &valueTensor);
  ret = CreateAclTensor(outHostData, queryShape, &o, aclDataType::ACL_FLOAT16, &outTensor);
  double scaleValue = 1 / sqrt(headDims);
  string sLayerOut = "BNSD";
  ret = aclnnFusedInferAttentionScoreV2GetWorkspaceSize(queryTensor, keys, values, nullptr, &ws, &executor);
}
"""


def matrix_print(a, fmt="%.1f"):
    """PrintMat's layout: three leading and trailing rows / columns around `...`."""
    m, n = a.shape
    lines, i = [], 0
    while i < m:
        row, j = [], 0
        while j < n:
            row.append(fmt % a[i, j])
            if j == 2 and j + 3 < n:
                row.append("...")
                j = n - 4
            j += 1
        lines.append(("[[" if i == 0 else " [") + ", ".join(row) + ("]," if i < m - 1 else "]]"))
        if i == 2 and i + 3 < m:
            lines.append(" ... ")
            i = m - 4
        i += 1
    return "\n".join(lines) + "\n"


def main():
    import numpy as np
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    sc = {"k": 64.0, "groupSize": 32.0, "d": 128.0}
    expect(R._eval("k / groupSize", sc) == 2.0, "expression")
    expect(abs(R._eval("1 / sqrt(d)", sc) - 128 ** -0.5) < 1e-15, "sqrt")
    expect(R._eval("0b0011110000000000", sc) == 15360.0 and R._eval("0x3800", sc) == 14336.0, "bases")
    expect(R._eval("2.5f", sc) == 2.5 and R._eval("true", sc) == 1.0, "suffix / bool")
    for bad in ("foo", "k + unknown", "__import__('os')", "\"s\""):
        try:
            R._eval(bad, sc)
            failures.append("accepted %r" % bad)
        except ValueError:
            pass

    # `<label>[i] is:` lines, literal vectors
    out = "".join("result[%d] is: %f\n" % (i, v) for i, v in enumerate([3, 4.5, -1, 6]))
    expect(R.check("Add", PROGRAM_ADD, out) == ("match", ""), "Add match")
    expect(R.check("Add", PROGRAM_ADD, out.replace("6.000000", "6.100000"))[0] == "MISMATCH", "Add mismatch")

    # PrintMat matrices: filled vectors, an element assignment, FLOAT16 bits, group scales
    e = R.Example(PROGRAM_WQBMM)
    y = R.REFS["WeightQuantBatchMatmulV2"](e)
    x = np.ones((8, 64))
    x[0, 0] = 0
    expect(y.shape == (8, 7) and np.array_equal(y, x @ (2 * 0.5 * np.ones((64, 7)))), "wqbmm reference")
    expect(R.check("WeightQuantBatchMatmulV2", PROGRAM_WQBMM, matrix_print(y)) == ("match", ""), "matrix match")
    bad = y.copy()
    bad[-1, -1] += 1
    expect(R.check("WeightQuantBatchMatmulV2", PROGRAM_WQBMM, matrix_print(bad))[0] == "MISMATCH", "matrix mismatch")
    bad = y.copy()
    bad[4, 3] += 1  # elided: not printed
    expect(R.check("WeightQuantBatchMatmulV2", PROGRAM_WQBMM, matrix_print(bad)) == ("match", ""), "elided part")
    vals, rows, cols, dec = R.parse_matrix(matrix_print(y))
    expect(rows == (3, 3) and cols == (3, 3) and dec == 1 and len(vals) == 36, "matrix layout")
    small = np.arange(6.0).reshape(2, 3)
    expect(R.parse_matrix(matrix_print(small))[1:] == ((2, 0), (3, 0), 1), "small matrix")

    # `index: i: value` lines, fills of op::fp16_t, GQA heads, a computed scale
    ref = R.REFS["FusedInferAttentionScoreV2"](R.Example(PROGRAM_FIA))
    expect(ref.shape == (1, 2, 1, 16) and np.all(ref == 0.5), "fia reference")
    out = "".join("index: %d: %g\n" % (i, 0.5) for i in range(32))
    expect(R.check("FusedInferAttentionScoreV2", PROGRAM_FIA, out) == ("match", ""), "fia match")
    expect(R.check("FusedInferAttentionScoreV2", PROGRAM_FIA, out.replace(": 0.5\n", ": 0.6\n", 1))[0] ==
           "MISMATCH", "fia mismatch")
    expect(R.check("Add", PROGRAM_ADD, "nothing printed\n")[0] == "no values", "no values")

    # one-phase helpers: declared without a GetWorkspaceSize sibling
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "include", "aclnnop"))
        with open(os.path.join(d, "include", "aclnnop", "aclnn_x.h"), "w") as f:
            f.write("aclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *a, uint64_t *ws, aclOpExecutor **e);\n"
                    "aclnnStatus aclnnFoo(void *ws, uint64_t n, aclOpExecutor *e, aclrtStream s);\n"
                    "aclnnStatus aclnnFooSize(const aclIntArray *shape, uint64_t *size);\n")
        expect(X.helper_ops(d) == ["FooSize"], "helper_ops")
    expect(X.calls("FooSize", "x = aclnnFooSize(a, &b);", {"FooSize"}), "helper call")
    expect(not X.calls("FooSize", "x = aclnnFooSizeV2(a, &b);", {"FooSize"}), "helper call prefix")
    expect(X.calls("Foo", "aclnnFooGetWorkspaceSize(a, &w, &e);", set()), "operator call")

    for f in failures:
        print("test_references: FAILED: " + f)
    print("test_references: %d checks failed" % len(failures) if failures else "test_references: ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
