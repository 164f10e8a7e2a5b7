import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.StringTokenizer;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        long[][] iv = new long[n][2];
        for (int i = 0; i < n; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            iv[i][0] = Long.parseLong(st.nextToken());
            iv[i][1] = Long.parseLong(st.nextToken());
        }
        Arrays.sort(iv, (x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
        List<long[]> merged = new ArrayList<>();
        for (long[] cur : iv) {
            if (merged.size() > 0 && cur[0] <= merged.get(merged.size() - 1)[1]) {
                long[] last = merged.get(merged.size() - 1);
                last[1] = Math.max(last[1], cur[1]);
            } else {
                merged.add(new long[] {cur[0], cur[1]});
            }
        }
        System.out.println(merged.size());
        for (long[] m : merged) {
            System.out.println(m[0] + " " + m[1]);
        }
    }
}
