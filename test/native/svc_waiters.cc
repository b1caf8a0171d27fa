/* Threads of the program that only wait, as a runtime's service thread does, but are the program's
 * own: one created with pthread_create (start routine in the program), one std::thread (start
 * routine in libstdc++). Neither is a runtime service thread (native/sample/service.c): both stay on
 * the wall clock, so each gets samples while it waits in poll for 300 ms. */
#include <poll.h>
#include <pthread.h>
#include <cstdio>
#include <thread>

static void wait_ms(int ms) { poll(nullptr, 0, ms); }

static void *waiter(void *) {
  wait_ms(300);
  return nullptr;
}

int main() {
  pthread_t th;
  pthread_create(&th, nullptr, waiter, nullptr);
  std::thread st([] { wait_ms(300); });
  pthread_join(th, nullptr);
  st.join();
  std::puts("waited");
  return 0;
}
