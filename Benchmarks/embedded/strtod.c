/* The one runtime function the embedded standard library expects from its
 * host (swift/shims/RuntimeShims.h): parse a double in the C locale. */
#define _GNU_SOURCE
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

const char *_swift_stdlib_strtod_clocale(const char *nptr, double *outResult) {
  pthread_once(&c_locale_once, make_c_locale);
  char *end;
  *outResult = strtod_l(nptr, &end, c_locale);
  return end;
}
