#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    long long k;
    cin >> n >> k;
    unordered_map<long long, long long> seen;
    long long pairs = 0;
    for (int i = 0; i < n; i++) {
        long long x;
        cin >> x;
        if (seen.count(k - x)) pairs += seen[k - x];
        seen[x]++;
    }
    cout << pairs << endl;
}
