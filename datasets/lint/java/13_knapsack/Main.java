import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        int W = sc.nextInt();
        int[] weight = new int[n];
        int[] value = new int[n];
        for (int i = 0; i < n; i++) {
            weight[i] = sc.nextInt();
            value[i] = sc.nextInt();
        }
        long[] dp = new long[W + 1];
        for (int i = 0; i < n; i++) {
            for (int c = W; c >= weight[i]; c--) {
                if (dp[c - weight[i]] + value[i] > dp[c]) {
                    dp[c] = dp[c - weight[i]] + value[i];
                }
            }
        }
        System.out.println(dp[W]);
        sc.close();
    }
}
