import java.util.Scanner;

public class Main {
    static long[][] read(Scanner sc, int rows, int cols) {
        long[][] m = new long[rows][cols];
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++)
                m[i][j] = sc.nextLong();
        return m;
    }

    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt(), m = sc.nextInt(), p = sc.nextInt();
        long[][] a = read(sc, n, m);
        long[][] b = read(sc, m, p);
        long[][] c = new long[n][p];
        for (int i = 0; i < n; i++)
            for (int k = 0; k < m; k++)
                for (int j = 0; j < p; j++)
                    c[i][j] += a[i][k] * b[k][j];
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < p; j++) {
                if (j > 0) out.append(" ");
                out.append(c[i][j]);
            }
            out.append("\n");
        }
        System.out.print(out.toString());
    }
}
