# NPU mode: CANN's kernel CMake module from the prefix.
include(${ASCEND_CANN_PACKAGE_PATH}/tools/tikcpp/ascendc_kernel_cmake/ascendc.cmake)
ascendc_library(kernels_npu SHARED ${KERNEL_FILES})
ascendc_compile_definitions(kernels_npu PRIVATE $<$<BOOL:$<IN_LIST:${SOC_VERSION},Ascend310P1>>:UNUSED_310P> -DASCENDC_DUMP)
