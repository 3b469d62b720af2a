/**
 * @file register/op_def_registry.h
 * What an operator's host code includes: the OpDef API (register/op_def.h), the contexts
 * (exe_graph/runtime/tiling_context.h), the tiling-data macros (register/tilingdata_base.h) and
 * OP_ADD(OpType), which registers `ops::OpType` (a class derived from OpDef whose constructor
 * takes the type name) with libcannon_opdef when the library holding it is loaded.
 */
#ifndef CANNON_REGISTER_OP_DEF_REGISTRY_H_
#define CANNON_REGISTER_OP_DEF_REGISTRY_H_

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "exe_graph/runtime/tiling_context.h"
#include "graph/types.h"
#include "register/op_def.h"
#include "register/tilingdata_base.h"

namespace ops {

using OpDefCreator = OpDef *(*)(const char *);

/** Registers @p creator for @p type; the definition is built on first use. Returns 0. */
int CannonRegisterOpDef(const char *type, OpDefCreator creator);
/** The definition registered as @p type, or NULL. */
const OpDef *CannonFindOpDef(const char *type);

template <class T>
OpDef *CannonCreateOpDef(const char *type)
{
    return new T(type);
}

}  // namespace ops

/** OP_ADD(OpType[, CompileInfo]): register ops::OpType (written inside namespace ops). */
#define OP_ADD(...) CANNON_OP_ADD_(__VA_ARGS__, unused)
#define CANNON_OP_ADD_(opType, ...)                                                                                  \
    static int g_cannon_op_def_##opType __attribute__((unused)) =                                                    \
        ::ops::CannonRegisterOpDef(#opType, &::ops::CannonCreateOpDef<opType>)

#endif /* CANNON_REGISTER_OP_DEF_REGISTRY_H_ */
