import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.IOException;

public class Main {
    private static long gcd(long a, long b) {
        if (b == 0) {
            return a;
        }
        return gcd(b, a % b);
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int t = Integer.parseInt(in.readLine().trim());
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < t; i++) {
            String[] parts = in.readLine().trim().split("\\s+");
            long a = Long.parseLong(parts[0]);
            long b = Long.parseLong(parts[1]);
            long g = gcd(a, b);
            sb.append(g).append(' ').append(a / g * b).append('\n');
        }
        System.out.print(sb);
    }
}
