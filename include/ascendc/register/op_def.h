/**
 * @file register/op_def.h
 * An operator's definition in its host code (ops::OpDef): inputs, outputs and attributes in
 * order, each input/output with its ParamType and its DataType and Format lists (column c of
 * every list is one supported combination, for which the kernel is compiled once), InferShape,
 * InferDataType, and the AI Core configuration (TilingFunc and the SoCs). cannon-opc reads the
 * definitions to generate the aclnn API; phase 1 of that API checks the arguments against them.
 */
#ifndef CANNON_REGISTER_OP_DEF_H_
#define CANNON_REGISTER_OP_DEF_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "exe_graph/runtime/tiling_context.h"
#include "graph/types.h"

namespace gert {
using OpImplTilingFunc = ge::graphStatus (*)(TilingContext *);
using OpImplTilingParseFunc = ge::graphStatus (*)(TilingParseContext *);
using OpImplInferShapeFunc = ge::graphStatus (*)(InferShapeContext *);
using OpImplInferShapeRangeFunc = ge::graphStatus (*)(InferShapeRangeContext *);
using OpImplInferDataTypeFunc = ge::graphStatus (*)(InferDataTypeContext *);
}  // namespace gert

namespace optiling {
using OP_CHECK_FUNC = int32_t (*)(const ge::Operator &, ge::AscendString &);
using PARAM_GENERALIZE_FUNC = int32_t (*)(const ge::Operator &, const ge::AscendString &, ge::AscendString &);
}  // namespace optiling

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };

class OpParamDef {
public:
    explicit OpParamDef(const char *name) : name_(name ? name : "") {}
    OpParamDef &ParamType(Option t)
    {
        param_type_ = t;
        return *this;
    }
    OpParamDef &DataType(std::vector<ge::DataType> types)
    {
        types_ = std::move(types);
        return *this;
    }
    /** Every column takes each of @p types (expanded against the other lists when built). */
    OpParamDef &DataTypeList(std::vector<ge::DataType> types)
    {
        types_ = std::move(types);
        type_list_ = true;
        return *this;
    }
    OpParamDef &Format(std::vector<ge::Format> formats)
    {
        formats_ = std::move(formats);
        return *this;
    }
    OpParamDef &FormatList(std::vector<ge::Format> formats)
    {
        formats_ = std::move(formats);
        format_list_ = true;
        return *this;
    }
    OpParamDef &UnknownShapeFormat(std::vector<ge::Format> formats)
    {
        unknown_formats_ = std::move(formats);
        return *this;
    }
    OpParamDef &ValueDepend(Option v)
    {
        value_depend_ = v;
        return *this;
    }
    OpParamDef &IgnoreContiguous() { return *this; }
    OpParamDef &AutoContiguous() { return *this; }
    OpParamDef &Scalar() { return *this; }
    OpParamDef &ScalarList() { return *this; }
    OpParamDef &Follow(const char *name)
    {
        follow_ = name ? name : "";
        return *this;
    }
    OpParamDef &InitValue(uint64_t) { return *this; }

    const std::string &GetName() const { return name_; }
    Option GetParamType() const { return param_type_; }
    const std::vector<ge::DataType> &GetDataTypes() const { return types_; }
    const std::vector<ge::Format> &GetFormats() const { return formats_; }
    bool IsDataTypeList() const { return type_list_; }
    bool IsFormatList() const { return format_list_; }
    const std::string &GetFollow() const { return follow_; }

private:
    std::string name_;
    Option param_type_ = REQUIRED;
    std::vector<ge::DataType> types_;
    std::vector<ge::Format> formats_;
    std::vector<ge::Format> unknown_formats_;
    Option value_depend_ = IGNORE;
    bool type_list_ = false;
    bool format_list_ = false;
    std::string follow_;
};

class OpAttrDef {
public:
    enum Kind { kUnset = 0, kBool, kInt, kFloat, kString };
    explicit OpAttrDef(const char *name) : name_(name ? name : "") {}
    OpAttrDef &AttrType(Option t)
    {
        attr_type_ = t;
        return *this;
    }
    OpAttrDef &Bool() { return SetKind(kBool); }
    OpAttrDef &Bool(bool v)
    {
        b_ = v;
        return SetKind(kBool);
    }
    OpAttrDef &Int() { return SetKind(kInt); }
    OpAttrDef &Int(int64_t v)
    {
        i_ = v;
        return SetKind(kInt);
    }
    OpAttrDef &Float() { return SetKind(kFloat); }
    OpAttrDef &Float(float v)
    {
        f_ = v;
        return SetKind(kFloat);
    }
    OpAttrDef &String() { return SetKind(kString); }
    OpAttrDef &String(const char *v)
    {
        s_ = v ? v : "";
        return SetKind(kString);
    }
    OpAttrDef &Comment(const char *) { return *this; }

    const std::string &GetName() const { return name_; }
    Option GetAttrType() const { return attr_type_; }
    Kind GetKind() const { return kind_; }
    bool GetBool() const { return b_; }
    int64_t GetInt() const { return i_; }
    float GetFloat() const { return f_; }
    const std::string &GetString() const { return s_; }

private:
    OpAttrDef &SetKind(Kind k)
    {
        kind_ = k;
        return *this;
    }
    std::string name_;
    Option attr_type_ = REQUIRED;
    Kind kind_ = kUnset;
    bool b_ = false;
    int64_t i_ = 0;
    float f_ = 0.0f;
    std::string s_;
};

/** Per-SoC settings; accepted for source compatibility (every SoC runs the same code on cannon). */
class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char *) {}
    OpAICoreConfig &AsyncFlag(bool) { return *this; }
    OpAICoreConfig &DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig &DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig &DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig &DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig &NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig &PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig &RangeLimitValue(const char *) { return *this; }
    OpAICoreConfig &ExtendCfgInfo(const char *, const char *) { return *this; }
};

class OpAICoreDef {
public:
    OpAICoreDef &SetTiling(gert::OpImplTilingFunc f)
    {
        tiling_ = f;
        return *this;
    }
    OpAICoreDef &SetTilingParse(gert::OpImplTilingParseFunc) { return *this; }
    OpAICoreDef &SetCheckSupport(optiling::OP_CHECK_FUNC) { return *this; }
    OpAICoreDef &SetOpSelectFormat(optiling::OP_CHECK_FUNC) { return *this; }
    OpAICoreDef &SetOpSupportInfo(optiling::OP_CHECK_FUNC) { return *this; }
    OpAICoreDef &SetParamGeneralize(optiling::PARAM_GENERALIZE_FUNC) { return *this; }
    OpAICoreDef &AddConfig(const char *soc)
    {
        socs_.emplace_back(soc ? soc : "");
        return *this;
    }
    OpAICoreDef &AddConfig(const char *soc, OpAICoreConfig &) { return AddConfig(soc); }

    gert::OpImplTilingFunc GetTiling() const { return tiling_; }
    const std::vector<std::string> &GetSocs() const { return socs_; }

private:
    gert::OpImplTilingFunc tiling_ = nullptr;
    std::vector<std::string> socs_;
};

class OpDef {
public:
    explicit OpDef(const char *type) : type_(type ? type : "") {}
    virtual ~OpDef() = default;
    OpDef(const OpDef &) = default;
    OpDef &operator=(const OpDef &) = default;

    OpParamDef &Input(const char *name) { return Param(inputs_, name); }
    OpParamDef &Output(const char *name) { return Param(outputs_, name); }
    OpAttrDef &Attr(const char *name)
    {
        for (auto &a : attrs_)
            if (a.GetName() == name)
                return a;
        attrs_.emplace_back(name);
        return attrs_.back();
    }
    OpDef &SetInferShape(gert::OpImplInferShapeFunc f)
    {
        infer_shape_ = f;
        return *this;
    }
    OpDef &SetInferShapeRange(gert::OpImplInferShapeRangeFunc) { return *this; }
    OpDef &SetInferDataType(gert::OpImplInferDataTypeFunc f)
    {
        infer_dtype_ = f;
        return *this;
    }
    OpAICoreDef &AICore() { return aicore_; }

    const std::string &GetOpType() const { return type_; }
    const std::vector<OpParamDef> &GetInputs() const { return inputs_; }
    const std::vector<OpParamDef> &GetOutputs() const { return outputs_; }
    const std::vector<OpAttrDef> &GetAttrs() const { return attrs_; }
    gert::OpImplInferShapeFunc GetInferShape() const { return infer_shape_; }
    gert::OpImplInferDataTypeFunc GetInferDataType() const { return infer_dtype_; }
    const OpAICoreDef &GetAICore() const { return aicore_; }

private:
    static OpParamDef &Param(std::vector<OpParamDef> &v, const char *name)
    {
        for (auto &p : v)
            if (p.GetName() == (name ? name : ""))
                return p;
        v.emplace_back(name);
        return v.back();
    }
    std::string type_;
    std::vector<OpParamDef> inputs_;
    std::vector<OpParamDef> outputs_;
    std::vector<OpAttrDef> attrs_;
    gert::OpImplInferShapeFunc infer_shape_ = nullptr;
    gert::OpImplInferDataTypeFunc infer_dtype_ = nullptr;
    OpAICoreDef aicore_;
};

}  // namespace ops

#endif /* CANNON_REGISTER_OP_DEF_H_ */
