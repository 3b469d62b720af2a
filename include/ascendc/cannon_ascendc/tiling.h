/**
 * @file cannon_ascendc/tiling.h
 * Tiling data on both sides. The host side declares a tiling class with
 *
 *     BEGIN_TILING_DATA_DEF(AddCustomTilingData)
 *     TILING_DATA_FIELD_DEF(uint32_t, totalLength);
 *     TILING_DATA_FIELD_DEF(uint32_t, tileNum);
 *     END_TILING_DATA_DEF;
 *     REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
 *
 * which gives set_totalLength/get_totalLength, SaveToBuffer and GetDataSize. The class is packed
 * (no padding, the layout CANN's kernel-side struct has), with its fields public under their own
 * names, so the same declaration is the kernel-side struct: GET_TILING_DATA(tilingData, tiling)
 * declares a copy of the registered class read from the tiling pointer, and
 * GET_TILING_DATA_WITH_STRUCT(Struct, tilingData, tiling) one of a named struct.
 */
#ifndef CANNON_ASCENDC_TILING_H_
#define CANNON_ASCENDC_TILING_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#define BEGIN_TILING_DATA_DEF(class_name)                                                                            \
    class __attribute__((packed)) class_name {                                                                       \
    public:                                                                                                          \
        using CannonTilingSelf = class_name;                                                                         \
        bool SaveToBuffer(void *cannon_buf, size_t cannon_cap) const                                                 \
        {                                                                                                            \
            if (cannon_buf == nullptr || cannon_cap < sizeof(class_name))                                            \
                return false;                                                                                        \
            std::memcpy(cannon_buf, this, sizeof(class_name));                                                       \
            return true;                                                                                             \
        }                                                                                                            \
        size_t GetDataSize() const { return sizeof(class_name); }

#define TILING_DATA_FIELD_DEF(data_type, field_name)                                                                 \
    data_type field_name = data_type();                                                                              \
    void set_##field_name(data_type cannon_v) { field_name = cannon_v; }                                             \
    data_type get_##field_name() const { return field_name; }

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                                    \
    arr_type field_name[arr_size] = {};                                                                              \
    void set_##field_name(const arr_type *cannon_v)                                                                  \
    {                                                                                                                \
        std::memcpy(field_name, cannon_v, sizeof(field_name));                                                       \
    }                                                                                                                \
    const arr_type *get_##field_name() const { return field_name; }

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                                                        \
    struct_type field_name;                                                                                          \
    void set_##field_name(const struct_type &cannon_v) { field_name = cannon_v; }

#define END_TILING_DATA_DEF }

/** Registers @p class_name as @p op_type's tiling class; in a kernel source it is also what
 *  GET_TILING_DATA declares (one registration per kernel translation unit). */
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                                              \
    namespace cannon_ascendc_tiling {                                                                                \
    using op_type = class_name;                                                                                      \
    using Default = class_name;                                                                                      \
    }

#define GET_TILING_DATA_WITH_STRUCT(struct_name, tiling_data, tiling_arg)                                            \
    struct_name tiling_data;                                                                                         \
    std::memcpy(&(tiling_data), reinterpret_cast<const void *>(tiling_arg), sizeof(struct_name))

#ifndef CANNON_ASCENDC_TILING_TYPE
#define CANNON_ASCENDC_TILING_TYPE ::cannon_ascendc_tiling::Default
#endif
#define GET_TILING_DATA(tiling_data, tiling_arg)                                                                     \
    GET_TILING_DATA_WITH_STRUCT(CANNON_ASCENDC_TILING_TYPE, tiling_data, tiling_arg)

/** TILING_KEY_IS(k): whether the launch's tiling key is k. */
#define TILING_KEY_IS(key)                                                                                           \
    (cannonAscendcCurrentBlock() != nullptr && cannonAscendcCurrentBlock()->tiling_key == static_cast<uint64_t>(key))

#endif /* CANNON_ASCENDC_TILING_H_ */
