/**
 * @file exe_graph/runtime/tiling_context.h
 * The contexts an operator's host code receives from phase 1 of its aclnn API: gert::TilingContext
 * (TilingFunc), gert::InferShapeContext (InferShape), gert::InferDataTypeContext (InferDataType)
 * and gert::TilingParseContext. On cannon they are plain views of what phase 1 built (the
 * tensors' shapes, dtypes and formats in OpDef order, the attributes, the tiling buffer and the
 * workspace sizes); the accessors have CANN's names and return NULL for an index out of range.
 */
#ifndef CANNON_EXE_GRAPH_TILING_CONTEXT_H_
#define CANNON_EXE_GRAPH_TILING_CONTEXT_H_

#include <cstddef>
#include <cstdint>

#include "exe_graph/runtime/shape.h"
#include "graph/types.h"

#include "platform/platform_infos_def.h" /* fe::PlatFormInfos: what platform_ascendc reads */

namespace gert {

/** A tensor's dtype and formats as the compiler sees them. */
class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetOriginFormat() const { return format_; }
    ge::Format GetStorageFormat() const { return format_; }
    void SetDataType(ge::DataType t) { dtype_ = t; }
    void SetFormat(ge::Format f) { format_ = f; }

private:
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    ge::Format format_ = ge::FORMAT_ND;
};

/** A runtime tensor: its shapes, dtype, format and (device) address. */
class Tensor {
public:
    const StorageShape &GetShape() const { return shape_; }
    StorageShape &MutableShape() { return shape_; }
    const Shape &GetOriginShape() const { return shape_.GetOriginShape(); }
    const Shape &GetStorageShape() const { return shape_.GetStorageShape(); }
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    ge::DataType GetDataType() const { return desc_.GetDataType(); }
    ge::Format GetOriginFormat() const { return desc_.GetOriginFormat(); }
    ge::Format GetStorageFormat() const { return desc_.GetStorageFormat(); }
    CompileTimeTensorDesc &MutableDesc() { return desc_; }
    const CompileTimeTensorDesc &GetDesc() const { return desc_; }
    /** The tensor's address (device memory; on cannon's CPU devices host-addressable). */
    template <class T>
    const T *GetData() const { return static_cast<const T *>(addr_); }
    const void *GetAddr() const { return addr_; }
    void SetAddr(void *a) { addr_ = a; }

private:
    StorageShape shape_;
    CompileTimeTensorDesc desc_;
    void *addr_ = nullptr;
};

/** An operator's attribute values, in OpDef order. */
class RuntimeAttrs {
public:
    enum Kind { kNone = 0, kBool, kInt, kFloat, kString };
    struct Value {
        Kind kind;
        bool b;
        int64_t i;
        float f;
        const char *s;
    };
    RuntimeAttrs(const Value *values, size_t n) : values_(values), n_(n) {}
    size_t GetAttrNum() const { return n_; }
    const int64_t *GetInt(size_t i) const { return i < n_ && values_[i].kind == kInt ? &values_[i].i : nullptr; }
    const float *GetFloat(size_t i) const { return i < n_ && values_[i].kind == kFloat ? &values_[i].f : nullptr; }
    const bool *GetBool(size_t i) const { return i < n_ && values_[i].kind == kBool ? &values_[i].b : nullptr; }
    const char *GetStr(size_t i) const { return i < n_ && values_[i].kind == kString ? values_[i].s : nullptr; }
    template <class T>
    const T *GetAttrPointer(size_t i) const;

private:
    const Value *values_;
    size_t n_;
};
template <>
inline const int64_t *RuntimeAttrs::GetAttrPointer<int64_t>(size_t i) const { return GetInt(i); }
template <>
inline const float *RuntimeAttrs::GetAttrPointer<float>(size_t i) const { return GetFloat(i); }
template <>
inline const bool *RuntimeAttrs::GetAttrPointer<bool>(size_t i) const { return GetBool(i); }
template <>
inline const char *RuntimeAttrs::GetAttrPointer<char>(size_t i) const { return GetStr(i); }

/** The buffer a TilingFunc writes its tiling data into. */
class TilingData {
public:
    TilingData(void *data, size_t capacity) : data_(data), capacity_(capacity) {}
    void *GetData() { return data_; }
    const void *GetData() const { return data_; }
    size_t GetCapacity() const { return capacity_; }
    size_t GetDataSize() const { return size_; }
    void SetDataSize(size_t n) { size_ = n <= capacity_ ? n : capacity_; }

private:
    void *data_;
    size_t capacity_;
    size_t size_ = 0;
};

/** What the contexts of one phase 1 share: the operator's tensors and attributes. */
struct CannonOpState {
    const char *node_name;
    const char *node_type;
    size_t n_inputs;
    size_t n_outputs;
    Tensor *inputs;  /**< NULL entries' shapes are empty (absent optional inputs) */
    bool *input_present;
    Tensor *outputs;
    const RuntimeAttrs *attrs;
};

class CannonContextBase {
public:
    explicit CannonContextBase(CannonOpState *s) : s_(s) {}
    const char *GetNodeName() const { return s_->node_name; }
    const char *GetNodeType() const { return s_->node_type; }
    size_t GetComputeNodeInputNum() const { return s_->n_inputs; }
    size_t GetComputeNodeOutputNum() const { return s_->n_outputs; }
    const RuntimeAttrs *GetAttrs() const { return s_->attrs; }
    const CompileTimeTensorDesc *GetInputDesc(size_t i) const { return In(i) ? &In(i)->GetDesc() : nullptr; }
    const CompileTimeTensorDesc *GetOptionalInputDesc(size_t i) const { return GetInputDesc(i); }
    const CompileTimeTensorDesc *GetOutputDesc(size_t i) const
    {
        return i < s_->n_outputs ? &s_->outputs[i].GetDesc() : nullptr;
    }

protected:
    const Tensor *In(size_t i) const { return i < s_->n_inputs && s_->input_present[i] ? &s_->inputs[i] : nullptr; }
    CannonOpState *s_;
};

class TilingContext : public CannonContextBase {
public:
    TilingContext(CannonOpState *s, TilingData *tiling, size_t *ws, size_t ws_cap, fe::PlatFormInfos *platform)
        : CannonContextBase(s), tiling_(tiling), ws_(ws), ws_cap_(ws_cap), platform_(platform)
    {
    }
    const StorageShape *GetInputShape(size_t i) const { return In(i) ? &In(i)->GetShape() : nullptr; }
    const StorageShape *GetOptionalInputShape(size_t i) const { return GetInputShape(i); }
    const StorageShape *GetOutputShape(size_t i) const
    {
        return i < s_->n_outputs ? &s_->outputs[i].GetShape() : nullptr;
    }
    const Tensor *GetInputTensor(size_t i) const { return In(i); }
    const Tensor *GetOptionalInputTensor(size_t i) const { return In(i); }
    TilingData *GetRawTilingData() { return tiling_; }
    /** The tiling buffer viewed as @p T (newer style: the TilingFunc fills the struct in place). */
    template <class T>
    T *GetTilingData()
    {
        if (sizeof(T) > tiling_->GetCapacity())
            return nullptr;
        tiling_->SetDataSize(sizeof(T));
        return static_cast<T *>(tiling_->GetData());
    }
    ge::graphStatus SetBlockDim(uint32_t n)
    {
        block_dim_ = n;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetBlockDim() const { return block_dim_; }
    ge::graphStatus SetTilingKey(uint64_t k)
    {
        tiling_key_ = k;
        return ge::GRAPH_SUCCESS;
    }
    uint64_t GetTilingKey() const { return tiling_key_; }
    ge::graphStatus SetScheduleMode(uint32_t m)
    {
        schedule_mode_ = m;
        return ge::GRAPH_SUCCESS;
    }
    /** The first @p n workspace sizes, in bytes, for the TilingFunc to fill (NULL beyond the
     *  supported count); the operator's workspace is their sum. */
    size_t *GetWorkspaceSizes(size_t n)
    {
        if (n > ws_cap_)
            return nullptr;
        if (n > ws_num_)
            ws_num_ = n;
        return ws_;
    }
    size_t GetWorkspaceNum() const { return ws_num_; }
    fe::PlatFormInfos *GetPlatformInfo() const { return platform_; }
    template <class T>
    const T *GetCompileInfo() const { return nullptr; }

private:
    TilingData *tiling_;
    size_t *ws_;
    size_t ws_cap_;
    size_t ws_num_ = 0;
    fe::PlatFormInfos *platform_;
    uint32_t block_dim_ = 0;
    uint64_t tiling_key_ = 0;
    uint32_t schedule_mode_ = 0;
};

class InferShapeContext : public CannonContextBase {
public:
    using CannonContextBase::CannonContextBase;
    const Shape *GetInputShape(size_t i) const { return In(i) ? &In(i)->GetOriginShape() : nullptr; }
    const Shape *GetOptionalInputShape(size_t i) const { return GetInputShape(i); }
    const Tensor *GetInputTensor(size_t i) const { return In(i); }
    Shape *GetOutputShape(size_t i)
    {
        return i < s_->n_outputs ? &s_->outputs[i].MutableShape().MutableOriginShape() : nullptr;
    }
};

class InferDataTypeContext : public CannonContextBase {
public:
    using CannonContextBase::CannonContextBase;
    ge::DataType GetInputDataType(size_t i) const { return In(i) ? In(i)->GetDataType() : ge::DT_UNDEFINED; }
    ge::DataType GetOptionalInputDataType(size_t i) const { return GetInputDataType(i); }
    ge::DataType GetOutputDataType(size_t i) const
    {
        return i < s_->n_outputs ? s_->outputs[i].GetDataType() : ge::DT_UNDEFINED;
    }
    ge::graphStatus SetOutputDataType(size_t i, ge::DataType t)
    {
        if (i >= s_->n_outputs)
            return ge::GRAPH_FAILED;
        s_->outputs[i].MutableDesc().SetDataType(t);
        return ge::GRAPH_SUCCESS;
    }
};

/** Compile-info parsing (TilingParse); nothing to parse on cannon. */
class TilingParseContext {
public:
    template <class T>
    T *GetCompiledInfo() { return nullptr; }
    fe::PlatFormInfos *GetPlatformInfo() const { return nullptr; }
};

class InferShapeRangeContext;

}  // namespace gert

#endif /* CANNON_EXE_GRAPH_TILING_CONTEXT_H_ */
