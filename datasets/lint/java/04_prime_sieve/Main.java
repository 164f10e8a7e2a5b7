import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner scanner = new Scanner(System.in);
        int n = scanner.nextInt();
        boolean[] composite = new boolean[Math.max(n + 1, 2)];
        int count = 0;
        long sum = 0;
        for (int i = 2; (long) i * i <= n; i++) {
            if (!composite[i]) {
                for (int j = i * i; j <= n; j += i) {
                    composite[j] = true;
                }
            }
        }
        for (int i = 2; i <= n; i++) {
            if (composite[i] == false) {
                count++;
                sum += i;
            }
        }
        System.out.println(count);
        System.out.println(sum);
    }
}
