#include <cstdio>
int main() { std::puts("warpsim"); return 0; }
