// bigout: writes 64 KiB blocks to stdout forever (past any output limit).
#include <unistd.h>
#include <string.h>
int main(void) {
    static char buf[65536];
    memset(buf, 'x', sizeof buf);
    for (;;) write(1, buf, sizeof buf);
}
