import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(System.in));
        int k = Integer.parseInt(reader.readLine().trim());
        Map<String, Integer> counts = new HashMap<>();
        String line;
        while ((line = reader.readLine()) != null) {
            StringBuilder word = new StringBuilder();
            for (int i = 0; i <= line.length(); i++) {
                char c = i < line.length() ? line.charAt(i) : ' ';
                if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
                    word.append(Character.toLowerCase(c));
                } else if (word.length() > 0) {
                    String w = word.toString();
                    counts.put(w, counts.getOrDefault(w, 0) + 1);
                    word.setLength(0);
                }
            }
        }
        List<Map.Entry<String, Integer>> entries = new ArrayList<>(counts.entrySet());
        Collections.sort(entries, new Comparator<Map.Entry<String, Integer>>() {
            @Override
            public int compare(Map.Entry<String, Integer> a, Map.Entry<String, Integer> b) {
                if (!a.getValue().equals(b.getValue())) {
                    return b.getValue() - a.getValue();
                }
                return a.getKey().compareTo(b.getKey());
            }
        });
        for (int i = 0; i < entries.size() && i < k; i++) {
            System.out.println(entries.get(i).getKey() + " " + entries.get(i).getValue());
        }
    }
}
