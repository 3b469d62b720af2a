/*
 * Entry point of the loadable module libcannon-driver-cpu.so: the only symbol the module exports.
 * It is compiled only into the module (CANNON_DRIVER_MODULE); libascendcl reaches the same driver
 * through cannon_cpu_driver_iface() instead.
 */
#include "cpu_driver.h"

__attribute__((visibility("default"))) const cannon_driver_iface *
cannon_driver_entry(uint32_t host_abi_version);

const cannon_driver_iface *cannon_driver_entry(uint32_t host_abi_version)
{
    if (host_abi_version != CANNON_DRIVER_ABI_VERSION)
        return NULL;
    return cannon_cpu_driver_iface();
}
