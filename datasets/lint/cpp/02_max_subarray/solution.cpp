#include <iostream>
#include <vector>
#include <algorithm>

using namespace std;

long long maxSubarray(vector<long long> a) {
    long long best = a[0], cur = a[0];
    for (size_t i = 1; i < a.size(); i++) {
        cur = max(a[i], cur + a[i]);
        best = max(best, cur);
    }
    return best;
}

int main() {
    int n;
    cin >> n;
    vector<long long> a(n);
    for (int i = 0; i < n; i++) cin >> a[i];
    cout << maxSubarray(a) << "\n";
    return 0;
}
