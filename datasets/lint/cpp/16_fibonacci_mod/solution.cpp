#include <bits/stdc++.h>
using namespace std;

typedef unsigned long long ull;
const ull MOD = 1000000007;

struct Mat {
    ull a[2][2];
};

Mat mul(Mat x, Mat y) {
    Mat r;
    memset(r.a, 0, sizeof(r.a));
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++) r.a[i][j] = (r.a[i][j] + x.a[i][k] * y.a[k][j]) % MOD;
    return r;
}

ull fib(ull n) {
    Mat result = {{{1, 0}, {0, 1}}};
    Mat base = {{{1, 1}, {1, 0}}};
    while (n > 0) {
        if (n & 1) result = mul(result, base);
        base = mul(base, base);
        n >>= 1;
    }
    return result.a[0][1];
}

int main() {
    int t;
    cin >> t;
    while (t--) {
        ull n;
        cin >> n;
        cout << fib(n) << "\n";
    }
    return 0;
}
