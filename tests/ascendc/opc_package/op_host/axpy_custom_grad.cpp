/* AxpyCustomGrad, AxpyCustom's backward op (cannon.torch's convention: the gradients of the
 * outputs, then the forward inputs, then the forward attributes; outputs: the gradients of the
 * forward inputs): dx = dz, dy = alpha * dz. */
#include "axpy_host.h"
#include "axpy_custom_grad_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus AxpyGradTilingFunc(gert::TilingContext *ctx)
{
    const gert::StorageShape *dz = ctx->GetInputShape(0);
    const float *alpha = ctx->GetAttrs()->GetFloat(0);
    if (dz == nullptr || alpha == nullptr)
        return ge::GRAPH_FAILED;
    return axpy::Split<AxpyGradTiling>(ctx, dz->GetStorageShape().GetShapeSize(), *alpha);
}
}  // namespace optiling

namespace ops {
class AxpyCustomGrad : public OpDef {
public:
    explicit AxpyCustomGrad(const char *name) : OpDef(name)
    {
        for (const char *n : {"grad_z", "x", "y"})
            Input(n).ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        for (const char *n : {"grad_x", "grad_y"})
            Output(n).ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
        AICore().SetTiling(optiling::AxpyGradTilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(AxpyCustomGrad);
}  // namespace ops
