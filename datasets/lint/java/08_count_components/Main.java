import java.util.Scanner;

public class Main {
    private int[] parent;
    private int components;

    public Main(int n) {
        parent = new int[n + 1];
        for (int i = 0; i <= n; i++) parent[i] = i;
        components = n;
    }

    int find(int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    void union(int a, int b) {
        int ra = find(a);
        int rb = find(b);
        if (ra != rb) {
            parent[ra] = rb;
            components--;
        }
    }

    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt();
        int m = in.nextInt();
        Main dsu = new Main(n);
        for (int i = 0; i < m; i++) {
            dsu.union(in.nextInt(), in.nextInt());
        }
        System.out.println(dsu.components);
    }
}
