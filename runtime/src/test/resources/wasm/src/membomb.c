// membomb: allocates 1 MiB blocks and touches them until malloc fails, then says how many it got.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
char *volatile last;
int main(void) {
    unsigned n = 0;
    for (;;) {
        char *p = malloc(1 << 20);
        if (p == NULL) break;
        memset(p, 1, 1 << 20);
        last = p;
        n++;
    }
    printf("allocated %u MiB\n", n);
    return 0;
}
