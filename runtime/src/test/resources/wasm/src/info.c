// info: prints its arguments, both clocks, 16 random bytes, and exits with the number of arguments.
#include <stdio.h>
#include <time.h>
#include <stdint.h>
#include <wasi/api.h>
int main(int argc, char **argv) {
    for (int i = 0; i < argc; i++) printf("argv[%d]=%s\n", i, argv[i]);
    struct timespec rt, mono;
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    printf("realtime=%lld.%09ld\nmonotonic=%lld.%09ld\n", (long long)rt.tv_sec, rt.tv_nsec, (long long)mono.tv_sec, mono.tv_nsec);
    uint8_t r[16];
    if (__wasi_random_get(r, sizeof r) != 0) return 100;
    printf("random=");
    for (int i = 0; i < 16; i++) printf("%02x", r[i]);
    printf("\n");
    fprintf(stderr, "to stderr\n");
    return argc - 1;
}
