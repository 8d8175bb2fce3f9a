// strata.h from C++: extern "C" linkage, no warnings at -Wall -Wextra.
#include <strata.h>

#include <cstdio>
#include <cstring>

int main() {
    const char *v = strata_version();
    strata_error_t err;
    std::memset(&err, 0, sizeof err);
    strata_schema_t *schema = strata_schema_loadb(nullptr, 0, &err); // an error, not a crash
    if (schema != nullptr || err.code != STRATA_ERROR_ARGUMENT)
        return 1;
    std::printf("strata %s from C++\n", v);
    return std::strcmp(v, STRATA_VERSION) == 0 ? 0 : 1;
}
