# The install layout of a CANN toolkit (ASCEND_TOOLKIT_HOME), on top of the usual one:
#   lib64/                 the libraries. The real directory is CMAKE_INSTALL_LIBDIR (lib on Debian);
#                          lib64 is a symbolic link to it (or lib to lib64 when that is the libdir), so
#                          both names work for -L, LD_LIBRARY_PATH, pkg-config (.../pkgconfig) and
#                          find_package (.../cmake/cannon). Made only when the libdir is lib or lib64
#                          and the other name does not exist in the prefix.
#   set_env.sh             exports what CANN's set_env.sh exports (cmake/set_env.sh.in)
#   python/site-packages/  the cannon Python package (PYTHONPATH of set_env.sh)
# include/{acl,aclnn,aclnnop,hccl} and bin/npu-smi are installed by their own directories.
# CANNON_CANN_LAYOUT=OFF leaves these three out (e.g. a distribution package installed in /usr).
option(CANNON_CANN_LAYOUT "Install the CANN toolkit layout: lib64 link, set_env.sh, python/site-packages" ON)
if(NOT CANNON_CANN_LAYOUT)
  return()
endif()

if(CMAKE_INSTALL_LIBDIR STREQUAL "lib")
  set(_cannon_link lib64)
elseif(CMAKE_INSTALL_LIBDIR STREQUAL "lib64")
  set(_cannon_link lib)
else()
  set(_cannon_link "")
endif()
if(_cannon_link)
  install(CODE "
    set(_root \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
    if(NOT EXISTS \"\${_root}/${_cannon_link}\" AND NOT IS_SYMLINK \"\${_root}/${_cannon_link}\")
      message(STATUS \"Installing: \${_root}/${_cannon_link} -> ${CMAKE_INSTALL_LIBDIR}\")
      file(CREATE_LINK ${CMAKE_INSTALL_LIBDIR} \"\${_root}/${_cannon_link}\" SYMBOLIC)
    endif()")
endif()

# set_env.sh names the prefix it is installed to (not the configure-time one): written at install
# time, then installed like any file.
install(CODE "
  set(CANNON_SETENV_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_SOURCE_DIR}/cmake/set_env.sh.in\" \"${CMAKE_BINARY_DIR}/set_env.sh\" @ONLY)
  file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}\" TYPE FILE
       PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ FILES \"${CMAKE_BINARY_DIR}/set_env.sh\")")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/cannon DESTINATION python/site-packages
        PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
