/** @file exe_graph/runtime/infer_shape_context.h  gert::InferShapeContext (see tiling_context.h). */
#ifndef CANNON_EXE_GRAPH_INFER_SHAPE_CONTEXT_H_
#define CANNON_EXE_GRAPH_INFER_SHAPE_CONTEXT_H_
#include "exe_graph/runtime/tiling_context.h"
#endif
