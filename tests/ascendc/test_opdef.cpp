/*
 * The OpDef API and phase 1 of package operators, in process (no package, no kernel binary): an
 * operator defined and registered here (ScaleCustom: y = factor * x [+ bias], FLOAT and BF16
 * columns, an optional input, a required attribute) is described, its outputs inferred, and
 * cannonOpcPhase1 checked for every refusal it makes before and at the kernel lookup: NULL
 * tensors, dtypes outside the columns, mixed columns, a wrong output shape, a failing TilingFunc,
 * an unknown operator and a package without kernel binaries. Also gert::Shape and the tiling
 * context's bounds.
 */
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "ascendc_test.h"
#include "register/cannon_opc.h"
#include "register/op_def_registry.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleTiling)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(float, factor);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaleCustom, ScaleTiling)

static int g_tiling_calls = 0;

static ge::graphStatus ScaleTilingFunc(gert::TilingContext *ctx)
{
    g_tiling_calls++;
    const float *factor = ctx->GetAttrs()->GetFloat(0);
    if (factor == nullptr || *factor < 0.0f)
        return ge::GRAPH_FAILED;
    // what the context shows: the shapes, the absent optional input, the descs
    if (ctx->GetInputShape(1) != nullptr || ctx->GetInputTensor(0) == nullptr ||
        ctx->GetInputDesc(0)->GetDataType() != ctx->GetOutputDesc(0)->GetDataType() ||
        ctx->GetWorkspaceSizes(CANNON_OPC_MAX_WORKSPACES + 1) != nullptr || ctx->GetAttrs()->GetInt(0) != nullptr)
        return ge::GRAPH_FAILED;
    ScaleTiling t;
    t.set_total(static_cast<uint32_t>(ctx->GetInputTensor(0)->GetShapeSize()));
    t.set_factor(*factor);
    ctx->SetBlockDim(2);
    ctx->SetTilingKey(7);
    t.SaveToBuffer(ctx->GetRawTilingData()->GetData(), ctx->GetRawTilingData()->GetCapacity());
    ctx->GetRawTilingData()->SetDataSize(t.GetDataSize());
    size_t *ws = ctx->GetWorkspaceSizes(2);
    ws[0] = 100;
    ws[1] = 28;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

static ge::graphStatus ScaleInferShape(gert::InferShapeContext *ctx)
{
    *ctx->GetOutputShape(0) = *ctx->GetInputShape(0);
    return ge::GRAPH_SUCCESS;
}

namespace ops {
class ScaleCustom : public OpDef {
public:
    explicit ScaleCustom(const char *name) : OpDef(name)
    {
        Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        Attr("factor").AttrType(REQUIRED).Float();
        Attr("mode").AttrType(OPTIONAL).String("fast");
        SetInferShape(ScaleInferShape);
        OpAICoreConfig cfg;
        cfg.DynamicShapeSupportFlag(true).PrecisionReduceFlag(true);
        AICore().SetTiling(optiling::ScaleTilingFunc).AddConfig("ascend910b", cfg).AddConfig("ascend310p");
    }
};
OP_ADD(ScaleCustom);
}  // namespace ops

namespace {

std::vector<float> g_buf(4096);

aclTensor *Tensor(std::vector<int64_t> shape, aclDataType dt)
{
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;)
        strides[i - 1] = strides[i] * shape[i];
    return aclCreateTensor(shape.data(), shape.size(), dt, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                           shape.size(), g_buf.data());
}

aclnnStatus Phase1(const char *type, const aclTensor *x, const aclTensor *bias, const aclTensor *y, double factor,
                   std::string *msg)
{
    const aclTensor *ts[] = {x, bias, y};
    cannon_opc_attr attrs[2] = {};
    attrs[0].kind = 3;
    attrs[0].f = factor;
    attrs[1].kind = 4;
    attrs[1].s = "fast";
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    static const char anchor = 0;
    aclnnStatus rc = cannonOpcPhase1("aclnnScaleCustomGetWorkspaceSize", type, "scale_custom", &anchor, ts, 2, 1,
                                     attrs, 2, &ws, &ex);
    const char *m = aclGetRecentErrMsg();
    *msg = m ? m : "";
    return rc;
}

void TestDefinition()
{
    const ops::OpDef *d = ops::CannonFindOpDef("ScaleCustom");
    EXPECT(d != nullptr);
    if (d == nullptr)
        return;
    EXPECT(d->GetInputs().size() == 2 && d->GetOutputs().size() == 1 && d->GetAttrs().size() == 2);
    EXPECT(d->GetInputs()[1].GetParamType() == ops::OPTIONAL);
    EXPECT(d->GetInputs()[0].GetDataTypes()[1] == ge::DT_BF16);
    EXPECT(d->GetAttrs()[1].GetString() == "fast");
    EXPECT(d->GetAICore().GetSocs().size() == 2);
    EXPECT(ops::CannonFindOpDef("NoSuchOp") == nullptr);
    // CANN's values
    EXPECT(ge::DT_FLOAT16 == 1 && ge::DT_INT32 == 3 && ge::DT_INT64 == 9 && ge::DT_BF16 == 27);
    EXPECT(static_cast<int>(ge::DT_BF16) == static_cast<int>(ACL_BF16));
    EXPECT(ge::FORMAT_ND == 2 && ge::FORMAT_NCHW == 0 && ge::FORMAT_FRACTAL_NZ == 29);
    EXPECT(ops::REQUIRED == 2 && ops::OPTIONAL == 1 && ops::DYNAMIC == 3);

    std::string j = cannonOpcDescribe();
    EXPECT_MSG(j.find("\"type\": \"ScaleCustom\"") != std::string::npos, "%s", j.c_str());
    EXPECT_MSG(j.find("{\"name\": \"bias\", \"param_type\": \"optional\", \"dtype_list\": false, \"dtypes\": [0, 27], "
                      "\"formats\": [2, 2]}") != std::string::npos, "%s", j.c_str());
    EXPECT_MSG(j.find("{\"name\": \"mode\", \"kind\": \"string\", \"required\": false, \"default\": \"fast\"}") !=
                   std::string::npos, "%s", j.c_str());
    EXPECT_MSG(j.find("\"columns\": 2") != std::string::npos, "%s", j.c_str());
}

void TestShape()
{
    gert::Shape s{2, 3, 4};
    EXPECT(s.GetDimNum() == 3 && s.GetShapeSize() == 24 && s[1] == 3);
    EXPECT(s.GetDim(5) == gert::Shape::kInvalidDimValue);
    gert::Shape t;
    EXPECT(t.IsScalar() && t.GetShapeSize() == 1 && t != s);
    for (int i = 0; i < 30; i++)
        t.AppendDim(1);
    EXPECT(t.GetDimNum() == gert::Shape::kMaxDimNum);
    t.SetDim(0, -1);
    EXPECT(t.GetShapeSize() == -1);
}

void TestInfer()
{
    aclTensor *x = Tensor({3, 5}, ACL_FLOAT);
    const aclTensor *ins[] = {x, nullptr};
    cannon_opc_attr attrs[2] = {};
    attrs[0].kind = 3;
    attrs[0].f = 2.0;
    attrs[1].kind = 4;
    attrs[1].s = "fast";
    int32_t dts[1] = {-1};
    int64_t dims[25] = {0};
    uint64_t nd[1] = {0};
    EXPECT(cannonOpcInfer("ScaleCustom", ins, 2, attrs, 2, 1, dts, dims, nd) == ACLNN_SUCCESS);
    EXPECT(dts[0] == ACL_FLOAT && nd[0] == 2 && dims[0] == 3 && dims[1] == 5);
    EXPECT(cannonOpcInfer("ScaleCustom", ins, 1, attrs, 2, 1, dts, dims, nd) == ACLNN_ERR_PARAM_INVALID);
    EXPECT(cannonOpcInfer("NoSuchOp", ins, 2, attrs, 2, 1, dts, dims, nd) == ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
    aclDestroyTensor(x);
}

void TestPhase1()
{
    aclTensor *x = Tensor({4, 8}, ACL_FLOAT), *y = Tensor({4, 8}, ACL_FLOAT), *b = Tensor({4, 8}, ACL_FLOAT);
    aclTensor *xi = Tensor({4, 8}, ACL_INT32), *xb = Tensor({4, 8}, ACL_BF16), *ys = Tensor({4, 7}, ACL_FLOAT);
    std::string m;

    EXPECT(Phase1("ScaleCustom", nullptr, nullptr, y, 1.0, &m) == ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_MSG(m.find("x") != std::string::npos, "%s", m.c_str());
    EXPECT(Phase1("ScaleCustom", x, nullptr, nullptr, 1.0, &m) == ACLNN_ERR_PARAM_NULLPTR);
    EXPECT(Phase1("ScaleCustom", xi, nullptr, y, 1.0, &m) == ACLNN_ERR_PARAM_INVALID);
    EXPECT_MSG(m.find("x has dtype INT32, which ScaleCustom does not support: its (x, bias, y) combinations are "
                      "(FLOAT, FLOAT, FLOAT), (BFLOAT16, BFLOAT16, BFLOAT16)") != std::string::npos, "%s", m.c_str());
    EXPECT(Phase1("ScaleCustom", xb, nullptr, y, 1.0, &m) == ACLNN_ERR_PARAM_INVALID);
    EXPECT_MSG(m.find("the dtypes (x=BFLOAT16, bias=absent, y=FLOAT) are no combination ScaleCustom supports") !=
                   std::string::npos, "%s", m.c_str());
    EXPECT(Phase1("ScaleCustom", x, nullptr, ys, 1.0, &m) == ACLNN_ERR_PARAM_INVALID);
    EXPECT_MSG(m.find("y has shape [4,7]; ScaleCustom infers [4,8]") != std::string::npos, "%s", m.c_str());
    const int before = optiling::g_tiling_calls;
    EXPECT(Phase1("ScaleCustom", x, b, y, -1.0, &m) == ACLNN_ERR_INNER_TILING_ERROR);
    EXPECT_MSG(m.find("ScaleCustom's TilingFunc failed") != std::string::npos, "%s", m.c_str());
    EXPECT(optiling::g_tiling_calls == before + 1);
    EXPECT(Phase1("NoSuchOp", x, nullptr, y, 1.0, &m) == ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
    EXPECT_MSG(m.find("no operator definition of NoSuchOp") != std::string::npos, "%s", m.c_str());
    // Everything checks out; this program is no package, so the kernel binary is missing.
    EXPECT(Phase1("ScaleCustom", x, nullptr, y, 1.0, &m) == ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
    EXPECT_MSG(m.find("cannot load the kernel binary of ScaleCustom for column 0 (FLOAT, FLOAT, FLOAT)") !=
                   std::string::npos, "%s", m.c_str());
    EXPECT(Phase1("ScaleCustom", xb, nullptr, xb, 1.0, &m) == ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
    EXPECT_MSG(m.find("scale_custom_1.so") != std::string::npos, "%s", m.c_str());
    EXPECT(cannonOpcPhase1(nullptr, "ScaleCustom", "k", nullptr, nullptr, 0, 0, nullptr, 0, nullptr, nullptr) ==
           ACLNN_ERR_PARAM_NULLPTR);
    for (aclTensor *t : {x, y, b, xi, xb, ys})
        aclDestroyTensor(t);
}

}  // namespace

int main()
{
    ACL_OK(aclInit(nullptr));
    ACL_OK(aclrtSetDevice(0));
    TestDefinition();
    TestShape();
    TestInfer();
    TestPhase1();
    ACL_OK(aclrtResetDevice(0));
    aclFinalize();
    return TestResult("test_opdef");
}
