// A C++ program for compiler instrumentation: a class method and a namespace function, by name in a
// select file (demangled, with or without parameters).
#include <cstdio>
#include <cstdlib>

namespace geo {
struct Point {
  double x, y;
  __attribute__((noinline)) double norm2() const { return x * x + y * y; }
};
__attribute__((noinline)) double scale(double v, int k) { return v * k; }
}  // namespace geo

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 5;
  double s = 0;
  for (int i = 0; i < n; i++) {
    geo::Point p{double(i), 1.0};
    s += geo::scale(p.norm2(), 2);
  }
  std::printf("%g\n", s);
  return 0;
}
