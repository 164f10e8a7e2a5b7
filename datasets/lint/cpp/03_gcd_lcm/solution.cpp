#include <cstdio>

long long gcd(long long a, long long b) {
    while (b != 0) {
        long long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int main() {
    int t;
    if (scanf("%d", &t) != 1) return 1;
    for (int i = 0; i < t; i++) {
        long long a, b;
        scanf("%lld %lld", &a, &b);
        long long g = gcd(a, b);
        long long l = a / g * b;
        printf("%lld %lld\n", g, l);
    }
    return 0;
}
