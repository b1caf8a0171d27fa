/* TAU's C++ API as TAU's C++ examples use it: scope timers named with the object's type (CT,
 * TAU_TYPE_STRING), a scope phase, dynamic scope timers, string names. Compiles unchanged with g++
 * and clang++ against TAU.h; checked by test/tau-api.test.ts. */
#include <TAU.h>

#include <cstdio>
#include <string>

static volatile double sink;

template <class T>
class Grid {
 public:
  void fill() {
    TAU_TYPE_STRING(taustr, CT(*this) + " void ()");
    TAU_PROFILE("Grid::fill()", taustr, TAU_FIELD);
    for (int i = 1; i <= 20000; i++) sink += T(1) / T(i);
  }
};

int main(int argc, char **argv) {
  TAU_PROFILE("main()", "int (int, char **)", TAU_DEFAULT);
  TAU_INIT(&argc, &argv);
  Grid<double> grid;
  for (int i = 0; i < 3; i++) grid.fill();
  {
    TAU_PHASE("scoped phase", "", TAU_USER);
    grid.fill();
  }
  for (int i = 0; i < 2; i++) {
    std::string name = "dynamic " + std::to_string(i);
    TAU_DYNAMIC_PROFILE(name, "", TAU_USER);
    grid.fill();
  }
  std::string timer_name("string name");
  TAU_PROFILE_TIMER(t, timer_name, std::string("(string type)"), TAU_USER);
  TAU_PROFILE_START(t);
  TAU_PROFILE_STOP(t);
  std::printf("%.3f\n", sink > 0 ? 1.0 : 0.0);
  return 0;
}
