/* strata.h compiles alone as strict C99 (-std=c99 -Wall -Wextra -pedantic
   -Werror) and declares what it promises. Built and run by check_header.sh. */
#include <strata.h>

#include <stdio.h>
#include <string.h>

int main(void) {
    strata_error_t err;
    strata_code_t code = STRATA_ERROR_IO;
    const char *v = strata_version();
    memset(&err, 0, sizeof err);
    (void)code;
    /* the documented sizes */
    if (sizeof err.path != STRATA_ERROR_PATH_LENGTH || sizeof err.model != STRATA_ERROR_NAME_LENGTH ||
        sizeof err.property != STRATA_ERROR_NAME_LENGTH ||
        sizeof err.message != STRATA_ERROR_MESSAGE_LENGTH)
        return 1;
    printf("strata %s (header %s)\n", v, STRATA_VERSION);
    return strcmp(v, STRATA_VERSION) == 0 ? 0 : 1;
}
