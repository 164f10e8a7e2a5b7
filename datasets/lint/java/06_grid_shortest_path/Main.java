import java.util.*;

public class Main {
    static int[] DR = {1, -1, 0, 0};
    static int[] DC = {0, 0, 1, -1};

    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int R = sc.nextInt();
        int C = sc.nextInt();
        char[][] grid = new char[R][];
        for (int i = 0; i < R; i++) {
            grid[i] = sc.next().toCharArray();
        }
        int[][] dist = new int[R][C];
        for (int[] row : dist) Arrays.fill(row, -1);
        ArrayDeque<int[]> queue = new ArrayDeque<>();
        for (int i = 0; i < R; i++) {
            for (int j = 0; j < C; j++) {
                if (grid[i][j] == 'S') {
                    dist[i][j] = 0;
                    queue.add(new int[] {i, j});
                }
            }
        }
        int answer = -1;
        while (!queue.isEmpty()) {
            int[] cur = queue.poll();
            if (grid[cur[0]][cur[1]] == 'E') {
                answer = dist[cur[0]][cur[1]];
                break;
            }
            for (int d = 0; d < 4; d++) {
                int nr = cur[0] + DR[d];
                int nc = cur[1] + DC[d];
                if (nr < 0 || nr >= R || nc < 0 || nc >= C) continue;
                if (grid[nr][nc] == '#' || dist[nr][nc] != -1) continue;
                dist[nr][nc] = dist[cur[0]][cur[1]] + 1;
                queue.add(new int[] {nr, nc});
            }
        }
        System.out.println(answer);
    }
}
