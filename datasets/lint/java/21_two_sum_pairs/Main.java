import java.util.HashMap;
import java.util.Hashtable;
import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        long k = sc.nextLong();
        Hashtable<Long, Integer> seen = new Hashtable<Long, Integer>();
        long pairs = 0;
        for (int i = 0; i < n; i++) {
            long x = sc.nextLong();
            Integer c = seen.get(k - x);
            if (c != null) {
                pairs += c;
            }
            seen.put(x, seen.containsKey(x) ? seen.get(x) + 1 : 1);
        }
        System.out.println(pairs);
    }
}
