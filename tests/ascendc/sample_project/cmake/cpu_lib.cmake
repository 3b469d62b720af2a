# CPU-debug mode: the tikicpulib package from the prefix.
set(CMAKE_PREFIX_PATH ${ASCEND_CANN_PACKAGE_PATH}/tools/tikicpulib/lib/cmake)
find_package(tikicpulib REQUIRED)
add_library(kernels_cpu SHARED ${KERNEL_FILES})
target_link_libraries(kernels_cpu PRIVATE tikicpulib::${SOC_VERSION})
target_compile_options(kernels_cpu PRIVATE -g -O0 -std=c++17)
