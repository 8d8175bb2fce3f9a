#ifndef STRATA_CJANSSON_SHIM_H
#define STRATA_CJANSSON_SHIM_H
#include <jansson.h>
#endif
