/**
 * @file graph/types.h
 * The graph engine's data types, formats and status codes as the OpDef API and the tiling
 * contexts use them. The enumerators have CANN's values (ge::DataType matches aclDataType,
 * ge::Format matches aclFormat for the formats both define).
 */
#ifndef CANNON_GRAPH_TYPES_H_
#define CANNON_GRAPH_TYPES_H_

#include <cstdint>
#include <cstring>
#include <string>

namespace ge {

using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFFu;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649u;

enum DataType {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT32 = 8,
    DT_INT64 = 9,
    DT_UINT64 = 10,
    DT_DOUBLE = 11,
    DT_BOOL = 12,
    DT_STRING = 13,
    DT_DUAL_SUB_INT8 = 14,
    DT_DUAL_SUB_UINT8 = 15,
    DT_COMPLEX64 = 16,
    DT_COMPLEX128 = 17,
    DT_QINT8 = 18,
    DT_QINT16 = 19,
    DT_QINT32 = 20,
    DT_QUINT8 = 21,
    DT_QUINT16 = 22,
    DT_RESOURCE = 23,
    DT_STRING_REF = 24,
    DT_DUAL = 25,
    DT_VARIANT = 26,
    DT_BF16 = 27,
    DT_UNDEFINED = 28,
    DT_INT4 = 29,
    DT_UINT1 = 30,
    DT_INT2 = 31,
    DT_UINT2 = 32,
    DT_COMPLEX32 = 33,
    DT_MAX
};

enum Format {
    FORMAT_NCHW = 0,
    FORMAT_NHWC = 1,
    FORMAT_ND = 2,
    FORMAT_NC1HWC0 = 3,
    FORMAT_FRACTAL_Z = 4,
    FORMAT_NC1HWC0_C04 = 12,
    FORMAT_HWCN = 16,
    FORMAT_NDHWC = 27,
    FORMAT_FRACTAL_NZ = 29,
    FORMAT_NCDHW = 30,
    FORMAT_NDC1HWC0 = 32,
    FORMAT_FRACTAL_Z_3D = 33,
    FORMAT_NC = 35,
    FORMAT_NCL = 47,
    FORMAT_RESERVED = 255
};

/** A string owned by value (the graph engine's string type in OpDef and check-support calls). */
class AscendString {
public:
    AscendString() = default;
    AscendString(const char *s) : s_(s ? s : "") {}  // NOLINT: implicit, as CANN's
    const char *GetString() const { return s_.c_str(); }
    size_t GetLength() const { return s_.size(); }
    bool operator==(const AscendString &o) const { return s_ == o.s_; }
    bool operator<(const AscendString &o) const { return s_ < o.s_; }

private:
    std::string s_;
};

class Operator;

}  // namespace ge

#endif /* CANNON_GRAPH_TYPES_H_ */
