import java.util.Locale;
import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in).useLocale(Locale.ROOT);
        int n = sc.nextInt();
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        double sum = 0;
        for (int i = 0; i < n; i++) {
            double t = sc.nextDouble();
            if (t < min) min = t;
            if (t > max) max = t;
            sum += t;
        }
        System.out.println(String.format(Locale.ROOT, "%.2f %.2f %.2f", min, max, sum / n));
    }
}
