#include <algorithm>
#include <iostream>
#include <vector>

using namespace std;

struct Interval {
    long long l, r;
};

bool cmp(const Interval &a, const Interval &b) {
    return a.l < b.l || (a.l == b.l && a.r < b.r);
}

int main() {
    int n;
    cin >> n;
    vector<Interval> v(n);
    for (auto &iv : v) cin >> iv.l >> iv.r;
    sort(v.begin(), v.end(), cmp);
    vector<Interval> merged;
    for (int i = 0; i < n; i++) {
        if (!merged.empty() && v[i].l <= merged.back().r) {
            merged.back().r = max(merged.back().r, v[i].r);
        } else {
            merged.push_back(v[i]);
        }
    }
    cout << merged.size() << "\n";
    for (auto iv : merged) cout << iv.l << " " << iv.r << "\n";
    return 0;
}
