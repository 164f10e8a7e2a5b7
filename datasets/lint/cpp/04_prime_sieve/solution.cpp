#include <bits/stdc++.h>
using namespace std;

bool composite[1000001];

int main() {
    int n;
    cin >> n;
    int count = 0;
    long long sum = 0;
    int limit = (int)sqrt((double)n);
    for (int i = 2; i <= limit; i++) {
        if (!composite[i]) {
            for (int j = i * i; j <= n; j += i) composite[j] = true;
        }
    }
    for (int i = 2; i <= n; i++) {
        if (!composite[i]) {
            count++;
            sum += i;
        }
    }
    cout << count << endl << sum << endl;
    return 0;
}
