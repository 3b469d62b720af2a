/*
 * The operator dump's hook in phase 2 (cannonExecutorRun): describes a run's tensor slots to the
 * runtime's dump (cannon/dump.h), which writes them in stream order. Called only while a dump is
 * on (cannonDumpActive), so the run of an undumped program pays one load and branch.
 */
#include <stdlib.h>

#include "nnopbase_internal.h"
#include "cannon/dump.h"

void *nn_dump_begin(const aclOpExecutor *e, aclrtStream stream)
{
    cannon_dump_tensor local[32] = {{0}};
    size_t n = e->n_slots;
    cannon_dump_tensor *t = n <= 32 ? local : malloc(n * sizeof(*t)); /* tensor lists can be long */
    if (!t)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const nn_slot *s = &e->slots[i];
        /* An absent optional tensor keeps its position among the inputs or the outputs. */
        t[i] = (cannon_dump_tensor){.addr = s->addr, .dtype = s->tensor ? (int32_t)s->dtype : ACL_DT_UNDEFINED,
                                    .is_output = s->is_output, .ndim = s->tensor ? s->ndim : 0,
                                    .offset = s->offset, .shape = s->shape, .strides = s->strides};
    }
    void *h = cannonDumpOpBegin(stream, e->name, t, n);
    if (t != local)
        free(t);
    return h;
}

void nn_dump_end(void *handle, aclrtStream stream, bool launched)
{
    cannonDumpOpEnd(stream, handle, launched ? 1 : 0);
}
