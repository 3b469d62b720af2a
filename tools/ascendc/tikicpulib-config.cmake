# The tikicpulib package of CANN's CPU-debug mode, installed where CANN's kernel-launch samples
# look for it (<prefix>/tools/tikicpulib/lib/cmake, with CMAKE_PREFIX_PATH pointing there):
#
#   find_package(tikicpulib REQUIRED)
#   add_library(kernels SHARED add_custom.cpp)
#   target_link_libraries(kernels PRIVATE tikicpulib::${SOC_VERSION})
#
# Linking tikicpulib::<SoC> compiles with the host compiler against cannon's Ascend C headers
# (<prefix>/include/ascendc, so "kernel_operator.h" and "tikicpulib.h" are found, and
# <prefix>/include for acl/), defines what CANN's CPU-debug build defines (__CCE_KT_TEST__,
# ASCENDC_CPU_DEBUG and the SoC's __NPU_ARCH__), needs C++17, links libcannon_ascendc and
# libascendcl, and puts <prefix>/lib64 on the link path, so the libraries the samples name
# (ascendcl, c_sec, tiling_api, register, platform, ascendalog) link by name.
#
# Targets: tikicpulib::tikicpulib (every SoC's common part) and one per SoC name CANN's samples
# pass: the products (Ascend910B1, Ascend310P3, ...), the series they map them to (Ascend910A,
# Ascend310P1, Ascend910B1, Ascend310B1) and the older lower-case names (ascend910, ...).
# Every SoC runs the same code: only __NPU_ARCH__ differs.
if(TARGET tikicpulib::tikicpulib)
  return()
endif()
if(CMAKE_VERSION VERSION_LESS 3.13)
  message(FATAL_ERROR "tikicpulib needs CMake 3.13 or later")
endif()

get_filename_component(_tikicpulib_prefix "${CMAKE_CURRENT_LIST_DIR}/../../../.." ABSOLUTE)
if(EXISTS "${_tikicpulib_prefix}/lib64/libcannon_ascendc.so")
  set(_tikicpulib_libdir "${_tikicpulib_prefix}/lib64")
elseif(EXISTS "${_tikicpulib_prefix}/lib/libcannon_ascendc.so")
  set(_tikicpulib_libdir "${_tikicpulib_prefix}/lib")
else()
  set(tikicpulib_FOUND FALSE)
  set(tikicpulib_NOT_FOUND_MESSAGE
      "libcannon_ascendc.so is not in ${_tikicpulib_prefix}/lib64 or lib: is cannon installed there?")
  return()
endif()

add_library(tikicpulib::tikicpulib INTERFACE IMPORTED)
set_target_properties(tikicpulib::tikicpulib PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${_tikicpulib_prefix}/include/ascendc;${_tikicpulib_prefix}/include"
  INTERFACE_COMPILE_DEFINITIONS "__CCE_KT_TEST__=1;ASCENDC_CPU_DEBUG=1"
  INTERFACE_COMPILE_FEATURES cxx_std_17
  INTERFACE_LINK_DIRECTORIES "${_tikicpulib_libdir}"
  INTERFACE_LINK_LIBRARIES "${_tikicpulib_libdir}/libcannon_ascendc.so;${_tikicpulib_libdir}/libascendcl.so")

# SoC name -> __NPU_ARCH__ of its series.
set(_tikicpulib_socs
  Ascend910A=1001 Ascend910B=1001 Ascend910ProA=1001 Ascend910ProB=1001 Ascend910PremiumA=1001
  ascend910=1001
  Ascend310P1=2002 Ascend310P3=2002 Ascend310P5=2002 Ascend310P7=2002 ascend310p=2002
  Ascend910B1=2201 Ascend910B2=2201 Ascend910B2C=2201 Ascend910B3=2201 Ascend910B4=2201 Ascend910B4-1=2201
  ascend910b=2201 ascend910B1=2201
  Ascend910_9391=2201 Ascend910_9392=2201 Ascend910_9381=2201 Ascend910_9382=2201
  Ascend910_9372=2201 Ascend910_9362=2201
  Ascend310B1=3002 Ascend310B2=3002 Ascend310B3=3002 Ascend310B4=3002 ascend310B1=3002)
foreach(_tikicpulib_soc IN LISTS _tikicpulib_socs)
  string(REPLACE "=" ";" _tikicpulib_pair "${_tikicpulib_soc}")
  list(GET _tikicpulib_pair 0 _tikicpulib_name)
  list(GET _tikicpulib_pair 1 _tikicpulib_arch)
  add_library(tikicpulib::${_tikicpulib_name} INTERFACE IMPORTED)
  set_target_properties(tikicpulib::${_tikicpulib_name} PROPERTIES
    INTERFACE_LINK_LIBRARIES tikicpulib::tikicpulib
    INTERFACE_COMPILE_DEFINITIONS "__NPU_ARCH__=${_tikicpulib_arch}")
endforeach()
set(tikicpulib_FOUND TRUE)
unset(_tikicpulib_soc)
unset(_tikicpulib_pair)
unset(_tikicpulib_name)
unset(_tikicpulib_arch)
