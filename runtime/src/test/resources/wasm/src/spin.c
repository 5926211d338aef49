// spin: never ends (an infinite loop the compiler cannot remove).
volatile unsigned counter;
int main(void) {
    for (;;) counter++;
}
