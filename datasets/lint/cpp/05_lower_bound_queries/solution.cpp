#include <iostream>
#include <vector>

using namespace std;

// first index with a[idx] >= x, or a.size() if none
int lowerBound(const vector<int>& a, int x) {
    int lo = 0, hi = a.size();
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int main() {
    int n;
    cin >> n;
    vector<int> a(n);
    for (int i = 0; i < n; ++i) cin >> a[i];
    int q;
    cin >> q;
    for (int i = 0; i < q; ++i) {
        int x;
        cin >> x;
        int pos = lowerBound(a, x);
        if (pos == n)
            cout << -1 << "\n";
        else
            cout << pos + 1 << "\n";
    }
}
