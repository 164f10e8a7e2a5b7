import java.io.*;

public class Main {
    static final int ALPHABET = 26;

    static char shift(char c, int k) {
        if (Character.isLowerCase(c) && c <= 'z') {
            return (char) ('a' + (c - 'a' + k) % ALPHABET);
        } else if (Character.isUpperCase(c) && c <= 'Z') {
            return (char) ('A' + (c - 'A' + k) % ALPHABET);
        } else {
            return c;
        }
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        long s = Long.parseLong(br.readLine().trim());
        int k = (int) (((s % ALPHABET) + ALPHABET) % ALPHABET);
        StringBuilder out = new StringBuilder();
        String line;
        while ((line = br.readLine()) != null) {
            for (int i = 0; i < line.length(); i++) {
                out.append(shift(line.charAt(i), k));
            }
            out.append('\n');
        }
        System.out.print(out);
    }
}
