# cannon's Ascend C kernel module, installed as <prefix>/tools/tikcpp/ascendc_kernel_cmake/ascendc.cmake
# where CANN's kernel-launch projects include it from (ASCEND_CANN_PACKAGE_PATH = the cannon prefix):
#
#   include(${ASCEND_CANN_PACKAGE_PATH}/tools/tikcpp/ascendc_kernel_cmake/ascendc.cmake)
#   ascendc_library(kernels SHARED add_custom.cpp)          # or STATIC
#   ascendc_compile_definitions(kernels PRIVATE -DMY_FLAG)
#   add_executable(app main.cpp)
#   target_link_libraries(app PRIVATE host_intf_pub kernels)
#
# Kernel sources are compiled by the project's C++ compiler as C++17 against cannon's Ascend C
# header library, and run on cannon's devices. For every kernel entry k of a source
# (`extern "C" __global__ __aicore__ void k(...)`), ascendc_launch_gen.py writes
# aclrtlaunch_k.h into <build>/include/<target> (installed to <install prefix>/include/<target>),
# which the library's users get on their include path, and a stub that makes
# ACLRT_LAUNCH_KERNEL(k)(blockDim, stream, args...) enqueue the kernel on the stream.
#
# The launch headers are generated when the project is configured; a kernel source is a
# configure dependency, so editing one regenerates them on the next build.
#
# Variables read:
#   CANNON_ASCENDC_CHECK   1 compiles the kernels with the checker (docs/ascendc.md), 0 (default)
#                          without it: the fast mode.
#   SOC_VERSION            sets the kernels' __NPU_ARCH__ (2201 for the Ascend910B/910_93 series,
#                          2002 Ascend310P, 3002 Ascend310B, 1001 Ascend910A); with 2201 a MIX kernel
#                          (Matmul API) runs two vector blocks per AI core of blockDim.
#   RUN_MODE               accepted (CANN's projects set it).
# Targets defined:
#   host_intf_pub          CANN's host interface target: <prefix>/include and <prefix>/include/ascendc
#                          on the include path,
#                          <prefix>/lib64 on the link path (so `ascendcl` links by name).
include_guard(GLOBAL)
if(CMAKE_VERSION VERSION_LESS 3.16)
  message(FATAL_ERROR "ascendc.cmake needs CMake 3.16 or later")
endif()
include(GNUInstallDirs)

get_filename_component(_cannon_ascendc_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(_cannon_ascendc_gen "${CMAKE_CURRENT_LIST_DIR}/ascendc_launch_gen.py")

if(NOT TARGET cannon::ascendc)
  find_package(cannon CONFIG REQUIRED PATHS "${_cannon_ascendc_prefix}" NO_DEFAULT_PATH)
endif()

find_program(CANNON_ASCENDC_PYTHON NAMES python3 python PATHS /usr/bin)
if(NOT CANNON_ASCENDC_PYTHON)
  message(FATAL_ERROR "ascendc.cmake: no python3 found (needed to generate the kernels' launch headers)")
endif()

set(CANNON_ASCENDC_CHECK 0 CACHE STRING "Compile Ascend C kernels with cannon's checker (1) or without (0)")

if(NOT TARGET host_intf_pub)
  add_library(host_intf_pub INTERFACE)
  if(EXISTS "${_cannon_ascendc_prefix}/lib64")
    set(_cannon_ascendc_libdir "${_cannon_ascendc_prefix}/lib64")
  else()
    set(_cannon_ascendc_libdir "${_cannon_ascendc_prefix}/${CMAKE_INSTALL_LIBDIR}")
  endif()
  # include/ascendc after include: the host tiling headers (tiling/tiling_api.h,
  # tiling/platform/platform_ascendc.h, register/...) live there, as in CANN's include folder.
  target_include_directories(host_intf_pub INTERFACE "${_cannon_ascendc_prefix}/include"
                                                     "${_cannon_ascendc_prefix}/include/ascendc")
  target_link_directories(host_intf_pub INTERFACE "${_cannon_ascendc_libdir}")
  target_compile_definitions(host_intf_pub INTERFACE _GLIBCXX_USE_CXX11_ABI=0)
  target_compile_options(host_intf_pub INTERFACE -fPIC)
endif()

# The __NPU_ARCH__ of a SoC name (the series tikicpulib maps), empty for an unknown one.
function(_cannon_ascendc_npu_arch soc out)
  set(arch "")
  # As tikicpulib's list: Ascend910B<n>…, ascend910b/B1 and Ascend910_93… are the 910B series
  # (plain "Ascend910B" is an Ascend910A product).
  if(soc MATCHES "^(Ascend910B[0-9]|ascend910[bB]|Ascend910_93)")
    set(arch 2201)
  elseif(soc MATCHES "^[Aa]scend310[Pp]")
    set(arch 2002)
  elseif(soc MATCHES "^[Aa]scend310B")
    set(arch 3002)
  elseif(soc MATCHES "^[Aa]scend910")
    set(arch 1001)
  endif()
  set(${out} "${arch}" PARENT_SCOPE)
endfunction()

# ascendc_library(<target> <SHARED|STATIC|OBJECT> <kernel sources>...)
function(ascendc_library target kind)
  if(NOT kind MATCHES "^(SHARED|STATIC|OBJECT)$")
    message(FATAL_ERROR "ascendc_library(${target} ${kind} ...): the kind must be SHARED, STATIC or OBJECT")
  endif()
  if(NOT ARGN)
    message(FATAL_ERROR "ascendc_library(${target} ${kind}): no kernel source")
  endif()
  set(incdir "${CMAKE_BINARY_DIR}/include/${target}")
  set(gendir "${CMAKE_CURRENT_BINARY_DIR}/ascendc_gen/${target}")
  set(stubs "")
  set(srcdirs "")
  foreach(src IN LISTS ARGN)
    get_filename_component(src "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(name "${src}" NAME_WE)
    get_filename_component(dir "${src}" DIRECTORY)
    set(stub "${gendir}/${name}_aclrtlaunch.cpp")
    if(stub IN_LIST stubs)  # two sources of one name in different folders
      list(LENGTH stubs n)
      set(stub "${gendir}/${name}_${n}_aclrtlaunch.cpp")
    endif()
    execute_process(
      COMMAND "${CANNON_ASCENDC_PYTHON}" "${_cannon_ascendc_gen}" --source "${src}" --include-dir "${incdir}"
              --stub "${stub}"
      RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "ascendc_library(${target}): ${err}")
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${src}")
    list(APPEND stubs "${stub}")
    list(APPEND srcdirs "${dir}")
  endforeach()
  list(REMOVE_DUPLICATES srcdirs)

  add_library(${target} ${kind} ${stubs})
  set_target_properties(${target} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF
                        POSITION_INDEPENDENT_CODE ON)
  # The kernel source's own folder first, for its quoted includes (the stub is elsewhere).
  target_include_directories(${target} BEFORE PRIVATE ${srcdirs})
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${incdir}>
                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/${target}>)
  target_compile_definitions(${target} PRIVATE CANNON_ASCENDC_CHECK=${CANNON_ASCENDC_CHECK})
  # The SoC's __NPU_ARCH__, as the device compiler defines it, when SOC_VERSION names one: a MIX
  # kernel (one using the Matmul API) on a split-core SoC runs two vector blocks per AI core.
  _cannon_ascendc_npu_arch("${SOC_VERSION}" arch)
  if(arch)
    target_compile_definitions(${target} PRIVATE __NPU_ARCH__=${arch})
  endif()
  # Kernels are compiled optimized whatever the build type.
  target_compile_options(${target} PRIVATE -O2)
  target_link_libraries(${target} PUBLIC cannon::ascendc)
  if(NOT kind STREQUAL "OBJECT")
    install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
  install(DIRECTORY "${incdir}/" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${target})
endfunction()

# ascendc_compile_definitions(<target> <PRIVATE|PUBLIC|INTERFACE> <definitions>...): leading -D
# are dropped, generator expressions are kept.
function(ascendc_compile_definitions target)
  target_compile_definitions(${target} ${ARGN})
endfunction()

# ascendc_include_directories(<target> <PRIVATE|PUBLIC|INTERFACE> <dirs>...)
function(ascendc_include_directories target)
  target_include_directories(${target} ${ARGN})
endfunction()

# ascendc_compile_options(<target> <PRIVATE|PUBLIC|INTERFACE> <options>...)
function(ascendc_compile_options target)
  target_compile_options(${target} ${ARGN})
endfunction()
