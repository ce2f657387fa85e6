// Device printf: every argument kind nvcc packs into vprintf's buffer.
#include <cstdio>

__device__ const char* greeting = "hi";

__global__ void show(const int* a, float f, double d, long long big) {
  int t = threadIdx.x;
  unsigned char c = 'A' + t;
  short s = -t;
  printf("t=%d a=%i u=%u x=%x X=%X o=%o c=%c s=%hd\n", t, a[t], a[t] * 2u, a[t], a[t] + 255, 8 + t, c, s);
  if (t == 0) {
    printf("f=%f e=%.3e g=%g a=%a |%8.2f|%-6d|%+d|%05d\n", f, d, f * 2, 1.0, d, t, 7, 42);
    printf("ld=%ld lld=%lld lu=%lu llu=%llu lx=%lx str=%s %s width=%*d prec=%.*f %% done\n", big, -big,
           (unsigned long)big, (unsigned long long)big, big, "abc", greeting, 6, 5, 2, 3.14159);
    printf("p=%p null=%p\n", a, (void*)0);
    int n = printf("no args\n");
    printf("printf returned %d\n", n);
  }
}
