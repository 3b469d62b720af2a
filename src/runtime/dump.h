/* Operator dump (dump.c): the process-wide state behind the `dump` section of the aclInit
 * configuration and CANNON_DUMP, and the host tasks that write an operator run's tensors (see
 * cannon/dump.h for the hooks libnnopbase calls, docs/tools.md for the files). Not installed. */
#ifndef CANNON_RT_DUMP_H_
#define CANNON_RT_DUMP_H_

#include "config.h"

/* aclInit (g_rt.lock held): start the dump when CANNON_DUMP is set or the config asks for an
 * operator dump (dump_op_switch "on" or a non-empty dump_list). ACL_ERROR_INVALID_DUMP_CONFIG,
 * with a message naming dump.dump_path (or CANNON_DUMP), when the folder cannot be created or
 * written, or when the config asks for an operator dump without a dump_path; also for a bad
 * CANNON_DUMP_MODE / CANNON_DUMP_DATA. */
aclError cn_dump_process_start(const cn_config *cfg);
/* Teardown, after every stream is gone: close the manifests and switch the dump off. */
void cn_dump_process_finish(void);

#endif /* CANNON_RT_DUMP_H_ */
