import java.io.BufferedReader;
import java.io.InputStreamReader;

public class Main {
    public static void main(String[] args) {
        try {
            BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
            String line;
            while ((line = br.readLine()) != null) {
                String[] words = line.trim().split("\\s+");
                String result = "";
                for (int i = words.length - 1; i >= 0; i--) {
                    if (words[i].isEmpty()) continue;
                    if (!result.isEmpty()) result += " ";
                    result += words[i];
                }
                System.out.println(result);
            }
        } catch (Exception e) {
        }
    }
}
