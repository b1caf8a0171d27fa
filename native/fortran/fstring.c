#include "fstring.h"

#include <stdlib.h>
#include <string.h>

void hp_fstring_make(hp_fstring *s, const char *chars, size_t len) {
  if (!chars) len = 0;
  while (len > 0 && (chars[len - 1] == ' ' || chars[len - 1] == '\0')) len--;
  s->str = len < sizeof s->local ? s->local : malloc(len + 1);
  if (!s->str) return;
  if (len) memcpy(s->str, chars, len);
  s->str[len] = '\0';
}

void hp_fstring_done(hp_fstring *s) {
  if (s->str && s->str != s->local) free(s->str);
  s->str = NULL;
}
