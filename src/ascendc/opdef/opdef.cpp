/*
 * libcannon_opdef: the OpDef registry (OP_ADD) and phase 1/2 of the aclnn API that cannon-opc
 * generates for a custom operator package.
 *
 * Phase 1 walks the OpDef: every tensor is checked (NULL, live, dtype/format against the
 * DataType/Format columns), the column matching every present tensor is chosen, InferShape and
 * the TilingFunc run on gert contexts built from the tensors, and one kernel launch is recorded
 * on a cannon executor: its blob holds the kernel's pointer arguments (tensor slots and the
 * workspace, bound at phase 2) and the tiling data, which the kernel binary's trampoline passes
 * as the tiling argument. Kernel binaries are loaded once (dlopen, RTLD_LOCAL) and kept.
 */
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "cannon/opdev.h"
#include "register/cannon_opc.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace {

struct Entry {
    ops::OpDefCreator creator;
    std::unique_ptr<ops::OpDef> def;
};

std::mutex &RegistryMutex()
{
    static std::mutex m;
    return m;
}

std::map<std::string, Entry> &Registry()
{
    static std::map<std::string, Entry> r;
    return r;
}

const char *DtypeName(ge::DataType t)
{
    return cannonDtypeName(static_cast<aclDataType>(t));
}

const char *FormatName(int f)
{
    switch (f) {
    case ge::FORMAT_NCHW: return "NCHW";
    case ge::FORMAT_NHWC: return "NHWC";
    case ge::FORMAT_ND: return "ND";
    case ge::FORMAT_NC1HWC0: return "NC1HWC0";
    case ge::FORMAT_FRACTAL_Z: return "FRACTAL_Z";
    case ge::FORMAT_HWCN: return "HWCN";
    case ge::FORMAT_NDHWC: return "NDHWC";
    case ge::FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
    case ge::FORMAT_NCDHW: return "NCDHW";
    case ge::FORMAT_NC: return "NC";
    case ge::FORMAT_NCL: return "NCL";
    default: return "?";
    }
}

/* The number of DataType columns of a definition: the longest non-list DataType (at least 1). */
size_t Columns(const ops::OpDef &d)
{
    size_t n = 1;
    for (const auto *v : {&d.GetInputs(), &d.GetOutputs()})
        for (const auto &p : *v)
            if (!p.IsDataTypeList() && p.GetDataTypes().size() > n)
                n = p.GetDataTypes().size();
    return n;
}

/* Whether @p t is column @p c's dtype of @p p (a one-entry list serves every column). */
bool DtypeFits(const ops::OpParamDef &p, size_t c, ge::DataType t)
{
    const auto &v = p.GetDataTypes();
    if (v.empty())
        return true;
    if (p.IsDataTypeList()) {
        for (auto x : v)
            if (x == t)
                return true;
        return false;
    }
    return v.size() == 1 ? v[0] == t : (c < v.size() && v[c] == t);
}

bool FormatFits(const ops::OpParamDef &p, size_t c, int f)
{
    const auto &v = p.GetFormats();
    if (v.empty())
        return true;
    if (p.IsFormatList()) {
        for (auto x : v)
            if (x == f)
                return true;
        return false;
    }
    return v.size() == 1 ? v[0] == f : (c < v.size() && v[c] == f);
}

bool AnyColumnHas(const ops::OpParamDef &p, size_t cols, ge::DataType t)
{
    for (size_t c = 0; c < cols; c++)
        if (DtypeFits(p, c, t))
            return true;
    return false;
}

std::string JsonEscape(const std::string &s)
{
    std::string o;
    for (char ch : s) {
        if (ch == '"' || ch == '\\')
            o += '\\';
        o += ch;
    }
    return o;
}

/* Loaded kernel binaries: path -> trampoline (NULL entries are not cached). */
std::mutex g_kernels_mu;
std::map<std::string, cannon_kernel_fn> g_kernels;

/* The vendor folder of the library holding @p anchor: <vendor>/op_api/lib/libcust_opapi.so. */
bool VendorDir(const void *anchor, std::string *out)
{
    Dl_info info;
    if (anchor == nullptr || dladdr(anchor, &info) == 0 || info.dli_fname == nullptr)
        return false;
    std::string p(info.dli_fname);
    for (int up = 0; up < 3; up++) {
        size_t s = p.rfind('/');
        if (s == std::string::npos)
            return false;
        p.resize(s);
    }
    *out = p.empty() ? "/" : p;
    return true;
}

}  // namespace

namespace ops {

int CannonRegisterOpDef(const char *type, OpDefCreator creator)
{
    if (type == nullptr || creator == nullptr)
        return 0;
    std::lock_guard<std::mutex> g(RegistryMutex());
    auto &r = Registry();
    if (r.find(type) == r.end())
        r[type] = Entry{creator, nullptr};
    return 0;
}

const OpDef *CannonFindOpDef(const char *type)
{
    if (type == nullptr)
        return nullptr;
    std::lock_guard<std::mutex> g(RegistryMutex());
    auto &r = Registry();
    auto it = r.find(type);
    if (it == r.end())
        return nullptr;
    if (!it->second.def) {
        try {
            it->second.def.reset(it->second.creator(type));
        } catch (...) {
            return nullptr;
        }
    }
    return it->second.def.get();
}

}  // namespace ops

namespace {

const char *ParamTypeName(ops::Option o)
{
    switch (o) {
    case ops::OPTIONAL: return "optional";
    case ops::DYNAMIC: return "dynamic";
    default: return "required";
    }
}

void DescribeParams(std::string &j, const std::vector<ops::OpParamDef> &v)
{
    j += "[";
    for (size_t i = 0; i < v.size(); i++) {
        const auto &p = v[i];
        j += i ? ", " : "";
        j += "{\"name\": \"" + JsonEscape(p.GetName()) + "\", \"param_type\": \"" + ParamTypeName(p.GetParamType()) +
             "\", \"dtype_list\": " + (p.IsDataTypeList() ? "true" : "false") + ", \"dtypes\": [";
        for (size_t k = 0; k < p.GetDataTypes().size(); k++)
            j += (k ? ", " : "") + std::to_string(static_cast<int>(p.GetDataTypes()[k]));
        j += "], \"formats\": [";
        for (size_t k = 0; k < p.GetFormats().size(); k++)
            j += (k ? ", " : "") + std::to_string(static_cast<int>(p.GetFormats()[k]));
        j += "]}";
    }
    j += "]";
}

std::string g_describe;

}  // namespace

extern "C" const char *cannonOpcDescribe(void)
{
    try {
        std::vector<std::string> names;
        {
            std::lock_guard<std::mutex> g(RegistryMutex());
            for (const auto &kv : Registry())
                names.push_back(kv.first);
        }
        std::string j = "{\"ops\": [";
        for (size_t n = 0; n < names.size(); n++) {
            const ops::OpDef *d = ops::CannonFindOpDef(names[n].c_str());
            if (!d)
                continue;
            j += n ? ", " : "";
            j += "{\"type\": \"" + JsonEscape(d->GetOpType()) + "\", \"inputs\": ";
            DescribeParams(j, d->GetInputs());
            j += ", \"outputs\": ";
            DescribeParams(j, d->GetOutputs());
            j += ", \"attrs\": [";
            static const char *kinds[] = {"unset", "bool", "int", "float", "string"};
            for (size_t a = 0; a < d->GetAttrs().size(); a++) {
                const auto &at = d->GetAttrs()[a];
                j += (a ? ", " : "") + std::string("{\"name\": \"") + JsonEscape(at.GetName()) + "\", \"kind\": \"" +
                     kinds[at.GetKind()] + "\", \"required\": " + (at.GetAttrType() == ops::REQUIRED ? "true" : "false");
                switch (at.GetKind()) {
                case ops::OpAttrDef::kBool: j += std::string(", \"default\": ") + (at.GetBool() ? "true" : "false"); break;
                case ops::OpAttrDef::kInt: j += ", \"default\": " + std::to_string(at.GetInt()); break;
                case ops::OpAttrDef::kFloat: {
                    char num[64];
                    std::snprintf(num, sizeof num, "%.9g", static_cast<double>(at.GetFloat()));
                    j += std::string(", \"default\": ") + num;
                    break;
                }
                case ops::OpAttrDef::kString: j += ", \"default\": \"" + JsonEscape(at.GetString()) + "\""; break;
                default: break;
                }
                j += "}";
            }
            j += "], \"columns\": " + std::to_string(Columns(*d)) +
                 ", \"tiling\": " + (d->GetAICore().GetTiling() ? "true" : "false") + "}";
        }
        j += "]}";
        g_describe = j;
        return g_describe.c_str();
    } catch (...) {
        return "{\"ops\": []}";
    }
}

namespace {

/* Fills @p t from view @p v. */
void ToGert(const cannon_tensor_view &v, gert::Tensor *t)
{
    gert::Shape s;
    for (int64_t d = 0; d < v.ndim; d++)
        s.AppendDim(v.shape[d]);
    t->MutableShape() = gert::StorageShape(s, s);
    t->MutableDesc().SetDataType(static_cast<ge::DataType>(v.dtype));
    t->MutableDesc().SetFormat(static_cast<ge::Format>(v.format));
    t->SetAddr(static_cast<char *>(v.data) + v.offset * static_cast<int64_t>(cannonDtypeSize(v.dtype)));
}

std::string ShapeText(const gert::Shape &s)
{
    std::string o = "[";
    for (size_t i = 0; i < s.GetDimNum(); i++)
        o += (i ? "," : "") + std::to_string(s.GetDim(i));
    return o + "]";
}

/* "(FLOAT16, FLOAT16, FLOAT16)": column @p c's dtypes; with @p cols > 1 every column from @p c on. */
std::string ColumnsText(const ops::OpDef &d, size_t cols, size_t from = 0)
{
    std::string o;
    for (size_t c = from; c < cols; c++) {
        o += c > from ? ", (" : "(";
        bool first = true;
        for (const auto *v : {&d.GetInputs(), &d.GetOutputs()})
            for (const auto &p : *v) {
                const auto &ts = p.GetDataTypes();
                const char *n = ts.empty() ? "any" : DtypeName(ts.size() == 1 || p.IsDataTypeList() ? ts[0] : ts[c < ts.size() ? c : 0]);
                o += (first ? "" : ", ") + std::string(n);
                first = false;
            }
        o += ")";
    }
    return o;
}

aclnnStatus Phase1(const char *api, const char *op_type, const char *kernel, const void *anchor,
                   const aclTensor *const *tensors, size_t n_in, size_t n_out, const cannon_opc_attr *attrs,
                   size_t n_attrs, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    if (!cannonOpBegin(&op, api, workspaceSize, executor))
        return cannonOpFinish(&op);
    const ops::OpDef *d = ops::CannonFindOpDef(op_type);
    if (d == nullptr) {
        cannonOpFail(&op, ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
                     "no operator definition of %s is registered (the package's library lacks its OP_ADD)", op_type);
        return cannonOpFinish(&op);
    }
    if (d->GetInputs().size() != n_in || d->GetOutputs().size() != n_out || d->GetAttrs().size() != n_attrs) {
        cannonOpFail(&op, ACLNN_ERR_INNER, "the definition of %s (%zu inputs, %zu outputs, %zu attributes) differs "
                     "from the generated API (%zu, %zu, %zu): rebuild the package", op_type, d->GetInputs().size(),
                     d->GetOutputs().size(), d->GetAttrs().size(), n_in, n_out, n_attrs);
        return cannonOpFinish(&op);
    }
    const size_t n = n_in + n_out;
    if (n + 2 > CANNON_OPC_MAX_ARGS) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%zu tensors: at most %d are supported", n, CANNON_OPC_MAX_ARGS - 2);
        return cannonOpFinish(&op);
    }
    auto param = [&](size_t i) -> const ops::OpParamDef & {
        return i < n_in ? d->GetInputs()[i] : d->GetOutputs()[i - n_in];
    };
    /* NULL checks first (161001), then each tensor (161002). */
    for (size_t i = 0; i < n; i++)
        if (param(i).GetParamType() != ops::OPTIONAL || i >= n_in)
            cannonOpNotNull(&op, param(i).GetName().c_str(), tensors[i]);
    std::vector<cannon_tensor_view> views(n);
    std::vector<bool> present(n, false);
    const size_t cols = Columns(*d);
    for (size_t i = 0; i < n && cannonOpOk(&op); i++) {
        const char *name = param(i).GetName().c_str();
        if (!cannonOpTensorOpt(&op, name, tensors[i], 0, &views[i]))
            break;
        present[i] = tensors[i] != nullptr;
        if (present[i] && !AnyColumnHas(param(i), cols, static_cast<ge::DataType>(views[i].dtype)))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, which %s does not support: its (%s) "
                         "combinations are %s", name, cannonDtypeName(views[i].dtype), op_type,
                         [&] { std::string s; for (size_t k = 0; k < n; k++) s += (k ? ", " : "") + param(k).GetName(); return s; }().c_str(),
                         ColumnsText(*d, cols).c_str());
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    size_t col = cols;
    for (size_t c = 0; c < cols && col == cols; c++) {
        bool fits = true;
        for (size_t i = 0; i < n && fits; i++)
            fits = !present[i] || DtypeFits(param(i), c, static_cast<ge::DataType>(views[i].dtype));
        if (fits)
            col = c;
    }
    if (col == cols) {
        std::string got;
        for (size_t i = 0; i < n; i++)
            got += (i ? ", " : "") + param(i).GetName() + "=" + (present[i] ? cannonDtypeName(views[i].dtype) : "absent");
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "the dtypes (%s) are no combination %s supports: %s", got.c_str(),
                     op_type, ColumnsText(*d, cols).c_str());
        return cannonOpFinish(&op);
    }
    for (size_t i = 0; i < n; i++)
        if (present[i] && !FormatFits(param(i), col, views[i].format))
            return cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s has format %s; %s takes %s there",
                                param(i).GetName().c_str(), FormatName(views[i].format), op_type,
                                FormatName(param(i).GetFormats().size() == 1 ? param(i).GetFormats()[0]
                                                                               : param(i).GetFormats()[col])),
                   cannonOpFinish(&op);

    /* Attributes. */
    std::vector<gert::RuntimeAttrs::Value> av(n_attrs);
    for (size_t a = 0; a < n_attrs; a++) {
        const auto &ad = d->GetAttrs()[a];
        auto &v = av[a];
        v = gert::RuntimeAttrs::Value{gert::RuntimeAttrs::kNone, false, 0, 0.0f, nullptr};
        switch (ad.GetKind()) {
        case ops::OpAttrDef::kBool: v.kind = gert::RuntimeAttrs::kBool; v.b = attrs[a].b; break;
        case ops::OpAttrDef::kInt: v.kind = gert::RuntimeAttrs::kInt; v.i = attrs[a].i; break;
        case ops::OpAttrDef::kFloat: v.kind = gert::RuntimeAttrs::kFloat; v.f = static_cast<float>(attrs[a].f); break;
        case ops::OpAttrDef::kString:
            if (attrs[a].s == nullptr)
                return cannonOpFail(&op, ACLNN_ERR_PARAM_NULLPTR, "attribute %s is NULL", ad.GetName().c_str()),
                       cannonOpFinish(&op);
            v.kind = gert::RuntimeAttrs::kString;
            v.s = attrs[a].s;
            break;
        default: break;
        }
    }
    gert::RuntimeAttrs rattrs(av.data(), av.size());

    std::unique_ptr<gert::Tensor[]> tin(new gert::Tensor[n_in ? n_in : 1]);
    std::unique_ptr<gert::Tensor[]> tout(new gert::Tensor[n_out ? n_out : 1]);
    std::unique_ptr<bool[]> pin(new bool[n_in ? n_in : 1]);
    for (size_t i = 0; i < n; i++) {
        gert::Tensor *t = i < n_in ? &tin[i] : &tout[i - n_in];
        if (i < n_in)
            pin[i] = present[i];
        if (present[i])
            ToGert(views[i], t);
    }
    gert::CannonOpState st{op_type, op_type, n_in, n_out, tin.get(), pin.get(), tout.get(), &rattrs};

    /* InferDataType and InferShape: the outputs must be what the operator infers. */
    if (d->GetInferDataType()) {
        std::vector<ge::DataType> given(n_out);
        for (size_t o = 0; o < n_out; o++)
            given[o] = tout[o].GetDataType();
        gert::InferDataTypeContext ictx(&st);
        if (d->GetInferDataType()(&ictx) != ge::GRAPH_SUCCESS)
            return cannonOpFail(&op, ACLNN_ERR_INNER_INFERSHAPE_ERROR, "%s's InferDataType failed", op_type),
                   cannonOpFinish(&op);
        for (size_t o = 0; o < n_out; o++)
            if (tout[o].GetDataType() != given[o])
                return cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; %s infers %s",
                                    d->GetOutputs()[o].GetName().c_str(), DtypeName(given[o]), op_type,
                                    DtypeName(tout[o].GetDataType())),
                       cannonOpFinish(&op);
    }
    if (d->GetInferShape()) {
        std::vector<gert::Shape> given(n_out);
        for (size_t o = 0; o < n_out; o++)
            given[o] = tout[o].GetOriginShape();
        gert::InferShapeContext ictx(&st);
        if (d->GetInferShape()(&ictx) != ge::GRAPH_SUCCESS)
            return cannonOpFail(&op, ACLNN_ERR_INNER_INFERSHAPE_ERROR, "%s's InferShape failed", op_type),
                   cannonOpFinish(&op);
        for (size_t o = 0; o < n_out; o++) {
            gert::Shape inferred = tout[o].GetOriginShape();
            if (inferred != given[o])
                return cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s has shape %s; %s infers %s",
                                    d->GetOutputs()[o].GetName().c_str(), ShapeText(given[o]).c_str(), op_type,
                                    ShapeText(inferred).c_str()),
                       cannonOpFinish(&op);
            tout[o].MutableShape().MutableStorageShape() = inferred;
        }
    }

    /* Tiling. */
    const size_t blob_size = sizeof(cannon_opc_blob) + CANNON_OPC_TILING_CAPACITY;
    std::unique_ptr<unsigned char[]> blob(new unsigned char[blob_size]());
    auto *b = reinterpret_cast<cannon_opc_blob *>(blob.get());
    gert::TilingData td(blob.get() + sizeof(cannon_opc_blob), CANNON_OPC_TILING_CAPACITY);
    size_t ws[CANNON_OPC_MAX_WORKSPACES] = {0};
    /* The platform a TilingFunc sees: the SoC CANNON_SOC_VERSION names, else a 910B1. */
    gert::TilingContext tctx(&st, &td, ws, CANNON_OPC_MAX_WORKSPACES, platform_ascendc::cannon_detail::DefaultInfos());
    if (d->GetAICore().GetTiling() == nullptr)
        return cannonOpFail(&op, ACLNN_ERR_INNER_TILING_ERROR, "%s has no TilingFunc (AICore().SetTiling)", op_type),
               cannonOpFinish(&op);
    ge::graphStatus trc;
    try {
        trc = d->GetAICore().GetTiling()(&tctx);
    } catch (...) {
        trc = ge::GRAPH_FAILED;
    }
    if (trc != ge::GRAPH_SUCCESS)
        return cannonOpFail(&op, ACLNN_ERR_INNER_TILING_ERROR, "%s's TilingFunc failed (status %u)", op_type,
                            static_cast<unsigned>(trc)),
               cannonOpFinish(&op);
    if (tctx.GetBlockDim() == 0)
        return cannonOpFail(&op, ACLNN_ERR_INNER_TILING_ERROR, "%s's TilingFunc set no block dim (SetBlockDim)",
                            op_type),
               cannonOpFinish(&op);
    uint64_t ws_total = 0;
    for (size_t w = 0; w < tctx.GetWorkspaceNum(); w++)
        ws_total += ws[w];

    /* The kernel binary of the column. */
    std::string vendor;
    if (!VendorDir(anchor, &vendor))
        return cannonOpFail(&op, ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "cannot locate the package of %s", op_type),
               cannonOpFinish(&op);
    const std::string path = vendor + "/op_impl/ai_core/tbe/kernel/" + kernel + "/" + kernel + "_" +
                             std::to_string(col) + ".so";
    cannon_kernel_fn fn = nullptr;
    {
        std::lock_guard<std::mutex> g(g_kernels_mu);
        auto it = g_kernels.find(path);
        if (it != g_kernels.end()) {
            fn = it->second;
        } else {
            void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (h == nullptr) {
                const char *why = dlerror();
                return cannonOpFail(&op, ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "cannot load the kernel binary of %s "
                                    "for column %zu %s: %s", op_type, col, ColumnsText(*d, col + 1, col).c_str(),
                                    why ? why : path.c_str()),
                       cannonOpFinish(&op);
            }
            fn = reinterpret_cast<cannon_kernel_fn>(dlsym(h, "cannon_opc_kernel"));
            if (fn == nullptr) {
                dlclose(h);
                return cannonOpFail(&op, ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "the kernel binary %s lacks the symbol "
                                    "cannon_opc_kernel (not built by cannon-opc?)", path.c_str()),
                       cannonOpFinish(&op);
            }
            g_kernels[path] = fn;
        }
    }

    /* The launch: tensors, workspace, tiling. */
    std::vector<cannon_arg_ref> refs;
    refs.reserve(n + 1);
    b->tiling_key = tctx.GetTilingKey();
    b->n_args = static_cast<uint32_t>(n + 2);
    b->tiling_index = static_cast<uint32_t>(n + 1);
    b->tiling_offset = static_cast<uint32_t>(sizeof(cannon_opc_blob));
    b->tiling_size = static_cast<uint32_t>(td.GetDataSize());
    for (size_t i = 0; i < n; i++) {
        int slot = i < n_in ? cannonOpInput(&op, tensors[i]) : cannonOpOutput(&op, tensors[i]);
        if (!present[i])
            continue;
        cannon_arg_ref r;
        const uint32_t off = static_cast<uint32_t>(offsetof(cannon_opc_blob, args) + i * sizeof(void *));
        if (!cannonOpBind(&op, slot, i < n_in ? CANNON_BIND_IN : CANNON_BIND_OUT, off, &r))
            return cannonOpFinish(&op);
        refs.push_back(r);
    }
    if (ws_total > 0) {
        uint64_t wo = 0;
        if (!cannonOpWorkspace(&op, ws_total, &wo))
            return cannonOpFinish(&op);
        refs.push_back(cannon_arg_ref{static_cast<uint32_t>(offsetof(cannon_opc_blob, args) + n * sizeof(void *)),
                                      CANNON_SLOT_WORKSPACE, static_cast<int64_t>(wo)});
    }
    cannonOpKernel(&op, kernel, fn, tctx.GetBlockDim(), blob.get(), sizeof(cannon_opc_blob) + td.GetDataSize(),
                   refs.data(), refs.size());
    return cannonOpFinish(&op);
}

}  // namespace

extern "C" aclnnStatus cannonOpcPhase1(const char *api, const char *op_type, const char *kernel, const void *anchor,
                                       const aclTensor *const *tensors, size_t n_inputs, size_t n_outputs,
                                       const cannon_opc_attr *attrs, size_t n_attrs, uint64_t *workspaceSize,
                                       aclOpExecutor **executor)
{
    if (api == nullptr || op_type == nullptr || kernel == nullptr || (tensors == nullptr && n_inputs + n_outputs) ||
        (attrs == nullptr && n_attrs))
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "cannonOpcPhase1: NULL argument");
    try {
        return Phase1(api, op_type, kernel, anchor, tensors, n_inputs, n_outputs, attrs, n_attrs, workspaceSize,
                      executor);
    } catch (const std::bad_alloc &) {
        return cannonReportError(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", api);
    } catch (...) {
        return cannonReportError(ACLNN_ERR_INNER, "%s: the operator's host code threw an exception", api);
    }
}

extern "C" aclnnStatus cannonOpcPhase2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream, const char *api)
{
    return cannonExecutorRun(workspace, workspaceSize, executor, stream, api ? api : "aclnn");
}

extern "C" aclnnStatus cannonOpcInfer(const char *op_type, const aclTensor *const *inputs, size_t n_inputs,
                                      const cannon_opc_attr *attrs, size_t n_attrs, size_t n_outputs,
                                      int32_t *out_dtypes, int64_t *out_dims, uint64_t *out_ndims)
{
    if (op_type == nullptr || (inputs == nullptr && n_inputs) || (attrs == nullptr && n_attrs) ||
        out_dtypes == nullptr || out_dims == nullptr || out_ndims == nullptr)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "cannonOpcInfer: NULL argument");
    try {
        const ops::OpDef *d = ops::CannonFindOpDef(op_type);
        if (d == nullptr)
            return cannonReportError(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "%s: no operator definition is registered",
                                     op_type);
        if (d->GetInputs().size() != n_inputs || d->GetOutputs().size() != n_outputs || d->GetAttrs().size() != n_attrs)
            return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %zu inputs, %zu attributes, %zu outputs expected",
                                     op_type, d->GetInputs().size(), d->GetAttrs().size(), d->GetOutputs().size());
        std::unique_ptr<gert::Tensor[]> tin(new gert::Tensor[n_inputs ? n_inputs : 1]);
        std::unique_ptr<gert::Tensor[]> tout(new gert::Tensor[n_outputs ? n_outputs : 1]);
        std::unique_ptr<bool[]> pin(new bool[n_inputs ? n_inputs : 1]);
        int first = -1;
        for (size_t i = 0; i < n_inputs; i++) {
            cannon_tensor_view v;
            pin[i] = inputs[i] != nullptr && cannonTensorGetView(inputs[i], &v);
            if (pin[i]) {
                ToGert(v, &tin[i]);
                if (first < 0)
                    first = static_cast<int>(i);
            }
        }
        /* Without InferShape / InferDataType an output is shaped and typed as the first input. */
        for (size_t o = 0; o < n_outputs && first >= 0; o++)
            tout[o] = tin[first];
        std::vector<gert::RuntimeAttrs::Value> av(n_attrs);
        for (size_t a = 0; a < n_attrs; a++) {
            av[a] = gert::RuntimeAttrs::Value{gert::RuntimeAttrs::kNone, attrs[a].b, attrs[a].i,
                                              static_cast<float>(attrs[a].f), attrs[a].s};
            switch (d->GetAttrs()[a].GetKind()) {
            case ops::OpAttrDef::kBool: av[a].kind = gert::RuntimeAttrs::kBool; break;
            case ops::OpAttrDef::kInt: av[a].kind = gert::RuntimeAttrs::kInt; break;
            case ops::OpAttrDef::kFloat: av[a].kind = gert::RuntimeAttrs::kFloat; break;
            case ops::OpAttrDef::kString: av[a].kind = gert::RuntimeAttrs::kString; break;
            default: break;
            }
        }
        gert::RuntimeAttrs rattrs(av.data(), av.size());
        gert::CannonOpState st{op_type, op_type, n_inputs, n_outputs, tin.get(), pin.get(), tout.get(), &rattrs};
        if (d->GetInferDataType()) {
            gert::InferDataTypeContext c(&st);
            if (d->GetInferDataType()(&c) != ge::GRAPH_SUCCESS)
                return cannonReportError(ACLNN_ERR_INNER_INFERSHAPE_ERROR, "%s's InferDataType failed", op_type);
        }
        if (d->GetInferShape()) {
            gert::InferShapeContext c(&st);
            if (d->GetInferShape()(&c) != ge::GRAPH_SUCCESS)
                return cannonReportError(ACLNN_ERR_INNER_INFERSHAPE_ERROR, "%s's InferShape failed", op_type);
        }
        for (size_t o = 0; o < n_outputs; o++) {
            const gert::Shape &s = tout[o].GetOriginShape();
            out_dtypes[o] = static_cast<int32_t>(tout[o].GetDataType());
            out_ndims[o] = s.GetDimNum();
            for (size_t k = 0; k < s.GetDimNum(); k++)
                out_dims[o * gert::Shape::kMaxDimNum + k] = s.GetDim(k);
        }
        return ACLNN_SUCCESS;
    } catch (...) {
        return cannonReportError(ACLNN_ERR_INNER, "%s: inferring the outputs failed", op_type);
    }
}
