#include <iostream>
#include <vector>

using namespace std;

int main() {
    int n, amount;
    cin >> n >> amount;
    vector<int> coins(n);
    for (int i = 0; i < n; i++) cin >> coins[i];
    vector<long long> ways(amount + 1, 0);
    ways[0] = 1;
    for (int i = 0; i < n; i++) {
        int c = coins[i];
        for (int s = c; s <= amount; s++) {
            ways[s] = (ways[s] + ways[s - c]) % 1000000007;
        }
    }
    cout << ways[amount] << endl;
    return 0;
}
