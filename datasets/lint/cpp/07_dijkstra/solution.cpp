#include <bits/stdc++.h>
using namespace std;

#define INF 0x3f3f3f3f3f3f3f3fLL
typedef long long ll;
typedef pair<ll, int> pli;

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    vector<vector<pair<int, ll>>> adj(n + 1);
    for (int i = 0; i < m; i++) {
        int u, v;
        ll w;
        scanf("%d %d %lld", &u, &v, &w);
        adj[u].push_back({v, w});
        adj[v].push_back({u, w});
    }
    vector<ll> dist(n + 1, INF);
    priority_queue<pli, vector<pli>, greater<pli>> pq;
    dist[1] = 0;
    pq.push({0, 1});
    while (!pq.empty()) {
        pli top = pq.top();
        pq.pop();
        ll d = top.first;
        int u = top.second;
        if (d > dist[u]) continue;
        for (auto e : adj[u]) {
            if (dist[u] + e.second < dist[e.first]) {
                dist[e.first] = dist[u] + e.second;
                pq.push({dist[e.first], e.first});
            }
        }
    }
    for (int i = 1; i <= n; i++) {
        if (i > 1) printf(" ");
        printf("%lld", dist[i] == INF ? -1LL : dist[i]);
    }
    printf("\n");
    return 0;
}
