#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
    int n;
    std::scanf("%d", &n);
    std::vector<int> tails;
    tails.reserve(n);
    for (int i = 0; i < n; ++i) {
        int x;
        std::scanf("%d", &x);
        auto it = std::lower_bound(tails.begin(), tails.end(), x);
        if (it == tails.end())
            tails.push_back(x);
        else
            *it = x;
    }
    std::printf("%d\n", (int)tails.size());
    return 0;
}
