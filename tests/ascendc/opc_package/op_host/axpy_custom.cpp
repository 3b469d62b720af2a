/* AxpyCustom: z = x + alpha * y (alpha an optional Float attribute, 1 by default), in FLOAT16 and
 * FLOAT. cannon's own test operator for custom packages. */
#include "axpy_host.h"
#include "axpy_custom_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus AxpyTilingFunc(gert::TilingContext *ctx)
{
    const gert::StorageShape *x = ctx->GetInputShape(0);
    const gert::StorageShape *y = ctx->GetInputShape(1);
    const float *alpha = ctx->GetAttrs()->GetFloat(0);
    if (x == nullptr || y == nullptr || alpha == nullptr || !(x->GetStorageShape() == y->GetStorageShape()))
        return ge::GRAPH_FAILED;
    return axpy::Split<AxpyTiling>(ctx, x->GetStorageShape().GetShapeSize(), *alpha);
}
}  // namespace optiling

namespace {
ge::graphStatus AxpyInferShape(gert::InferShapeContext *ctx)
{
    *ctx->GetOutputShape(0) = *ctx->GetInputShape(0);
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus AxpyInferDataType(gert::InferDataTypeContext *ctx)
{
    ctx->SetOutputDataType(0, ctx->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace

namespace ops {
class AxpyCustom : public OpDef {
public:
    explicit AxpyCustom(const char *name) : OpDef(name)
    {
        Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
        SetInferShape(AxpyInferShape).SetInferDataType(AxpyInferDataType);
        AICore().SetTiling(optiling::AxpyTilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(AxpyCustom);
}  // namespace ops
