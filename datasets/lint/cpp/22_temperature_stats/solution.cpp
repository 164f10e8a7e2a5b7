#include <cstdio>
#include <vector>

int main() {
    int n;
    if (scanf("%d", &n) != 1 || n <= 0) return 1;
    std::vector<double> t(n);
    for (int i = 0; i < n; i++) scanf("%lf", &t[i]);
    double lo = t[0], hi = t[0], sum = 0;
    for (int i = 0; i < n; i++) {
        if (t[i] < lo) lo = t[i];
        if (t[i] > hi) hi = t[i];
        sum += t[i];
    }
    printf("%.2f %.2f %.2f\n", lo, hi, sum / n);
    return 0;
}
