import java.util.Scanner;

public class Main {
    // fast doubling: returns {F(n), F(n+1)} mod 1e9+7
    static long[] fib(long n) {
        if (n == 0) return new long[] {0, 1};
        long[] half = fib(n / 2);
        long a = half[0], b = half[1];
        long c = a * ((2 * b - a + 1000000007) % 1000000007) % 1000000007;
        long d = (a * a + b * b) % 1000000007;
        if (n % 2 == 0) {
            return new long[] {c, d};
        } else {
            return new long[] {d, (c + d) % 1000000007};
        }
    }

    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int t = sc.nextInt();
        while (t-- > 0) {
            long n = sc.nextLong();
            System.out.println(fib(n)[0]);
        }
    }
}
