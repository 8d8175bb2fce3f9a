#ifndef STRATA_CPU_COUNT_H
#define STRATA_CPU_COUNT_H
/* How many CPUs this process may run on (its affinity mask, as `taskset` or
   a container's cpuset leaves it), else the CPUs online; at least 1. The
   glibc wrapper `sched_getaffinity` is declared only under _GNU_SOURCE,
   which the Swift Glibc module is not built with, so this asks the kernel
   directly. */
#include <sys/syscall.h>
#include <unistd.h>

static inline int strata_cpu_count(void) {
    unsigned long mask[16] = {0}; /* room for 1,024 CPUs */
    long written = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
    if (written > 0) {
        int count = 0;
        for (long i = 0; i < written / (long)sizeof mask[0]; i++)
            count += __builtin_popcountl(mask[i]);
        if (count > 0)
            return count;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}
#endif
