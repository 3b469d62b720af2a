/*
 * The CPU driver's table, for the runtime, which links the driver in as its built-in driver (the
 * same sources also build the loadable module libcannon-driver-cpu.so, see cpu_module.c).
 */
#ifndef CANNON_CPU_DRIVER_H_
#define CANNON_CPU_DRIVER_H_

#include "cannon/driver.h"

/** The CPU driver's interface table (static storage; never NULL). */
const cannon_driver_iface *cannon_cpu_driver_iface(void);

#endif /* CANNON_CPU_DRIVER_H_ */
