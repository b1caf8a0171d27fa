#ifndef HP_USEREVENT_H
#define HP_USEREVENT_H
#include <stdint.h>
uint32_t hp_user_event_count(void);
const char *hp_user_event_name(uint32_t id);
#endif
