// floats: float arithmetic on its input's length (uses f64 instructions: refused under floats=refuse).
#include <stdio.h>
#include <math.h>
#include <unistd.h>
int main(void) {
    char buf[4096];
    ssize_t n = read(0, buf, sizeof buf);
    double x = (double)n;
    double y = 0;
    for (int i = 1; i <= 1000; i++) y += sqrt(x * i) / i;
    printf("%.6f\n", y);
    return 0;
}
