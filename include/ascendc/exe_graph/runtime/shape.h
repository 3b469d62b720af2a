/**
 * @file exe_graph/runtime/shape.h
 * gert::Shape (up to 25 dims, as CANN's) and gert::StorageShape (origin and storage shape; the
 * same on cannon, where every tensor is stored in its own format).
 */
#ifndef CANNON_EXE_GRAPH_SHAPE_H_
#define CANNON_EXE_GRAPH_SHAPE_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace gert {

class Shape {
public:
    static constexpr size_t kMaxDimNum = 25;
    static constexpr int64_t kInvalidDimValue = INT64_MIN;

    Shape() = default;
    Shape(std::initializer_list<int64_t> dims)
    {
        for (int64_t d : dims)
            AppendDim(d);
    }
    size_t GetDimNum() const { return dim_num_; }
    void SetDimNum(size_t n) { dim_num_ = n > kMaxDimNum ? kMaxDimNum : n; }
    int64_t GetDim(size_t i) const { return i < dim_num_ ? dims_[i] : kInvalidDimValue; }
    void SetDim(size_t i, int64_t v)
    {
        if (i < dim_num_)
            dims_[i] = v;
    }
    Shape &AppendDim(int64_t v)
    {
        if (dim_num_ < kMaxDimNum)
            dims_[dim_num_++] = v;
        return *this;
    }
    bool IsScalar() const { return dim_num_ == 0; }
    /** The number of elements (1 for a scalar; -1 when a dim is negative). */
    int64_t GetShapeSize() const
    {
        int64_t n = 1;
        for (size_t i = 0; i < dim_num_; i++) {
            if (dims_[i] < 0)
                return -1;
            n *= dims_[i];
        }
        return n;
    }
    const int64_t &operator[](size_t i) const { return dims_[i]; }
    int64_t &operator[](size_t i) { return dims_[i]; }
    bool operator==(const Shape &o) const
    {
        if (dim_num_ != o.dim_num_)
            return false;
        for (size_t i = 0; i < dim_num_; i++)
            if (dims_[i] != o.dims_[i])
                return false;
        return true;
    }
    bool operator!=(const Shape &o) const { return !(*this == o); }

private:
    size_t dim_num_ = 0;
    int64_t dims_[kMaxDimNum] = {};
};

class StorageShape {
public:
    StorageShape() = default;
    StorageShape(const Shape &origin, const Shape &storage) : origin_(origin), storage_(storage) {}
    const Shape &GetOriginShape() const { return origin_; }
    const Shape &GetStorageShape() const { return storage_; }
    Shape &MutableOriginShape() { return origin_; }
    Shape &MutableStorageShape() { return storage_; }

private:
    Shape origin_;
    Shape storage_;
};

}  // namespace gert

#endif /* CANNON_EXE_GRAPH_SHAPE_H_ */
