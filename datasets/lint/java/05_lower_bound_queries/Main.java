import java.io.*;
import java.util.StringTokenizer;

public class Main {
    static int[] a;

    static int lowerBound(int x) {
        int lo = 0, hi = a.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < x) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StreamTokenizer tok = new StreamTokenizer(br);
        tok.nextToken();
        int n = (int) tok.nval;
        a = new int[n];
        for (int i = 0; i < n; i++) {
            tok.nextToken();
            a[i] = (int) tok.nval;
        }
        tok.nextToken();
        int q = (int) tok.nval;
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
        for (int i = 0; i < q; i++) {
            tok.nextToken();
            int pos = lowerBound((int) tok.nval);
            out.println(pos == n ? -1 : pos + 1);
        }
        out.flush();
    }
}
