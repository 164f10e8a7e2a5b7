import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt(), m = sc.nextInt();
        Vector<Vector<Integer>> adj = new Vector<>();
        for (int i = 0; i <= n; i++) adj.add(new Vector<Integer>());
        int[] indeg = new int[n + 1];
        for (int i = 0; i < m; i++) {
            int u = sc.nextInt(), v = sc.nextInt();
            adj.get(u).add(v);
            indeg[v]++;
        }
        PriorityQueue<Integer> pq = new PriorityQueue<>();
        for (int i = 1; i <= n; i++) if (indeg[i] == 0) pq.add(i);
        List<Integer> order = new ArrayList<>();
        while (!pq.isEmpty()) {
            int u = pq.poll();
            order.add(u);
            for (int j = 0; j < adj.get(u).size(); j++) {
                int v = adj.get(u).get(j);
                indeg[v]--;
                if (indeg[v] == 0) pq.add(v);
            }
        }
        if (order.size() != n) {
            System.out.println("IMPOSSIBLE");
            return;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < order.size(); i++) {
            if (i > 0) sb.append(' ');
            sb.append(order.get(i));
        }
        System.out.println(sb);
    }
}
